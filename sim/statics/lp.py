"""A linear program that grows by rows and is re-solved warm: scipy's HiGHS.

The statics solve the *kinematic* (dual) form of the equilibrium LP many
times: with changing row bounds (each horizontal direction) and with rows
added (friction directions found by cutting planes). Both keep the last
basis dual feasible, so HiGHS's dual simplex goes on from it in a handful of
iterations. scipy ships HiGHS's own Python object
(``scipy.optimize._highspy._core._Highs``, scipy ≥ 1.15); it is used when
present. Otherwise every solve goes through the public
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


def new_highs():
    """A quiet HiGHS object with the statics' tolerances and no presolve (it would discard the basis between
    solves); None without scipy's bundled bindings."""
    if _highs is None:
        return None
    h = _highs._Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")
    h.setOptionValue("primal_feasibility_tolerance", tol.lp_feasibility)
    h.setOptionValue("dual_feasibility_tolerance", tol.lp_feasibility)
    return h


def optimal(h) -> bool:
    """Whether a HiGHS object (from :func:`new_highs`) ended its last run at an optimum."""
    return h.getModelStatus() == _highs.HighsModelStatus.kOptimal


def linprog_cold(cost, **constraints):
    """An LP solved from scratch by scipy's public ``linprog`` (HiGHS's dual simplex), with the statics'
    tolerances and no presolve: the way without HiGHS's own object, with the same answers.

    Args:
        cost: (n,) the objective, minimised.
        constraints: ``linprog``'s ``A_ub``, ``b_ub``, ``A_eq``, ``b_eq``, ``bounds``.

    Returns:
        scipy's ``OptimizeResult`` (``status`` 0 at an optimum).
    """
    return linprog(cost, method="highs-ds", options={"presolve": False,
                                                     "primal_feasibility_tolerance": tol.lp_feasibility,
                                                     "dual_feasibility_tolerance": tol.lp_feasibility}, **constraints)


@dataclass(frozen=True)
class Solution:
    """One solve.

    Attributes:
        optimal: whether an optimum was found.
        objective: the optimal value (nan if not optimal).
        x: (n,) variable values.
        row_duals: (m,) multipliers of the rows, ≤ 0 on a row at its upper bound: the
            objective changes by ``row_duals[i]`` per unit the bound is raised.
        col_duals: (n,) reduced costs of the variables, same convention for their bounds.
    """

    optimal: bool
    objective: float
    x: np.ndarray
    row_duals: np.ndarray
    col_duals: np.ndarray


class RowLP:
    """minimise c · x subject to lo ≤ A x ≤ hi and bounds on x, with rows added over time.

    Args:
        cost: (n,) the objective.
        lower, upper: (n,) variable bounds (±inf for none).
        warm: use HiGHS's own object and keep its basis between solves
            (default: when scipy provides it).
    """

    def __init__(self, cost, lower, upper, warm: bool | None = None):
        self.cost = np.asarray(cost, dtype=float)
        n = len(self.cost)
        self.lower, self.upper = _filled(lower, n), _filled(upper, n)
        self.warm = (_highs is not None) if warm is None else (warm and _highs is not None)
        self._rows: list[tuple] = []  # blocks of rows as CSR (data, indices, indptr), column-sorted
        self.row_lo = np.zeros(0)
        self.row_hi = np.zeros(0)
        self.solves = 0
        self._h = None
        if self.warm:
            self._h = h = new_highs()
            none = np.zeros(0, dtype=np.int32)
            h.addCols(n, self.cost, self.lower, self.upper, 0, none, none, np.zeros(0))

    @property
    def num_rows(self) -> int:
        """Rows so far."""
        return len(self.row_lo)

    def add_rows(self, block, lo, hi) -> np.ndarray:
        """Append rows.

        Args:
            block: (k, n) the new rows: a dense array, a scipy sparse matrix, or CSR arrays
                ``(data, indices, indptr)`` with each row's indices ascending (no scipy
                constructor on that path: small LPs are dominated by such overhead).
            lo, hi: (k,) their bounds (±inf for none).

        Returns:
            (k,) indices of the new rows.
        """
        data, indices, indptr = _csr(block)
        k = len(indptr) - 1
        first = self.num_rows
        lo, hi = _filled(lo, k), _filled(hi, k)
        self.row_lo = np.concatenate([self.row_lo, lo])
        self.row_hi = np.concatenate([self.row_hi, hi])
        self._rows.append((data, indices, indptr))
        if self._h is not None and k:
            self._h.addRows(k, lo, hi, len(data), indptr[:-1].astype(np.int32), indices.astype(np.int32), data)
        return np.arange(first, first + k)

    def _matrix(self) -> sp.csr_array:
        """(r, n) all rows so far as one sparse matrix."""
        n = len(self.cost)
        if not self._rows:
            return sp.csr_array((0, n))
        return sp.vstack([sp.csr_array(b, shape=(len(b[2]) - 1, n)) for b in self._rows], format="csr")

    def inactive_rows(self) -> np.ndarray:
        """(r,) whether each row is basic (not binding) in the last warm solve; all False when cold."""
        if self._h is None or self.solves == 0:
            return np.zeros(self.num_rows, dtype=bool)
        status = self._h.getBasis().row_status
        basic = _highs.HighsBasisStatus.kBasic
        return np.array([st == basic for st in status], dtype=bool)

    def delete_rows(self, index) -> None:
        """Remove rows; rows after them move up. The basis stays valid when the rows removed are basic."""
        index = np.atleast_1d(np.asarray(index, dtype=np.int32))
        if len(index) == 0:
            return
        keep = np.ones(self.num_rows, dtype=bool)
        keep[index] = False
        self.row_lo, self.row_hi = self.row_lo[keep], self.row_hi[keep]
        kept = self._matrix()[keep]
        self._rows = [(kept.data, kept.indices, kept.indptr)]
        if self._h is not None:
            self._h.deleteRows(len(index), np.sort(index))

    def set_row_bounds(self, index, lo, hi) -> None:
        """Change the bounds of some rows."""
        index, lo, hi = _indexed(index, lo, hi)
        self.row_lo[index] = lo
        self.row_hi[index] = hi
        if self._h is not None:
            for i, a, b in zip(index.tolist(), lo.tolist(), hi.tolist()):
                self._h.changeRowBounds(i, a, b)

    def set_bounds(self, index, lo, hi) -> None:
        """Change the bounds of some variables."""
        index, lo, hi = _indexed(index, lo, hi)
        self.lower[index] = lo
        self.upper[index] = hi
        if self._h is not None:
            self._h.changeColsBounds(len(index), index, lo, hi)

    def solve(self) -> Solution:
        """Solve from the last basis (warm) or from scratch."""
        self.solves += 1
        return self._solve_warm() if self._h is not None else self._solve_cold()

    def _failed(self) -> Solution:
        return Solution(False, float("nan"), np.zeros(len(self.cost)), np.zeros(self.num_rows),
                        np.zeros(len(self.cost)))

    def _solve_warm(self) -> Solution:
        h = self._h
        h.run()
        if not optimal(h):
            h.clearSolver()  # a warm start gone astray (numerical trouble): once more from scratch
            h.run()
        if not optimal(h):
            return self._failed()
        s = h.getSolution()
        return Solution(True, float(h.getInfo().objective_function_value), np.asarray(s.col_value),
                        np.asarray(s.row_dual), np.asarray(s.col_dual))

    def _solve_cold(self) -> Solution:
        matrix = self._matrix()
        upper = np.isfinite(self.row_hi)
        lower = np.isfinite(self.row_lo)
        a_ub = sp.vstack([matrix[upper], -matrix[lower]], format="csr")
        b_ub = np.concatenate([self.row_hi[upper], -self.row_lo[lower]])
        res = linprog_cold(self.cost, A_ub=a_ub, b_ub=b_ub, bounds=np.column_stack([self.lower, self.upper]))
        if res.status != 0:
            return self._failed()
        marg = np.asarray(res.ineqlin.marginals)
        duals = np.zeros(self.num_rows)
        duals[np.flatnonzero(upper)] += marg[:upper.sum()]
        duals[np.flatnonzero(lower)] -= marg[upper.sum():]
        col = np.asarray(res.lower.marginals) + np.asarray(res.upper.marginals)
        return Solution(True, float(res.fun), np.asarray(res.x), duals, col)


def _filled(x, n: int) -> np.ndarray:
    """(n,) a fresh float array of ``x``: a scalar repeated, or an array's copy."""
    a = np.asarray(x, dtype=float)
    return np.full(n, float(a)) if a.ndim == 0 else np.broadcast_to(a, (n,)).copy()


def _indexed(index, lo, hi) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Indices as int32 (k,) and their lower and upper bounds as (k,) float arrays."""
    index = np.atleast_1d(np.asarray(index, dtype=np.int32))
    return index, _filled(lo, len(index)), _filled(hi, len(index))


def _csr(block) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR arrays ``(data, indices, indptr)`` of rows given as CSR arrays, a dense array or a sparse matrix."""
    if isinstance(block, tuple):
        data, indices, indptr = block
        return np.asarray(data, dtype=float), np.asarray(indices), np.asarray(indptr)
    if isinstance(block, np.ndarray):
        block = np.atleast_2d(block)
        row, col = np.nonzero(block)
        indptr = np.zeros(block.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(row, minlength=block.shape[0]), out=indptr[1:])
        return block[row, col].astype(float), col, indptr
    block = sp.csr_array(block)
    block.sort_indices()
    return block.data.astype(float), block.indices, block.indptr
