"""One trial's perturbations drawn and applied: the scene it starts from and the pushes and shaking to come (pure).

Every trial draws from its own random streams: perturbation k of trial i uses
``SeedSequence(seed, spawn_key=(i, k))``, which is the k-th child of the i-th
child of ``SeedSequence(seed)`` (``spawn``). A trial's draws therefore depend
only on the seed, its index and its perturbations, never on which worker runs
it or what ran before; and each perturbation draws the same numbers whatever
the others are. Every model draws the same count of numbers whatever its
values (standard normals and uniforms, scaled afterwards), so that the trials
of a sweep over a value share their draws (common random numbers: the curve
of P(collapse) against the value is smooth, its points still each honest).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.special import ndtr, ndtri

from sim.experiments.models import RANDOM, Perturbation
from sim.experiments.placement import lift_onto_ground, noisy_poses, set_down
from sim.scene import Scene

MM = 1e-3

STANDARD_GRAVITY = 9.81
"""g (m/s²), as the physics world's ``GRAVITY`` (a test holds them equal): this module loads no engine."""


@dataclass(frozen=True)
class Nudge:
    """An impulse to come.

    Attributes:
        piece: the piece pushed.
        direction: its horizontal direction (rad from +x).
        height: where on the piece: 0 its lowest point, 1 its highest (fraction, at the time of the push).
        offset: how far to the left of the centre of mass its line passes (m).
        impulse: its size (N s).
        time: when (s).
    """

    piece: str
    direction: float
    height: float
    offset: float
    impulse: float
    time: float


@dataclass(frozen=True)
class Shaking:
    """The table shaking: displacement ``amplitude · sin(2π f (t - start))`` along ``direction``.

    Attributes:
        amplitude: m.
        frequency: Hz.
        duration: s.
        start: s.
        direction: rad from +x.
    """

    amplitude: float
    frequency: float
    duration: float
    start: float
    direction: float

    @property
    def end(self) -> float:
        """When it stops (s)."""
        return self.start + self.duration

    @property
    def peak_g(self) -> float:
        """The table's peak acceleration (fraction of g): amplitude · (2π f)² / g."""
        return self.amplitude * (2 * math.pi * self.frequency) ** 2 / STANDARD_GRAVITY

    def acceleration(self, t: float) -> float:
        """The table's acceleration along ``direction`` at time t (m/s²; 0 outside the shaking).

        The table moves as ``x(t) = A sin(ω (t - start))``, so it accelerates by ``-A ω² sin(ω (t - start))``.
        """
        if not self.start <= t < self.end:
            return 0.0
        w = 2 * math.pi * self.frequency
        return -self.amplitude * w * w * math.sin(w * (t - self.start))


@dataclass(frozen=True, eq=False)
class TrialStart:
    """What one trial starts from and what comes to it.

    Attributes:
        scene: the perturbed scene (placement, friction, density).
        resting: the scene as it will rest: without the tilts, which the pieces drop out of onto their
            faces (the same as ``scene`` without a tilt); the statics judge it, and the simulation
            measures displacements from it.
        nudges: the impulses, in time order.
        shaking: the table's shakings.
        placement_m: how far the farthest piece was moved from where the scene had it (m).
        overlap_m: the deepest overlap left between two pieces (m; 0 when they were all set apart).
        geometry_changed: some pose differs from the scene's.
    """

    scene: Scene
    resting: Scene
    nudges: tuple[Nudge, ...]
    shaking: tuple[Shaking, ...]
    placement_m: float
    overlap_m: float
    geometry_changed: bool

    @property
    def end(self) -> float:
        """When the last nudge or shaking is over (s)."""
        return max([n.time for n in self.nudges] + [s.end for s in self.shaking], default=0.0)


def trial_rng(seed: int, trial: int, k: int) -> np.random.Generator:
    """Perturbation ``k``'s random stream in trial ``trial``: ``SeedSequence(seed).spawn(…)[trial].spawn(…)[k]``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(trial, k)))


def targets(scene: Scene, p: Perturbation) -> list[int]:
    """Rows (scene order) of the movable pieces a perturbation acts on."""
    limit = set(p.pieces)
    return [k for k, piece in enumerate(scene.pieces) if not piece.fixed and (not limit or piece.id in limit)]


def positive_factor(u: np.ndarray, sigma: float) -> np.ndarray:
    """``1 + sigma · z`` for z a standard normal truncated to ``z > -1 / sigma``, one per uniform u in (0, 1)
    (inverse transform: always positive, one draw each)."""
    u = np.asarray(u, dtype=float)
    if sigma == 0.0:
        return np.ones_like(u)
    floor = ndtr(-1.0 / sigma)
    return 1.0 + sigma * ndtri(floor + u * (1.0 - floor))


def start_trial(scene: Scene, perturbations, seed: int, trial: int) -> TrialStart:
    """Draw trial ``trial``'s perturbations and apply the static ones to ``scene``.

    Friction and density first, then every placement noise, then the pieces are set
    down one by one (:func:`sim.experiments.placement.set_down`); a tilt may lift a
    piece off what it lies on. Nudges and shakings are drawn, to be applied by the simulation.

    Args:
        scene: the scene.
        perturbations: the :class:`Perturbation` list, in the order given (its index is ``k``).
        seed: the experiment's seed.
        trial: the trial's index.
    """
    pieces = list(scene.pieces)
    poses = flat = None
    tilted = False
    nudges, shaking = [], []
    for k, p in enumerate(perturbations):
        rng = trial_rng(seed, trial, k)
        rows = targets(scene, p)
        v = p.params
        if p.model in ("friction", "density"):
            factor = positive_factor(rng.random(len(rows)), v["sigma_rel"])
            for row, f in zip(rows, factor):
                piece = pieces[row]
                if p.model == "friction":
                    pieces[row] = replace(piece, friction=piece.friction_coefficient * float(f))
                else:
                    base = piece.shape.material.density if piece.density is None else piece.density
                    pieces[row] = replace(piece, density=base * float(f))
        elif p.model == "noise":
            draws = rng.standard_normal((len(rows), 5))
            shift, turn = v["sigma_mm"] * MM, math.radians(v["sigma_deg"])
            poses = noisy_poses(scene if poses is None else scene.with_poses(poses), draws, rows, shift, turn,
                                math.radians(v["tilt_deg"]), v["axes"])
            flat = noisy_poses(scene if flat is None else scene.with_poses(flat), draws, rows, shift, turn, 0.0,
                               v["axes"])
            tilted = tilted or v["tilt_deg"] > 0
        elif p.model == "nudge":
            u = rng.random(3)
            if v["piece"] == RANDOM:
                piece = scene.pieces[rows[min(int(u[0] * len(rows)), len(rows) - 1)]].id
            else:
                piece = v["piece"]
            direction = 2 * math.pi * u[1] if v["direction"] == RANDOM else math.radians(v["direction"])
            height = float(u[2]) if v["height"] == RANDOM else v["height"]
            nudges.append(Nudge(piece, float(direction), height, v["offset_mm"] * MM, v["impulse_ns"], v["time_s"]))
        elif p.model == "vibration":
            u = rng.random(1)
            direction = 2 * math.pi * u[0] if v["direction"] == RANDOM else math.radians(v["direction"])
            shaking.append(Shaking(v["amplitude_mm"] * MM, v["frequency_hz"], v["duration_s"], v["start_s"],
                                   float(direction)))
    perturbed = scene.with_pieces(pieces)
    resting = perturbed
    placement = overlap = 0.0
    changed = False
    nominal = scene.poses()
    if flat is not None and np.any(flat != nominal):
        flat, overlap = set_down(perturbed, flat)
        placement = float(np.linalg.norm(flat[:, :3] - nominal[:, :3], axis=1).max(initial=0.0))
        resting = perturbed = perturbed.with_poses(flat)
        changed = True
    if tilted and np.any(poses != nominal):
        poses, overlap = set_down(perturbed, lift_onto_ground(perturbed, poses), lift=True)
        perturbed = perturbed.with_poses(poses)
        changed = True
    return TrialStart(perturbed, resting, tuple(sorted(nudges, key=lambda n: n.time)), tuple(shaking), placement,
                      overlap, changed)
