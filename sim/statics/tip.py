"""An upper bound of the margin in closed form: a set of pieces tipping as one block over an edge of its base.

A set S of pieces resting on one level plane (its *base*: every contact
between S and the rest lies in that plane) can turn as one rigid block about
a line through an edge of its base polygon (the convex hull of those
contacts). The contacts inside the polygon lift straight off, the ones on
the edge stay put; where every other contact of S separates at least μ times
as fast as it slides (associated Coulomb flow, as in
:mod:`sim.statics.slide`), the motion is a mechanism. For a unit rotation
the centre of mass of S moves out across the edge by its height H above the
base and rises by its distance δ from the edge, so by the upper-bound theorem
no acceleration α with ``α · e > δ / H`` (e the edge's outward normal) is
withstood: the margin is at most δ / H, in direction e.

The candidate sets are each piece with everything that rests on it, however
indirectly, and the whole structure. The bound is the least over the
admissible candidates; where tipping is how the structure fails, it is the
margin exactly, and the tilted-gravity test (:mod:`sim.statics.tilt`)
proves it from below without a single LP.
"""

from __future__ import annotations

import math

import numpy as np

from sim.statics.model import Equilibrium
from sim.statics.planar import hull_edges
from sim.tol import tol

TIE = 1e-9  # bounds this close (relative) are equal: the direction first counter-clockwise from +x is taken
ADMIT = 1e-9  # slack (per unit of motion, relative to the block's size) an admissible contact may lack


def tip_bound(eq: Equilibrium) -> tuple[float, float] | None:
    """The least tipping bound of the structure: (margin bound (g), direction (rad)), or None when none applies.

    Args:
        eq: one structure, feasible under gravity.
    """
    moving, base, com, z0 = _bases(eq, _candidate_sets(eq))
    if len(moving) == 0:
        return None
    group, point = np.nonzero(base)
    owner, theta, delta = hull_edges(eq.points[point, :2] - com[group, :2], group)
    bound = delta / (com[owner, 2] - z0[owner])
    least = None
    for k in sorted(np.flatnonzero(delta > 0.0).tolist(), key=lambda k: bound[k]):  # the least admissible
        if least is not None and bound[k] > bound[least] * (1.0 + TIE):
            break
        if least is not None and theta[k] >= theta[least]:
            continue  # of equal bounds, the direction first counter-clockwise from +x
        c = com[owner[k]]
        axis = np.array([c[0] + delta[k] * math.cos(theta[k]), c[1] + delta[k] * math.sin(theta[k]), z0[owner[k]]])
        if _admissible(eq, moving[owner[k]], axis, float(theta[k])):
            least = k
    return None if least is None else (float(bound[least]), float(theta[least]))


def _candidate_sets(eq: Equilibrium) -> np.ndarray:
    """(c, b) masks: each body with all it carries (through supports, transitively), and the whole structure."""
    n = len(eq.bodies)
    support = (eq.normals[:, 2] >= math.cos(tol.support_angle)) & (eq.below >= 0) & (eq.above >= 0)
    carries: dict[int, set[int]] = {}
    for lower, upper in set(zip(eq.below[support].tolist(), eq.above[support].tolist())):
        carries.setdefault(lower, set()).add(upper)
    seen: set[bytes] = set()
    out = []
    for body in range(n):
        mask = np.zeros(n, dtype=bool)
        stack = [body]
        while stack:
            b = stack.pop()
            if not mask[b]:
                mask[b] = True
                stack.extend(carries.get(b, ()))
        key = mask.tobytes()
        if key not in seen:
            seen.add(key)
            out.append(mask)
    whole = np.ones(n, dtype=bool)
    if whole.tobytes() not in seen:
        out.append(whole)
    return np.array(out).reshape(-1, n)


def _bases(eq: Equilibrium, sets: np.ndarray):
    """The candidate sets that rest on one level base, with the centre of mass above it.

    Args:
        sets: (c, b) candidate masks.

    Returns:
        Those sets' masks (k, b), their base contacts (k, p) (supports between the set and the
        rest: side contacts are left to :func:`_admissible`), centres of mass (k, 3) and base heights (k,).
    """
    upper = (eq.above >= 0) & sets[:, np.maximum(eq.above, 0)]
    lower = (eq.below >= 0) & sets[:, np.maximum(eq.below, 0)]
    base = upper & ~lower & (eq.normals[:, 2] >= math.cos(tol.support_angle))
    z = eq.points[:, 2]
    z0 = np.where(base, z, np.inf).min(axis=1)
    level = base.any(axis=1) & (np.where(base, z, -np.inf).max(axis=1) - z0 <= tol.coplanar)
    com = (sets * eq.mass) @ eq.com / (sets @ eq.mass)[:, None]
    keep = np.flatnonzero(level & (com[:, 2] > z0))
    return sets[keep], base[keep], com[keep], z0[keep]


def _admissible(eq: Equilibrium, moving: np.ndarray, axis: np.ndarray, theta: float) -> bool:
    """Whether turning the bodies about the horizontal line through ``axis`` (3,) across ``theta`` is a mechanism.

    The turn lifts the side away from the edge (its angular velocity is ẑ × e). Each contact must
    separate at least μ times as fast as it slides, relative to the size of the motion.
    """
    e = np.array([math.cos(theta), math.sin(theta), 0.0])
    omega = np.cross([0.0, 0.0, 1.0], e)
    y = np.zeros((len(eq.bodies), 6))
    arm = eq.com[moving] - axis
    y[moving, :3] = -np.cross(omega, arm)  # the LP's virtual velocities are minus the motion
    y[moving, 3:] = -omega * eq.length  # angular parts are scaled by the length scale
    w = eq.point_duals(y.ravel())
    wn = np.einsum("ij,ij->i", w, eq.normals)
    wt = np.linalg.norm(w - wn[:, None] * eq.normals, axis=1)
    size = max(float(np.abs(arm).max()), eq.length)
    return bool(np.all(wn + eq.mu * wt <= ADMIT * size))
