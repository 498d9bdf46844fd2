"""A world whose poses are handed in: what a window draws when no physics runs (a replay).

:class:`PosedWorld` keeps the :class:`~sim.viewer.control.live.ViewerWorld` protocol, so the
controller, the window, its look, camera, marks and panels work on it unchanged;
but nothing moves by itself: the driver (a replay plug-in's ``tick``) calls
:meth:`PosedWorld.show` with the time, the pieces present and their poses, and
:meth:`PosedWorld.show_verdict` with a verdict to display, if it has one.
Hands cannot take its pieces (the actions that would change it are refused
with a reason); :meth:`ray_test` finds pieces by their bounding boxes, for
hovering and the hover panel.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.errors import TowerlabError
from sim.geometry.transforms import quat_to_matrix
from sim.scene import Piece, Scene
from sim.viewer.control.live import Advance, LastAction, LiveEvent, LiveVerdict, Snapshot

STILL = 1e-7
"""A piece whose pose changed by more than this (m, or quaternion components) since the last
:meth:`PosedWorld.show` is moving (the window waits for it before drawing the full-quality still)."""


class ReadOnlyWorldError(TowerlabError):
    """A change asked of a world whose poses are handed in (the window says it; a script stops with it)."""


@dataclass(frozen=True)
class PosedHit:
    """What :meth:`PosedWorld.ray_test` found (the fields of ``sim.physics.RayHit`` the viewer reads)."""

    piece: str
    point: np.ndarray
    normal: np.ndarray
    distance: float


class PosedWorld:
    """The :class:`~sim.viewer.control.live.ViewerWorld` protocol over handed-in poses.

    Args:
        scene: the pieces it starts with, at their poses (more may come with :meth:`show`).
        dt: the step it claims (s), for readers that ask.
    """

    def __init__(self, scene: Scene, dt: float = 1.0 / 240.0):
        self._scene0 = scene
        self._pieces: dict[str, Piece] = {p.id: p for p in scene.pieces}
        self._ids: list[str] = list(scene.ids)
        self._poses = scene.poses().reshape(-1, 7).copy()
        self._moving: list[str] = []
        self._time = 0.0
        self._dt = float(dt)
        self._revision = 0
        self._verdict: LiveVerdict | None = None
        self.events: list[LiveEvent] = []
        self.last_action: LastAction | None = None

    # --- what the driver hands in -----------------------------------------------------------------

    def show(self, time: float, ids, poses, pieces=()) -> None:
        """Show the pieces ``ids`` at ``poses`` (n, 7) at ``time`` (s); ``pieces`` describes any not seen before.

        Raises:
            ValueError: the poses do not match the ids, or a piece is unknown.
        """
        for p in pieces:
            self._pieces[p.id] = p
        ids = [str(i) for i in ids]
        poses = np.asarray(poses, dtype=float).reshape(-1, 7)
        if len(poses) != len(ids):
            raise ValueError(f"{len(ids)} ids but {len(poses)} poses")
        unknown = [i for i in ids if i not in self._pieces]
        if unknown:
            raise ValueError(f"pieces {', '.join(unknown[:5])} are not known (give them in pieces)")
        if ids == self._ids:
            delta = np.abs(poses - self._poses).max(axis=1) if len(ids) else np.zeros(0)
            self._moving = [i for i, d in zip(ids, delta) if d > STILL]
        else:
            self._moving = list(ids)
            self._revision += 1
        self._ids, self._poses, self._time = ids, poses.copy(), float(time)

    def show_verdict(self, verdict: LiveVerdict | None) -> None:
        """The verdict the panel shows (None: none)."""
        self._verdict = verdict

    # --- the ViewerWorld protocol -------------------------------------------------------------------

    @property
    def time(self) -> float:
        return self._time

    @property
    def dt(self) -> float:
        return self._dt

    @property
    def ids(self) -> list[str]:
        return list(self._ids)

    @property
    def revision(self) -> int:
        return self._revision

    def scene(self) -> Scene:
        pieces = [self._pieces[i].moved(p[:3], p[3:]) for i, p in zip(self._ids, self._poses)]
        return self._scene0.with_pieces(pieces)

    def piece(self, piece_id: str) -> Piece:
        return self._pieces[piece_id]

    def poses(self) -> np.ndarray:
        return self._poses.copy()

    def pose(self, piece_id: str) -> np.ndarray:
        return self._poses[self._ids.index(piece_id)].copy()

    def _refuse(self, what: str):
        raise ReadOnlyWorldError(f"{what}: this world shows poses it is handed (a replay); it cannot be changed")

    def add_piece(self, piece: Piece) -> None:
        self._refuse("add")

    def remove_piece(self, piece_id: str) -> None:
        self._refuse("remove")

    def set_pose(self, piece_id: str, pose) -> None:
        self._refuse("set a pose")

    def push(self, piece_id: str, point, impulse) -> None:
        self._refuse("push")

    def grab(self, hand: str, piece_id: str, force_limit: float | None = None) -> None:
        self._refuse("pick")

    def move_hand(self, hand: str, target) -> None:
        self._refuse("carry")

    def release(self, hand: str, pose=None) -> None:
        self._refuse("set down")

    def pull(self, piece_id: str, target, point=None, stiffness=None, limit=None) -> None:
        self._refuse("pull")

    def release_pull(self, piece_id: str) -> None:
        self._refuse("release-pull")

    def pulls(self) -> dict:
        return {}

    def held(self) -> dict[str, str]:
        return {}

    def advance(self, seconds: float, budget: float | None = None) -> Advance:
        """Nothing runs: time is what the driver shows (the real-time factor is 1)."""
        return Advance(0, float(seconds), 0.0, 1.0)

    def moving(self) -> list[str]:
        return list(self._moving)

    def snapshot(self) -> Snapshot:
        return Snapshot(self._time, (list(self._ids), self._poses.copy(), self._verdict))

    def restore(self, snapshot: Snapshot) -> None:
        ids, poses, verdict = snapshot.state
        self._ids, self._poses, self._verdict, self._time = list(ids), poses.copy(), verdict, snapshot.time
        self._moving = []
        self._revision += 1

    def ray_test(self, start, end) -> PosedHit | None:
        """The nearest piece whose bounding box (in its own frame) the segment meets (no board or table)."""
        start, end = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
        best = None
        for pid, pose in zip(self._ids, self._poses):
            shape = self._pieces[pid].shape
            r = quat_to_matrix(pose[3:])
            a, b = r.T @ (start - pose[:3]), r.T @ (end - pose[:3])
            lo, hi = shape.vertices.min(axis=0), shape.vertices.max(axis=0)
            t = _slab(a, b - a, lo, hi)
            if t is not None and (best is None or t < best[0]):
                local = a + (b - a) * t
                axis = int(np.argmin(np.minimum(np.abs(local - lo), np.abs(local - hi))))
                n = np.zeros(3)
                n[axis] = -1.0 if abs(local[axis] - lo[axis]) < abs(local[axis] - hi[axis]) else 1.0
                best = (t, pid, start + (end - start) * t, r @ n)
        if best is None:
            return None
        t, pid, point, normal = best
        return PosedHit(pid, point, normal, float(t * np.linalg.norm(end - start)))

    def ray_tests(self, starts, ends) -> list[PosedHit | None]:
        return [self.ray_test(a, b) for a, b in zip(starts, ends)]

    def set_supply(self, ids) -> None:
        """The supply means nothing here (nothing is judged)."""

    def note_action(self, action: LastAction) -> None:
        self.last_action = action

    def verdict(self, wait: bool = False) -> LiveVerdict | None:
        return self._verdict

    def close(self) -> None:
        """Nothing to free."""


def _slab(origin: np.ndarray, direction: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> float | None:
    """The first fraction t in [0, 1] at which ``origin + t * direction`` is inside the box, or None."""
    t0, t1 = 0.0, 1.0
    for k in range(3):
        if abs(direction[k]) < 1e-15:
            if origin[k] < lo[k] or origin[k] > hi[k]:
                return None
            continue
        a, b = (lo[k] - origin[k]) / direction[k], (hi[k] - origin[k]) / direction[k]
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
        if t0 > t1:
            return None
    return t0
