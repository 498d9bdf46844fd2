"""A trial in the simulation: a new physics world per trial, nudges as impulses, the table shaking as a moving probe.

Every trial builds its own :class:`~sim.physics.World`. Reusing one world per
worker across trials (``World.set_state`` makes every body afresh) is not safe
today: pybullet gives a new body the id of the one removed before it, so the
world's sleep bookkeeping takes a new piece for the old one, and even with
that cleared, Bullet keeps state of its own across removed bodies (a
collapsing trial's displacements differed in the fourth digit after another
trial had run in the same world). A new world costs 10–100 ms, a fifth to a
half of a small trial; the results depend on the trial alone, bit for bit.

In the table's frame a shaking table is gravity plus a uniform horizontal
acceleration, the negative of the table's: exactly the world's probe, set
anew before every step while the table shakes. A nudge sets the piece's
velocity and spin to what they were plus what the impulse gives
(:mod:`sim.experiments.impulse`). What counts as knocked down is the
:class:`~sim.physics.MotionTracker`'s, with the timelines' thresholds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.experiments.impulse import impulse_response, strike_point
from sim.experiments.perturb import Nudge, TrialStart
from sim.geometry.transforms import transform_points
from sim.physics import TIMELINE_THRESHOLDS, TUNED, MotionTracker, PhysicsSettings, World
from sim.physics.timeline import RECORD_HZ
from sim.physics.world import GRAVITY
from sim.tol import tol


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
                   precision: tuple[float, int] | None = None, settings: PhysicsSettings = TUNED) -> Outcome:
    """Run one trial: its scene from rest, its nudges and shaking, then ``seconds`` more.

    Args:
        start: the trial (:func:`sim.experiments.perturb.start_trial`).
        seconds: simulated time after the last nudge or shaking (s).
        probe_direction_deg: the direction of the world's small probe (the statics' weakest
            direction, as ``check`` uses); None turns it around.
        precision: the solver's (residual velocity m/s, iterations), or None for the settings' own.
        settings: the world's settings.

    Raises:
        BlowUpError: the simulation blew up.
    """
    scene = start.scene
    with World(scene, settings) as world:
        world.set_probe(settings.probe_g, probe_direction_deg)
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
