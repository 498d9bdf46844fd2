"""Large structures with the exact Coulomb cone in one solve: second-order cone programs (Clarabel).

The kinematic LP (:mod:`sim.statics.problem`) re-solves warm and grows by
cuts: ideal for the games' dozens of pieces. A vault of hundreds of blocks
leaning on each other is another matter: the pyramid LP of the 399-block
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
maximises d · α without help, |α_x|, |α_y| ≤ the margin cap.

It is used where a structure has at least :data:`CONE_POINTS` contact points
and the ``clarabel`` package is installed; the LP otherwise.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from sim.statics.model import Equilibrium
from sim.statics.problem import MARGIN_CAP_G, Problem
from sim.tol import tol

CONE_POINTS = 4000
"""Structures with at least this many contact points go to the cone program: a few hundred blocks of a
vault (the Armadillo's 366 free blocks: 7 449); the scenes of the three games stay below (Babylon's
140-piece bench: 1 778) and keep the LP, which re-solves warm."""
SUPPORT_GAP = 1e-6
"""Relative duality gap a support evaluation h(d) stops at: 200 times below the margin's precision
(``tol.margin_precision_rel``), and 5 of Clarabel's 30 iterations fewer than its default 1e-8. Feasibility
keeps the default: its optimum is 0, met absolutely."""


def available() -> bool:
    """Whether the cone solver (PyPI ``clarabel``) is installed."""
    try:
        import clarabel  # noqa: F401
    except ImportError:
        return False
    return True


def problem_for(eq: Equilibrium, warm: bool | None = None, friction: bool = False):
    """The problem of one structure: a :class:`ConeProblem` for a large one (with clarabel), else the LP."""
    if len(eq.points) >= CONE_POINTS and available():
        return ConeProblem(eq)
    return Problem(eq, warm, friction=friction)


class ConeProblem:
    """The force problem of one structure as second-order cone programs.

    Attributes:
        eq: the equilibrium system.
        live: (p,) which contact points may carry force (a removed body's do not).
        held: (b,) which bodies were taken out (stand still, their contacts carry nothing).
        solves: cone programs solved so far.
    """

    def __init__(self, eq: Equilibrium):
        self.eq = eq
        p = len(eq.points)
        self.live = np.ones(p, dtype=bool)
        self.held = np.zeros(len(eq.bodies), dtype=bool)
        self.solves = 0
        self._margin = False
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

        self.solves += 1
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
        settings = clarabel.DefaultSettings()
        settings.verbose = False
        if gap is not None:
            settings.tol_gap_rel = gap
            settings.tol_gap_abs = gap * tol.margin_precision / tol.margin_precision_rel
        n = 3 * k + n_extra
        solver = clarabel.DefaultSolver(sp.csc_array((n, n)), np.concatenate([np.zeros(3 * k), cost]), a, b, cones,
                                        settings)
        solution = solver.solve()
        if str(solution.status) not in ("Solved", "AlmostSolved"):
            raise RuntimeError(f"the cone program ended {solution.status}")
        return np.asarray(solution.x)[3 * k:], rows

    # --- feasibility --------------------------------------------------------------------------

    def least_help(self) -> np.ndarray:
        """(b,) the help each body needs under gravity alone (scaled, as the LP's); all zero when it stands."""
        import clarabel

        m = self.eq.num_rows
        extra = sp.hstack([sp.identity(m, format="csc"), -sp.identity(m, format="csc")], format="csc")
        positive = (sp.hstack([sp.csc_array((2 * m, 3 * int(self.live.sum()))), -sp.identity(2 * m, format="csc")],
                              format="csc"), np.zeros(2 * m))
        keep = np.repeat(~self.held, 6)
        cost = np.concatenate([keep, keep]).astype(float)  # a removed body's help is free
        x, _ = self._solve(extra, [clarabel.NonnegativeConeT(2 * m)], cost, positive)
        need = np.abs(x[:m] - x[m:]).reshape(-1, 6).sum(axis=1)
        need[self.held] = 0.0
        return need

    def remove(self, body: int) -> None:
        """Take a body out: it stands still and its contacts carry nothing."""
        self.held[body] = True
        self.live &= (self.eq.below != body) & (self.eq.above != body)

    def unheld(self, test=None) -> list[int]:
        """The bodies that cannot be held, peeled from the top (as :meth:`Problem.unheld
        <sim.statics.problem.Problem.unheld>`)."""
        out: list[int] = []
        removed = np.zeros(len(self.eq.bodies), dtype=bool)
        height = self.eq.com[:, 2]
        while True:
            need = self.least_help()
            failing = [i for i in np.flatnonzero(need > tol.unheld_slack) if i not in out]
            if not failing:
                return sorted(out)
            top = max(failing, key=lambda i: (height[i], -i))
            out.append(int(top))
            self.remove(int(top))
            removed[top] = True
            if test is not None and test.holds(np.zeros(2), removed):
                return sorted(out)

    # --- margin ---------------------------------------------------------------------------------

    def start_margin(self) -> None:
        """From now on each solve evaluates h(d) (nothing to change: every program is built afresh)."""
        self._margin = True

    def support(self, theta: float, enough: float = math.inf, max_rounds: int = 0):
        """h(d) for the unit direction at angle ``theta`` (rad): (h, its maximiser α (2,), True).

        Exact for the circular cone to the solver's tolerance (1e-8); ``enough`` and
        ``max_rounds`` are the LP's options and change nothing here.
        """
        import clarabel

        d = np.array([math.cos(theta), math.sin(theta)])
        loads = sp.csc_array(np.column_stack([self.eq.horizontal_load(0), self.eq.horizontal_load(1)]))
        k = int(self.live.sum())
        cap = (sp.hstack([sp.csc_array((4, 3 * k)), sp.csc_array(np.array([[1.0, 0], [-1, 0], [0, 1], [0, -1]]))],
                         format="csc"), np.full(4, MARGIN_CAP_G))
        x, _ = self._solve(loads, [clarabel.NonnegativeConeT(4)], -d, cap, gap=SUPPORT_GAP)
        a = np.clip(x[:2], -MARGIN_CAP_G, MARGIN_CAP_G)
        return float(d @ a), a, True
