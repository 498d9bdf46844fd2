"""Simulated timelines: poses over time, what each piece did, and the events of a collapse.

:func:`simulate` runs a scene in a :class:`~sim.physics.world.World` and
records it; :func:`run` does the same on a world already built (the verdict
uses it after the statics have chosen the probe's direction). A piece has
*moved* once a corner of its bounding box moved farther than
``tol.moved_distance`` or it tilted past ``tol.moved_angle`` (so a long block
turning about the vertical moves, a round figure spinning in place does
not); it is *knocked down* once it is displaced or tilted past ``tol.knocked_*``, dropped a level
(``tol.knocked_drop``), lost one of the pieces it stood on, or came to lie on
the board or table it did not touch before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from sim.geometry.transforms import quat_to_matrix, rotation_angle, tilt_angle
from sim.names import GROUND
from sim.physics.settings import TUNED, PhysicsSettings
from sim.physics.world import World
from sim.scene import Scene
from sim.tol import tol

RECORD_HZ = 60.0
"""Frames recorded per simulated second (the replay's frame rate)."""


EVENT_KINDS = ("moved", "left_support", "fell", "knocked_down", "settled")
"""Event kinds in the order they are reported within one frame."""


@dataclass(frozen=True)
class Event:
    """Something that happened during a run.

    Attributes:
        time: simulated time (s) of the frame it was first seen in.
        kind: ``moved`` (began to move), ``left_support`` (lost a piece it stood
            on), ``fell`` (reached the board or table), ``knocked_down``, or
            ``settled`` (everything at rest again after motion).
        pieces: ids of the pieces concerned, in scene order.
    """

    time: float
    kind: str
    pieces: tuple[str, ...]

    def to_json(self) -> dict:
        """JSON form: time (s, rounded to the frame), kind, pieces."""
        return {"time": round(self.time, 4), "kind": self.kind, "pieces": list(self.pieces)}


@dataclass(frozen=True)
class PieceMotion:
    """What one piece did over a run: its last pose measured against its first.

    The flags describe the end of the run (a piece that bounced and came back
    has not moved); ``began_moving`` and the timeline's events keep the first
    time each thing was seen.

    Attributes:
        id: the piece.
        displacement: distance its position moved (m).
        tilt: angle its up axis turned (rad).
        rotation: angle it turned in all (rad).
        reach: the farthest any corner of its bounding box moved (m).
        drop: how far its position fell (m; negative when it rose).
        moved: ``reach`` beyond ``tol.moved_distance`` or ``tilt`` beyond ``tol.moved_angle``.
        left_support: it no longer touches a body it stood on at the start.
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


@dataclass(frozen=True, eq=False)
class Timeline:
    """A recorded run.

    Attributes:
        scene: the scene it started from.
        ids: piece ids in scene order.
        times: (T,) simulated times of the frames (s), starting at 0.
        poses: (T, n, 7) poses per frame: xyz (m) + quaternion xyzw.
        pieces: id -> :class:`PieceMotion` at the end.
        events: what happened, in time order.
        settled: every piece was at rest over the last ``tol.rest_window``.
        seconds: simulated time run (s).
        probe_direction_deg: the probe's fixed direction, None when it turned.
    """

    scene: Scene
    ids: tuple[str, ...]
    times: np.ndarray
    poses: np.ndarray
    pieces: dict[str, PieceMotion]
    events: tuple[Event, ...]
    settled: bool
    seconds: float
    probe_direction_deg: float | None = None
    settings: PhysicsSettings = field(default=TUNED, repr=False)

    @property
    def final(self) -> Scene:
        """The scene at the end of the run."""
        return self.scene.with_poses(self.poses[-1])

    @property
    def moved(self) -> list[str]:
        """Ids of the pieces that moved, scene order."""
        return [i for i in self.ids if self.pieces[i].moved]

    @property
    def knocked_down(self) -> list[str]:
        """Ids of the pieces knocked down, scene order."""
        return [i for i in self.ids if self.pieces[i].knocked_down]

    def pose_at(self, t: float) -> np.ndarray:
        """(n, 7) poses of the last frame at or before time ``t`` (s)."""
        k = int(np.searchsorted(self.times, t, side="right")) - 1
        return self.poses[max(k, 0)]


class _Tracker:
    """Per-frame bookkeeping of motion, support and events."""

    def __init__(self, world: World, start: np.ndarray):
        self.world = world
        self.ids = list(world.ids)
        self.start = start
        bounds = [world.scene.piece(i).shape.bounds for i in self.ids]
        self.corners = np.array([[[b[x][0], b[y][1], b[z][2]] for x in (0, 1) for y in (0, 1) for z in (0, 1)]
                                 for b in bounds]).reshape(len(self.ids), 8, 3)
        self.start_corners = self._corners(start)
        state = world.contact_state()
        self.below0 = {i: state[i][1] for i in self.ids}
        self.grounded0 = {i: bool(state[i][0] & GROUND) for i in self.ids}
        self.flags = {kind: set() for kind in EVENT_KINDS if kind != "settled"}
        self.began: dict[str, float] = {}
        self.events: list[Event] = []
        self.rest_since: float | None = 0.0
        self.settled_reported = True

    def _corners(self, poses: np.ndarray) -> np.ndarray:
        """(n, 8, 3) world corners of every piece's bounding box."""
        if not len(poses):
            return np.zeros((0, 8, 3))
        rot = quat_to_matrix(poses[:, 3:])
        return np.einsum("nij,nkj->nki", rot, self.corners) + poses[:, None, :3]

    def measure(self, poses: np.ndarray) -> dict[str, np.ndarray]:
        d = poses[:, :3] - self.start[:, :3]
        reach = np.linalg.norm(self._corners(poses) - self.start_corners, axis=2).max(axis=1, initial=0.0)
        return {"displacement": np.linalg.norm(d, axis=1), "drop": -d[:, 2], "reach": reach,
                "rotation": rotation_angle(self.start[:, 3:], poses[:, 3:]),
                "tilt": tilt_angle(self.start[:, 3:], poses[:, 3:])}

    def judge(self, m: dict[str, np.ndarray], k: int, i: str, touching: frozenset | None) -> dict[str, bool]:
        """The flags of piece ``i`` (row ``k`` of the measures ``m``); contacts unknown when ``touching`` is None."""
        checks = {
            "moved": bool(m["reach"][k] > tol.moved_distance or m["tilt"][k] > tol.moved_angle),
            "left_support": touching is not None and bool(self.below0[i] - touching),
            "fell": touching is not None and not self.grounded0[i] and bool(touching & GROUND),
        }
        checks["knocked_down"] = bool(checks["left_support"] or checks["fell"]
                                      or m["displacement"][k] > tol.knocked_distance
                                      or m["tilt"][k] > tol.knocked_angle or m["drop"][k] > tol.knocked_drop)
        return checks

    def frame(self, t: float, poses: np.ndarray) -> None:
        m = self.measure(poses)
        # contacts change only when something moves: while every piece is within a tenth of the
        # motion thresholds of its start, the (costly) contact query is skipped
        still = (m["reach"] < 0.1 * tol.moved_distance) & (m["tilt"] < 0.1 * tol.moved_angle)
        state = None if still.all() else self.world.contact_state()
        new = {kind: [] for kind in self.flags}
        for k, i in enumerate(self.ids):
            checks = self.judge(m, k, i, None if state is None else state[i][0])
            for kind, hit in checks.items():
                if hit and i not in self.flags[kind]:
                    self.flags[kind].add(i)
                    new[kind].append(i)
            if checks["moved"] and i not in self.began:
                self.began[i] = t
        for kind in self.flags:
            if new[kind]:
                self.events.append(Event(t, kind, tuple(new[kind])))
                if kind == "moved":
                    self.settled_reported = False
        if self.world.at_rest().all():
            if self.rest_since is None:
                self.rest_since = t
            if not self.settled_reported and t - self.rest_since >= tol.rest_window:
                self.events.append(Event(t, "settled", ()))
                self.settled_reported = True
        else:
            self.rest_since = None

    def settled(self, t: float) -> bool:
        return self.rest_since is not None and t - self.rest_since >= tol.rest_window - 1e-9

    def pieces(self, poses: np.ndarray) -> dict[str, PieceMotion]:
        """What each piece did, judged on its last pose and the world's last contacts."""
        m = self.measure(poses)
        state = self.world.contact_state()
        out = {}
        for k, i in enumerate(self.ids):
            f = self.judge(m, k, i, state[i][0])
            out[i] = PieceMotion(i, float(m["displacement"][k]), float(m["tilt"][k]), float(m["rotation"][k]),
                                 float(m["reach"][k]), float(m["drop"][k]), f["moved"], f["left_support"],
                                 f["fell"], f["knocked_down"], self.began.get(i))
        return out


def run(world: World, seconds: float, *, until_settled: bool = False, min_seconds: float = 0.0,
        progress: Callable[[float, float], None] | None = None) -> Timeline:
    """Run a world for ``seconds`` and record it, frame by frame.

    Args:
        world: a freshly built world (time 0).
        seconds: simulated time to run (s).
        until_settled: stop early once every piece has rested ``tol.rest_window``
            and at least ``min_seconds`` have passed.
        min_seconds: see ``until_settled``.
        progress: called as ``progress(done_s, total_s)`` after every frame.

    Raises:
        BlowUpError: the run blew up.
    """
    s = world.settings
    every = max(1, int(round(1.0 / (RECORD_HZ * s.dt))))
    total = max(0, int(round(seconds / s.dt)))
    start = world.poses()
    done = 0
    if total:
        # what touches what at the start is read after two steps: Bullet's separating-axis test
        # finds no contact between faces that touch exactly until they press on each other, and
        # the contacts a step reports are those found at its beginning
        done = min(2, total)
        world.step(done)
    tracker = _Tracker(world, start)
    times, frames = [0.0], [start]
    while done < total:
        n = min(every, total - done)
        world.step(n)
        done += n
        poses = world.poses()
        tracker.frame(world.time, poses)
        times.append(world.time)
        frames.append(poses)
        if progress is not None:
            progress(world.time, total * s.dt)
        if until_settled and world.time >= min_seconds and tracker.settled(world.time):
            break
    poses = np.array(frames)
    direction = world.probe_direction
    return Timeline(world.scene, tuple(world.ids), np.array(times), poses, tracker.pieces(poses[-1]),
                    tuple(tracker.events), tracker.settled(world.time), world.time, direction, s)


def simulate(scene: Scene, seconds: float, settings: PhysicsSettings | None = None,
             rng: np.random.Generator | None = None, *, probe_direction_deg: float | None = None,
             progress: Callable[[float, float], None] | None = None) -> Timeline:
    """Simulate a scene for ``seconds`` and record its timeline.

    Args:
        scene: the scene.
        seconds: simulated time (s).
        settings: world settings (default: the tuned ones).
        rng: when given (and no direction is), the probe pushes in one
            direction drawn from it instead of turning around.
        probe_direction_deg: a fixed direction for the probe (degrees from +x).
        progress: called as ``progress(done_s, total_s)`` after every frame.

    Raises:
        OverlapError: pieces interpenetrate at load.
        BlowUpError: the run blew up.
    """
    settings = settings or TUNED
    if probe_direction_deg is None and rng is not None:
        probe_direction_deg = float(rng.uniform(0.0, 360.0))
    with World(scene, settings) as world:
        world.set_probe(settings.probe_g, probe_direction_deg)
        return run(world, seconds, progress=progress)
