"""The one game interface: a game in progress, the same for the three games and every variant (OpenSpiel's
``State`` is the model).

A :class:`PlayState` is frozen: :meth:`PlayState.apply` answers with a new
state and what happened (:class:`Step`), and leaves the old one as it was.
It asks before it refuses: :meth:`~PlayState.legal_actions` lists every game
action the referee accepts now (``throw``, ``end-turn``, ``swap-nobles`` ...),
:meth:`~PlayState.placeable` the pieces a hand may take, and
:meth:`~PlayState.legal_placements` where a piece may be set down, each with
the rule that allows it. What no list can know in advance is balance: whether
a building stands is the statics' verdict after the piece is down.

Inside, a state is a game's referee (:mod:`sim.games.play.session`, the very
session the viewer's play mode runs) on a :class:`~sim.games.play.still.StillTable`:
the referee is the one judge of what is legal, and the lists are asked of it.
Actions are plain data, the viewer's own where it has them::

    {"action": "place", "piece": "b4-1", "pose": [x, y, z, qx, qy, qz, qw]}   # pick, carry, set down
    {"action": "wait", "seconds": 15.0}                                       # time passes
    {"action": "throw"}, {"action": "take", "blocks": [1, 4]}, ...            # the game's own

A state's JSON form is the game it came from and the actions applied to it
(OpenSpiel's serialisation by history): reading it plays them again, which
gives the same state, bit for bit, since the referee's randomness comes from
the seed.
"""

from __future__ import annotations

import json
import math
import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from sim.games.play.session import GameEvent, PlayError, Session
from sim.games.play.spots import Placement, table_refusal
from sim.games.play.still import StillTable
from sim.scene import Scene
from sim.scene.overlap import Obstacles

if TYPE_CHECKING:
    from sim.games.registry import Variant

FORMAT = "towerlab-play/1"
"""The ``format`` of a state's JSON form."""
MAX_ACTIONS = 100_000
"""The most actions a state's JSON form may hold."""
MAX_WAIT = 24 * 3600.0
"""The longest wait (s) an action may ask for."""
MAX_COORD = 100.0
"""The farthest (m) from the table's centre a piece may be set down."""
HAND = "right"
"""The hand a placement is made with (the viewer's first hand)."""


class Step(NamedTuple):
    """What :meth:`PlayState.apply` answers.

    Attributes:
        state: the game after the action (the game as it was, give or take the referee's journal, when the
            action was refused).
        events: what happened, in order: the referee's journal entries (``placed``, ``turn_changed``,
            ``refused`` {rule, reason, player}, ``game_over`` ...), then each thing it said (``said``
            {kind, text}).
    """

    state: PlayState
    events: tuple[GameEvent, ...]

    @property
    def refusal(self) -> GameEvent | None:
        """The refusal among the events (``refused``: its ``rule`` names the rule), None when accepted."""
        return next((e for e in self.events if e.kind == "refused"), None)

    @property
    def accepted(self) -> bool:
        """The referee did not refuse the action."""
        return self.refusal is None


@dataclass(frozen=True, eq=False)
class PlayState:
    """A game in progress (see the module docstring). Make one with :func:`sim.games.registry.new_state`.

    The actions applied since the set-up are kept as JSON text, so that nobody changes them in place
    (:attr:`history` reads them); the referee and the table are the state's own and never change.

    Attributes:
        variant: the registered variant (:class:`sim.games.registry.Variant`).
        players: who plays, in seat order.
        seed: the seed of the set-up, the die and the deal.
    """

    variant: Variant
    players: tuple[str, ...]
    seed: int
    _moves: tuple[str, ...] = field(default=(), repr=False)
    _session: Session = field(default=None, repr=False)
    _table: StillTable = field(default=None, repr=False)

    @classmethod
    def new(cls, variant: Variant, players: Sequence[str] | None = None, seed: int = 0) -> PlayState:
        """``variant`` set up for ``players`` (its default players when None) with ``seed``.

        Raises:
            PlayError: players the game does not allow.
        """
        from sim.games.play.judge import statics_judge

        game = variant.start(players, seed)
        table = StillTable(game.scene, game.supply, statics_judge, game.prepare)
        table.seat = game.session.seat
        return cls(variant, tuple(game.session.players), int(seed), (), game.session, table)

    # --- reading ----------------------------------------------------------------------------------

    @property
    def history(self) -> tuple[dict, ...]:
        """Every action applied since the set-up, as JSON data (copies: the state keeps its own)."""
        return tuple(json.loads(m) for m in self._moves)

    @property
    def game(self) -> str:
        """The scene format's game."""
        return self.variant.game

    @property
    def current_player(self) -> str | None:
        """Who is to act (whose turn, or whose hands are at work where everyone builds at once); None once over."""
        return self._session.current_player

    @property
    def is_terminal(self) -> bool:
        """The game is over."""
        return self._session.over

    def outcome(self) -> dict:
        """``{winners, loser, scores}``: how the game stands or ended (each game's own scores)."""
        return self._session.outcome()

    def returns(self) -> dict[str, float]:
        """Player -> 1 for a winner, -1 for the player who lost by a collapse, 0 for the others, once the game is
        over (0 for everyone before)."""
        if not self.is_terminal:
            return {p: 0.0 for p in self.players}
        o = self.outcome()
        return {p: 1.0 if p in o["winners"] else -1.0 if p == o["loser"] else 0.0 for p in self.players}

    @property
    def action_names(self) -> tuple[str, ...]:
        """The variant's own actions besides ``place`` and ``wait`` (what only changes a window's view left out:
        Talo's ``select-pawn``, which :meth:`apply` answers all the same)."""
        return tuple(a for a in self._session.ACTIONS if a not in self._session.VIEW_ACTIONS)

    @property
    def journal(self) -> tuple[GameEvent, ...]:
        """Everything the referee logged since the set-up (what a recording stores as game events)."""
        return tuple(self._session.journal)

    def view(self) -> dict:
        """What the viewer's panels show of the game, as JSON data (each game's own keys)."""
        return self._session.view()

    def scene(self) -> Scene:
        """The table as it is: every piece where the game has put it."""
        return self._table.scene()

    @property
    def supply(self) -> frozenset[str]:
        """Ids of the pieces waiting in the supply."""
        return self._table.supply

    def session_json(self) -> dict:
        """The referee's own JSON form (``{game, variant, players, time, state, ...}``)."""
        return self._session.to_json()

    def table_json(self) -> dict:
        """The table as JSON data (:meth:`~sim.games.play.still.StillTable.snapshot`)."""
        return self._table.snapshot()

    def __eq__(self, other) -> bool:
        if not isinstance(other, PlayState):
            return NotImplemented
        return (self.game, self.variant.name, self.players, self.seed) == (
            other.game, other.variant.name, other.players, other.seed) and self.session_json() == \
            other.session_json() and self.table_json() == other.table_json() and \
            [e.to_json() for e in self.journal] == [e.to_json() for e in other.journal]

    __hash__ = None

    # --- what is legal ----------------------------------------------------------------------------

    def legal_actions(self) -> list[dict]:
        """Every game action the referee accepts now, with its discrete fields (``take`` each combination the
        throw allows, ``move-pawn`` each spot the pawn reaches ...); a clock's ``wait`` once, to the end of the
        turn or round. Placements are not among them: :meth:`placeable` and :meth:`legal_placements`. Empty once
        the game is over."""
        if self.is_terminal:
            return []
        return self._session.legal_actions(self._table)

    def placeable(self) -> list[str]:
        """The pieces a hand may take now (the referee accepts the pick), table order."""
        if self.is_terminal:
            return []
        out = []
        for piece in self._session.candidates(self._table):
            if self._session.clone().pick(piece, self._table)[0]:
                out.append(piece)
        return out

    def legal_placements(self, piece: str) -> list[Placement]:
        """Where ``piece`` may be set down now, each with the rule that allows it: every placement the referee
        accepts but for balance (the statics' verdict once it is down). Empty when it may not be taken.

        Raises:
            PlayError: no such piece on the table.
        """
        self._piece(piece)
        if self.is_terminal:
            return []
        session, table = self._session.clone(), self._table.copy()
        ok, effects = session.pick(piece, table)
        if not ok:
            return []
        table.carry_out(effects)
        table.hand = (HAND, piece)
        return session.placements(piece, table)

    # --- acting -----------------------------------------------------------------------------------

    def apply(self, action: Mapping) -> Step:
        """Apply ``action`` (see the module docstring): the game after it and what happened.

        A refusal is an answer, not an error: the step's :attr:`Step.refusal` names the rule and the game is as
        it was (give or take the referee's bookkeeping: a block placed together with another goes back with
        it).

        Raises:
            PlayError: a malformed action (not an object, an unknown action, a field of the wrong shape).
        """
        a = self._checked(action)
        session, table = self._session.clone(), self._table.copy()
        start, said = len(session.journal), []
        revision = table.revision
        name = a["action"]
        try:
            if name == "place":
                said += self._place(session, table, a["piece"], a["pose"])
            elif name == "wait":
                said += table.carry_out(session.tick(a["seconds"], table))
            else:
                said += table.carry_out(session.act(name, {k: v for k, v in a.items() if k != "action"}, table))
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise PlayError(f"{name}: malformed action {_shown(action)} ({type(e).__name__}: {e})") from None
        if table.revision != revision:  # the table is at rest in a new configuration (the viewer asks the same)
            said += table.carry_out(session.settled(table))
        events = tuple(session.journal[start:]) + tuple(
            GameEvent(session.time, "said", {"kind": k, "text": t}) for k, t in said)
        state = PlayState(self.variant, self.players, self.seed, (*self._moves, json.dumps(a)), session, table)
        return Step(state, events)

    def _place(self, session: Session, table: StillTable, piece: str, pose) -> list[tuple[str, str]]:
        ok, effects = session.pick(piece, table)
        said = table.carry_out(effects)
        if not ok:
            return said
        problem = table_refusal(Obstacles(table.scene(), ignore=(piece,)), self._piece(piece), pose)
        if problem is not None:
            return said + table.carry_out(session.refuse(problem))
        table.hand = (HAND, piece)
        ok, effects = session.drop(self._piece(piece).moved(pose[:3], pose[3:]), table)
        table.hand = None
        if ok:
            table.set_pose(piece, pose)
        return said + table.carry_out(effects)

    def clone(self) -> PlayState:
        """An equal state with a referee and a table of its own (a state never changes, so this is only for
        whoever wants to hand one on)."""
        return PlayState(self.variant, self.players, self.seed, self._moves, self._session.clone(),
                         self._table.copy())

    # --- files ------------------------------------------------------------------------------------

    def to_json(self) -> dict:
        """``{format, game, variant, players, seed, actions}``: the game and every action applied."""
        return {"format": FORMAT, "game": self.game, "variant": self.variant.name, "players": list(self.players),
                "seed": self.seed, "actions": list(self.history)}

    @classmethod
    def from_json(cls, data: Mapping) -> PlayState:
        """The state a :meth:`to_json` form describes: its game set up again and its actions played again.

        Raises:
            PlayError: one line naming the field: not this format, an unknown game, variant or player, a seed
                that is not a whole number >= 0, too many actions, or an action that is malformed.
        """
        from sim.games import registry
        from sim.games.contract import field_of

        if not isinstance(data, Mapping):
            raise PlayError(f"state: expected a JSON object, got {type(data).__name__}")
        if data.get("format") != FORMAT:
            raise PlayError(f"format: expected {FORMAT!r}, got {_shown(data.get('format'))}")
        game = field_of(data, "game", str, PlayError)
        name = field_of(data, "variant", str, PlayError)
        players = field_of(data, "players", list, PlayError)
        if not all(isinstance(p, str) for p in players):
            raise PlayError(f"state: players: expected names, got {_shown(players)}")
        seed = field_of(data, "seed", int, PlayError)
        if seed < 0:
            raise PlayError(f"state: seed: expected a whole number >= 0, got {seed}")
        actions = field_of(data, "actions", list, PlayError)
        if len(actions) > MAX_ACTIONS:
            raise PlayError(f"state: actions: at most {MAX_ACTIONS}, got {len(actions)}")
        state = cls.new(registry.variant(game, name), players, seed)
        for k, a in enumerate(actions):
            try:
                state = state.apply(a).state
            except PlayError as e:
                raise PlayError(f"state: actions[{k}]: {e}") from None
        return state

    # --- helpers ----------------------------------------------------------------------------------

    def _piece(self, piece_id):
        if not isinstance(piece_id, str) or piece_id not in self._table.poses or piece_id in self._table.set_aside:
            raise PlayError(f"piece: no piece {_shown(piece_id)} on the table")
        return self._table.scene0.piece(piece_id)

    def _checked(self, action) -> dict:
        """``action`` as the history keeps it, checked."""
        if not isinstance(action, Mapping) or not isinstance(action.get("action"), str):
            raise PlayError(f"action: expected an object like {{\"action\": \"throw\"}}, got {_shown(action)}")
        name = action["action"]
        try:
            out = json.loads(json.dumps(dict(action), allow_nan=False))
        except (TypeError, ValueError, RecursionError):
            raise PlayError(f"{name}: expected JSON data, got {_shown(action)}") from None
        if name == "place":
            self._piece(out.get("piece"))
            out["pose"] = _pose(out.get("pose"))
            return {"action": name, "piece": out["piece"], "pose": out["pose"]}
        if name == "wait":
            s = out.get("seconds")
            if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= MAX_WAIT:
                raise PlayError(f"wait: seconds: expected 0 to {MAX_WAIT:g}, got {_shown(s)}")
            return {"action": name, "seconds": float(s)}
        if name not in self._session.ACTIONS:
            known = ", ".join(("place", "wait", *self._session.ACTIONS))
            raise PlayError(f"action: {name!r} is not an action of {self.game} {self.variant.name} (its actions: "
                            f"{known})")
        return out


def _pose(value) -> list[float]:
    """A (7,) pose from JSON: finite, within :data:`MAX_COORD`, its quaternion made unit."""
    ok = isinstance(value, list) and len(value) == 7 and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in value)
    if not ok:
        raise PlayError(f"place: pose: expected [x, y, z, qx, qy, qz, qw] (m, quaternion), got {_shown(value)}")
    if max(abs(x) for x in value[:3]) > MAX_COORD:
        raise PlayError(f"place: pose: expected within {MAX_COORD:g} m of the table's centre, got {_shown(value)}")
    norm = math.sqrt(sum(q * q for q in value[3:]))
    if not 0.5 < norm < 1.5:
        raise PlayError(f"place: pose: expected a unit quaternion, got one of length {norm:.3g}")
    return [float(x) for x in value[:3]] + [float(q) / norm for q in value[3:]]


_SHOW = reprlib.Repr()
_SHOW.maxlevel, _SHOW.maxstring, _SHOW.maxother = 3, 40, 40


def _shown(value) -> str:
    """``value`` in at most 60 characters, however deep or long it is (a file from elsewhere)."""
    text = _SHOW.repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = ["FORMAT", "PlayState", "Step"]
