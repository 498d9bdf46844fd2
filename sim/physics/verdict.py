"""The stability verdict: exact statics and the simulation together.

A scene is stable when the statics find equilibrium with a margin above
``tol.stable_margin_g`` *and* a simulation of ``seconds`` moves no piece past
``tol.moved_*``. The statics inform the simulation twice, without deciding
it: the probe pushes along their weakest direction (turning around when
they found none), so a knife-edge balance tips in the dynamics too; and the
solver resolves contact forces the finer, the thinner the margin
(:func:`precision_for`). When the two methods disagree the result says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sim.physics.settings import TUNED, PhysicsSettings
from sim.physics.timeline import Timeline, run
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
        stable: statics and dynamics both say it stands (vacuously, with nothing to judge).
        margin_g: the statics margin (fraction of g; 0 when infeasible; None with nothing to judge).
        weakest_direction_deg: the statics' weakest direction (degrees), or None.
        statics: the full :class:`~sim.statics.StaticsResult`.
        dynamics: the :class:`Dynamics` summary.
        pieces: id -> :class:`PieceVerdict`.
        disagreement: why the two methods disagree, or None when they agree.
        settled: the scene at the end of the simulation.
        timeline: the recorded simulation.
        timings_ms: ``statics`` and ``dynamics`` wall-clock time (ms).
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


def precision_for(margin_g: float | None, settings: PhysicsSettings = TUNED, depth: int = 1) -> tuple[float, int]:
    """The solver tolerance (m/s) and iteration bound for a structure of statics margin ``margin_g`` (g).

    Thin margins need finely resolved contact forces and many iterations;
    wide ones do with less (see ``PhysicsSettings.residual_per_margin`` and
    ``iterations_per_margin``). Deep stacks need more of both: Gauss-Seidel
    carries a change through a chain of ``depth`` pieces in the order of
    depth² iterations (``residual_per_level`` and ``iterations_per_level``).
    Without a stable margin (None, a knife edge or no equilibrium) the
    settings' own values are used.

    Args:
        margin_g: the statics margin (fraction of g), or None.
        settings: the settings to start from.
        depth: the most pieces any weight passes through on its way down
            (:func:`support_depth`); 1 leaves the margin alone to decide.
    """
    s = settings
    if margin_g is None or not margin_g > tol.stable_margin_g:
        return s.residual_velocity, s.solver_iterations
    per_g = min(s.residual_per_margin, s.residual_per_level / depth**2)
    residual = min(max(per_g * margin_g, s.residual_floor), s.residual_ceiling)
    wanted = max(s.iterations_per_margin / margin_g, s.iterations_per_level * depth**2)
    iterations = int(round(min(max(wanted, s.min_iterations), s.solver_iterations)))
    return residual, iterations


def tuned_for(margin_g: float | None, settings: PhysicsSettings = TUNED, depth: int = 1) -> PhysicsSettings:
    """``settings`` with the solver tolerance and iteration bound of :func:`precision_for`."""
    residual, iterations = precision_for(margin_g, settings, depth)
    return settings.with_(residual_velocity=residual, solver_iterations=iterations)


def support_depth(scene: Scene, interfaces) -> int:
    """The most movable pieces any weight passes through on its way down to the board, the table
    or a fixed piece (1 for pieces lying on the board, 10 for a tower of 10 blocks).

    Args:
        scene: the scene.
        interfaces: its contact interfaces (``StaticsResult.interfaces``).
    """
    from sim.analysis import support_graph

    graph = support_graph(scene, interfaces)
    movable = {p.id for p in scene.pieces if not p.fixed}
    depth: dict[str, int] = {}
    for start in movable:  # longest chain downwards, iteratively; a cycle of side-by-side supports counts once
        stack, on_path = [start], {start}
        while stack:
            i = stack[-1]
            below = [j for j in graph.rests_on(i) if j in movable and j not in depth and j not in on_path]
            if below:
                stack.append(below[0])
                on_path.add(below[0])
                continue
            depth[i] = 1 + max((depth[j] for j in graph.rests_on(i) if j in depth), default=0)
            stack.pop()
            on_path.discard(i)
    return max(depth.values(), default=1)


def disagreement(statics, dynamics: Dynamics) -> str | None:
    """Why statics and dynamics disagree about a scene, in one sentence; None when they agree."""
    by_statics = bool(statics.stable)
    if by_statics == dynamics.stable:
        return None
    if by_statics:
        return (f"the statics hold it with a margin of {statics.margin_g:.3g} g, but in the simulation "
                f"{_list(dynamics.moved)} moved within {dynamics.sim_seconds:g} s")
    if statics.feasible:
        why = (f"the statics find a margin of only {statics.margin_g:.3g} g (a stable structure needs more "
               f"than {tol.stable_margin_g:g} g)")
    else:
        why = f"the statics cannot hold {_list(statics.unheld)}"
    return f"{why}, but in the simulation nothing moved within {dynamics.sim_seconds:g} s"


def _list(ids) -> str:
    ids = list(ids)
    return ", ".join(ids[:6]) + (f" and {len(ids) - 6} more" if len(ids) > 6 else "")


def check(scene: Scene, seconds: float = DEFAULT_SECONDS, settings: PhysicsSettings | None = None, *,
          progress: Callable[[float, float], None] | None = None) -> CheckResult:
    """Whether a scene stands, by exact statics and by a simulation that must move nothing.

    Args:
        scene: the scene.
        seconds: simulated time (s).
        settings: world settings (default: the tuned ones).
        progress: called as ``progress(done_s, total_s)``: once at the start, then during the simulation.

    Raises:
        OverlapError: pieces interpenetrate at load.
        BlowUpError: the simulation blew up.
    """
    from sim.statics import analyze

    settings = settings or TUNED
    if progress is not None:
        progress(0.0, seconds)  # building the world and the statics come first
    t0 = time.perf_counter()
    with World(scene, settings) as world:
        built = time.perf_counter()
        statics = analyze(scene)
        t1 = time.perf_counter()
        world.set_probe(settings.probe_g, statics.weakest_direction_deg)
        depth = support_depth(scene, statics.interfaces)
        world.set_precision(*precision_for(statics.margin_g if statics.feasible else None, settings, depth))
        timeline = run(world, seconds, progress=progress)
    t2 = time.perf_counter()
    moved, knocked = timeline.moved, timeline.knocked_down
    dynamics = Dynamics(timeline.settled, timeline.seconds,
                        max((m.displacement_mm for m in timeline.pieces.values()), default=0.0),
                        tuple(moved), tuple(knocked), timeline.probe_direction_deg)
    pieces = {i: PieceVerdict(m.displacement_mm, m.tilt_deg, m.knocked_down) for i, m in timeline.pieces.items()}
    margin = float(statics.margin_g) if statics.feasible else 0.0
    weakest = statics.weakest_direction_deg
    if all(p.fixed for p in scene.pieces):
        margin = weakest = None
    return CheckResult(bool(statics.stable) and dynamics.stable, margin, weakest,
                       statics, dynamics, pieces, disagreement(statics, dynamics), timeline.final, timeline,
                       {"statics": (t1 - built) * 1e3, "dynamics": (built - t0 + t2 - t1) * 1e3})
