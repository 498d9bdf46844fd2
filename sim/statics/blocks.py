"""Upper bounds of the margin in closed form: a set of pieces tipping or sliding as one block on a level base.

A set S of pieces whose contacts with the rest lie in one level plane (its
*base*) moves as one rigid block in two simple ways, each a mechanism where
every other contact of S separates at least μ times as fast as it slides
(associated Coulomb flow, as in :mod:`sim.statics.slide`):

* **Tipping**: turning about a line through an edge of its base polygon (the
  convex hull of the base contacts). The contacts inside the polygon lift
  straight off, the ones on the edge stay put. For a unit turn the centre of
  mass of S moves out across the edge by its height H above the base and
  rises by its distance δ from the edge, so by the upper-bound theorem no
  acceleration α with ``α · e > δ / H`` (e the edge's outward normal) is
  withstood: the margin is at most δ / H, in direction e.
* **Sliding**: translating along any horizontal d while rising by τ. A level
  contact of friction μ admits it when τ ≥ μ, so where S touches the rest
  only at its base, no α with ``α · d > max μ`` is withstood, in every
  direction: the margin is at most the base's greatest μ.

The candidate sets are each piece with everything that rests on it, however
indirectly, the whole structure, and the layers: every piece above the height
of a level contact. The bounds are the least over the
admissible candidates; where tipping or sliding of one such block is how the
structure fails, they are the margin, and the tilted-gravity test
(:mod:`sim.statics.tilt`) proves it from below without a single LP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.statics.model import Equilibrium
from sim.statics.planar import hull_edges
from sim.tol import tol

MAX_CHECKS = 64  # candidates checked for admissibility (about 0.1 ms each), least bound first, before giving up


@dataclass(frozen=True)
class BlockBounds:
    """The least closed-form bounds of a structure's margin.

    Attributes:
        tip: (bound (g), direction (rad)) of the least admissible tipping, or None (none below ``slide``).
        slide: the least sliding bound (g), the same in every direction; inf where no set slides so.
    """

    tip: tuple[float, float] | None
    slide: float


def block_bounds(eq: Equilibrium) -> BlockBounds:
    """The least tipping and sliding bounds of one structure (feasible under gravity).

    Tipping candidates are checked for admissibility least bound first, at most
    ``MAX_CHECKS`` of them, and only below the sliding bound (beyond it tipping
    is not how the structure fails).
    """
    moving, base, com, z0 = _bases(eq, _candidate_sets(eq))
    if len(moving) == 0:
        return BlockBounds(None, math.inf)
    slide = _sliding(eq, moving, base)
    group, point = np.nonzero(base)
    owner, theta, delta = hull_edges(eq.points[point, :2] - com[group, :2], group)
    bound = delta / (com[owner, 2] - z0[owner])
    order = sorted(np.flatnonzero(delta > 0.0).tolist(), key=lambda k: bound[k])
    least = None
    for k in order[:MAX_CHECKS]:  # the least admissible
        if bound[k] > slide or (least is not None and bound[k] > bound[least] * (1.0 + tol.bound_tie)):
            break
        if least is not None and theta[k] >= theta[least]:
            continue  # of equal bounds, the direction first counter-clockwise from +x
        c = com[owner[k]]
        axis = np.array([c[0] + delta[k] * math.cos(theta[k]), c[1] + delta[k] * math.sin(theta[k]), z0[owner[k]]])
        if _admissible(eq, moving[owner[k]], axis, float(theta[k])):
            least = k
    return BlockBounds(None if least is None else (float(bound[least]), float(theta[least])), slide)


def _sliding(eq: Equilibrium, moving: np.ndarray, base: np.ndarray) -> float:
    """The least, over the sets (k, b) touching the rest only at their base (k, p), of its greatest μ.

    Only bases whose contact normals are vertical to rounding count: on a sloped contact the rise
    a translation needs is not μ (those sets are left to the LP and :mod:`sim.statics.slide`).
    """
    up, down = eq.sides(moving)
    sloped = eq.normals[:, 2] < 1.0 - tol.level_normal
    alone = ~((up != down) & ~base).any(axis=1) & ~(base & sloped).any(axis=1)
    if not alone.any():
        return math.inf
    return float(np.where(base[alone], eq.mu, -np.inf).max(axis=1).min())


def _candidate_sets(eq: Equilibrium) -> np.ndarray:
    """(c, b) masks: each body with all it carries (through supports, transitively), the whole structure,
    and for each height of a level contact, every body whose centre of mass lies above it (a layer)."""
    n = len(eq.bodies)
    support = eq.supports & (eq.below >= 0) & (eq.above >= 0)
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
    heights = np.unique(np.round(eq.points[eq.supports, 2] / tol.coplanar)) * tol.coplanar
    for mask in [np.ones(n, dtype=bool)] + [eq.com[:, 2] > z for z in heights.tolist()]:
        key = mask.tobytes()
        if mask.any() and key not in seen:
            seen.add(key)
            out.append(mask)
    return np.array(out).reshape(-1, n)


def _bases(eq: Equilibrium, sets: np.ndarray):
    """The candidate sets that rest on one level base, with the centre of mass above it.

    Args:
        sets: (c, b) candidate masks.

    Returns:
        Those sets' masks (k, b), their base contacts (k, p) (supports between the set and the
        rest: side contacts are left to :func:`_admissible`), centres of mass (k, 3) and base heights (k,).
    """
    upper, lower = eq.sides(sets)
    base = upper & ~lower & eq.supports
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
    omega = np.array([-e[1], e[0], 0.0])  # ẑ × e
    up, down = eq.sides(moving)
    cut = up != down  # contacts between the turning bodies and the rest (the others keep still)
    arm = eq.points[cut] - axis
    v = np.cross(omega, arm)  # the turning side's velocity at each contact
    w = np.where(up[cut], 1.0, -1.0)[:, None] * v  # the upper side's, relative to the lower's
    n = eq.normals[cut]
    wn = np.einsum("ij,ij->i", w, n)
    wt = np.linalg.norm(w - wn[:, None] * n, axis=1)
    size = max(float(np.abs(arm).max(initial=0.0)), eq.length)
    return bool(np.all(wn - eq.mu[cut] * wt >= -tol.block_admit * size))
