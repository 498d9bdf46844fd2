"""Thrust lines of a chain of rigid blocks in a plane: the reference the arch suite's critical values come from.

A voussoir arch (on fixed abutments, or with its abutments as blocks on the
ground) is a chain: blocks ``B_0 … B_{m-1}`` from left to right and joints
``J_0 … J_m``, ``J_j`` between what lies left of it and ``B_j``. Cut the chain
at a joint and the part to its left pushes on the part to its right with one
resultant; equilibrium of each block carries the resultant from one joint to
the next, so every joint's resultant is an affine function of the first one
(``F_0``, two components, and its moment ``M_0``) and of the load factor λ
(a horizontal acceleration λ g on every block). The chain stands when some
``(F_0, M_0)`` puts every joint's resultant inside its joint (its line of
action crosses the joint segment: compression at both ends) and inside the
friction cone of the joint: the safe theorem of limit analysis (Heyman), exact
for rigid blocks with Coulomb friction, since a resultant in the joint and in
the cone is carried by forces at its two ends, each in the cone. Four unknowns
and four inequalities per joint: a linear program (HiGHS) of a few dozen rows.

This is written apart from :mod:`sim.statics` on purpose (resultants per joint
of a plane chain, not contact forces per point of 3-d interfaces), so that the
two can be held to each other. Coordinates are taken in units of a length
scale and weights in units of the chain's weight, so the program is well scaled
whatever the arch's size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

CAP = 10.0
"""The largest load factor looked for (g): the statics' cap (``sim.statics.MARGIN_CAP_G``) too."""


@dataclass(frozen=True, eq=False)
class Chain:
    """A chain of rigid blocks in the (x, z) plane, z up.

    Attributes:
        weights: (m,) the blocks' weights (any unit; only their ratios matter).
        centroids: (m, 2) their centres of mass (x, z).
        joints: (m + 1, 2, 2) each joint's two end points; joint j lies between what is left of it
            (block j - 1, or the left support for j = 0) and block j (the right support for j = m).
        normals: (m + 1, 2) unit normal of each joint, from its left side into its right side.
        friction: (m + 1,) Coulomb coefficient of each joint.
    """

    weights: np.ndarray
    centroids: np.ndarray
    joints: np.ndarray
    normals: np.ndarray
    friction: np.ndarray


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The plane cross product ``a_x b_z - a_z b_x`` of (..., 2) arrays, row by row."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _rows(chain: Chain, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """The inequalities ``A z <= b`` in the unknowns ``z = (F0x, F0z, M0, λ)`` of every joint.

    Per joint: the normal force at each end of the joint is at least 0, and the tangential
    force at most μ times the normal force, both ways.
    """
    w = chain.weights / chain.weights.sum()
    c = chain.centroids / scale
    p = chain.joints / scale
    n = chain.normals
    t = np.column_stack([n[:, 1], -n[:, 0]])
    # what the blocks left of joint j add to the resultant across it: Σ w (λ, -1) and its moment about 0
    before = np.concatenate([[0.0], np.cumsum(w)])
    moment_w = np.concatenate([[0.0], np.cumsum(-w * c[:, 0])])  # of the weights: x · (-w)
    moment_l = np.concatenate([[0.0], np.cumsum(-w * c[:, 1])])  # of λ w along +x: -z · λ w
    m = len(n)
    # resultant across joint j: F = (F0x + λ S, F0z - S), M = M0 + Mw + λ Ml; as rows over (F0x, F0z, M0, λ, 1)
    fx = np.zeros((m, 5))
    fx[:, 0], fx[:, 3] = 1.0, before
    fz = np.zeros((m, 5))
    fz[:, 1], fz[:, 4] = 1.0, -before
    mom = np.zeros((m, 5))
    mom[:, 2], mom[:, 3], mom[:, 4] = 1.0, moment_l, moment_w
    normal = fx * n[:, :1] + fz * n[:, 1:]
    tangent = fx * t[:, :1] + fz * t[:, 1:]
    a, b = p[:, 0], p[:, 1]
    ca, cb, s = _cross(a, n), _cross(b, n), _cross(a, t)
    span = (cb - ca)[:, None]
    # N_a + N_b = N and N_a ca + N_b cb = M - T s: the forces at the two ends
    rest = mom - tangent * s[:, None]
    n_a = (normal * cb[:, None] - rest) / span
    n_b = (rest - normal * ca[:, None]) / span
    mu = chain.friction[:, None]
    ge = np.vstack([n_a, n_b, mu * normal - tangent, mu * normal + tangent])  # each ≥ 0
    return -ge[:, :4], ge[:, 4]


def load_factor(chain: Chain, direction: float = 1.0, scale: float = 1.0) -> float | None:
    """The largest horizontal acceleration (g, along ``direction`` = ±1 x) the chain carries, capped at
    :data:`CAP`; None when it cannot stand even unloaded.

    Args:
        chain: the chain.
        direction: +1 for a load along +x, -1 along -x.
        scale: the length scale coordinates are divided by (the arch's radius, say).
    """
    a, b = _rows(chain, scale)
    a = a.copy()
    a[:, 3] *= direction
    free = [(None, None)] * 3
    res = linprog([0.0, 0.0, 0.0, -1.0], A_ub=a, b_ub=b, bounds=[*free, (0.0, CAP)], method="highs")
    if res.status == 2:  # infeasible: not even λ = 0
        return None
    if res.status != 0:
        raise RuntimeError(f"thrust line: the load factor program ended with status {res.status}: {res.message}")
    return float(res.x[3])


def margin(chain: Chain, scale: float = 1.0) -> float:
    """The chain's margin (g): the smaller of its load factors along +x and -x; 0 when it cannot stand."""
    up = load_factor(chain, 1.0, scale)
    if up is None:
        return 0.0
    down = load_factor(chain, -1.0, scale)
    return min(up, down if down is not None else 0.0)


def stands(chain: Chain, scale: float = 1.0) -> bool:
    """Whether some thrust line lies within every joint and its friction cone, unloaded."""
    return load_factor(chain, 1.0, scale) is not None


def bisect(holds, lo: float, hi: float, steps: int = 40) -> float:
    """The boundary in [lo, hi] between where ``holds(x)`` is False (at lo) and True (at hi), to 2^-steps of it.

    Raises:
        ValueError: ``holds`` is not False at lo and True at hi.
    """
    if holds(lo) or not holds(hi):
        raise ValueError(f"bisect: expected a boundary between {lo:g} (fails) and {hi:g} (holds)")
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        if holds(mid):
            hi = mid
        else:
            lo = mid
    return hi
