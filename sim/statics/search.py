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

from sim.statics.blocks import block_bounds
from sim.statics.cone import ConeProblem, problem_for
from sim.statics.model import Equilibrium
from sim.statics.planar import crossing_normals, directions, lowest_bound, lowest_directions, support_along
from sim.statics.problem import FIRST_DIRECTION_DEG, MARGIN_CAP_G, MAX_DIRECTIONS, Problem
from sim.statics.tilt import COARSE_POINTS, DISC_POINTS, DISC_SHRINK, TiltTest, polygon_points, tilt_points
from sim.tol import tol

TILT_GOAL = 0.9  # the tilted-gravity proof aims this fraction of the precision inside the margin
ENOUGH = 0.5  # a direction's refinement stops this fraction of the precision below the least margin found
MAX_TILTS = DISC_POINTS  # most single tilted-gravity tests where the lower bound is lowest
PAIR = 2  # directions the cone programs' search evaluates a round (side by side, whatever the cores)
EDGE_ANGLE = math.radians(15.0)  # a polygon's nearest edge is looked for this close to the margin's direction


def precision(margin: float) -> float:
    """How close the proven lower bound must come to a margin (g): ``tol.margin_precision`` or
    ``tol.margin_precision_rel`` of it, whichever is larger."""
    return max(tol.margin_precision, tol.margin_precision_rel * margin)


@dataclass
class Bounds:
    """What the search knows of one structure's margin.

    Attributes:
        points: accelerations proven withstood, (k, 2) once stacked: the LP's maximisers α
            and the tilted-gravity test's points.
        vertices: the LP's maximisers alone (where A is a polygon, its vertices).
        upper: the least exact h found (g), inf before any.
        theta: its direction (rad).
        estimate: the least inexact h (g) and its direction, the answer when no h came out exact.
        problem: the LP the search evaluated h with, None when it needed none.
    """

    points: list = field(default_factory=list)
    vertices: list = field(default_factory=list)
    upper: float = math.inf
    theta: float = 0.0
    estimate: tuple[float, float] = (math.inf, 0.0)
    problem: Problem | None = None
    evaluated: list = field(default_factory=list)

    def lower(self) -> tuple[float, float]:
        """(direction, value) where the hull of the points is nearest the origin."""
        return lowest_bound(np.array(self.points))

    def add(self, theta: float, h: float, a: np.ndarray, exact: bool) -> None:
        self.points.append(a)
        self.vertices.append(a)
        self.evaluated.append((theta, h))
        if exact and h < self.upper:
            self.upper, self.theta = h, theta
        if h < self.estimate[0]:
            self.estimate = (h, theta)


def search(eq: Equilibrium, problem: Problem | None = None, best: float = math.inf,
           tilt: TiltTest | None = None, warm: bool | None = None) -> Bounds:
    """Search one structure's margin until it is known, or known not to undercut ``best``.

    First the closed-form block bounds (:mod:`sim.statics.blocks`): where the
    tilted-gravity test proves the disc just inside the least, that is the
    margin, with no LP. Else the support-function search.

    Args:
        eq: the structure, feasible.
        problem: its LP if one was built already (for the feasibility), else one is built when needed.
        best: the least margin proven for other structures (g): a structure whose lower bound
            reaches it less the precision cannot be the weakest.
        tilt: the structure's tilted-gravity test if one was made already (its last basis
            starts the next test warm).
        warm: how a new LP solves (see :class:`~sim.statics.lp.RowLP`).

    Returns:
        The bounds found.
    """
    tilt = tilt if tilt is not None else TiltTest(eq)
    closed, theta, tip = _closed_form(eq, tilt)
    if closed is not None:
        return closed
    problem = problem if problem is not None else problem_for(eq, warm)
    problem.start_margin()
    settled = False  # whether the search's last round took the edge step, and it found no edge
    if isinstance(problem, ConeProblem):
        found, evaluations, settled = _search_paired(problem, best, theta, tilt)
    else:
        found, evaluations = _search_lp(problem, best, theta, tilt)
    # The edge step, taken again while it lowers the margin: lower but not yet the chord means the maximisers
    # lay near the edge's ends, not on them (the cone programs' interior point answers, where friction rounds
    # A's corners), and the next step goes across the nearer pair.
    while not settled and math.isfinite(found.upper) and evaluations < MAX_DIRECTIONS:
        edge = polygon_edge(np.array(found.points), np.array(found.vertices), found.upper, found.theta)
        if edge is None:
            break
        before = found.upper  # refined until exact, or until it cannot undercut the margin found
        found.add(edge, *problem.support(edge, enough=found.upper - tol.margin_precision))
        evaluations += 1
        if not found.upper < before - tol.margin_precision:
            break  # no edge there (A is round): the margin found stands
    if tip is not None and tip[0] < min(found.upper, found.estimate[0]):  # a tighter upper bound, in closed form
        found.upper, found.theta = tip
        found.estimate = tip
    return found


def _search_lp(problem: Problem, best: float, theta: float, tilt: TiltTest) -> tuple[Bounds, int]:
    """The LP's search from ``theta`` (rad): h where the lower bound is lowest, tilted-gravity proofs between.

    Returns:
        The bounds and how many directions the LP evaluated.
    """
    found = Bounds(problem=problem)
    found.add(theta, *problem.support(theta))
    around = False  # whether the tilted-gravity test has been tried all around
    tried: list[float] = []  # directions the test has been tried in, one by one
    evaluations = 1
    while evaluations < MAX_DIRECTIONS:
        theta, lower = found.lower()
        target = min(best, found.upper)
        if not math.isfinite(target):  # refine the weakest direction seen first: a good bound early
            theta = found.estimate[1]
        if math.isfinite(target) and target - lower <= precision(target):
            break
        if not around and math.isfinite(found.upper) and found.upper > tol.margin_precision:
            # not closed at once: prove points all around together (A may be round: sliding)
            around = True
            goal = target - TILT_GOAL * precision(target)
            proven = tilt_points(tilt, found.upper, found.theta, goal)
            found.points += proven
            if not proven:
                tried = [math.inf] * MAX_TILTS  # the model does not fit this structure
            continue
        if around and len(tried) < MAX_TILTS and all(_apart(theta, t) for t in tried):
            tried.append(theta)  # where the bound is lowest, first the cheap proof just inside the target
            alpha = target * (1.0 - DISC_SHRINK) * np.array([math.cos(theta), math.sin(theta)])
            if tilt.holds(alpha):
                found.points.append(alpha)
                continue
        found.add(theta, *problem.support(theta, enough=target - ENOUGH * precision(target)))
        evaluations += 1
    return found, evaluations


def _search_paired(problem: ConeProblem, best: float, theta: float, tilt: TiltTest) -> tuple[Bounds, int, bool]:
    """The cone programs' search from ``theta`` (rad): two directions at a time, solved side by side.

    First ``theta`` and its opposite; then, each round, the directions of the two lowest local
    minima of the lower bound (the two hull edges nearest the origin, once the hull surrounds it):
    around a smooth weakest direction these are the chords on either side of it, both of which
    the proof must push out. A minimum the proof already reaches (within the precision of the
    margin found) is not evaluated: the last round of the Armadillo vault's search has one
    direction, not two. Stops, as the LP's search, when the least exact h and the lower
    bound agree to the precision (or at ``MAX_DIRECTIONS``). A cone program is exact at once:
    there is no refinement; but a direction whose h passes the margin found (it cannot hold the
    margin) needs only a point of A, and its program is cut short where the structure's forces
    under gravity are known (:meth:`~sim.statics.cone.SupportPrograms.solve`). Where vertical
    forces alone hold the structure, the tilted-gravity proofs all around (as in the LP's search)
    follow the first pair; a structure that leans on its neighbours (a vault) does without.

    A round with a direction to spare (one minimum left to evaluate) takes the first **edge step**
    (:func:`polygon_edge`) of the points so far beside it, on the other worker, rather than in a round
    of its own once the search has closed: on the Armadillo vault, 5 rounds instead of 6.

    Returns:
        The bounds, how many directions were evaluated, and whether the last round took the edge step
        and neither it nor its partner lowered the margin found (A is round there: no edge step follows).
    """
    found = Bounds(problem=problem)
    batch = [theta, theta + math.pi]
    evaluations = 0
    edge = None  # the edge step taken in the round's spare slot
    while True:
        before = found.upper
        for t, result in zip(batch, problem.supports(batch, min(best, found.upper))):
            found.add(t, *result)
        evaluations += len(batch)
        settled = edge is not None and not found.upper < before - tol.margin_precision
        target = min(best, found.upper)
        if math.isfinite(target) and target - found.lower()[1] <= precision(target):
            break
        if evaluations == len(batch) and math.isfinite(found.upper) and found.upper > tol.margin_precision \
                and tilt.holds(np.zeros(2)):  # upright: prove points all around together (A may be round)
            found.points += tilt_points(tilt, found.upper, found.theta, target - TILT_GOAL * precision(target))
            if target - found.lower()[1] <= precision(target):
                break
        open_below = target - precision(target) if math.isfinite(target) else math.inf  # the rest is proven
        taken = [t for t, _ in found.evaluated]
        batch = lowest_directions(np.array(found.points), min(PAIR, MAX_DIRECTIONS - evaluations), taken,
                                  below=open_below)
        edge = None
        if 0 < len(batch) < min(PAIR, MAX_DIRECTIONS - evaluations) and math.isfinite(found.upper):
            edge = polygon_edge(np.array(found.points), np.array(found.vertices), found.upper, found.theta)
            if edge is not None and all(_apart(edge, t) for t in [*batch, *taken]):
                batch.append(edge)
            else:
                edge = None
        if not batch:
            break
    return found, evaluations, settled


def _closed_form(eq: Equilibrium, tilt: TiltTest) -> tuple[Bounds | None, float, tuple[float, float] | None]:
    """The margin without an LP, where a block mechanism bounds it and tilted gravity proves the bound.

    Tipping (:mod:`sim.statics.blocks`): 8 tests whose hull contains the disc just inside the bound;
    sliding: the tests around the disc just inside it (A is round there), from the first direction.

    Returns:
        The bounds (None where the proof falls short); the direction (rad) the LP search starts
        from: the least tipping bound's, where there is one (likely near the weakest), else the
        first; and that tipping bound (g, rad) or None, an upper bound the search may not reach.
    """
    bounds = block_bounds(eq)
    first = math.radians(FIRST_DIRECTION_DEG)
    if bounds.tip is not None:
        bound, theta = bounds.tip
        if not tol.margin_precision < bound < MARGIN_CAP_G:
            return None, theta, None
        proven = polygon_points(tilt, theta, bound - TILT_GOAL * precision(bound))
        if len(proven) < COARSE_POINTS:
            return None, theta, bounds.tip
    else:
        theta, bound = first, bounds.slide
        if not tol.margin_precision < bound < MARGIN_CAP_G:
            return None, first, None
        proven = tilt_points(tilt, bound, theta, bound - TILT_GOAL * precision(bound))
        if not proven or bound - lowest_bound(np.array(proven))[1] > precision(bound):
            return None, first, None
    return Bounds(points=proven, upper=bound, theta=theta, estimate=(bound, theta)), theta, bounds.tip


def polygon_edge(points: np.ndarray, vertices: np.ndarray, upper: float, theta: float) -> float | None:
    """Where two of the LP's maximisers may span the nearest edge of a polygonal A: its normal (rad), or None.

    Where the structure tips, A is a polygon and the margin is the distance
    to its nearest edge. The search closes to the precision, possibly at a
    direction near that edge's normal but not on it; when two maximisers lie
    on the edge, the direction across both (where the bound of all points is
    within the precision below the margin found, and lower) is its normal,
    and one more evaluation there gives the exact margin and direction.
    Only directions within ``EDGE_ANGLE`` of ``theta`` (rad), where the
    margin was found, are taken: the support function rises away from the
    edge's normal, so the margin found lies near it.
    """
    angles = directions(crossing_normals(vertices))
    if len(angles) == 0:
        return None
    bound = support_along(angles, points)
    near = (bound >= upper - precision(upper)) & (bound < upper - tol.margin_precision)
    near &= np.abs(np.remainder(angles - theta + math.pi, 2.0 * math.pi) - math.pi) <= EDGE_ANGLE
    if not near.any():
        return None
    return float(angles[near][np.argmin(bound[near])])


def _apart(a: float, b: float) -> bool:
    """Whether two directions (rad) differ by more than ``tol.direction_apart``."""
    return abs(math.remainder(a - b, 2.0 * math.pi)) > tol.direction_apart
