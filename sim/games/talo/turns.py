"""What every Talo turn shares, with or without pawns: throwing, taking blocks, the log, passing on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import ClassVar, Self

import numpy as np

from sim.games.contract import Violation, field_of, reading
from sim.games.log import EventLog
from sim.games.talo.board import TaloError
from sim.games.talo.stock import Stock, Throws, recorded_throws, throw_for_blocks
from sim.scene import Scene, from_dict, to_dict

THROW, TAKE, BUILD, OVER = "throw", "take", "build", "over"
"""Phases of a turn: throw the die, take blocks, build (and move), and the game's end."""


class IllegalMoveError(TaloError):
    """An action the rules refuse.

    Attributes:
        violations: the broken rules, with their reasons.
    """

    def __init__(self, violations: list[Violation] | Violation | str):
        if isinstance(violations, str):
            violations = Violation("turn", (), violations)
        if isinstance(violations, Violation):
            violations = [violations]
        self.violations = list(violations)
        super().__init__("; ".join(f"{v.rule}: {v.reason}" for v in self.violations))


@dataclass(frozen=True)
class TurnEvent:
    """One entry of a game's log.

    Attributes:
        turn: the turn number (1-based; 0 for the pawns' start fields).
        player: whose turn it was.
        action: ``start``, ``throw``, ``take``, ``place``, ``move``, ``restart``,
            ``pass``, ``end``, ``collapse``, ``win``.
        data: JSON-ready details.
    """

    turn: int
    player: str
    action: str
    data: Mapping = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "data", MappingProxyType(dict(self.data)))

    def to_json(self) -> dict:
        """``{turn, player, action, **data}``."""
        return {"turn": self.turn, "player": self.player, "action": self.action, **self.data}

    @classmethod
    def from_json(cls, data: Mapping) -> TurnEvent:
        """The inverse of :meth:`to_json`."""
        rest = {k: v for k, v in data.items() if k not in ("turn", "player", "action")}
        return cls(int(data["turn"]), str(data["player"]), str(data["action"]), rest)


@dataclass(frozen=True)
class Outcome:
    """How a game ended.

    Attributes:
        reason: ``level 10``, ``collapse``, ``blocks used up`` or ``goal reached``.
        winners: the winning players (several on a tie, none when nobody wins).
        loser: the player who caused a collapse.
    """

    reason: str
    winners: tuple[str, ...] = ()
    loser: str | None = None

    def to_json(self) -> dict:
        """``{reason, winners, loser}``."""
        return {"reason": self.reason, "winners": list(self.winners), "loser": self.loser}

    @classmethod
    def from_json(cls, data: Mapping) -> Outcome:
        """The inverse of :meth:`to_json`."""
        return cls(str(data["reason"]), tuple(data["winners"]), data["loser"])


@dataclass(frozen=True)
class TurnState:
    """What a turn-based Talo game (with or without pawns) is at one moment.

    Attributes:
        scene: the building (and pawns).
        players: players in turn order.
        stock: blocks left to take.
        current: index of the player whose turn it is.
        turn: turn number, from 1.
        phase: ``throw``, ``take``, ``build`` or ``over``.
        rolls: this turn's throws.
        options: what the last throw allows.
        hand: lengths taken and not yet placed.
        placed: blocks placed so far (numbers their ids).
        outcome: how the game ended, once over.
        log: everything that happened (shared with the states before: :class:`~sim.games.log.EventLog`;
            any sequence of events given becomes one).
    """

    scene: Scene
    players: tuple[str, ...]
    stock: Stock
    current: int = 0
    turn: int = 1
    phase: str = THROW
    rolls: tuple[int, ...] = ()
    options: tuple[tuple[int, ...], ...] = ()
    hand: tuple[int, ...] = ()
    placed: int = 0
    outcome: Outcome | None = None
    log: EventLog = field(default_factory=EventLog)

    VARIANT: ClassVar[str] = ""
    """The game's name in the JSON form (``talo``, ``fantasy``)."""

    def __post_init__(self):
        if not isinstance(self.log, EventLog):
            object.__setattr__(self, "log", EventLog.of(self.log))

    @property
    def player(self) -> str:
        """Whose turn it is."""
        return self.players[self.current]

    def to_json(self) -> dict:
        """The state as JSON data (the scene in its file form); :meth:`from_json` reads it back."""
        return {"game": "talo", "variant": self.VARIANT, "scene": to_dict(self.scene),
                "players": list(self.players), "stock": [list(c) for c in self.stock.counts],
                "current": self.current, "turn": self.turn, "phase": self.phase, "rolls": list(self.rolls),
                "options": [list(o) for o in self.options], "hand": list(self.hand), "placed": self.placed,
                "outcome": None if self.outcome is None else self.outcome.to_json(),
                "log": [e.to_json() for e in self.log]}

    @classmethod
    def from_json(cls, data: Mapping) -> Self:
        """The inverse of :meth:`to_json`.

        Raises:
            TaloError: the data is of another game, or its scene is not valid.
        """
        with reading(TaloError):
            if data.get("game") != "talo" or data.get("variant") != cls.VARIANT:
                raise TaloError(f"state: expected a {cls.VARIANT} game, got {data.get('game')!r} "
                                f"{data.get('variant')!r}")
            def get(key, kind):
                return field_of(data, key, kind, TaloError)

            outcome = get("outcome", (dict, type(None)))
            players = tuple(str(p) for p in get("players", list))
            current = get("current", int)
            if not 0 <= current < len(players):
                raise TaloError(f"state: current: expected 0 to {len(players) - 1}, got {current}")
            return cls(from_dict(get("scene", dict), "<state>"), players,
                       Stock.of({int(n): int(c) for n, c in get("stock", list)}), current,
                       get("turn", int), get("phase", str), tuple(int(r) for r in get("rolls", list)),
                       tuple(tuple(int(n) for n in o) for o in get("options", list)),
                       tuple(int(n) for n in get("hand", list)), get("placed", int),
                       None if outcome is None else Outcome.from_json(outcome),
                       tuple(TurnEvent.from_json(e) for e in get("log", list)))


def logged(state, action: str, **data):
    """``state`` with an event of the current player appended to its log."""
    return replace(state, log=state.log.add(TurnEvent(state.turn, state.player, action, data)))


def require(state, *phases: str) -> None:
    """Refuse an action outside ``phases``.

    Raises:
        IllegalMoveError: the game is over or the turn is in another phase.
    """
    if state.phase == OVER:
        raise IllegalMoveError("the game is over")
    if state.phase not in phases:
        raise IllegalMoveError(f"not now: the turn is at '{state.phase}', this needs '{' or '.join(phases)}'")


def next_player(state):
    """The next player's turn, starting with a throw."""
    return replace(state, current=(state.current + 1) % len(state.players), turn=state.turn + 1,
                   phase=THROW, rolls=(), options=(), hand=())


def throw(state, rng: np.random.Generator | None = None, rolls=None):
    """Throw the die (up to three times while nothing matches); pass the turn if nothing does.

    Args:
        state: a game state in its ``throw`` phase.
        rng: the die's randomness; or
        rolls: the numbers the die showed, to replay a game.

    Raises:
        IllegalMoveError: not the time to throw.
        TaloError: the recorded rolls break the three-throw rule.
    """
    require(state, THROW)
    if (rng is None) == (rolls is None):
        raise TaloError("throw needs either a random generator or the recorded rolls")
    got: Throws = throw_for_blocks(state.stock, rng) if rolls is None else recorded_throws(state.stock, rolls)
    state = logged(replace(state, rolls=got.rolls, options=got.options), "throw",
                   rolls=list(got.rolls), options=[list(o) for o in got.options])
    if got.can_build:
        return replace(state, phase=TAKE)
    return next_player(logged(state, "pass", reason=f"no blocks match after {len(got.rolls)} throw(s)"))


def take(state, lengths):
    """Take one of the combinations the throw allows.

    Raises:
        IllegalMoveError: not the time, or not one of the options.
    """
    require(state, TAKE)
    combo = tuple(sorted(int(n) for n in lengths))
    if combo not in state.options:
        allowed = " | ".join("+".join(map(str, o)) for o in state.options)
        raise IllegalMoveError(Violation("take", (), f"{'+'.join(map(str, combo)) or 'nothing'} is not allowed "
                                                f"for a throw of {state.rolls[-1]}: take {allowed}"))
    return logged(replace(state, stock=state.stock.take(combo), hand=combo, phase=BUILD), "take",
                  blocks=list(combo))


def from_hand(state, lengths) -> tuple[int, ...]:
    """The hand once ``lengths`` are placed from it.

    Raises:
        IllegalMoveError: the hand does not hold them.
    """
    hand = list(state.hand)
    for n in lengths:
        if n not in hand:
            have = " + ".join(map(str, state.hand)) or "nothing"
            raise IllegalMoveError(Violation("hand", (), f"no block of length {n} in hand (holding {have})"))
        hand.remove(n)
    return tuple(hand)


def end_turn(state):
    """End the turn; blocks taken but not placed go back to the stock."""
    require(state, BUILD)
    if state.hand:
        state = logged(replace(state, stock=state.stock.give_back(state.hand), hand=()), "end",
                       returned=list(state.hand))
    else:
        state = logged(state, "end")
    return next_player(state)
