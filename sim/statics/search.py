"""The margin search: the minimum over horizontal directions of the support function, over every structure.

Each support evaluation h(d) (:meth:`sim.statics.problem.Problem.support`)
returns a maximiser α_d, an acceleration the structure withstands, so the
convex hull of all of them lies inside the set A of withstood accelerations
and its distance to the origin is a proven lower bound of the margin. Every
exact h(d) is an upper bound. The search evaluates h where the lower bound is
lowest until the two meet to the precision.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sim.statics.problem import FIRST_DIRECTION_DEG, MAX_DIRECTIONS, Problem
from sim.statics.tilt import tilt_points
from sim.tol import tol


def precision(margin: float) -> float:
    """How close the proven lower bound must come to a margin (g): max(1e-6, 0.5 %)."""
    return max(tol.margin_precision, tol.margin_precision_rel * margin)


@dataclass
class Bounds:
    """What the search knows of one structure's margin.

    Attributes:
        points: maximisers α found (each withstood), (k, 2) once stacked.
        upper: the least exact h found (g), inf before any.
        theta: its direction (rad).
        estimate: the least inexact h (g) and its direction, the answer when no h came out exact.
    """

    points: list = field(default_factory=list)
    upper: float = math.inf
    theta: float = 0.0
    estimate: tuple[float, float] = (math.inf, 0.0)

    def lower(self) -> tuple[float, float]:
        """(direction, value) where the hull of the points is nearest the origin."""
        return lowest_bound(np.array(self.points))

    def add(self, theta: float, h: float, a: np.ndarray, exact: bool) -> None:
        self.points.append(a)
        if exact and h < self.upper:
            self.upper, self.theta = h, theta
        if h < self.estimate[0]:
            self.estimate = (h, theta)


def search(problem: Problem, best: float = math.inf) -> Bounds:
    """Search one structure's margin until it is known, or known not to undercut ``best``.

    Args:
        problem: the structure's LP, feasible.
        best: the least margin proven for other structures (g): a structure whose lower bound
            reaches it less the precision cannot be the weakest.

    Returns:
        The bounds found.
    """
    problem.start_margin()
    found = Bounds()
    theta = math.radians(FIRST_DIRECTION_DEG)
    found.add(theta, *problem.support(theta))
    tilted = False
    evaluations = 1
    while evaluations < MAX_DIRECTIONS:
        theta, lower = found.lower()
        target = min(best, found.upper)
        if not math.isfinite(target):  # refine the weakest direction seen first: a good bound early
            theta = found.estimate[1]
        if math.isfinite(target) and target - lower <= precision(target):
            break
        if not tilted and math.isfinite(found.upper) and found.upper > tol.margin_precision:
            # not closed at once: A may be round somewhere (sliding); prove points all around together
            tilted = True
            found.points += tilt_points(problem.eq, found.upper, found.theta)
            continue
        found.add(theta, *problem.support(theta, beaten=target))
        evaluations += 1
    return found


def lowest_bound(points: np.ndarray) -> tuple[float, float]:
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
