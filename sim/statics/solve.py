"""Exact rigid-block equilibrium: can every piece be held, and by how much horizontal load?

Two linear programs over the same equations (:mod:`sim.statics.model`),
solved warm one after the other (:mod:`sim.statics.lp`):

1. **Feasibility.** Each body may receive an external *help* wrench (slack
   columns, cost 1): the least total help that holds every body under
   gravity is zero exactly when the structure can stand. When it is not,
   the highest body that needs help is taken out (its contacts carry
   nothing) and the rest tried again, until what remains stands: the bodies
   taken out are ``unheld``.
2. **Margin.** With no help, two free columns (αx, αy) add a uniform
   horizontal acceleration α (in g) to every body. The set A of accelerations
   the structure withstands is convex and contains 0; the margin is the
   radius of the largest disc around 0 inside A, which is the minimum over
   unit directions d of A's support function h(d) = max {d · α : α ∈ A}.
   Each LP evaluates h(d) and returns the maximiser α_d, and α_d · d' is a
   lower bound of h(d') for every d' (α_d lies in A). The cutting-plane
   search keeps the largest of these bounds, evaluates h where that bound is
   lowest, and stops when the lowest bound and the lowest h found agree to
   ``tol.margin_precision``. Where A is a polygon (tipping, or sliding along
   a pyramid face) this ends in a few LPs with the exact answer; where A is
   round (pure sliding on a friction cone) the lowest h found is exact and
   the lower bound closes more slowly, up to ``MAX_DIRECTIONS`` LPs.

In both, friction is the circular Coulomb cone: each contact point starts
with four generators (± the piece's own two tangent axes) and gains one in
the direction its dual price asks for, until no generator of the cone could
improve the objective by more than ``tol.friction_cone_rel`` (column
generation, exact in the limit).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from sim.contact import Interface, find_interfaces
from sim.statics.lp import EqualityLP, Solution
from sim.statics.model import Equilibrium, equilibrium
from sim.tol import tol

MARGIN_CAP_G = 10.0  # margins are reported up to this (g): beyond it nothing in these games falls
MAX_DIRECTIONS = 24  # most support-function evaluations of the margin search
MAX_ROUNDS = 50  # most column-generation rounds per evaluation
SEED_MIN = 1e-6  # a load's projection into a contact plane shorter than this (of 1) seeds no generator
FIRST_DIRECTIONS_DEG = (0.0, 120.0, 240.0)


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
        margin_bounds: (lower, upper) bounds of the margin the search proved (g).
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


def analyze(scene, interfaces=None, *, margin: bool = True, warm: bool | None = None) -> StaticsResult:
    """Rigid-block equilibrium of a scene: feasibility, margin, weakest direction, unheld pieces.

    Args:
        scene: the scene (fixed pieces and the board support the rest).
        interfaces: its contact interfaces; found with :func:`sim.contact.find_interfaces` if None.
        margin: also search the margin; without, a feasible result has ``margin_g`` nan
            and ``weakest_direction_deg`` None (feasibility alone is one LP).
        warm: re-solve the LPs warm with HiGHS's own object (default when scipy has it).

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
    problem = _Problem(eq, warm)
    unheld = tuple(eq.bodies[i] for i in problem.unheld())
    checked = time.perf_counter()
    timings["feasibility"] = (checked - found) * 1e3
    if unheld:
        timings.update(margin=0.0, total=(time.perf_counter() - start) * 1e3)
        return StaticsResult(False, 0.0, None, unheld, interfaces, timings, (0.0, 0.0), problem.lp.solves)
    if not margin:
        timings.update(margin=0.0, total=(time.perf_counter() - start) * 1e3)
        return StaticsResult(True, math.nan, None, (), interfaces, timings, (math.nan, math.nan), problem.lp.solves)
    lower, upper, theta = problem.margin()
    timings["margin"] = (time.perf_counter() - checked) * 1e3
    timings["total"] = (time.perf_counter() - start) * 1e3
    value = min(max(upper, 0.0), MARGIN_CAP_G)
    return StaticsResult(True, value, math.degrees(theta) % 360.0, (), interfaces, timings,
                         (min(max(lower, 0.0), value), value), problem.lp.solves)


class _Problem:
    """The LP of one scene: help (slack) columns, the two acceleration columns and force generators.

    Attributes:
        live: (p,) which contact points may carry force (a removed piece's do not).
        col_point: contact point of each generator column, in column order.
    """

    def __init__(self, eq: Equilibrium, warm: bool | None):
        self.eq = eq
        self.lp = EqualityLP(eq.gravity_load(), warm)
        rows = eq.num_rows
        accel = np.column_stack([eq.horizontal_load(0), eq.horizontal_load(1)])
        self.alpha = self.lp.add_columns(accel, 0.0, 0.0, 0.0)
        eye = sp.eye_array(rows, format="csc")
        self.slack = self.lp.add_columns(sp.hstack([eye, -eye], format="csc"), 1.0, 0.0, np.inf)
        self.first_generator = self.lp.num_cols
        self.live = np.ones(len(eq.points), dtype=bool)
        self.col_point = np.zeros(0, dtype=int)
        t = eq.tangents
        self._add_generators(np.repeat(np.arange(len(eq.points)), 4),
                             np.stack([t[:, 0], -t[:, 0], t[:, 1], -t[:, 1]], axis=1).reshape(-1, 3))
        self._seed(np.array([0.0, 0.0, 1.0]))

    def _seed(self, load: np.ndarray) -> None:
        """Add generators along ± a load direction projected into each contact plane.

        Friction that resists a body sliding under that load lies along its
        projection: with these generators pure translational sliding is exact
        at once, and column generation is left only the twisting modes.
        """
        eq = self.eq
        proj = load - (eq.normals @ load)[:, None] * eq.normals
        size = np.linalg.norm(proj, axis=1)
        live = np.flatnonzero(size > SEED_MIN)
        if len(live):
            e = proj[live] / size[live, None]
            self._add_generators(np.concatenate([live, live]), np.vstack([e, -e]))

    def _add_generators(self, point: np.ndarray, tangent: np.ndarray) -> None:
        keep = self.live[point]
        point, tangent = point[keep], tangent[keep]
        if len(point):
            self.lp.add_columns(self.eq.force_columns(point, self.eq.generators(point, tangent)), 0.0, 0.0, np.inf)
            self.col_point = np.concatenate([self.col_point, point])

    def remove(self, body: int) -> None:
        """Take a body out: its equations are dropped (free help) and its contacts carry nothing."""
        rows = np.arange(6 * body, 6 * body + 6)
        self.lp.set_cost(np.concatenate([self.slack[rows], self.slack[rows + self.eq.num_rows]]), 0.0)
        dead = (self.eq.below == body) | (self.eq.above == body)
        self.live &= ~dead
        cols = self.first_generator + np.flatnonzero(dead[self.col_point])
        if len(cols):
            self.lp.set_bounds(cols, 0.0, 0.0)

    def unheld(self) -> list[int]:
        """The bodies that cannot be held, peeled from the top.

        While some bodies need help, the highest of them (by centre of mass)
        is taken out and the rest tried again: what remains stands by itself,
        and what was taken out is what falls (a failing piece and whatever
        could only stand on it). Only feasibility answers and heights decide,
        so the answer does not depend on which of several least-help
        solutions the LP happens to return.
        """
        out: list[int] = []
        height = self.eq.com[:, 2]
        while True:
            need = self.least_help()
            failing = [i for i in np.flatnonzero(need > tol.unheld_slack) if i not in out]
            if not failing:
                return sorted(out)
            top = max(failing, key=lambda i: (height[i], -i))
            out.append(int(top))
            self.remove(int(top))

    def solve(self, enough=None, max_rounds: int = MAX_ROUNDS) -> tuple[Solution, bool]:
        """Solve, adding friction generators until none could improve the objective.

        Args:
            enough: stop early once this is true of the objective (it only falls as
                generators are added, so a bound met stays met).
            max_rounds: most generation rounds.

        Returns:
            The last solution, and whether it is exact for the circular cone
            (no generator could improve it by more than ``tol.friction_cone_rel``).
        """
        eq = self.eq
        for round_ in range(max_rounds + 1):
            sol = self.lp.solve()
            if not sol.optimal or len(eq.points) == 0:
                return sol, True
            w = eq.point_duals(sol.duals)
            wn = np.einsum("ij,ij->i", w, eq.normals)
            wt = w - wn[:, None] * eq.normals
            size = np.linalg.norm(wt, axis=1)
            gain = wn + eq.mu * size  # best reduced-cost decrease of a new generator per unit force
            pick = np.flatnonzero((gain > tol.friction_cone_rel) & self.live)
            if len(pick) == 0:
                return sol, True
            if round_ == max_rounds or (enough is not None and enough(sol.objective)):
                return sol, False
            e = np.where(size[pick, None] > 0, wt[pick] / np.maximum(size[pick, None], 1e-300),
                         eq.tangents[pick, 0])
            self._add_generators(pick, e)
        raise AssertionError("unreachable")

    def least_help(self) -> np.ndarray:
        """(b,) the help (scaled slack) each body needs under gravity alone; all zero when feasible."""
        sol, _ = self.solve(enough=lambda objective: objective <= tol.lp_feasibility)
        if not sol.optimal:  # cannot happen: the help columns make every right-hand side reachable
            raise RuntimeError("the feasibility LP has no optimum")
        rows = self.eq.num_rows
        s = sol.x[self.slack]
        return (s[:rows] + s[rows:]).reshape(-1, 6).sum(axis=1)

    def support(self, theta: float, beaten: float = math.inf, max_rounds: int = MAX_ROUNDS):
        """h(d) for the unit direction at angle ``theta`` (rad).

        Args:
            beaten: stop refining once h is known to be at least this (the best so far).
            max_rounds: most column-generation rounds.

        Returns:
            (h, its maximiser α (2,), whether h is exact). An inexact h is a lower
            bound, and α lies in the set of withstood accelerations all the same.
        """
        d = np.array([math.cos(theta), math.sin(theta)])
        self._seed(np.array([d[0], d[1], 0.0]))
        self.lp.set_cost(self.alpha, -d)
        sol, exact = self.solve(enough=lambda objective: -objective >= beaten, max_rounds=max_rounds)
        if not sol.optimal:  # cannot happen: α = 0 is feasible once least_help found no help needed
            raise RuntimeError("the margin LP has no optimum")
        a = sol.x[self.alpha]
        return float(d @ a), a, exact

    def margin(self) -> tuple[float, float, float]:
        """Cutting-plane search for the minimum over directions of h: (lower bound, margin, its angle).

        The first directions only place cutting planes (no refinement of the
        friction cone); each later one is refined until exact, or until it is
        beaten by the best exact value so far (then it cannot be the minimum).
        """
        self.lp.set_bounds(self.slack, 0.0, 0.0)
        self.lp.set_bounds(self.alpha, -MARGIN_CAP_G, MARGIN_CAP_G)
        best, best_theta = math.inf, 0.0
        points = []
        for deg in FIRST_DIRECTIONS_DEG:
            h, a, exact = self.support(math.radians(deg), max_rounds=0)
            points.append(a)
            if exact and h < best:
                best, best_theta = h, math.radians(deg)
        lower = -math.inf
        for _ in range(MAX_DIRECTIONS - len(FIRST_DIRECTIONS_DEG)):
            theta, lower = _lowest_bound(np.array(points))
            if best - lower <= tol.margin_precision:
                break
            h, a, exact = self.support(theta, beaten=best)
            points.append(a)
            if h < best:  # exact, or the refinement ran out of rounds: the best estimate there is
                best, best_theta = h, theta
        else:
            lower = _lowest_bound(np.array(points))[1]
        return min(lower, best), best, best_theta


def _lowest_bound(points: np.ndarray) -> tuple[float, float]:
    """Minimise ``max_i points[i] · d(θ)`` over θ: (θ, value).

    The maximum of the sinusoids is lowest either where two of them cross
    (d perpendicular to the difference of two points) or at the bottom of one
    (d opposite a point); every such angle is a candidate.
    """
    diff = points[:, None, :] - points[None, :, :]
    i, j = np.triu_indices(len(points), 1)
    perp = np.column_stack([-diff[i, j, 1], diff[i, j, 0]])
    cands = np.vstack([perp, -perp, -points])
    cands = cands[np.linalg.norm(cands, axis=1) > 0]
    if len(cands) == 0:  # every maximiser is α = 0: h is 0 in every direction evaluated
        return 0.0, 0.0
    angles = np.arctan2(cands[:, 1], cands[:, 0])
    d = np.column_stack([np.cos(angles), np.sin(angles)])
    bound = (d @ points.T).max(axis=1)
    k = int(np.argmin(bound))
    return float(angles[k]), float(bound[k])
