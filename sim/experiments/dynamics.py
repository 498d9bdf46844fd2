"""A trial in the simulation: one physics world per thread made anew per trial, nudges as impulses, the table
shaking as a moving probe.

Every trial starts from an empty engine: the thread's :class:`~sim.physics.World`
is reset to the trial's scene (:meth:`~sim.physics.World.reset`: pybullet's
``resetSimulation`` and every body, contact and sleep record built as a new
world builds them), so a trial's result depends on the trial alone, bit for
bit, whatever ran in that world before (tested against a new world per trial).
A reset costs a fifth of a new world (3–4 ms against 19 ms for the Talo
counterweight: connecting and disconnecting a pybullet client alone takes
15 ms); a simulated counterweight trial takes a fifth less time. ``World.set_state`` would not do: it keeps the sleep
bookkeeping of a piece whose body id pybullet hands out again.

In the table's frame a shaking table is gravity plus a uniform horizontal
acceleration, the negative of the table's: exactly the world's probe, set
anew before every step while the table shakes. A nudge sets the piece's
velocity and spin to what they were plus what the impulse gives
(:mod:`sim.experiments.impulse`). What counts as knocked down is the
:class:`~sim.physics.MotionTracker`'s, with the timelines' thresholds.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np

from sim.experiments.impulse import impulse_response, strike_point
from sim.experiments.perturb import Nudge, TrialStart
from sim.geometry.transforms import transform_points
from sim.physics import TIMELINE_THRESHOLDS, TUNED, MotionTracker, PhysicsSettings, World
from sim.physics.timeline import RECORD_HZ
from sim.physics.world import GRAVITY
from sim.tol import tol

_LOCAL = threading.local()  # this thread's world


@dataclass(frozen=True)
class Outcome:
    """What the simulation of one trial showed.

    Attributes:
        knocked_down: ids of the pieces knocked down, scene order.
        moved: ids of the pieces that moved, scene order.
        max_displacement_m: the largest displacement of any piece from its start, at the end (m).
        peak_displacement_m: the largest displacement of any piece at any frame (m): how far a
            shaken piece slipped back and forth, say.
        seconds: simulated time (s).
    """

    knocked_down: tuple[str, ...]
    moved: tuple[str, ...]
    max_displacement_m: float
    peak_displacement_m: float
    seconds: float

    @property
    def collapsed(self) -> bool:
        """A piece was knocked down."""
        return bool(self.knocked_down)


def simulate_trial(start: TrialStart, seconds: float, *, probe_direction_deg: float | None = None,
                   precision: tuple[float, int] | None = None, settings: PhysicsSettings = TUNED,
                   reuse: bool = True) -> Outcome:
    """Run one trial: its scene from rest, its nudges and shaking, then ``seconds`` more.

    Args:
        start: the trial (:func:`sim.experiments.perturb.start_trial`).
        seconds: simulated time after the last nudge or shaking (s).
        probe_direction_deg: the direction of the world's small probe (the statics' weakest
            direction, as ``check`` uses); None turns it around.
        precision: the solver's (residual velocity m/s, iterations), or None for the settings' own.
        settings: the world's settings.
        reuse: reset this thread's world to the trial's scene (kept for the next trial) instead of
            building a new one; the outcome is the same, bit for bit.

    Raises:
        BlowUpError: the simulation blew up.
        OverlapError: pieces of the trial's scene interpenetrate.
    """
    if not reuse:
        with World(start.scene, settings) as world:
            return _start(world, start, seconds, probe_direction_deg, precision)
    world = thread_world(start.scene, settings)
    return _start(world, start, seconds, probe_direction_deg, precision)


def thread_world(scene, settings: PhysicsSettings = TUNED) -> World:
    """This thread's world, reset to ``scene`` (made on first use, or when the settings change).

    Raises:
        OverlapError: pieces of the scene interpenetrate.
    """
    world = getattr(_LOCAL, "world", None)
    if world is not None and world.settings == settings:
        world.reset(scene)
        return world
    if world is not None:
        world.close()
    _LOCAL.world = None
    _LOCAL.world = World(scene, settings)
    return _LOCAL.world


def _start(world: World, start: TrialStart, seconds: float, probe_direction_deg, precision) -> Outcome:
    world.set_probe(world.settings.probe_g, probe_direction_deg)
    if precision is not None:
        world.set_precision(*precision)
    return _run(world, start, seconds)


def _run(world: World, start: TrialStart, seconds: float) -> Outcome:
    scene, settings = start.scene, world.settings
    base_probe = world.probe
    dt = settings.dt
    total = max(2, int(round((start.end + seconds) / dt)))
    every = max(1, int(round(1.0 / (RECORD_HZ * dt))))
    # displacements count from the scene as it will rest: a tilted piece dropping onto its face is not a fall
    poses = start.resting.poses()
    # as sim.physics.run does: contacts are read after two steps (exactly touching faces give
    # none until they press on each other)
    world.step(2)
    tracker = MotionTracker(world.ids, [p.shape.bounds for p in scene.pieces], poses, world.contact_state(),
                            TIMELINE_THRESHOLDS)
    nudges = list(start.nudges)
    shaking = start.shaking
    shaken = False
    peak = 0.0
    while world.steps < total:
        t = world.time
        while nudges and nudges[0].time <= t + tol.clock:
            _push(world, nudges.pop(0))
        table = _table_acceleration(shaking, t)
        if table is not None:
            # the pieces feel the negative of the table's acceleration
            world.set_probe(float(np.hypot(*table)) / GRAVITY, math.degrees(math.atan2(-table[1], -table[0])))
            world.rebase_energy()  # the table does work on the pieces: not a blow-up
            shaken = True
            step = 1
        else:
            if shaken:
                world.set_probe(*base_probe)
                world.rebase_energy()
                shaken = False
            step = every - world.steps % every
            if nudges:
                step = min(step, max(1, int(math.ceil((nudges[0].time - t) / dt - 1e-9))))
        step = min(step, total - world.steps)
        world.step(step)
        if world.steps % every == 0 or world.steps == total:
            now = world.poses()
            peak = max(peak, float(np.linalg.norm(now[:, :3] - poses[:, :3], axis=1).max(initial=0.0)))
            tracker.frame(world.time, now, world.contact_state, world.at_rest())
    pieces = tracker.pieces(world.poses(), world.contact_state())
    ids = world.ids
    final = max((m.displacement for m in pieces.values()), default=0.0)
    return Outcome(tuple(i for i in ids if pieces[i].knocked_down), tuple(i for i in ids if pieces[i].moved),
                   final, max(peak, final), world.time)


def _table_acceleration(shaking, t: float) -> np.ndarray | None:
    """(2,) the table's horizontal acceleration at t (m/s²), or None while no shaking is on."""
    on = [s for s in shaking if s.start <= t < s.end]
    if not on:
        return None
    return sum((s.acceleration(t) * np.array([math.cos(s.direction), math.sin(s.direction)]) for s in on),
               np.zeros(2))


def _push(world: World, nudge: Nudge) -> None:
    """Give a piece the velocity and spin the nudge's impulse adds to what it has."""
    body = world.bodies[nudge.piece]
    k = world.movable.index(body)
    frame = world.centre_frames()[k]
    pose = world.pose(nudge.piece)
    z = transform_points(world.piece(nudge.piece).shape.vertices, pose[:3], pose[3:])[:, 2]
    point = strike_point(frame[:3], z.min(), z.max(), nudge.direction, nudge.height, nudge.offset)
    impulse = nudge.impulse * np.array([math.cos(nudge.direction), math.sin(nudge.direction), 0.0])
    dv, dw = impulse_response(body.mass, body.inertia, frame[3:], point - frame[:3], impulse)
    v = world.velocities()[world.ids.index(nudge.piece)]
    world.push(nudge.piece, v[:3] + dv, v[3:] + dw)
