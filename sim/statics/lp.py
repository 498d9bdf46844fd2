"""A small linear program that grows by columns and is re-solved warm: scipy's HiGHS.

The statics solve one equality-constrained LP many times: with a changing
objective (each horizontal direction) and with columns added (friction
directions found by column generation). HiGHS keeps its basis between such
changes, so a re-solve takes a handful of simplex iterations. scipy ships
HiGHS's own Python object (``scipy.optimize._highspy._core._Highs``, scipy ≥
1.15); it is used when present. Otherwise every solve goes through the public
``scipy.optimize.linprog(method="highs")``, cold, with the same answers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from sim.tol import tol

try:  # scipy's bundled HiGHS bindings; not public API, hence the fallback below
    from scipy.optimize._highspy import _core as _highs
except ImportError:  # pragma: no cover - depends on the scipy version
    _highs = None


SIMPLEX_DUAL, SIMPLEX_PRIMAL = 1, 4  # HiGHS's simplex_strategy values


@dataclass(frozen=True)
class Solution:
    """One solve.

    Attributes:
        optimal: whether an optimum was found (else the LP is infeasible).
        objective: the optimal value (nan if not optimal).
        x: (n,) column values.
        duals: (m,) row duals y: the reduced cost of a column a is ``cost - a · y``.
        iterations: simplex iterations this solve took.
    """

    optimal: bool
    objective: float
    x: np.ndarray
    duals: np.ndarray
    iterations: int


class EqualityLP:
    """minimise c · x subject to A x = b and lo ≤ x ≤ hi, with columns added over time.

    Args:
        rhs: (m,) right-hand side b.
        warm: use HiGHS's own object and keep its basis between solves
            (default: when scipy provides it).
    """

    def __init__(self, rhs: np.ndarray, warm: bool | None = None):
        self.rhs = np.asarray(rhs, dtype=float)
        self.warm = (_highs is not None) if warm is None else (warm and _highs is not None)
        self._cols: list[sp.csc_array] = []
        self.cost = np.zeros(0)
        self.lo = np.zeros(0)
        self.hi = np.zeros(0)
        self.solves = 0
        self._bounds_changed = True
        self._h = None
        if self.warm:
            self._h = _highs._Highs()
            h = self._h
            h.setOptionValue("output_flag", False)
            h.setOptionValue("presolve", "off")  # presolve would discard the basis between solves
            h.setOptionValue("primal_feasibility_tolerance", tol.lp_feasibility)
            h.setOptionValue("dual_feasibility_tolerance", tol.lp_feasibility)
            m = len(self.rhs)
            h.addRows(m, self.rhs, self.rhs, 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))

    @property
    def num_cols(self) -> int:
        """Columns so far."""
        return len(self.cost)

    def add_columns(self, block, cost, lo, hi) -> np.ndarray:
        """Append columns.

        Args:
            block: (m, k) sparse or dense matrix of the new columns.
            cost, lo, hi: (k,) their costs and bounds (±inf for none).

        Returns:
            (k,) indices of the new columns.
        """
        block = sp.csc_array(block)
        k = block.shape[1]
        first = self.num_cols
        cost, lo, hi = (np.broadcast_to(np.asarray(v, dtype=float), (k,)).copy() for v in (cost, lo, hi))
        self.cost = np.concatenate([self.cost, cost])
        self.lo = np.concatenate([self.lo, lo])
        self.hi = np.concatenate([self.hi, hi])
        self._cols.append(block)
        if self._h is not None and k:
            block.sort_indices()
            self._h.addCols(k, cost, lo, hi, block.nnz, block.indptr[:-1].astype(np.int32),
                            block.indices.astype(np.int32), block.data.astype(float))
        return np.arange(first, first + k)

    def set_cost(self, index, cost) -> None:
        """Change the costs of some columns."""
        index = np.atleast_1d(np.asarray(index, dtype=np.int32))
        cost = np.broadcast_to(np.asarray(cost, dtype=float), index.shape).copy()
        self.cost[index] = cost
        if self._h is not None:
            self._h.changeColsCost(len(index), index, cost)

    def set_bounds(self, index, lo, hi) -> None:
        """Change the bounds of some columns."""
        index = np.atleast_1d(np.asarray(index, dtype=np.int32))
        lo = np.broadcast_to(np.asarray(lo, dtype=float), index.shape).copy()
        hi = np.broadcast_to(np.asarray(hi, dtype=float), index.shape).copy()
        self.lo[index] = lo
        self.hi[index] = hi
        self._bounds_changed = True
        if self._h is not None:
            self._h.changeColsBounds(len(index), index, lo, hi)

    def solve(self) -> Solution:
        """Solve from the last basis (warm) or from scratch."""
        self.solves += 1
        return self._solve_warm() if self._h is not None else self._solve_cold()

    def _solve_warm(self) -> Solution:
        h = self._h
        # after new bounds the old basis stays dual feasible: dual simplex; after new costs or
        # columns it stays primal feasible: primal simplex, a few pivots from the old optimum
        h.setOptionValue("simplex_strategy", SIMPLEX_DUAL if self._bounds_changed else SIMPLEX_PRIMAL)
        self._bounds_changed = False
        before = h.getInfo().simplex_iteration_count
        h.run()
        info = h.getInfo()
        its = max(0, info.simplex_iteration_count - before) if info.simplex_iteration_count >= before \
            else info.simplex_iteration_count
        if h.getModelStatus() != _highs.HighsModelStatus.kOptimal:
            return Solution(False, float("nan"), np.zeros(self.num_cols), np.zeros(len(self.rhs)), its)
        s = h.getSolution()
        return Solution(True, float(info.objective_function_value), np.asarray(s.col_value),
                        np.asarray(s.row_dual), its)

    def _solve_cold(self) -> Solution:
        matrix = sp.hstack(self._cols, format="csc") if self._cols else sp.csc_array((len(self.rhs), 0))
        res = linprog(self.cost, A_eq=matrix, b_eq=self.rhs, bounds=np.column_stack([self.lo, self.hi]),
                      method="highs-ds", options={"presolve": False,
                                                  "primal_feasibility_tolerance": tol.lp_feasibility,
                                                  "dual_feasibility_tolerance": tol.lp_feasibility})
        if res.status != 0:
            return Solution(False, float("nan"), np.zeros(self.num_cols), np.zeros(len(self.rhs)), int(res.nit))
        return Solution(True, float(res.fun), np.asarray(res.x), np.asarray(res.eqlin.marginals), int(res.nit))
