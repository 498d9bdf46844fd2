"""Exact rigid-block equilibrium of a scene: can every piece be held, and by how much horizontal load?

:func:`analyze` compiles the equilibrium equations (:mod:`sim.statics.model`)
and solves them as one warm linear program (:mod:`sim.statics.problem`):

1. **Feasibility.** First the tilted-gravity test at α = 0
   (:mod:`sim.statics.tilt`): when vertical forces alone hold every piece,
   the structure stands (without the margin no LP is solved), and its LP
   starts with normal forces only; else with friction pyramids. The least
   total external help that holds every piece under gravity is zero exactly
   when the structure can stand. When it is not, the highest piece that
   needs help is taken out (its contacts carry nothing) and the rest tried
   again, until what remains stands: the pieces taken out are ``unheld``.
2. **Margin.** The set A of uniform horizontal accelerations α (in g) the
   structure withstands is convex and contains 0; the margin is the radius
   of the largest disc around 0 inside A, which is the minimum over unit
   directions d of A's support function h(d) = max {d · α : α ∈ A}. Each LP
   evaluates h(d) and returns the maximiser α_d, and α_d · d' is a lower
   bound of h(d') for every d' (α_d lies in A); the tilted-gravity test
   proves more points of A cheaply, and sliding mechanisms
   (:mod:`sim.statics.slide`) bound h from above. The search
   (:mod:`sim.statics.search`) stops when the lowest bound and the lowest h
   found agree to the margin precision. Where A is a polygon near its
   nearest edge (tipping) the answer is exact; where it is round (sliding)
   it is within the precision.

Friction is the circular Coulomb cone, refined by cutting planes until no
contact violates it by more than ``tol.friction_cone_rel``, or until h is
within the precision of a sliding bound.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from sim.contact import Interface, find_interfaces
from sim.statics.cone import problem_for
from sim.statics.model import equilibrium
from sim.statics.problem import MARGIN_CAP_G
from sim.statics.search import search
from sim.statics.tilt import TiltTest
from sim.tol import tol


@dataclass(frozen=True, eq=False)
class StaticsResult:
    """The statics verdict of a scene.

    Attributes:
        feasible: every non-fixed piece can be held under gravity by
            compression and Coulomb friction at its contacts.
        margin_g: the largest uniform horizontal acceleration (fraction of g)
            the structure withstands in its weakest horizontal direction; 0
            when infeasible, at most ``MARGIN_CAP_G``.
        weakest_direction_deg: that direction (degrees from +x towards +y),
            the way the load pushes the pieces; None when infeasible.
        unheld: ids of the pieces that cannot be held (empty when feasible).
        interfaces: the contact interfaces used.
        timings_ms: ``interfaces``, ``feasibility``, ``margin``, ``total`` (ms).
        margin_bounds: (a lower bound the search proved, ``margin_g``) (g): the true
            margin lies between, up to the stated precision of the upper end.
        lp_solves: LP solves it took.
    """

    feasible: bool
    margin_g: float
    weakest_direction_deg: float | None
    unheld: tuple[str, ...]
    interfaces: tuple[Interface, ...]
    timings_ms: dict = field(default_factory=dict)
    margin_bounds: tuple[float, float] = (0.0, 0.0)
    lp_solves: int = 0

    @property
    def stable(self) -> bool:
        """Feasible with a margin above ``tol.stable_margin_g`` (a knife-edge balance is not stable)."""
        return self.feasible and self.margin_g > tol.stable_margin_g


def analyze(scene, interfaces=None, *, margin: bool = True, warm: bool | None = None,
            strict_peel: int | None = None) -> StaticsResult:
    """Rigid-block equilibrium of a scene: feasibility, margin, weakest direction, unheld pieces.

    Args:
        scene: the scene (fixed pieces and the board support the rest).
        interfaces: its contact interfaces; found with :func:`sim.contact.find_interfaces` if None.
        margin: also search the margin; without, a feasible result has ``margin_g`` nan
            and ``weakest_direction_deg`` None (no LP when vertical forces alone hold it).
        warm: re-solve the LPs warm with HiGHS's own object (default when scipy has it).
        strict_peel: peel the unheld pieces one program at a time only this many times, then all that still
            need help at once (the live world's choice for large collapses; None: one at a time, exact).

    Returns:
        The verdict.
    """
    start = time.perf_counter()
    if interfaces is None:
        interfaces = find_interfaces(scene)
    interfaces = tuple(interfaces)
    found = time.perf_counter()
    eq = equilibrium(scene, list(interfaces))
    timings = {"interfaces": (found - start) * 1e3}
    if not eq.bodies:
        timings.update(feasibility=0.0, margin=0.0, total=(time.perf_counter() - start) * 1e3)
        return StaticsResult(True, MARGIN_CAP_G, 0.0, (), interfaces, timings, (MARGIN_CAP_G, MARGIN_CAP_G))
    groups = eq.structures()
    parts = [eq.subset(g) for g in groups]
    # a structure that touches no ground falls whole: no program asked (Equilibrium.ungrounded)
    floating = [len(part.ungrounded()) == len(part.bodies) for part in parts]
    tests = [None if f else TiltTest(part) for part, f in zip(parts, floating)]
    upright = [not f and test.holds(np.zeros(2)) for test, f in zip(tests, floating)]  # vertical forces hold it
    # a structure held by vertical forces needs its LP only for the margin: built then
    problems = [None if up or f else problem_for(part, warm, friction=True)
                for part, up, f in zip(parts, upright, floating)]
    unheld = sorted(int(g[i]) for g, p, t, f in zip(groups, problems, tests, floating)
                    for i in (range(len(g)) if f else [] if p is None else p.unheld(t, strict_peel)))
    unheld = tuple(eq.bodies[i] for i in unheld)
    checked = time.perf_counter()
    timings["feasibility"] = (checked - found) * 1e3

    if unheld:
        timings.update(margin=0.0, total=(time.perf_counter() - start) * 1e3)
        return StaticsResult(False, 0.0, None, unheld, interfaces, timings, (0.0, 0.0), _solves(problems))
    if not margin:
        timings.update(margin=0.0, total=(time.perf_counter() - start) * 1e3)
        return StaticsResult(True, math.nan, None, (), interfaces, timings, (math.nan, math.nan), _solves(problems))
    lower, upper, theta, used = _weakest(parts, problems, tests, warm)
    timings["margin"] = (time.perf_counter() - checked) * 1e3
    timings["total"] = (time.perf_counter() - start) * 1e3
    value = min(max(upper, 0.0), MARGIN_CAP_G)
    return StaticsResult(True, value, math.degrees(theta) % 360.0, (), interfaces, timings,
                         (min(max(lower, 0.0), value), value), _solves(problems + used))


def _solves(problems: list) -> int:
    """LP solves of the problems (each counted once; None for no LP)."""
    return sum(p.solves for p in {id(p): p for p in problems if p is not None}.values())


def _weakest(parts: list, problems: list, tests: list[TiltTest], warm: bool | None):
    """The margin over independent structures: (proven lower bound, margin, direction in rad, the LPs used).

    The margin is the least over the structures; each is searched only until
    it is known not to undercut the least found so far.
    """
    best, theta, lower = math.inf, 0.0, math.inf
    estimate = (math.inf, 0.0)
    used = []
    for part, problem, test in zip(parts, problems, tests):
        found = search(part, problem, best, test, warm)
        if found.problem is not None:
            used.append(found.problem)
        lower = min(lower, found.lower()[1])
        if found.upper < best:
            best, theta = found.upper, found.theta
        estimate = min(estimate, found.estimate)
    if not math.isfinite(best):  # no evaluation came out exact: the least estimate (a lower bound there)
        best, theta = estimate
    return min(lower, best), best, theta, used
