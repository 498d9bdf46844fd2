"""Babylon's tactical game as a state: whose turn it is, what each turn placed, the special moves, the end.

Pure: a :class:`TacticalState` is frozen data and :func:`play_turn` returns the
next one. A turn is given as the building after it (a scene in which pieces
keep their ids) together with the physics verdict on that building; the turn
rules of :func:`~sim.games.babylon.turns.check_turn` decide whether it stands.
The first round is the players' first turns, one each, in seat order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from sim.games.babylon.building import Layout, read_layout
from sim.games.babylon.scoring import TacticalScore, score_tactical
from sim.games.babylon.supply import BRIDGE, TOWER, BabylonError, Pieces, allotment, placed_by, players_of
from sim.games.babylon.turns import TurnVerdict, check_turn
from sim.games.contract import Verdict, field_of, reading
from sim.scene import Scene, from_dict, to_dict


class IllegalTurnError(BabylonError):
    """A turn the rules refuse.

    Attributes:
        verdict: the judgement, with every broken rule.
    """

    def __init__(self, verdict: TurnVerdict):
        self.verdict = verdict
        super().__init__("; ".join(f"{v.rule}: {v.reason}" for v in verdict.violations))


@dataclass(frozen=True)
class Turn:
    """One turn as played.

    Attributes:
        player: whose turn it was.
        placed: the pieces placed, in scene order.
        swapped: the two nobles the special move swapped, if any.
        rotated: the tower the expert special move turned, if any.
    """

    player: str
    placed: tuple[str, ...]
    swapped: tuple[str, str] | None = None
    rotated: str | None = None

    def to_json(self) -> dict:
        """``{player, placed, swapped, rotated}``."""
        return {"player": self.player, "placed": list(self.placed),
                "swapped": None if self.swapped is None else list(self.swapped), "rotated": self.rotated}

    @classmethod
    def from_json(cls, data: Mapping) -> Turn:
        """The inverse of :meth:`to_json`."""
        swapped = data.get("swapped")
        return cls(str(data["player"]), tuple(data["placed"]), None if swapped is None else tuple(swapped),
                   data.get("rotated"))


@dataclass(frozen=True)
class TacticalState:
    """A tactical game at one moment.

    Attributes:
        scene: the building, with the ``players`` in seat (turn) order; every
            building part names its ``owner``.
        expert: the expert game's special move.
        current: index into the players of whose turn it is.
        turns: every turn played, in order.
        over: why the game ended (None while it goes on).
    """

    scene: Scene
    expert: bool = False
    current: int = 0
    turns: tuple[Turn, ...] = ()
    over: str | None = None

    @property
    def players(self) -> tuple[str, ...]:
        """The colours in seat order."""
        return tuple(self.scene.players or ())

    @property
    def player(self) -> str:
        """Whose turn it is."""
        return self.players[self.current]

    @property
    def turn(self) -> int:
        """The number of the turn under way, from 1."""
        return len(self.turns) + 1

    @property
    def first_round(self) -> bool:
        """Whether the first round's restrictions apply to the turn under way."""
        return len(self.turns) < len(self.players)

    @cached_property
    def layout(self) -> Layout:
        """The building as the rules read it."""
        return read_layout(self.scene)

    def hand(self, player: str | None = None) -> Pieces:
        """What ``player`` (default: whose turn it is) has not placed yet."""
        player = player or self.player
        return allotment("tactical", len(self.players)) - placed_by(self.scene, player)

    def to_json(self) -> dict:
        """The state as JSON data (the scene in its file form); :meth:`from_json` reads it back."""
        return {"game": "babylon", "variant": "tactical", "scene": to_dict(self.scene), "expert": self.expert,
                "current": self.current, "turns": [t.to_json() for t in self.turns], "over": self.over}

    @classmethod
    def from_json(cls, data: Mapping) -> TacticalState:
        """The inverse of :meth:`to_json`.

        Raises:
            BabylonError: the data is of another game, or its scene is not valid.
        """
        with reading(BabylonError):
            if data.get("game") != "babylon" or data.get("variant") != "tactical":
                raise BabylonError(f"state: expected a Babylon tactical game, got {data.get('game')!r} "
                                   f"{data.get('variant')!r}")
            def get(key, kind):
                return field_of(data, key, kind, BabylonError)

            scene = from_dict(get("scene", dict), "<state>")
            players = players_of(scene)
            current = get("current", int)
            if not 0 <= current < len(players):
                raise BabylonError(f"state: current: expected 0 to {len(players) - 1}, got {current}")
            return cls(scene, get("expert", bool), current, tuple(Turn.from_json(t) for t in get("turns", list)),
                       get("over", (str, type(None))))


def new_tactical(players: Sequence[str], *, expert: bool = False, board: str = "babylon-table") -> TacticalState:
    """A tactical game about to begin: nothing built, the first player to move.

    Args:
        players: the colours in seat order, the starting player first.
        expert: the expert game's special move.
        board: where the building stands.

    Raises:
        BabylonError: not 3 to 5 players, or a colour no noble has.
    """
    scene = Scene("babylon", board, (), "Babylon tactical game", players=tuple(players))
    players_of(scene)
    return TacticalState(scene, expert)


def judge_turn(state: TacticalState, after: Scene, verdict: Verdict | None = None) -> TurnVerdict:
    """Judge the current player's turn without playing it (what :func:`play_turn` would say).

    Args:
        state: the game, not over.
        after: the building after the turn; new pieces are the ones placed.
        verdict: the physics verdict on ``after`` (None: its standing unjudged).

    Raises:
        BabylonError: the game is over, or ``after`` is not a state of this game.
    """
    if state.over is not None:
        raise BabylonError(f"the game is over: {state.over}")
    return check_turn(state.layout, read_layout(_owned(state, after)), state.player, expert=state.expert,
                      first_round=state.first_round, verdict=verdict)


def play_turn(state: TacticalState, after: Scene, verdict: Verdict | None = None) -> TacticalState:
    """Play the current player's turn: the building becomes ``after``, the next player moves.

    New towers and bridges without an ``owner`` become the player's. A turn in
    which the player cannot place four pieces and places none ends the game, as
    does one after which every noble is placed.

    Args:
        state: the game, not over.
        after: the building after the turn (knocked-down pieces put back).
        verdict: the physics verdict on ``after`` (None: its standing unjudged).

    Raises:
        IllegalTurnError: the turn breaks a rule (its ``verdict`` says which).
        BabylonError: the game is over, or ``after`` is not a state of this game.
    """
    judged = judge_turn(state, after, verdict)
    if not judged.legal:
        raise IllegalTurnError(judged)
    turn = Turn(state.player, judged.placed, judged.swapped, judged.rotated)
    return replace(state, scene=_owned(state, after), current=(state.current + 1) % len(state.players),
                   turns=state.turns + (turn,), over=judged.game_over)


def score(state: TacticalState) -> TacticalScore:
    """The tactical score of the building as it stands (the final score once the game is over)."""
    return score_tactical(state.layout, state.players)


def _owned(state: TacticalState, after: Scene) -> Scene:
    """``after`` with the new building parts that name no owner given to the current player."""
    old = set(state.scene.ids)
    return after.with_pieces(replace(p, owner=state.player)
                             if p.id not in old and p.owner is None and p.kind in (TOWER, BRIDGE) else p
                             for p in after.pieces)
