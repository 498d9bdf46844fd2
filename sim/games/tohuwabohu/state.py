"""What both Tohuwabohu variants share: the deal, each player's cards, the game clock, the log.

States are frozen plain data: every action is a function from one state to the
next (:mod:`.game`, :mod:`.pro`), so a viewer keeps states for undo, a
recording stores their JSON, and a test replays them. Shuffles come from an
injected ``numpy.random.Generator`` at the deal and nowhere else; time passes
only when the caller says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import ClassVar, Self

import numpy as np

from sim.errors import TowerlabError
from sim.games.contract import field_of, reading
from sim.games.tohuwabohu.cards import CARD_COLORS, CARDS, cards_of

DEAL_PER_COLOR = {2: 6, 3: 4, 4: 3}
"""Cards of each colour per player, by player count."""


class GameError(TowerlabError):
    """An action the rules do not allow now (a second swap in a turn, an unknown player …)."""


@dataclass(frozen=True)
class LogEntry:
    """One entry of a Tohuwabohu state's log: something that happened in the game.

    Attributes:
        time: game time (s) since the start.
        player: who did it.
        action: ``turn``, ``reveal``, ``swap``, ``fulfil``, ``win``, ``stop``, ``penalty``,
            ``collapse``, ``round``.
        card: the card concerned, if any.
    """

    time: float
    player: str
    action: str
    card: str | None = None

    def to_json(self) -> dict:
        """``{time, player, action, card}``."""
        return {"time": self.time, "player": self.player, "action": self.action, "card": self.card}

    @classmethod
    def from_json(cls, data: Mapping) -> LogEntry:
        """The inverse of :meth:`to_json`."""
        return cls(float(data["time"]), str(data["player"]), str(data["action"]), data.get("card"))


@dataclass(frozen=True)
class Hand:
    """One player's cards.

    Attributes:
        name: the player.
        pile: face-down draw pile, top first.
        open: face-up order cards (one in the basic game, up to three in the professional variant).
        done: fulfilled cards, set aside, in the order fulfilled.
    """

    name: str
    pile: tuple[str, ...]
    open: tuple[str, ...] = ()
    done: tuple[str, ...] = ()

    @property
    def finished(self) -> bool:
        """Every order fulfilled."""
        return not self.pile and not self.open

    def revealed(self, up_to: int = 1) -> Hand:
        """Cards turned over from the pile until ``up_to`` are open (fewer when the pile runs out)."""
        k = max(0, min(up_to - len(self.open), len(self.pile)))
        return replace(self, pile=self.pile[k:], open=self.open + self.pile[:k])

    def to_json(self) -> dict:
        """``{name, pile, open, done}``."""
        return {"name": self.name, "pile": list(self.pile), "open": list(self.open), "done": list(self.done)}

    @classmethod
    def from_json(cls, data: Mapping) -> Hand:
        """The inverse of :meth:`to_json`.

        Raises:
            GameError: a card that is not one of the 36.
        """
        cards = {k: tuple(str(c) for c in data[k]) for k in ("pile", "open", "done")}
        unknown = sorted({c for cs in cards.values() for c in cs} - set(CARDS))
        if unknown:
            raise GameError(f"hands: unknown order card {unknown[0]!r}")
        return cls(str(data["name"]), cards["pile"], cards["open"], cards["done"])


def deal(players: Sequence[str], rng: np.random.Generator) -> dict[str, list[str]]:
    """Deal the order cards: each player gets the same number of each colour, then shuffles them.

    Args:
        players: 2 to 4 player names, in seating order.
        rng: the source of every shuffle.

    Returns:
        Each player's draw pile, top first.

    Raises:
        GameError: not 2 to 4 players, or a name twice.
    """
    if len(players) not in DEAL_PER_COLOR:
        raise GameError(f"players: Tohuwabohu is for 2 to 4 players, got {len(players)}")
    if len(set(players)) != len(players):
        raise GameError(f"players: names must differ, got {', '.join(players)}")
    n = DEAL_PER_COLOR[len(players)]
    hands: dict[str, list[str]] = {p: [] for p in players}
    for color in CARD_COLORS:
        stack = [c.id for c in cards_of(color)]
        stack = [stack[i] for i in rng.permutation(len(stack))]
        for k, p in enumerate(players):
            hands[p].extend(stack[k * n:(k + 1) * n])
    return {p: [hand[i] for i in rng.permutation(len(hand))] for p, hand in hands.items()}


_JSON_KINDS = {"players": list, "hands": list, "time": (int, float), "clock": (int, float),
               "winner": (str, type(None)), "log": list, "turn_seconds": (int, float), "turn": int,
               "swapped": bool, "round": int, "running": bool}
"""The JSON type of every state field (of both variants)."""


@dataclass(frozen=True)
class TohuwabohuState:
    """A Tohuwabohu game at one moment, whatever the variant.

    Attributes:
        players: names in seating order (turns and claims pass to the left, the next in the list).
        hands: each player's cards, in seating order.
        time: game time (s) since the start.
        clock: seconds into the current turn (basic game) or round (professional variant).
        winner: who has fulfilled every card, once someone has.
        log: everything that happened.
    """

    VARIANT: ClassVar[str] = ""
    """The variant's name in the JSON form (``basic``, ``pro``)."""

    players: tuple[str, ...]
    hands: tuple[Hand, ...]
    time: float = 0.0
    clock: float = 0.0
    winner: str | None = None
    log: tuple[LogEntry, ...] = ()

    @classmethod
    def dealt(cls, players: Sequence[str], rng: np.random.Generator, **state) -> Self:
        """A game about to begin: the cards dealt, nothing revealed yet."""
        piles = deal(players, rng)
        return cls(tuple(players), tuple(Hand(p, tuple(piles[p])) for p in players), **state)

    @property
    def over(self) -> bool:
        """Someone has won."""
        return self.winner is not None

    def hand(self, player: str) -> Hand:
        """A player's cards.

        Raises:
            GameError: no such player.
        """
        if player not in self.players:
            raise GameError(f"no player {player!r}; players are {', '.join(self.players)}")
        return self.hands[self.players.index(player)]

    def with_hand(self, hand: Hand) -> Self:
        """This state with one player's cards replaced."""
        k = self.players.index(hand.name)
        return replace(self, hands=self.hands[:k] + (hand,) + self.hands[k + 1:])

    def logged(self, action: str, player: str, card: str | None = None) -> Self:
        """This state with an event appended to its log, at the current time."""
        return replace(self, log=self.log + (LogEntry(self.time, player, action, card),))

    def revealing(self, player: str, up_to: int) -> Self:
        """This state after ``player`` turns cards over until ``up_to`` are open, each reveal logged."""
        before = self.hand(player)
        after = before.revealed(up_to)
        state = self.with_hand(after)
        for card in after.open[len(before.open):]:
            state = state.logged("reveal", player, card)
        return state

    def require_playing(self) -> None:
        """Refuse an action once the game is won.

        Raises:
            GameError: someone has won.
        """
        if self.over:
            raise GameError(f"the game is over: {self.winner} has won")

    def to_json(self) -> dict:
        """The state as JSON data; :func:`state_from_json` reads it back."""
        out: dict = {"game": "tohuwabohu", "variant": self.VARIANT}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "hands":
                value = [h.to_json() for h in value]
            elif f.name == "log":
                value = [e.to_json() for e in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_json(cls, data: Mapping) -> Self:
        """The inverse of :meth:`to_json`.

        Raises:
            GameError: the data is of another variant, or names an unknown card.
        """
        with reading(GameError):
            if data.get("game") != "tohuwabohu" or data.get("variant") != cls.VARIANT:
                raise GameError(f"state: expected a Tohuwabohu {cls.VARIANT} game, got "
                                f"{data.get('game')!r} {data.get('variant')!r}")
            values = {}
            for f in fields(cls):
                value = field_of(data, f.name, _JSON_KINDS[f.name], GameError)
                if f.name == "hands":
                    value = tuple(Hand.from_json(h) for h in value)
                elif f.name == "log":
                    value = tuple(LogEntry.from_json(e) for e in value)
                elif isinstance(value, list):
                    value = tuple(value)
                values[f.name] = value
            state = cls(**values)
            if tuple(h.name for h in state.hands) != state.players:
                raise GameError("state: hands: expected one per player, in seating order")
            return state
