"""The stability verdict: the exact statics decide; a free-running simulation witnesses what happens.

Whether a scene stands is the statics' answer: every piece held under
gravity with a margin above ``tol.stable_margin_g`` (a knife edge is not
stable). The simulation runs ``seconds`` freely beside it (no certified rest:
that is the live world's) and tells which pieces move, fall and where they
land; its ``dynamics`` are that run. The statics inform it twice, without
deciding it: the probe pushes along their weakest direction (turning around
when they found none), so a knife-edge balance tips in the simulation too;
and the solver resolves contact forces the finer, the thinner the margin
(:func:`precision_for`). When the two disagree, ``disagreement`` says what the
simulation did and why that is the simulation's limit (the margin against
what its solver resolves, a stack's depth, contacts with more corners than
it keeps); the verdict stays the statics'.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sim.names import listing
from sim.physics.precision import precision_for, span_length, support_depth
from sim.physics.settings import TUNED, PhysicsSettings
from sim.physics.timeline import FrameSink, Timeline, run
from sim.physics.world import World
from sim.scene import Scene
from sim.tol import tol

DEFAULT_SECONDS = 2.0
"""Simulated time of a check (s): long enough for a knife edge pushed by the probe to tip past
``tol.moved_angle`` (a Talo 10-block, the slowest, takes about 1.2 s) and for the 1.02× harmonic
stacks to fall visibly."""


@dataclass(frozen=True)
class PieceVerdict:
    """One piece after the check's simulation.

    Attributes:
        displacement_mm: how far it moved (mm).
        tilt_deg: how far its up axis turned (degrees).
        knocked_down: it was knocked down (see :mod:`sim.physics.timeline`).
    """

    displacement_mm: float
    tilt_deg: float
    knocked_down: bool

    def to_json(self) -> dict:
        """JSON form."""
        return {"displacement_mm": round(self.displacement_mm, 4), "tilt_deg": round(self.tilt_deg, 4),
                "knocked_down": self.knocked_down}


@dataclass(frozen=True)
class Dynamics:
    """The dynamic half of the verdict.

    Attributes:
        settled: every piece was at rest at the end.
        sim_seconds: simulated time (s).
        max_displacement_mm: the largest displacement of any piece (mm).
        moved: ids of the pieces that moved, scene order.
        knocked_down: ids of the pieces knocked down, scene order.
        probe_direction_deg: the direction the probe pushed (None: it turned around).
    """

    settled: bool
    sim_seconds: float
    max_displacement_mm: float
    moved: tuple[str, ...]
    knocked_down: tuple[str, ...]
    probe_direction_deg: float | None = None

    @property
    def stable(self) -> bool:
        """No piece moved."""
        return not self.moved

    def to_json(self) -> dict:
        """JSON form (the keys of ``towerlab check``)."""
        return {"settled": self.settled, "sim_seconds": round(self.sim_seconds, 6),
                "max_displacement_mm": round(self.max_displacement_mm, 4), "moved": list(self.moved),
                "knocked_down": list(self.knocked_down)}


@dataclass(frozen=True, eq=False)
class CheckResult:
    """The verdict on a scene.

    Attributes:
        stable: the statics hold it with a margin above ``tol.stable_margin_g`` (vacuously, with nothing
            to judge); the simulation is the witness (``dynamics``, ``disagreement``).
        margin_g: the statics margin (fraction of g; 0 when infeasible; None with nothing to judge).
        weakest_direction_deg: the statics' weakest direction (degrees), or None.
        statics: the full :class:`~sim.statics.StaticsResult`.
        dynamics: the :class:`Dynamics` summary.
        pieces: id -> :class:`PieceVerdict`.
        disagreement: why the two methods disagree, or None when they agree.
        settled: the scene at the end of the simulation.
        timeline: the recorded simulation.
        timings_ms: ``statics`` and ``dynamics`` wall-clock time (ms).
        phases_ms: wall-clock and CPU time (``time.process_time``) of each phase (ms): ``statics``, ``world``
            (building the witness's world), ``run`` (its simulation); ``wall`` and ``cpu`` dicts of them. Not
            in the JSON: for benchmarks on a shared machine, where the CPU time is the steadier figure.
    """

    stable: bool
    margin_g: float | None
    weakest_direction_deg: float | None
    statics: object
    dynamics: Dynamics
    pieces: dict[str, PieceVerdict]
    disagreement: str | None
    settled: Scene
    timeline: Timeline = field(repr=False)
    timings_ms: dict = field(default_factory=dict)
    phases_ms: dict = field(default_factory=dict, repr=False)

    @property
    def judged(self) -> bool:
        """The scene has a movable piece to judge (a margin means nothing without one)."""
        return self.margin_g is not None

    def to_json(self) -> dict:
        """The JSON of ``towerlab check --json`` (margins null when there is nothing to judge)."""
        direction = self.weakest_direction_deg
        margin = None if self.margin_g is None else round(float(self.margin_g), 6)
        return {
            "stable": self.stable,
            "margin_g": margin,
            "weakest_direction_deg": None if direction is None else round(float(direction), 3),
            "statics": {"feasible": bool(self.statics.feasible), "margin_g": margin},
            "dynamics": self.dynamics.to_json(),
            "pieces": {i: v.to_json() for i, v in self.pieces.items()},
            "disagreement": self.disagreement,
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
        }


def disagreement(statics, dynamics: Dynamics, *, depth: int = 1, precision: tuple[float, int] | None = None,
                 corners: dict[tuple[str, str], int] | None = None) -> str | None:
    """What the simulation did where it disagrees with the statics, and why that is its limit; None when they agree.

    Args:
        statics: the statics result (the verdict).
        dynamics: the free simulation.
        depth: the deepest chain of pieces a weight passes through (:func:`support_depth`).
        precision: the solver's (residual velocity m/s, iterations) the run had.
        corners: (a, b) -> corners of their largest contact polygon, for contacts of more than 4 corners.
    """
    by_statics = bool(statics.stable)
    if by_statics == dynamics.stable:
        return None
    seconds = f"{dynamics.sim_seconds:g} s"
    if by_statics:
        moved = set(dynamics.moved)
        many = sorted((pair, n) for pair, n in (corners or {}).items() if moved & set(pair))
        if many:
            (a, b), n = many[0]
            why = (f"the contact between {a} and {b} has {n} corners, of which the simulation keeps 4 (Bullet's "
                   f"contact manifold), so it stands on less than the statics do")
        else:
            solver = "" if precision is None else (f" (it stops at {precision[0]:.1g} m/s, at most "
                                                   f"{precision[1]} iterations a step)")
            deep = f" in a stack {depth} pieces deep" if depth > 1 else ""
            why = (f"a margin of {statics.margin_g:.3g} g{deep} is finer than the simulation's solver "
                   f"resolves{solver}")
        return (f"the statics hold it with a margin of {statics.margin_g:.3g} g; in the simulation "
                f"{listing(dynamics.moved)} moved within {seconds}: {why}, and the statics' verdict stands")
    if statics.feasible:
        why = (f"the statics find a margin of only {statics.margin_g:.3g} g (a stable structure needs more "
               f"than {tol.stable_margin_g:g} g)")
    else:
        why = f"the statics cannot hold {listing(statics.unheld)}"
    return (f"{why}; in the simulation nothing moved within {seconds}: it tips slower than the run is long "
            f"or its solver held it, and the statics' verdict stands")


SHORTEST_WINDOW = 0.02
"""The shortest still spell (s) after which ``check``'s witness lets a stable structure freeze and sleep
(:func:`stable_window`): 10 steps of 1/480 s, within which compas_cra's vault (0.49 g) settles by up to 25 µm
and is then still."""


def stable_window(margin_g: float, settings: PhysicsSettings) -> float:
    """How long (s) pieces of a structure the statics hold with ``margin_g`` (at least
    ``settings.stable_sleep_margin``) must be still before ``check``'s witness freezes and sleeps them:
    ``settings.stable_sleep_window`` at that margin, shorter as the square root of the margin grows, never below
    :data:`SHORTEST_WINDOW`: 0.1 s at 0.005 g, 0.071 s at 0.01 g, 0.045 s at 0.025 g, 0.02 s from 0.125 g.

    The spell is there to see the simulation drop what the statics hold (its limit: where it did so in the
    agreement suites, at margins of 0.005-0.01 g, it moved within 0.04 s). A piece pushed from rest by an
    unbalanced acceleration a passes ``tol.sleep_distance`` after a time that goes as 1/√a; to drop a structure
    held with a margin m the simulation must get its forces wrong by more than m, and the rule assumes that what
    it then leaves unbalanced grows with m: an assumption measured on the suites and the vault (docs/physics.md),
    not a bound."""
    scaled = settings.stable_sleep_window * math.sqrt(settings.stable_sleep_margin / margin_g)
    return min(settings.stable_sleep_window, max(SHORTEST_WINDOW, scaled))


def many_corners(interfaces) -> dict[tuple[str, str], int]:
    """(a, b) -> the most corners of any contact polygon between them, for contacts of more than 4 corners
    (the most points Bullet keeps per pair of convex parts)."""
    out: dict[tuple[str, str], int] = {}
    for f in interfaces:
        n = len(f.polygon)
        if n > 4 and n > out.get((f.a, f.b), 0):
            out[(f.a, f.b)] = n
    return out


def check(scene: Scene, seconds: float = DEFAULT_SECONDS, settings: PhysicsSettings | None = None, *,
          progress: Callable[[float, float], None] | None = None, on_frame: FrameSink | None = None) -> CheckResult:
    """Whether a scene stands, by the exact statics, with a free-running simulation as the witness.

    Args:
        scene: the scene.
        seconds: simulated time (s).
        settings: world settings (default: the tuned ones); a collapse of ``settings.collapse_pieces`` or more
            unheld pieces is witnessed coarser (whole hulls, ``collapse_dt``, ``collapse_iterations``).
        progress: called as ``progress(done_s, total_s)``: once at the start, then during the simulation.
        on_frame: called with every frame of the simulation (see :data:`~sim.physics.timeline.FrameSink`).

    Raises:
        OverlapError: pieces interpenetrate at load.
        BlowUpError: the simulation blew up.
    """
    from sim.statics import analyze

    settings = settings or TUNED
    if progress is not None:
        progress(0.0, seconds)  # the statics and building the world come first
    clocks = [(time.perf_counter(), time.process_time())]
    statics = analyze(scene)
    clocks.append((time.perf_counter(), time.process_time()))
    if not statics.feasible and len(statics.unheld) >= settings.collapse_pieces:  # a collapse: see the settings
        settings = settings.with_(exact_hulls=False, dt=settings.collapse_dt,
                                  solver_iterations=min(settings.solver_iterations, settings.collapse_iterations))
    with World(scene, settings, statics.interfaces) as world:
        clocks.append((time.perf_counter(), time.process_time()))
        world.set_probe(settings.probe_g, statics.weakest_direction_deg)
        depth, span = support_depth(scene, statics.interfaces), span_length(scene, statics.interfaces)
        precision = precision_for(statics.margin_g if statics.feasible else None, settings, depth, span)
        world.set_precision(*precision)
        if statics.stable and statics.margin_g >= settings.stable_sleep_margin:
            world.sleep_window = stable_window(statics.margin_g, settings)
            world.freeze_still = settings.stable_freeze
        timeline = run(world, seconds, progress=progress, on_frame=on_frame)
    clocks.append((time.perf_counter(), time.process_time()))
    moved, knocked = timeline.moved, timeline.knocked_down
    dynamics = Dynamics(timeline.settled, timeline.seconds,
                        max((m.displacement_mm for m in timeline.pieces.values()), default=0.0),
                        tuple(moved), tuple(knocked), timeline.probe_direction_deg)
    pieces = {i: PieceVerdict(m.displacement_mm, m.tilt_deg, m.knocked_down) for i, m in timeline.pieces.items()}
    margin = float(statics.margin_g) if statics.feasible else 0.0
    weakest = statics.weakest_direction_deg
    if all(p.fixed for p in scene.pieces):
        margin = weakest = None
    why = disagreement(statics, dynamics, depth=depth, precision=precision,
                       corners=many_corners(statics.interfaces))
    return CheckResult(bool(statics.stable), margin, weakest, statics, dynamics, pieces, why, timeline.final,
                       timeline, {"statics": (clocks[1][0] - clocks[0][0]) * 1e3,
                                  "dynamics": (clocks[3][0] - clocks[1][0]) * 1e3}, _phases(clocks))


def _phases(clocks: list[tuple[float, float]]) -> dict:
    """``CheckResult.phases_ms`` from the (wall, CPU) clocks read at the start and after each phase."""
    names = ("statics", "world", "run")
    return {kind: {n: (b[c] - a[c]) * 1e3 for n, a, b in zip(names, clocks, clocks[1:])}
            for c, kind in enumerate(("wall", "cpu"))}
