"""What every played game shares: the table it reads, the effects it asks for, its journal, the base session.

A session is the referee of one game being played on the viewer's table. It
is pure: it never touches an engine or a window. The viewer's play mode
(:mod:`sim.viewer.play`) hands it what happens on the table as plain data — a
play action (``throw``, ``end-turn``, ``stop`` ...), a piece picked up, a piece
about to be set down (the piece as it would lie), pieces knocked down by a player, the table at
rest with the statics' verdict, time passing — and the session answers with
:class:`Effect` values the play mode carries out on the table (say something,
put a piece back, place one at a pose, clear the table for a new round ...).
Randomness comes in as a ``numpy.random.Generator``, time as seconds passed in;
so the same set-up, seed and actions give the same game every time.

Rule refusals are part of a game, not errors: a refused action leaves the
game as it was, is said to the players and written to the :attr:`Session.journal`
(``refused``), and a script goes on. A malformed request (an unknown player,
a field of the wrong shape) is a :class:`PlayError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

import numpy as np

from sim.dispatch import handler_table
from sim.errors import TowerlabError
from sim.games.contract import Verdict
from sim.games.play.effects import (  # noqa: F401 - the effects, where the sessions have always found them
    Clear,
    Effect,
    EmptyHands,
    Pin,
    Place,
    PutBack,
    Say,
    Seat,
    SetAside,
    ToSupply,
    Unpin,
    Walk,
)
from sim.scene import Piece, Scene


class PlayError(TowerlabError):
    """A play action that is malformed or names something that does not exist (not a rule refusal)."""


class Refused(Exception):  # noqa: N818 - a refusal is an answer of the rules, not an error
    """Raised inside a session when the rules refuse something; the session turns it into a message.

    Args:
        rule: the rule's stable name (the games' own, ``turn``, ``not-yours`` ...).
        reason: one sentence for the players.
        effects: what the table must still do (a piece held for a placement together goes back).
    """

    def __init__(self, rule: str, reason: str, effects=()):
        super().__init__(f"{rule}: {reason}")
        self.rule = rule
        self.reason = reason
        self.effects = tuple(effects)


# --- the table, as a session reads it -----------------------------------------------------------------


class Table(Protocol):
    """What a session reads of the table (the viewer's play mode keeps it on the controller)."""

    def scene(self) -> Scene:
        """Every piece as it is now (carried pieces where the hand holds them)."""

    @property
    def supply(self) -> frozenset[str]:
        """Ids of the pieces waiting in the supply."""

    @property
    def carried(self) -> Mapping[str, str]:
        """Hand -> the piece it holds."""

    def home(self, piece_id: str) -> tuple[float, ...]:
        """(7,) where the set-up put a piece."""

    def in_play(self, piece_id: str) -> bool:
        """Whether the piece has been put into play: neither waiting in the supply nor carried from it."""

    def verdict(self) -> Verdict | None:
        """The statics' verdict on the pieces at rest now (carried pieces left out), None if not known."""


# --- the journal ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameEvent:
    """One entry of a session's journal: what a recording stores as a game event.

    Kinds follow the recording format's game events (``turn_changed`` {player}, ``card_fulfilled``
    {player, card}, ``round_ended`` {round, reason}, ``collapse_choice`` {choice, card}, ``game_state``
    {state}, ``game_over`` {reason, winners, loser}), plus ``refused`` {rule, reason, player},
    ``placed`` {player, pieces}, ``rolled`` {player, rolls}, ``knocked`` {player, pieces} and ``said``.

    Attributes:
        time: game time (s) since the session began.
        kind: the event's name.
        data: JSON data.
    """

    time: float
    kind: str
    data: Mapping = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "data", MappingProxyType(dict(self.data)))

    def to_json(self) -> dict:
        """``{time, kind, data}``."""
        return {"time": self.time, "kind": self.kind, "data": dict(self.data)}


# --- the base session --------------------------------------------------------------------------------


def seconds_text(seconds: float) -> str:
    """``0:15`` or ``3:59``: a clock's face (whole seconds, rounded up while it runs)."""
    whole = max(0, int(np.ceil(seconds - 1e-9)))
    return f"{whole // 60}:{whole % 60:02d}"


class Session:
    """The referee of one game on the table (see the module docstring); each game subclasses it.

    Args:
        game: the scene format's game.
        variant: the game's variant.
        players: the players in seat (turn) order.

    Attributes:
        time: game seconds since the session began (only :meth:`tick` moves it).
        journal: what happened, in order.
        seat: whose hands are at work (whose turn it is, or the hot seat's player).
    """

    ACTIONS: tuple[str, ...] = ()
    """The play actions this game answers (their fields are checked by the play mode)."""
    VIEW_ACTIONS: tuple[str, ...] = ()
    """Those of :attr:`ACTIONS` that only change what the window shows (Talo's ``select-pawn``): no moves of the
    game, answered even once it is over."""
    GROUP_RULE: tuple[str, str] | None = None
    """(rule, reason) of a game whose pieces are picked up one at a time: a group picked up at once is refused
    with it (:meth:`pick_group`); None lets a group be picked up, each piece asked as it would be alone."""

    @property
    def simultaneous(self) -> bool:
        """Everyone builds at once, each player with hands of their own (Babylon's fast games, Tohuwabohu's
        professional one): a pick or a drop may be any player's, judged for that player. Elsewhere only the
        player whose hands are at work (:attr:`seat`) picks and drops."""
        return False

    def __init__(self, game: str, variant: str, players):
        self.game = game
        self.variant = variant
        self.players = tuple(players)
        self.time = 0.0
        self.journal: list[GameEvent] = []
        self.seat = self.players[0] if self.players else None

    # --- what every game answers ------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """The game has ended."""
        raise NotImplementedError

    def act(self, name: str, args: Mapping, table: Table) -> list[Effect]:
        """A play action (one of :attr:`ACTIONS`): the effects it has; a refusal is said, not raised.

        Raises:
            PlayError: not an action of this game, or a field naming nothing that exists.
        """
        if name not in self.ACTIONS:
            raise PlayError(f"{name!r} is not an action of {self.game} (its actions: {', '.join(self.ACTIONS)})")
        handler = handler_table(type(self), self.ACTIONS, "_act_")[name]

        def answer() -> list[Effect]:
            self._playing(name)
            return handler(self, args, table)

        return self._refusable(answer)

    def pick(self, piece: str, table: Table, player: str | None = None) -> tuple[bool, list[Effect]]:
        """``player`` (None: whose hands are at work, :attr:`seat`) is about to pick ``piece`` up: whether they may,
        and the effects (a refusal said, in the player's name).

        Raises:
            PlayError: ``player`` does not play.
        """
        return self._judged(player, lambda who: self._pick(piece, table, who))

    def pick_group(self, pieces, table: Table) -> tuple[bool, list[Effect]]:
        """A player is about to pick several pieces up at once, as one group (the viewer's box selection):
        whether the rules let them (:attr:`GROUP_RULE`), and the effects (a refusal said). Each piece is then
        asked of :meth:`pick` as it would be alone."""
        def check():
            if self.GROUP_RULE is not None:
                raise Refused(*self.GROUP_RULE)
            return []
        return self._allowed(check)

    def drop(self, piece: Piece, table: Table, player: str | None = None) -> tuple[bool, list[Effect]]:
        """A piece in ``player``'s hand (None: whose hands are at work) is about to be set down: ``piece`` as it
        would lie there (its pose the landing's: the session does not read it back from the table). Whether it may
        be, judged for that player, and the effects.

        A refused piece is put back where it was picked up (:class:`PutBack` among the effects).

        Raises:
            PlayError: ``player`` does not play.
        """
        ok, effects = self._judged(player, lambda who: self._drop(piece, table, who))
        if not ok:
            effects = [PutBack(piece.id), *effects]
        return ok, effects

    def drop_refusal(self, piece: Piece, table: Table, player: str | None = None) -> Refused | None:
        """Why ``piece`` set down as it lies by ``player`` (None: whose hands are at work) would be refused now,
        balance aside (None: it would not be); nothing changes. The drop's own check, asked of a copy of the
        session (what the legal placements and the window's ghost ask). A game whose drop asks the statics
        (Talo's balance) overrides it to leave them out: whether a building stands is known only once the piece
        is down."""
        who = self._actor(player)
        try:
            self._for(who)
            self.clone()._drop(piece, table, who)
        except Refused as r:
            return r
        return None

    def knocked(self, pieces, player: str | None, table: Table) -> list[Effect]:
        """The physics saw ``pieces`` knocked down after an action of ``player`` (None: nobody's)."""
        return self._refusable(lambda: self._knocked(tuple(pieces), player, table))

    def settled(self, table: Table) -> list[Effect]:
        """The table is at rest in a configuration not seen before (its verdict is ``table.verdict()``)."""
        return self._refusable(lambda: self._settled(table))

    def tick(self, seconds: float, table: Table) -> list[Effect]:
        """``seconds`` of game time passed."""
        if seconds < 0:
            raise PlayError(f"time runs forward, got {seconds} s")
        self.time += seconds
        return self._refusable(lambda: self._tick(seconds, table))

    def announce(self) -> list[Effect]:
        """The game begins on the table (the window is ready, the clock about to run): what the players are
        told first (a timed game: whose turn it is and how long it lasts). Default: nothing."""
        return []

    def view(self) -> dict:
        """What the window's panels show, as JSON data (each game's own keys; see its module)."""
        raise NotImplementedError

    @property
    def current_player(self) -> str | None:
        """Who is to act: whose turn it is, or whose hands are at work where everyone builds at once (None once
        the game is over)."""
        return None if self.over else self.seat

    def outcome(self) -> dict:
        """How the game stands or ended: ``{winners: [...], loser, scores: {player: number}}`` (each game's
        own scores: points, cards fulfilled, levels climbed, rounds won; empty before it has any)."""
        raise NotImplementedError

    # --- what is legal (asked by the one game interface, sim.games.play.state) --------------------------

    def legal_actions(self, table: Table) -> list[dict]:
        """Every play action this referee accepts now, as ``{"action": name, **fields}`` with each discrete
        choice of its fields (the game's own, none of the table's: no placements)."""
        raise NotImplementedError

    def candidates(self, table: Table) -> list[str]:
        """The pieces a pick might be accepted for (a pick decides; default: the supply's), table order."""
        return [p.id for p in table.scene().pieces if p.id in table.supply]

    def placements(self, piece: str, table: Table) -> list:
        """Where ``piece``, in a hand now, may be set down: :class:`~sim.games.play.spots.Placement` s the
        referee accepts but for balance, each free on the table."""
        raise NotImplementedError

    def clone(self) -> Session:
        """A session of its own in the same state: what one does to it the other never sees.

        A session keeps its bookkeeping in dicts, lists and sets of frozen values and its randomness in a
        ``numpy.random.Generator``; those are copied, everything else (the game's frozen states, scenes,
        the judge) is shared.
        """
        out = object.__new__(type(self))
        out.__dict__.update({k: _copied(v) for k, v in self.__dict__.items()})
        return out

    def to_json(self) -> dict:
        """The game as JSON data: ``{game, variant, players, time, state, ...}`` (the game state's own JSON)."""
        raise NotImplementedError

    # --- what subclasses fill in ------------------------------------------------------------------

    def _pick(self, piece: str, table: Table, player: str) -> list[Effect]:
        return []

    def _drop(self, piece: Piece, table: Table, player: str) -> list[Effect]:
        return []

    def _knocked(self, pieces: tuple[str, ...], player: str | None, table: Table) -> list[Effect]:
        return []

    def _settled(self, table: Table) -> list[Effect]:
        return []

    def _tick(self, seconds: float, table: Table) -> list[Effect]:
        return []

    # --- helpers ------------------------------------------------------------------------------------

    def log(self, kind: str, **data) -> None:
        """Append an event to the journal, at the current game time."""
        self.journal.append(GameEvent(self.time, kind, data))

    def player_arg(self, args: Mapping, key: str = "player") -> str:
        """The player named by ``args[key]`` (default: whose hands are at work).

        Raises:
            PlayError: a name that does not play.
        """
        name = args.get(key) or self.seat
        if name not in self.players:
            raise PlayError(f"{key}: no player {name!r}; players are {', '.join(self.players)}")
        return name

    def _actor(self, player: str | None) -> str:
        """Who picks or drops: ``player``, or whose hands are at work.

        Raises:
            PlayError: a name that does not play.
        """
        if player is None:
            return self.seat
        if player not in self.players:
            raise PlayError(f"player: no player {player!r}; players are {', '.join(self.players)}")
        return player

    def _judged(self, player: str | None, judge) -> tuple[bool, list[Effect]]:
        """``judge(who)`` for the player who picks or drops (:meth:`_actor`), where they may (:meth:`_for`)."""
        who = self._actor(player)

        def check() -> list[Effect]:
            self._for(who)
            return judge(who)
        return self._allowed(check, who)

    def _for(self, player: str) -> None:
        """Refuse a pick or a drop of anyone's but the hands at work where the game is not :attr:`simultaneous`."""
        if player != self.seat and not self.simultaneous:
            raise Refused("turn", f"it is {self.seat}'s turn, not {player}'s")

    def _playing(self, name: str) -> None:
        """Refuse every move once the game is over (what only changes the window is still answered)."""
        if self.over and name not in self.VIEW_ACTIONS:
            raise Refused("over", "the game is over")

    def _refusable(self, fn) -> list[Effect]:
        try:
            return list(fn())
        except Refused as r:
            return self._refusal(r)

    def _allowed(self, fn, player: str | None = None) -> tuple[bool, list[Effect]]:
        try:
            return True, list(fn())
        except Refused as r:
            return False, self._refusal(r, player)

    def _refusal(self, r: Refused, player: str | None = None) -> list[Effect]:
        """A refusal logged (for ``player``, default whose hands are at work) and said."""
        self.log("refused", rule=r.rule, reason=r.reason, player=self.seat if player is None else player)
        return [*r.effects, Say(f"refused ({r.rule}): {r.reason}", "refused")]

    def refuse(self, refused: Refused) -> list[Effect]:
        """A refusal from outside the rules (the table's: a piece that cannot be set down there), logged and said
        like the rules' own."""
        return self._refusal(refused)

    def refusals(self) -> list[dict]:
        """Every refusal so far: ``{time, rule, reason, player}``."""
        return [{"time": e.time, **e.data} for e in self.journal if e.kind == "refused"]


def pose_of(piece: Piece) -> tuple[float, ...]:
    """(7,) where ``piece`` lies: position (m) + quaternion xyzw."""
    return (*piece.pos, *piece.quat)


def _copied(value):
    """``value`` with its mutable containers copied all the way down (a generator's state too)."""
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copied(v) for v in value]
    if isinstance(value, set):
        return set(value)
    if isinstance(value, np.random.Generator):
        out = np.random.Generator(type(value.bit_generator)())
        out.bit_generator.state = value.bit_generator.state
        return out
    return value
