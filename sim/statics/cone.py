"""Structures of more than a few dozen contact points with the exact Coulomb cone in one solve: second-order
cone programs (Clarabel).

The kinematic LP (:mod:`sim.statics.problem`) re-solves warm and grows by
cuts: ideal for a few pieces. Where the margin needs friction in many
directions, its cutting planes cost it dozens of solves (Babylon's 140-piece
bench: 38 HiGHS solves, 2.2 s; the cone programs: 5, 0.36 s). A vault of
hundreds of blocks leaning on each other is another matter: the pyramid LP of the 399-block
Armadillo vault (39 000 generator rows over 2 200 velocities) takes HiGHS's
dual simplex 60 s a solve and its interior point method 16 s, where the
force problem with the circular cone at every contact point, posed as a
second-order cone program (one cone ``|f_t| ≤ μ f_n`` a point, six equations
a body), takes Clarabel's interior point method 8 iterations and half a
second: no pyramid, no cutting planes, the circular cone exactly.

:class:`ConeProblem` answers what the margin search and the peeling of
unheld pieces ask of :class:`~sim.statics.problem.Problem` (``least_help``,
``remove``, ``unheld``, ``start_margin``, ``support``), each a fresh cone
program: the force problem

    E f + α_x h_x + α_y h_y + help = b,   (μ_k f_n,k, f_t1,k, f_t2,k) ∈ SOC for every point k,

with the equations E of :meth:`~sim.statics.model.Equilibrium.force_rows`
(forces along each point's normal and two tangents), b the weights and h the
horizontal loads. Feasibility minimises the total help (α = 0); h(d)
maximises d · α without help, |α_x|, |α_y| ≤ the margin cap, solved through its
conic dual (:class:`SupportPrograms`: virtual velocities, a tenth of the unknowns,
the same matrix in every direction), two directions at a time on two threads.

It is used where a structure has at least :data:`CONE_POINTS` contact points
and the ``clarabel`` package is installed; the LP otherwise.
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from sim.statics.model import Equilibrium
from sim.statics.problem import MARGIN_CAP_G, Problem, peel_unheld
from sim.tol import tol

CONE_POINTS = 64
"""Structures with at least this many contact points go to the cone programs, smaller ones to the LP.
Measured on every bundled scene and compas_cra sample both ways (docs/statics.md): from about 60 points
on the cone programs are as fast or faster wherever the LP's search needs more than a few solves (a
game-like Talo 55 of 440 points: 4.5 times, Talo's render-skyline of 580: 15 times); below, the warm LP is
as fast or faster (a box on a box: 4 points, a few warm pivots)."""
SUPPORT_GAP = 1e-6
"""Relative duality gap a support evaluation h(d) stops at: 200 times below the margin's precision
(``tol.margin_precision_rel``), and 5 of Clarabel's 30 iterations fewer than its default 1e-8. Feasibility
keeps the default: its optimum is 0, met absolutely."""


CUT_RESIDUAL = 2e-5
"""The relative residuals below which a support program past the margin found is cut short: on the Armadillo
vault about 8 of its 26–30 iterations fewer, the point made to balance the loads 2e-4 to 1.4e-3 short of h
(5e-5: a little weaker points, as fast in all; 1e-4: weaker still, a round more)."""

THREADS = min(2, os.cpu_count() or 1)
"""Support programs solved side by side (Clarabel releases the GIL): the margin search asks for two
directions at a time."""


class ConeSolveError(RuntimeError):
    """A cone program that ended without an answer, even solved again with iterative refinement."""


def available() -> bool:
    """Whether the cone solver (PyPI ``clarabel``) is installed."""
    try:
        import clarabel  # noqa: F401
    except ImportError:
        return False
    return True


def problem_for(eq: Equilibrium, warm: bool | None = None, friction: bool = False):
    """The problem of one structure: a :class:`ConeProblem` for a large one (with clarabel), else the LP."""
    if len(eq.points) >= max(CONE_POINTS, 1) and available():  # a structure with no contact: the LP says it falls
        return ConeProblem(eq)
    return Problem(eq, warm, friction=friction)


class ConeProblem:
    """The force problem of one structure as second-order cone programs.

    Attributes:
        eq: the equilibrium system.
        live: (p,) which contact points may carry force (a removed body's do not).
        held: (b,) which bodies were taken out (stand still, their contacts carry nothing).

    A question whose cone program ends without an answer (:class:`ConeSolveError`: Clarabel's
    numerical trouble, never seen on the scenes measured) is asked of the structure's LP instead
    (:meth:`_lp`), built then, with the same bodies taken out: slower, never no answer.
    """

    def __init__(self, eq: Equilibrium):
        self.eq = eq
        p = len(eq.points)
        self.live = np.ones(p, dtype=bool)
        self.held = np.zeros(len(eq.bodies), dtype=bool)
        self.cone_solves = 0
        self._margin = False
        self._fallback: Problem | None = None
        self._lock = threading.Lock()  # the LP is asked from the search's threads one at a time
        self._support: SupportPrograms | None = None  # the margin's programs, for the live points as they are
        self._interior: np.ndarray | None = None  # (p, 3) D f of the forces that hold the whole structure, if solved
        points = np.arange(p)
        columns = []
        for direction in (eq.normals, eq.tangents[:, 0], eq.tangents[:, 1]):
            data, index, indptr = eq.force_rows(points, direction)
            columns.append(sp.csr_array((data, index, indptr), shape=(p, eq.num_rows)).T)
        order = np.arange(3 * p).reshape(3, p).T.ravel()  # (f_n, f_t1, f_t2) of each point together
        self._forces = sp.hstack(columns, format="csc")[:, order]

    def _solve(self, extra: sp.csc_array, extra_cones: list, cost: np.ndarray, extra_rows=None, gap=None):
        """One cone program over the live points' forces and ``extra`` columns (equations then extra rows),
        to the relative duality gap ``gap`` (Clarabel's default when None)."""
        import clarabel

        self.cone_solves += 1
        rows = np.flatnonzero(np.repeat(~self.held, 6))
        point = np.flatnonzero(self.live)
        cols = (3 * point[:, None] + np.arange(3)).ravel()
        forces = self._forces[rows][:, cols]
        k, m = len(point), len(rows)
        n_extra = extra.shape[1]
        equations = sp.hstack([forces, extra[rows]], format="csc")
        scale = np.ones(3 * k)
        scale[0::3] = self.eq.mu[point]
        cone_rows = sp.hstack([-sp.diags_array(scale, format="csc"), sp.csc_array((3 * k, n_extra))], format="csc")
        blocks = [equations, cone_rows] + ([extra_rows[0]] if extra_rows is not None else [])
        a = sp.vstack(blocks, format="csc")
        b = np.concatenate([self.eq.gravity_load()[rows], np.zeros(3 * k)]
                           + ([extra_rows[1]] if extra_rows is not None else []))
        cones = [clarabel.ZeroConeT(m)] + [clarabel.SecondOrderConeT(3)] * k + extra_cones
        n = 3 * k + n_extra
        data = (sp.csc_array((n, n)), np.concatenate([np.zeros(3 * k), cost]), a, b, cones)
        solution = _refined(clarabel.DefaultSolver(*data, _settings(gap)).solve(), data, gap)
        if not _solved(solution):
            raise ConeSolveError(f"the cone program ended {solution.status}")
        x = np.asarray(solution.x)
        return x[3 * k:], rows, x[:3 * k].reshape(-1, 3)

    @property
    def solves(self) -> int:
        """Programs solved so far: cone programs, and the LP's solves where it stood in."""
        return self.cone_solves + (self._fallback.solves if self._fallback is not None else 0)

    def _lp(self) -> Problem:
        """The structure's LP, as this problem stands (its bodies taken out, the margin started), built once."""
        if self._fallback is None:
            self._fallback = Problem(self.eq, friction=True)
            for body in np.flatnonzero(self.held):
                self._fallback.remove(int(body))
            if self._margin:
                self._fallback.start_margin()
        return self._fallback

    # --- feasibility --------------------------------------------------------------------------

    def least_help(self) -> np.ndarray:
        """(b,) the help each body needs under gravity alone (scaled, as the LP's); all zero when it stands."""
        try:
            return self._least_help()
        except ConeSolveError:
            need = self._lp().least_help()
            need[self.held] = 0.0
            return need

    def _least_help(self) -> np.ndarray:
        import clarabel

        m = self.eq.num_rows
        extra = sp.hstack([sp.identity(m, format="csc"), -sp.identity(m, format="csc")], format="csc")
        positive = (sp.hstack([sp.csc_array((2 * m, 3 * int(self.live.sum()))), -sp.identity(2 * m, format="csc")],
                              format="csc"), np.zeros(2 * m))
        keep = np.repeat(~self.held, 6)
        cost = np.concatenate([keep, keep]).astype(float)  # a removed body's help is free
        x, _, forces = self._solve(extra, [clarabel.NonnegativeConeT(2 * m)], cost, positive)
        need = np.abs(x[:m] - x[m:]).reshape(-1, 6).sum(axis=1)
        need[self.held] = 0.0
        if not self.held.any() and not (need > tol.unheld_slack).any():
            self._interior = forces * np.column_stack([self.eq.mu, np.ones((len(forces), 2))])
        return need

    def remove(self, body: int) -> None:
        """Take a body out: it stands still and its contacts carry nothing."""
        self.held[body] = True
        self._support = None
        self._interior = None
        self.live &= (self.eq.below != body) & (self.eq.above != body)
        if self._fallback is not None:
            self._fallback.remove(body)

    def unheld(self, test=None, strict: int | None = None) -> list[int]:
        """The bodies that cannot be held, peeled from the top (as :meth:`Problem.unheld
        <sim.statics.problem.Problem.unheld>`)."""
        return peel_unheld(self, test, strict)

    # --- margin ---------------------------------------------------------------------------------

    def start_margin(self) -> None:
        """From now on each solve evaluates h(d)."""
        self._margin = True
        if self._fallback is not None:
            self._fallback.start_margin()

    def support(self, theta: float, enough: float = math.inf, max_rounds: int = 0):
        """h(d) for the unit direction at angle ``theta`` (rad): (h, its maximiser α (2,), True).

        Exact for the circular cone to the solver's gap (:data:`SUPPORT_GAP`); ``enough`` and
        ``max_rounds`` are the LP's options and change nothing here. Where the LP stands in
        (a cone program without an answer), its own answer and flag.
        """
        return self.supports([theta])[0]

    def supports(self, thetas, above: float = math.inf) -> list[tuple[float, np.ndarray, bool]]:
        """h(d) in several directions (rad), each as :meth:`support`, solved side by side.

        Clarabel releases the GIL while it solves, so up to :data:`THREADS` programs run at
        once, each worker with a solver of its own that only changes its right-hand side
        (the direction) from one program to the next. No solve starts from another's
        answer, so the answers do not depend on which worker solves which direction.

        ``above`` (g): a direction whose h comes out above it (it cannot hold the margin) needs
        only its maximiser, and is cut short (:meth:`SupportPrograms.solve`): its h is then a
        lower bound, flagged not exact.
        """
        thetas = [float(t) for t in thetas]
        if self._support is None:
            self._support = SupportPrograms(self, self._interior)
        programs = self._support
        workers = min(len(thetas), THREADS)

        def one(worker: int, theta: float):
            try:
                out = programs.solve(worker, theta, above)
            except ConeSolveError:
                with self._lock:
                    return self._lp().support(theta)
            with self._lock:
                self.cone_solves += 1
            return out

        if workers <= 1:
            return [one(0, t) for t in thetas]
        chunks = [thetas[w::workers] for w in range(workers)]
        with ThreadPoolExecutor(workers) as pool:
            done = list(pool.map(lambda w: [one(w, t) for t in chunks[w]], range(workers)))
        out = [None] * len(thetas)
        for w in range(workers):
            out[w::workers] = done[w]
        return out


class SupportPrograms:
    """The support function h(d) of one structure's withstood accelerations, as a kinematic cone program.

    The force program (max d · α over forces in the cones balancing the loads, |α_x|, |α_y| ≤ cap)
    is solved through its conic dual: virtual velocities y (6 a body) that every contact's cone
    admits, ``D⁻¹ Eᵀ y ∈ SOC`` at each point (D = diag(μ, 1, 1): the dual of the friction cone),
    minimising ``b · y + cap (|d_x − w_x| + |d_y − w_y|)`` with w = (u_x · y, u_y · y) the work
    of the unit horizontal loads. Its optimum is h(d), and the multipliers of the four rows
    that bound |d − w| are α. Half the size of the force program's system (2 200 velocities
    rather than 22 000 forces on the Armadillo vault: 0.7 s rather than 0.85 s a solve), and
    the matrix is the same in every direction: only the right-hand side (d) changes, so each
    worker's solver is set up once.

    Args:
        problem: the cone problem (its live points and held bodies as they are now).
    """

    def __init__(self, problem: ConeProblem, interior: np.ndarray | None = None):
        eq = problem.eq
        self.rows = np.flatnonzero(np.repeat(~problem.held, 6))
        point = np.flatnonzero(problem.live)
        cols = (3 * point[:, None] + np.arange(3)).ravel()
        forces = problem._forces[self.rows][:, cols]  # (m, 3k)
        self.k, m = len(point), len(self.rows)
        scale = np.ones(3 * self.k)
        scale[0::3] = eq.mu[point]
        cones = -(sp.diags_array(1.0 / scale, format="csc") @ forces.T)  # s = D⁻¹ Eᵀ y ∈ SOC
        work = np.vstack([eq.horizontal_load(0)[self.rows], eq.horizontal_load(1)[self.rows]])  # (2, m)
        bound = np.zeros((4, m + 2))  # s = z ∓ (w - d) ≥ 0, rows (x+, x-, y+, y-)
        bound[0, :m], bound[1, :m], bound[2, :m], bound[3, :m] = -work[0], work[0], -work[1], work[1]
        bound[[0, 1], m], bound[[2, 3], m + 1] = -1.0, -1.0
        self.matrix = sp.vstack([sp.hstack([cones, sp.csc_array((3 * self.k, 2))]), sp.csc_array(bound)],
                                format="csc")
        self.cost = np.concatenate([eq.gravity_load()[self.rows], [MARGIN_CAP_G, MARGIN_CAP_G]])
        self.n = m + 2
        self.load = max(float(work[0].sum()), 1.0)  # the structure's weight (scaled): d times it makes y of order one
        self._solvers: dict[int, object] = {}
        self.interior = None if interior is None else interior[point]
        if self.interior is not None and not (_cone_margin(self.interior) > 0.0).all():
            self.interior = None  # on the boundary somewhere: no repair can lean on it

    def rhs(self, theta: float) -> np.ndarray:
        """The right-hand side for the direction at ``theta`` (rad), scaled by :attr:`load`.

        A unit d is the work of unit loads on every body together, so the mechanism's
        velocities come out about one over the weight (a vault of 366 blocks: 0.003); scaled,
        they are of order one, and Clarabel takes 25–29 iterations instead of 32–39. Scaling b
        scales y and the optimum alike and leaves the multipliers (forces, α) as they are.
        """
        d = self.load * np.array([math.cos(theta), math.sin(theta)])
        return np.concatenate([np.zeros(3 * self.k), [-d[0], d[0], -d[1], d[1]]])

    def solve(self, worker: int, theta: float, above: float = math.inf) -> tuple[float, np.ndarray, bool]:
        """h at ``theta`` (rad) on the worker's own solver: (h, α (2,), whether exact).

        With the forces that hold the structure under gravity (:attr:`interior`) and ``above``
        finite, a program whose objective has passed ``above`` (g) once its residuals are below
        :data:`CUT_RESIDUAL` is cut short: that direction cannot hold the margin, and only a
        point of A is needed. The iterate's forces, strictly inside their cones but balancing
        the loads only to the residual, are made to balance them (:func:`_balanced`): then
        (d · α, α, False), α a proven point of A a little short of the maximiser.
        """
        import clarabel

        b = self.rhs(theta)
        cones = [clarabel.SecondOrderConeT(3)] * self.k + [clarabel.NonnegativeConeT(4)]
        data = (sp.csc_array((self.n, self.n)), self.cost, self.matrix, b, cones)
        solver = self._solvers.get(worker)
        if solver is None:
            solver = clarabel.DefaultSolver(*data, _settings(SUPPORT_GAP))
            self._solvers[worker] = solver
        else:
            solver.update(b=b)
        d = np.array([math.cos(theta), math.sin(theta)])
        cut = self.interior is not None and math.isfinite(above)
        if cut:
            level = above * self.load
            solver.set_termination_callback(lambda info: info.cost_primal > level and info.cost_dual > level
                                            and max(info.res_primal, info.res_dual) <= CUT_RESIDUAL)
        else:
            solver.unset_termination_callback()
        solution = solver.solve()
        if cut and str(solution.status) == "CallbackTerminated":
            z = _balanced(self, np.asarray(solution.z))
            a = None if z is None else _acceleration(z[3 * self.k:])
            if a is not None and d @ a > above:  # past the margin found: this direction is proven
                return float(d @ a), a, False
            solver.unset_termination_callback()  # short of it: solved in full after all
            solution = solver.solve()
        solution = _refined(solution, data, SUPPORT_GAP)
        if not _solved(solution):
            raise ConeSolveError(f"the cone program of h({math.degrees(theta):.1f}°) ended {solution.status}")
        a = _acceleration(np.asarray(solution.z)[3 * self.k:])
        return float(d @ a), a, True


def _acceleration(z: np.ndarray) -> np.ndarray:
    """α (2,) from the multipliers of the four acceleration rows (x+, x−, y+, y−)."""
    return np.clip(np.array([z[0] - z[1], z[2] - z[3]]), -MARGIN_CAP_G, MARGIN_CAP_G)


def _cone_margin(z: np.ndarray) -> np.ndarray:
    """(k,) how far inside the second-order cone each row (k, 3) lies: z₀ − |(z₁, z₂)|."""
    return z[:, 0] - np.hypot(z[:, 1], z[:, 2])


def _balanced(programs: SupportPrograms, z: np.ndarray) -> np.ndarray | None:
    """A proven point of A from an interior-point iterate cut short: the multipliers z made exact (the
    forces D f at each point, then the acceleration rows'), or None where it fails.

    The iterate's multipliers lie strictly inside their cones but balance the loads only to the
    iterate's residual.
    The least change of the forces that balances them exactly, each point weighted by the square
    of how far inside its cone it lies (a point near the cone's edge hardly moves), leaves a few
    points just outside; mixed with the forces that hold the structure under gravity (α = 0,
    strictly inside every cone) in the least proportion t that brings every point inside, the
    forces hold (1 − t) α: a point of A, its equations met to the solver's precision.
    """
    k, m = programs.k, programs.n - 2
    cones = programs.matrix[:3 * k, :m]
    bounds = programs.matrix[3 * k:, :m]
    force = z[:3 * k].reshape(-1, 3)
    accel = z[3 * k:].copy()
    for i, cap in ((0, programs.cost[m]), (2, programs.cost[m + 1])):  # α's rows sum to the cap, α kept
        accel[i:i + 2] += (cap - accel[i] - accel[i + 1]) / 2.0
    if accel.min() < 0.0:  # |α| at the cap
        return None
    residual = cones.T @ force.ravel() + bounds.T @ accel + programs.cost[:m]
    weight = np.repeat(np.maximum(_cone_margin(force), 0.0) ** 2, 3)
    try:
        step = splu((cones.T @ sp.diags_array(weight) @ cones).tocsc()).solve(-residual)
    except RuntimeError:  # singular: some body's equations reach no point inside its cone
        return None
    force = (force.ravel() + weight * (cones @ step)).reshape(-1, 3)
    out = np.flatnonzero(_cone_margin(force) < 0.0)
    t = 0.0
    if len(out):
        lo, hi = np.zeros(len(out)), np.ones(len(out))  # at t = 1 the forces holding it under gravity
        for _ in range(50):
            mid = (lo + hi) / 2.0
            inside = _cone_margin((1.0 - mid)[:, None] * force[out] + mid[:, None] * programs.interior[out]) >= 0.0
            hi, lo = np.where(inside, mid, hi), np.where(inside, lo, mid)
        t = float(hi.max())
    held = np.full(4, programs.cost[m] / 2.0)  # α = 0, the rows summing to the cap
    return np.concatenate([((1.0 - t) * force + t * programs.interior).ravel(), (1.0 - t) * accel + t * held])


def _settings(gap: float | None, refine: bool = False):
    """Clarabel's settings, quiet, at the relative duality gap ``gap`` (its default when None).

    Without iterative refinement of the linear solves (``refine``) unless asked: on the vault's
    programs it took a third of every iteration (up to ten more solves with the factors, to
    1e-13) and changed neither the iterations nor the answer (h to 1e-9); a program that does
    not end solved without it is solved again with it (:func:`_refined`).
    """
    import clarabel

    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.iterative_refinement_enable = refine
    if gap is not None:
        settings.tol_gap_rel = gap
        settings.tol_gap_abs = gap * tol.margin_precision / tol.margin_precision_rel
    return settings


def _solved(solution) -> bool:
    """Whether Clarabel ended with an answer (to its full or its reduced tolerances)."""
    return str(solution.status) in ("Solved", "AlmostSolved")


def _refined(solution, data: tuple, gap: float | None):
    """The solution, or where it did not end solved, that of the program ``data`` (P, q, A, b, cones) solved
    again with iterative refinement."""
    import clarabel

    if _solved(solution):
        return solution
    return clarabel.DefaultSolver(*data, _settings(gap, refine=True)).solve()
