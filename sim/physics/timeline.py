"""Simulated timelines: poses over time, what each piece did, and the events of a collapse; saved as NPZ + JSON.

:func:`simulate` runs a scene in a :class:`~sim.physics.world.World` and
records it; :func:`run` does the same on a world already built (the verdict
uses it after the statics have chosen the probe's direction); :func:`settle`
returns the scene at rest. What counts as moved or knocked down is the
:class:`~sim.physics.tracker.MotionTracker`'s, with the thresholds of
``sim.tol`` (:data:`~sim.physics.tracker.TIMELINE_THRESHOLDS`).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np

from sim.atomic import write_bytes
from sim.errors import SceneError, TowerlabError
from sim.physics.settings import TUNED, PhysicsSettings
from sim.physics.tracker import TIMELINE_THRESHOLDS, MotionEvent, MotionTracker, PieceMotion
from sim.physics.world import World
from sim.scene import Scene, dumps, loads
from sim.tol import tol

RECORD_HZ = 60.0
"""Frames recorded per simulated second (the replay's frame rate)."""

TIMELINE_FORMAT = "towerlab-timeline/1"
"""The ``format`` of a saved timeline's manifest."""

__all__ = ["RECORD_HZ", "TIMELINE_FORMAT", "FrameSink", "MotionEvent", "PieceMotion", "Timeline", "TimelineFileError",
           "run", "settle", "simulate"]


class TimelineFileError(TowerlabError):
    """A saved timeline that cannot be read (the file and what is wrong)."""


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
        settings: the world's settings.
    """

    scene: Scene
    ids: tuple[str, ...]
    times: np.ndarray
    poses: np.ndarray
    pieces: dict[str, PieceMotion]
    events: tuple[MotionEvent, ...]
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

    # --- files -------------------------------------------------------------------------------------

    def save(self, path) -> Path:
        """Write the timeline to ``path`` (written atomically): an NPZ archive of ``times`` and ``poses``
        and a JSON ``manifest`` (format, scene, ids, events, pieces, settled, seconds, probe, settings).

        Returns:
            The path written.
        """
        manifest = {
            "format": TIMELINE_FORMAT, "scene": dumps(self.scene), "ids": list(self.ids),
            "events": [e.to_json() | {"time": e.time} for e in self.events],
            "pieces": {i: m.to_json() for i, m in self.pieces.items()}, "settled": self.settled,
            "seconds": self.seconds, "probe_direction_deg": self.probe_direction_deg,
            "settings": asdict(self.settings),
        }
        buffer = io.BytesIO()
        np.savez_compressed(buffer, times=self.times, poses=self.poses,
                            manifest=np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8))
        return write_bytes(path, buffer.getvalue())

    @classmethod
    def load(cls, path) -> Timeline:
        """Read a timeline :meth:`save` wrote (arrays and events bit for bit as they were).

        Raises:
            TimelineFileError: the file cannot be read, is not a timeline, or a member is missing or wrong.
        """
        source = str(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                members = {k: data[k] for k in ("times", "poses", "manifest") if k in data.files}
        except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
            raise TimelineFileError(f"{source}: cannot read the timeline ({e})") from None
        for k in ("times", "poses", "manifest"):
            if k not in members:
                raise TimelineFileError(f"{source}: {k}: missing")
        try:
            m = json.loads(members["manifest"].tobytes().decode())
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise TimelineFileError(f"{source}: manifest: not JSON ({e})") from None
        if not isinstance(m, dict) or m.get("format") != TIMELINE_FORMAT:
            got = m.get("format") if isinstance(m, dict) else type(m).__name__
            raise TimelineFileError(f"{source}: manifest.format: expected {TIMELINE_FORMAT!r}, got {got!r}")
        try:
            scene = loads(m["scene"], f"{source}: manifest.scene")
            ids = tuple(m["ids"])
            times, poses = members["times"], members["poses"]
            if times.ndim != 1 or poses.shape != (len(times), len(ids), 7):
                raise TimelineFileError(f"{source}: poses: expected shape ({len(times)}, {len(ids)}, 7), "
                                        f"got {poses.shape}")
            motion_fields = [f.name for f in fields(PieceMotion)]
            pieces = {i: PieceMotion(**{k: p[k] for k in motion_fields}) for i, p in m["pieces"].items()}
            events = tuple(MotionEvent(float(e["time"]), e["kind"], tuple(e["pieces"])) for e in m["events"])
            settings = PhysicsSettings(**m["settings"])
            return cls(scene, ids, times, poses, pieces, events, bool(m["settled"]), float(m["seconds"]),
                       m["probe_direction_deg"], settings)
        except SceneError as e:
            raise TimelineFileError(str(e)) from None
        except (KeyError, TypeError, ValueError) as e:
            raise TimelineFileError(f"{source}: manifest: missing or wrong field ({e})") from None


FrameSink = Callable[[World, float, np.ndarray, list], None]
"""Called as ``on_frame(world, t, poses, events)`` with every frame a run keeps (the first at its start), the
events found so far: what a recording written as it goes needs (:class:`sim.replay.runs.RunRecorder`)."""


def run(world: World, seconds: float, *, until_settled: bool = False, min_seconds: float = 0.0,
        progress: Callable[[float, float], None] | None = None, on_frame: FrameSink | None = None) -> Timeline:
    """Run a world for ``seconds`` and record it, frame by frame.

    Args:
        world: a freshly built world (time 0).
        seconds: simulated time to run (s).
        until_settled: stop early once every piece has rested ``tol.rest_window``
            and at least ``min_seconds`` have passed.
        min_seconds: see ``until_settled``.
        progress: called as ``progress(done_s, total_s)`` after every frame.
        on_frame: called with every frame kept (see :data:`FrameSink`).

    Raises:
        BlowUpError: the run blew up.
    """
    s = world.settings
    every = max(1, int(round(1.0 / (RECORD_HZ * s.dt))))
    total = max(0, int(round(seconds / s.dt)))
    start = world.poses()
    if on_frame is not None:
        on_frame(world, 0.0, start, [])
    done = 0
    if total:
        # what touches what at the start is read after two steps: Bullet's separating-axis test
        # finds no contact between faces that touch exactly until they press on each other, and
        # the contacts a step reports are those found at its beginning
        done = min(2, total)
        world.step(done)
    tracker = MotionTracker(world.ids, [world.piece(i).shape.bounds for i in world.ids], start,
                            world.contact_state(), TIMELINE_THRESHOLDS)
    times, frames = [0.0], [start]
    resting = None
    while done < total:
        n = min(every, total - done)
        world.step(n)
        done += n
        if world.all_asleep() and resting is not None and resting.all():
            poses = frames[-1]  # asleep: nothing moved since the last frame (the tracker sees the same poses)
        else:
            poses, resting = world.poses(), world.at_rest()
        tracker.frame(world.time, poses, world.contact_state, resting)
        times.append(world.time)
        frames.append(poses)
        if on_frame is not None:
            on_frame(world, world.time, poses, tracker.events)
        if progress is not None:
            progress(world.time, total * s.dt)
        if until_settled and world.time >= min_seconds and tracker.settled(world.time):
            break
    poses = np.array(frames)
    return Timeline(world.scene, tuple(world.ids), np.array(times), poses,
                    tracker.pieces(poses[-1], world.contact_state()), tuple(tracker.events),
                    tracker.settled(world.time), world.time, world.probe_direction, s)


def simulate(scene: Scene, seconds: float | None = None, settings: PhysicsSettings | None = None,
             rng: np.random.Generator | None = None, *, probe_direction_deg: float | None = None,
             until_settled: bool = False, progress: Callable[[float, float], None] | None = None,
             on_frame: FrameSink | None = None) -> Timeline:
    """Simulate a scene and record its timeline.

    Args:
        scene: the scene.
        seconds: simulated time (s); default ``settings.max_seconds``.
        settings: world settings (default: the tuned ones).
        rng: when given (and no direction is), the probe pushes in one
            direction drawn from it instead of turning around.
        probe_direction_deg: a fixed direction for the probe (degrees from +x).
        until_settled: stop once every piece has rested ``tol.rest_window`` (and at least that long has run).
        progress: called as ``progress(done_s, total_s)`` after every frame.
        on_frame: called with every frame kept (see :data:`FrameSink`).

    Raises:
        OverlapError: pieces interpenetrate at load.
        BlowUpError: the run blew up.
    """
    settings = settings or TUNED
    if probe_direction_deg is None and rng is not None:
        probe_direction_deg = float(rng.uniform(0.0, 360.0))
    with World(scene, settings) as world:
        world.set_probe(settings.probe_g, probe_direction_deg)
        return run(world, settings.max_seconds if seconds is None else seconds, until_settled=until_settled,
                   min_seconds=tol.rest_window, progress=progress, on_frame=on_frame)


def settle(scene: Scene, seconds: float | None = None, settings: PhysicsSettings | None = None, *,
           progress: Callable[[float, float], None] | None = None) -> Scene:
    """The scene after its pieces have come to rest (bounded by ``seconds``, default ``settings.max_seconds``).

    Runs until every piece has rested for ``tol.rest_window``, with the probe
    turning, so that no knife-edge balance survives a long settle.

    Raises:
        OverlapError: pieces interpenetrate at load.
        BlowUpError: the simulation blew up.
    """
    return simulate(scene, seconds, settings, until_settled=True, progress=progress).final
