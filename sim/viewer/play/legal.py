"""What a carried piece may do in a game, as the window shows it: where it may legally be set down now, and
whether its ghost (where it would land now) is such a place.

Both are asked of the referee itself, never of a second copy of the rules: the places are its
:meth:`~sim.games.play.session.Session.placements` (what the one game interface's ``legal_placements``
lists: Talo's fields, Fantasy's free middle and blocks' tops, Babylon's tower tops, bridge spots, bridges
across two tops and table spots, Tohuwabohu's area, tops and figure points, each with the rule that allows
it), the ghost's verdict its :meth:`~sim.games.play.session.Session.drop_refusal` (the drop's own check, the
one that judges the piece when it is set down, balance aside). Each is asked of a copy of the session on a
still copy of the table (:class:`TableCopy`), so that asking changes nothing of the game. Balance stays the
refusal's: whether a building stands is known only once the piece is down (Talo's statics after the drop,
Babylon's at the turn's end), so a place listed here may still be refused for it.

The answers are kept per carried piece (:class:`Legal`) and asked again only when the game or the table
changes (the referee's record of calls grows, the live world comes to rest in another configuration, a piece
goes to or comes from the supply or a hand) or the ghost moves. In a window they are worked out on a thread
of their own (:meth:`LegalMoves.start`), so that no frame waits for them (Talo's 250 grid placements of an
empty board take about a tenth of a second, a Babylon ghost's check some 50 ms over a 30-piece city); there
the ghost is judged once it stands still or snaps to a place. Without a window (scripts, tests) they are
worked out when asked, and only then: a scripted game never pays for them.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from sim.games.play.session import Refused
from sim.games.play.spots import Placement
from sim.geometry.transforms import transform_points
from sim.scene import Piece, Scene

SAME = 1e-6
"""Poses (m, quaternion components) closer than this are one ghost."""
PLACE = (0.10, 0.95, 1.00, 1.0)
"""The colour of the rings the window draws at the places (:mod:`sim.viewer.window.play.draw_legal`): a cyan no board,
table or piece of the three games shows."""
LIFT = 0.003
"""How far (m) a ring floats over what it lies on: above the decals printed on a piece's top (a level's areas
and figure points, which the software renderer lifts half a millimetre a layer)."""
RING_MIN, RING_MAX = 0.006, 0.010
"""A ring's radius (m): a third of the carried piece's smaller side seen from above, within these (a figure's
ring lies round the figure point's disc)."""


def same(a, b) -> bool:
    """Whether two poses (7,) are one ghost's (within :data:`SAME`); asked every frame, so in plain Python."""
    return all(abs(float(x) - float(y)) <= SAME for x, y in zip(a, b))


def ring_radius(piece: Piece) -> float:
    """The radius (m) of the rings drawn at the places of ``piece``: a third of its smaller side, within
    :data:`RING_MIN` and :data:`RING_MAX`."""
    return float(np.clip(min(piece.shape.extent[:2]) / 3.0, RING_MIN, RING_MAX))


RING_SEGMENTS = 20
"""Straight pieces a ring is drawn with."""


def ring(point, radius: float, segments: int = RING_SEGMENTS) -> np.ndarray:
    """(segments + 1, 3) m: the ring drawn round a place's point (3,), :data:`LIFT` over it, closed (the first
    point again last)."""
    a = np.linspace(0.0, 2 * np.pi, segments + 1)
    return np.column_stack([np.cos(a), np.sin(a), np.zeros_like(a)]) * radius + np.asarray(point) + (0.0, 0.0, LIFT)


@dataclass(frozen=True)
class Legal:
    """What is legal now for one carried piece.

    Attributes:
        hand: the hand that carries it.
        piece: the piece.
        places: where it may be set down now (:class:`~sim.games.play.spots.Placement` s, the rule of each), or
            None while they are being worked out.
        ghost: (7,) the ghost's pose the verdict is of, or None while it is being worked out.
        refusal: why the referee would refuse the piece set down at ``ghost`` (its ``rule`` and ``reason``),
            None where it would be accepted (but for balance).
    """

    hand: str
    piece: str
    places: tuple[Placement, ...] | None = None
    ghost: tuple[float, ...] | None = None
    refusal: Refused | None = None

    @property
    def pending(self) -> bool:
        """Something is still being worked out."""
        return self.places is None or self.ghost is None

    def judged(self, pose) -> bool:
        """Whether the ghost's verdict is of ``pose`` (7,)."""
        return self.ghost is not None and same(self.ghost, pose)

    def points(self, piece: Piece) -> np.ndarray:
        """(k, 3) m: where each place shows on the table (:func:`marks`; ``piece`` the carried one)."""
        if not self.places:
            return np.zeros((0, 3))
        return marks(piece, self.places)

    def to_json(self, piece: Piece | None = None) -> dict:
        """``{piece, pending, rules: {rule: n}, places: [[x, y, z], ...] (the points shown; given the piece),
        ghost: {pose, legal, rule, reason} | None}``."""
        rules: dict[str, int] = {}
        for p in self.places or ():
            rules[p.rule] = rules.get(p.rule, 0) + 1
        out = {"piece": self.piece, "pending": self.pending, "rules": rules,
               "ghost": None if self.ghost is None else {
                   "pose": [round(float(x), 7) for x in self.ghost], "legal": self.refusal is None,
                   "rule": None if self.refusal is None else self.refusal.rule,
                   "reason": None if self.refusal is None else self.refusal.reason}}
        if piece is not None:
            out["places"] = self.points(piece).round(6).tolist()
        return out


def marks(piece, places) -> np.ndarray:
    """(k, 3) m: the point shown for each of ``places`` of ``piece`` (its pose's middle over the lowest point of
    the piece there), distinct points once each, in the order first listed."""
    out, seen = [], set()
    lowest: dict[tuple, float] = {}
    for p in places:
        quat = tuple(round(q, 9) for q in p.pose[3:])
        if quat not in lowest:
            lowest[quat] = float(transform_points(piece.shape.vertices, (0.0, 0.0, 0.0), p.pose[3:])[:, 2].min())
        point = (p.pose[0], p.pose[1], p.pose[2] + lowest[quat])
        key = tuple(round(v, 4) for v in point)
        if key not in seen:
            seen.add(key)
            out.append(point)
    return np.asarray(out, dtype=float).reshape(-1, 3)


class TableCopy:
    """The table as it is now, held still: what a session reads of it (:class:`sim.games.play.session.Table`),
    read once from the live table, so that it answers the same every time and may be read from another thread.
    It has no verdict (None): what is asked here leaves balance to the statics after the drop.

    Args:
        table: the live table (:class:`~sim.viewer.play.table.ControllerTable`).
    """

    def __init__(self, table):
        self._scene = table.scene()
        self.supply = table.supply
        self.carried: Mapping[str, str] = dict(table.carried)
        self._taken = table.taken_from_supply
        self._table = table

    def scene(self) -> Scene:
        return self._scene

    def home(self, piece_id: str) -> tuple[float, ...]:
        return self._table.home(piece_id)  # the set-up's: never changes

    def in_play(self, piece_id: str) -> bool:
        return piece_id not in self.supply and piece_id not in self._taken

    def verdict(self) -> None:
        return None


class _Entry:
    """What is known, and being worked out, for one carried piece."""

    def __init__(self, key, piece: str, table: TableCopy):
        self.key = key  # (piece, the game's key, the table's key) the places are of
        self.piece = piece
        self.table = table  # the table they are asked on
        self.places = None  # a tuple, or a Future of one
        self.poses = None  # (n, 7) the places' poses, once they are known
        self.ghost = None  # (pose, refusal) judged
        self.asked = None  # (pose, Future) being judged
        self.seen = None  # (frame, the ghost's pose then, whether it stood still since the frame before)


class LegalMoves:
    """The legal places and the ghost's verdict of every carried piece of a game (see the module docstring).

    Args:
        referee: the play mode's :class:`~sim.viewer.play.mode.Referee` (its session, tape and table).

    Attributes:
        computed: how many times the places were worked out, and the ghost judged (``{"places", "ghosts"}``:
            what a test bounds to show that the answers are kept).
    """

    def __init__(self, referee):
        self.referee = referee
        self._pool: ThreadPoolExecutor | None = None
        self._entries: dict[str, _Entry] = {}
        self._shown: dict[str, Legal] = {}
        self._failed = False  # a piece of work failed on the thread (said once)
        self.computed = {"places": 0, "ghosts": 0}

    # --- modes ---

    def start(self) -> None:
        """Work the answers out on a thread of their own from now on (a window)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="towerlab-legal")

    def close(self) -> None:
        """Stop the thread (what it was working out is dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    # --- asking ---

    def now(self, controller) -> dict[str, Legal]:
        """Hand -> what is legal for the piece it carries now (a hand holding a group has none): known answers,
        and (in a window) new questions asked of the thread; without a thread the answers are worked out now."""
        out = {}
        for hand, s in controller.hands.items():
            carry = controller.carries.get(hand)
            if s.group or carry is None:
                continue
            out[hand] = self._legal(controller, hand, s.piece, carry)
        for hand in set(self._entries) - set(out):
            self._drop_entry(hand)
        self._shown = out
        return out

    def shown(self) -> dict[str, Legal]:
        """What :meth:`now` last answered (what the window last drew), nothing worked out."""
        return dict(self._shown)

    def _legal(self, controller, hand: str, piece: str, carry) -> Legal:
        key = (piece, self._game_key(), self._table_key(controller))
        entry = self._entries.get(hand)
        if entry is None or entry.key != key:
            if entry is not None:
                self._drop_entry(hand)
            table = TableCopy(self.referee.table)
            session = self.referee.session.clone()
            entry = self._entries[hand] = _Entry(key, piece, table)
            entry.places = self._work(lambda: tuple(session.placements(piece, table)), "places")
        places = self._result(entry.places, ())
        if places is not None and entry.poses is None:
            entry.places = places
            entry.poses = np.array([p.pose for p in places], dtype=float).reshape(-1, 7)
        self._judge_ghost(entry, carry.ghost, carry.snapped is not None, controller.session_time)
        ghost, refusal = entry.ghost if entry.ghost is not None else (None, None)
        return Legal(hand, piece, places, ghost, refusal)

    def _judge_ghost(self, entry: _Entry, pose, snapped: bool, frame: float) -> None:
        pose_t = tuple(float(x) for x in pose)
        if entry.seen is None or entry.seen[0] != frame:  # the first ask of this frame: did the ghost stand still?
            last = entry.seen
            entry.seen = (frame, pose_t, last is not None and same(last[1], pose_t))
        stands = entry.seen[2] and same(entry.seen[1], pose_t)
        if entry.ghost is not None and same(entry.ghost[0], pose_t):
            return
        if entry.asked is not None:
            asked, future = entry.asked
            if same(asked, pose_t):
                done = self._result(future, (None,))
                if done is not None:
                    entry.ghost, entry.asked = (asked, done[0]), None
                return
            future.cancel()
            entry.asked = None
        if entry.poses is not None and len(entry.poses) and bool(
                (np.abs(entry.poses - pose_t) <= SAME).all(axis=1).any()):
            entry.ghost = (pose_t, None)  # a listed place: the referee accepts it (but for balance)
            return
        if self._pool is not None and not (stands or snapped):
            return  # moving freely: judged once it stands still
        session, table = self.referee.session.clone(), entry.table
        piece = self.referee.table.setup_piece(entry.piece).moved(pose_t[:3], pose_t[3:])
        future = self._work(lambda: (session.drop_refusal(piece, table),), "ghosts")
        done = self._result(future, (None,))
        if done is not None:
            entry.ghost = (pose_t, done[0])
        else:
            entry.asked = (pose_t, future)

    def _work(self, fn, kind: str):
        """``fn()`` on the thread (a Future), or its answer now (no thread)."""
        self.computed[kind] += 1
        if self._pool is None:
            return fn()
        return self._pool.submit(fn)

    def _result(self, value, failed):
        """The answer of a piece of work: itself, or a Future's result once it is done (None before). Work that
        failed on the thread answers ``failed`` (nothing listed, nothing refused) and is said once: a window
        goes on without its highlight rather than stop."""
        if not isinstance(value, Future):
            return value
        if not value.done() or value.cancelled():
            return None
        error = value.exception()
        if error is None:
            return value.result()
        if not self._failed:
            self._failed = True
            self.referee.c.say(f"the legal moves could not be worked out ({type(error).__name__}: {error})", "error")
        return failed

    def _drop_entry(self, hand: str) -> None:
        entry = self._entries.pop(hand, None)
        if entry is None:
            return
        for work in (entry.places, entry.asked[1] if entry.asked else None):
            if isinstance(work, Future):
                work.cancel()

    # --- what a change is ---

    def _game_key(self) -> tuple:
        """The game as it stands: its session, the calls made of it and what it logged (a tick that reads
        nothing of the table changes neither)."""
        r = self.referee
        return id(r.session), len(r.tape.calls), len(r.session.journal)

    def _table_key(self, controller) -> tuple:
        """The table as it stands: the live world's configuration (its change counter), the supply and the
        hands."""
        return (controller.world.revision, frozenset(controller.supply),
                tuple(sorted(self.referee.table.carried.items())))


__all__ = ["LIFT", "PLACE", "Legal", "LegalMoves", "TableCopy", "marks", "ring", "ring_radius", "same"]
