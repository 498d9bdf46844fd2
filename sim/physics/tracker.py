"""Motion tracking: fed poses and contacts as they happen, it says who moved, was knocked down or came to rest.

A piece has *moved* once a corner of its bounding box moved farther than
``moved_distance`` from its baseline (its pose at the start, or when it was
last re-based) or it tilted past ``moved_angle`` (so a long block turning about
the vertical moves, a round figure spinning in place does not); it is *knocked
down* once it is displaced or tilted past ``knocked_*``, dropped a level
(``knocked_drop``), lost one of the pieces it stood on, or came to lie on the
board or table it did not touch before. The thresholds come in as a
:class:`MotionThresholds` (the timelines use :data:`TIMELINE_THRESHOLDS`, from
``sim.tol``); the tracker reads no engine: the caller hands it poses and,
when asked, contacts.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from sim.geometry.solids import box
from sim.geometry.transforms import quat_to_matrix, rotation_angle, tilt_angle
from sim.names import GROUND
from sim.tol import Tolerances, tol

EVENT_KINDS = ("moved", "left_support", "fell", "knocked_down", "came_to_rest", "settled")
"""Event kinds in the order they are reported within one frame."""

Contacts = Mapping[str, tuple[frozenset, frozenset]]
"""id -> (what it touches, what among those holds it up): ``World.contact_state()``."""


@dataclass(frozen=True)
class MotionThresholds:
    """When a piece counts as moved, knocked down or at rest.

    Attributes:
        moved_distance: a bounding-box corner farther than this (m) from its baseline: moved.
        moved_angle: tilted more than this (rad): moved.
        knocked_distance: displaced more than this (m): knocked down.
        knocked_angle: tilted more than this (rad): knocked down.
        knocked_drop: fell more than this (m): knocked down (dropped a level).
        rest_window: at rest this long (s): came to rest (and, everyone, settled).
        still_fraction: while every piece stays within this fraction of the moved thresholds,
            contacts cannot have changed and are not asked for (they are the costly part).
        clock: times closer than this (s) are one instant.
    """

    moved_distance: float
    moved_angle: float
    knocked_distance: float
    knocked_angle: float
    knocked_drop: float
    rest_window: float
    still_fraction: float = 0.1
    clock: float = tol.clock

    @classmethod
    def from_tolerances(cls, t: Tolerances) -> MotionThresholds:
        """The thresholds a set of named tolerances gives (``tol.moved_*``, ``knocked_*``, ``rest_window``)."""
        return cls(t.moved_distance, t.moved_angle, t.knocked_distance, t.knocked_angle, t.knocked_drop,
                   t.rest_window, clock=t.clock)


TIMELINE_THRESHOLDS = MotionThresholds.from_tolerances(tol)
"""The thresholds of every timeline and verdict."""


@dataclass(frozen=True)
class MotionEvent:
    """Something that happened to the tracked pieces' motion.

    Attributes:
        time: simulated time (s) of the frame it was first seen in.
        kind: ``moved`` (began to move), ``left_support`` (lost a piece it stood
            on), ``fell`` (reached the board or table), ``knocked_down``,
            ``came_to_rest`` (pieces that had moved rest again; only when asked for),
            or ``settled`` (everything at rest again after motion).
        pieces: ids of the pieces concerned, in the tracker's order.
    """

    time: float
    kind: str
    pieces: tuple[str, ...]

    def to_json(self) -> dict:
        """JSON form: time (s, rounded to the frame), kind, pieces."""
        return {"time": round(self.time, 4), "kind": self.kind, "pieces": list(self.pieces)}


@dataclass(frozen=True)
class PieceMotion:
    """What one piece did: its last pose measured against its baseline.

    The flags describe the last pose (a piece that bounced and came back has
    not moved); ``began_moving`` and the events keep the first time each thing
    was seen.

    Attributes:
        id: the piece.
        displacement: distance its position moved (m).
        tilt: angle its up axis turned (rad).
        rotation: angle it turned in all (rad).
        reach: the farthest any corner of its bounding box moved (m).
        drop: how far its position fell (m; negative when it rose).
        moved: ``reach`` beyond ``moved_distance`` or ``tilt`` beyond ``moved_angle``.
        left_support: it no longer touches a body it stood on at its baseline.
        fell: it ends on the board or table without having started there.
        knocked_down: knocked down (see the module docstring).
        began_moving: time (s) it first counted as moved, or None.
    """

    id: str
    displacement: float
    tilt: float
    rotation: float
    reach: float
    drop: float
    moved: bool
    left_support: bool
    fell: bool
    knocked_down: bool
    began_moving: float | None

    @property
    def displacement_mm(self) -> float:
        """Displacement in millimetres."""
        return self.displacement * 1000.0

    @property
    def tilt_deg(self) -> float:
        """Tilt in degrees."""
        return float(np.degrees(self.tilt))

    def to_json(self) -> dict:
        """JSON form (SI, as the attributes)."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


class MotionTracker:
    """Per-frame bookkeeping of motion, support and events, for pieces that may come and go.

    Args:
        ids: the pieces, in the order events list them.
        bounds: (n, 2, 3) each piece's bounding box in its own frame (m), lower and upper corner.
        poses: (n, 7) their baseline poses: xyz (m) + quaternion xyzw.
        contacts: what each touches at its baseline (at least the ids above).
        thresholds: when a piece counts as moved, knocked down, at rest.
        time: the time of the baseline (s).
        piece_rest: also report ``came_to_rest`` for pieces that had moved (the live world's events).
    """

    def __init__(self, ids, bounds, poses, contacts: Contacts, thresholds: MotionThresholds, time: float = 0.0,
                 *, piece_rest: bool = False):
        self.thresholds = thresholds
        self.piece_rest = piece_rest
        self.ids: list[str] = []
        self._corners = np.zeros((0, 8, 3))
        self.start = np.zeros((0, 7))
        self._start_corners = np.zeros((0, 8, 3))
        self._below0: dict[str, frozenset] = {}
        self._grounded0: dict[str, bool] = {}
        self._flags: dict[str, set] = {kind: set() for kind in EVENT_KINDS if kind not in ("came_to_rest", "settled")}
        self.began: dict[str, float] = {}
        self._rested: set[str] = set()
        self._rest_since: dict[str, float | None] = {}
        self.events: list[MotionEvent] = []
        self._last = None  # the poses array of the last frame, when it is handed in again nothing is measured
        self._blind = False  # the last frame was judged without contacts (by the measures alone)
        self.rest_since: float | None = time
        self._settled_reported = True
        self.add(ids, bounds, poses, contacts, time)

    def __deepcopy__(self, memo) -> MotionTracker:
        """A copy that shares nothing that changes (the live world keeps one with every snapshot, ten a
        second: copying arrays, sets and dicts is a tenth of the cost of ``copy.deepcopy``'s generic walk)."""
        out = object.__new__(type(self))
        memo[id(self)] = out
        for name, value in self.__dict__.items():
            if isinstance(value, np.ndarray):
                value = value.copy()
            elif isinstance(value, (list, set)):
                value = type(value)(value)  # of strings and frozen events
            elif isinstance(value, dict):
                value = {k: set(v) if isinstance(v, set) else v for k, v in value.items()}
            elif not isinstance(value, (str, int, float, bool, tuple, frozenset, MotionThresholds, type(None))):
                value = copy.deepcopy(value, memo)
            out.__dict__[name] = value
        return out

    # --- as data ---------------------------------------------------------------------------------

    def to_json(self) -> dict:
        """Everything it goes on from, as JSON data (:meth:`from_json` reads it back bit for bit; the events
        it reported are not kept: nothing it does next depends on them)."""
        from sim.fieldcheck import number_json

        def opt(t):
            return None if t is None else number_json(t)
        return {"ids": list(self.ids), "corners": self._corners.tolist(), "start": self.start.tolist(),
                "start_corners": self._start_corners.tolist(),
                "below0": {i: sorted(v) for i, v in self._below0.items()},
                "grounded0": dict(self._grounded0), "flags": {k: sorted(v) for k, v in self._flags.items()},
                "began": {i: number_json(t) for i, t in self.began.items()}, "rested": sorted(self._rested),
                "rest_since_each": {i: opt(t) for i, t in self._rest_since.items()},
                "last": None if self._last is None else np.asarray(self._last).tolist(), "blind": self._blind,
                "rest_since": opt(self.rest_since), "settled_reported": self._settled_reported}

    @classmethod
    def from_json(cls, field, thresholds: MotionThresholds, *, piece_rest: bool, known) -> MotionTracker:
        """A tracker from :meth:`to_json`'s data, checked field by field.

        Args:
            field: the data, a :class:`sim.fieldcheck.Field`.
            thresholds, piece_rest: as the constructor's (the caller's own, never the data's).
            known: the ids of the world's pieces.

        Raises:
            sim.fieldcheck.FieldError: a field is not what :meth:`to_json` writes.
        """
        f = field.object(("ids", "corners", "start", "start_corners", "below0", "grounded0", "flags", "began",
                          "rested", "rest_since_each", "last", "blind", "rest_since", "settled_reported"))
        ids = f["ids"].ids(known)
        n = len(ids)
        out = cls([], [], np.zeros((0, 7)), {}, thresholds, piece_rest=piece_rest)
        out.ids = ids
        shapes = {"corners": (8, 3), "start": (7,), "start_corners": (8, 3)}
        arrays = {k: f[k].floats((-1, *shape)) for k, shape in shapes.items()}
        for k, a in arrays.items():
            if len(a) != n:
                raise f[k].fail(f"expected {n} rows (one a tracked piece)")
        out._corners, out.start, out._start_corners = arrays["corners"], arrays["start"], arrays["start_corners"]
        tracked = set(ids)
        ground = tracked | set(known) | set(GROUND)

        def per_piece(key: str, read) -> dict:
            rows = dict(f[key].entries(n))
            if set(rows) != tracked:
                raise f[key].fail("expected one entry a tracked piece")
            return {i: read(rows[i]) for i in ids}
        out._below0 = per_piece("below0", lambda g: frozenset(g.ids(ground)))
        out._grounded0 = per_piece("grounded0", lambda g: g.flag())
        flags = dict(f["flags"].entries(len(out._flags)))
        if set(flags) != set(out._flags):
            raise f["flags"].fail(f"expected the kinds {', '.join(out._flags)}")
        out._flags = {k: set(flags[k].ids(tracked)) for k in out._flags}
        began = dict(f["began"].entries(n))
        if not set(began) <= tracked:
            raise f["began"].fail("expected tracked pieces")
        out.began = {i: g.number() for i, g in began.items()}
        out._rested = set(f["rested"].ids(tracked))
        out._rest_since = per_piece("rest_since_each", lambda g: None if g.is_null() else g.number(infinite=True))
        out._last = None if f["last"].is_null() else f["last"].floats((n, 7))
        out._blind = f["blind"].flag()
        out.rest_since = None if f["rest_since"].is_null() else f["rest_since"].number(infinite=True)
        out._settled_reported = f["settled_reported"].flag()
        return out

    # --- membership ----------------------------------------------------------------------------

    def add(self, ids, bounds, poses, contacts: Contacts, time: float) -> None:
        """Track more pieces from ``time`` on, with these baseline poses (n, 7) and contacts."""
        self._last = None
        ids = list(ids)
        if not ids:
            return
        corners = np.array([box(*b) for b in bounds]).reshape(len(ids), 8, 3)
        poses = np.asarray(poses, dtype=float).reshape(len(ids), 7)
        self.ids += ids
        self._corners = np.concatenate([self._corners, corners])
        self.start = np.concatenate([self.start, poses])
        self._start_corners = np.concatenate([self._start_corners, self._world(corners, poses)])
        for i in ids:
            self._set_baseline(i, contacts, time)

    def remove(self, ids) -> None:
        """Stop tracking the pieces ``ids`` (taken out of the world)."""
        self._last = None
        gone = set(ids)
        keep = np.array([i not in gone for i in self.ids], dtype=bool)
        self.ids = [i for i in self.ids if i not in gone]
        self._corners, self.start, self._start_corners = self._corners[keep], self.start[keep], \
            self._start_corners[keep]
        for i in gone:
            self._below0.pop(i, None)
            self._grounded0.pop(i, None)
            self.began.pop(i, None)
            self._rested.discard(i)
            self._rest_since.pop(i, None)
            for flagged in self._flags.values():
                flagged.discard(i)

    def rebase(self, ids, poses, contacts: Contacts, time: float) -> None:
        """New baselines for the pieces ``ids`` (placed by a hand, or at rest in a new place):
        their motion counts from these poses (n, 7) and contacts, their flags start clean."""
        index = {i: k for k, i in enumerate(self.ids)}
        rows = [index[i] for i in ids]
        if not rows:
            return
        self._last = None
        self.start[rows] = np.asarray(poses, dtype=float).reshape(len(rows), 7)
        self._start_corners[rows] = self._world(self._corners[rows], self.start[rows])
        for i in ids:
            for flagged in self._flags.values():
                flagged.discard(i)
            self.began.pop(i, None)
            self._rested.discard(i)
            self._set_baseline(i, contacts, time)

    def _set_baseline(self, i: str, contacts: Contacts, time: float) -> None:
        touching, below = contacts[i]
        self._below0[i] = below
        self._grounded0[i] = bool(touching & GROUND)
        self._rest_since[i] = time

    # --- measuring ------------------------------------------------------------------------------

    @staticmethod
    def _world(corners: np.ndarray, poses: np.ndarray) -> np.ndarray:
        if not len(poses):
            return np.zeros((0, 8, 3))
        return np.einsum("nij,nkj->nki", quat_to_matrix(poses[:, 3:]), corners) + poses[:, None, :3]

    def measure(self, poses: np.ndarray) -> dict[str, np.ndarray]:
        """(n,) displacement, drop, reach (m), rotation and tilt (rad) of every piece against its baseline."""
        d = poses[:, :3] - self.start[:, :3]
        reach = np.linalg.norm(self._world(self._corners, poses) - self._start_corners, axis=2).max(axis=1,
                                                                                                    initial=0.0)
        return {"displacement": np.linalg.norm(d, axis=1), "drop": -d[:, 2], "reach": reach,
                "rotation": rotation_angle(self.start[:, 3:], poses[:, 3:]),
                "tilt": tilt_angle(self.start[:, 3:], poses[:, 3:])}

    def judge(self, m: dict[str, np.ndarray], k: int, i: str, touching: frozenset | None) -> dict[str, bool]:
        """The flags of piece ``i`` (row ``k`` of the measures ``m``); contacts unknown when ``touching`` is None."""
        th = self.thresholds
        checks = {
            "moved": bool(m["reach"][k] > th.moved_distance or m["tilt"][k] > th.moved_angle),
            "left_support": touching is not None and bool(self._below0[i] - touching),
            "fell": touching is not None and not self._grounded0[i] and bool(touching & GROUND),
        }
        checks["knocked_down"] = bool(checks["left_support"] or checks["fell"]
                                      or m["displacement"][k] > th.knocked_distance
                                      or m["tilt"][k] > th.knocked_angle or m["drop"][k] > th.knocked_drop)
        return checks

    def _past(self, m: dict[str, np.ndarray]) -> np.ndarray:
        """(n,) whether a piece's measures alone raise one of :meth:`judge`'s flags."""
        th = self.thresholds
        return ((m["reach"] > th.moved_distance) | (m["tilt"] > th.moved_angle)
                | (m["displacement"] > th.knocked_distance) | (m["tilt"] > th.knocked_angle)
                | (m["drop"] > th.knocked_drop))

    def frame(self, t: float, poses: np.ndarray, contacts: Contacts | Callable[[], Contacts] | None = None,
              resting: np.ndarray | None = None) -> list[MotionEvent]:
        """Take one frame: poses (n, 7) in the tracker's order at time ``t``.

        Args:
            t: time (s).
            poses: (n, 7) poses.
            contacts: what each piece touches, or a function that tells it (called only when
                some piece moved past ``still_fraction`` of the thresholds), or None (unknown).
            resting: (n,) whether each piece is at rest now (None: unknown, no rest events).

        Returns:
            The events first seen in this frame (also appended to :attr:`events`).
        """
        th = self.thresholds
        if resting is not None and (poses is self._last or (self._blind and self._last is not None
                                                             and np.array_equal(poses, self._last))):
            # the very poses of the last frame (everything asleep), or the same poses again when the last frame
            # judged them by their measures alone (a piece carried over a city at rest): the flags cannot
            # change, only the rest clock
            found = self._rest(t, np.asarray(resting, dtype=bool))
            self.events += found
            return found
        self._last = poses
        m = self.measure(poses)
        still = (m["reach"] < th.still_fraction * th.moved_distance) & (m["tilt"] < th.still_fraction * th.moved_angle)
        state = None if still.all() or contacts is None else (contacts() if callable(contacts) else contacts)
        self._blind = state is None
        new = {kind: [] for kind in self._flags}
        # without contacts a piece's flags all come from its measures: only those past a threshold are judged
        rows = range(len(self.ids)) if state is not None else np.flatnonzero(self._past(m))
        for k in rows:
            i = self.ids[k]
            checks = self.judge(m, k, i, None if state is None else state[i][0])
            for kind, hit in checks.items():
                if hit and i not in self._flags[kind]:
                    self._flags[kind].add(i)
                    new[kind].append(i)
            if checks["moved"] and i not in self.began:
                self.began[i] = t
        found = [MotionEvent(t, kind, tuple(new[kind])) for kind in self._flags if new[kind]]
        if new["moved"]:
            self._settled_reported = False
        if resting is not None:
            found += self._rest(t, np.asarray(resting, dtype=bool))
        self.events += found
        return found

    def _rest(self, t: float, resting: np.ndarray) -> list[MotionEvent]:
        th = self.thresholds
        found = []
        came = []
        for i, r in zip(self.ids, resting):
            if not r:
                self._rest_since[i] = None
            elif self._rest_since[i] is None:
                self._rest_since[i] = t
            if (self.piece_rest and r and i in self.began and i not in self._rested
                    and t - self._rest_since[i] >= th.rest_window - th.clock):
                self._rested.add(i)
                came.append(i)
        if came:
            found.append(MotionEvent(t, "came_to_rest", tuple(came)))
        if resting.all():
            if self.rest_since is None:
                self.rest_since = t
            if not self._settled_reported and t - self.rest_since >= th.rest_window:
                found.append(MotionEvent(t, "settled", ()))
                self._settled_reported = True
        else:
            self.rest_since = None
        return found

    @property
    def unsettled(self) -> bool:
        """Pieces moved since the last ``settled`` event was reported (it is still to come)."""
        return not self._settled_reported

    def settled(self, t: float) -> bool:
        """Every piece at rest over the last ``rest_window`` before ``t``."""
        th = self.thresholds
        return self.rest_since is not None and t - self.rest_since >= th.rest_window - th.clock

    def pieces(self, poses: np.ndarray, contacts: Contacts) -> dict[str, PieceMotion]:
        """What each piece did, judged on its pose now (n, 7) and the contacts now."""
        m = self.measure(poses)
        out = {}
        for k, i in enumerate(self.ids):
            f = self.judge(m, k, i, contacts[i][0])
            out[i] = PieceMotion(i, float(m["displacement"][k]), float(m["tilt"][k]), float(m["rotation"][k]),
                                 float(m["reach"][k]), float(m["drop"][k]), f["moved"], f["left_support"],
                                 f["fell"], f["knocked_down"], self.began.get(i))
        return out

