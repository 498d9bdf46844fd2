"""An upper bound of the support function: the whole structure sliding on its supports as one block.

Translating every piece of a structure together by a virtual velocity
t = (d, τ) (d the horizontal unit direction, τ its rise) opens no contact
inside the structure, and is admissible at a contact with its supports (the
board, fixed pieces) when the contact separates at least μ times as fast as
it slides (associated Coulomb flow: t · n ≥ μ |t_t|). The same holds for any set of
pieces translating together while the rest stand still (the contacts
between the two count as supports). The load then does the
work |d|² = 1 per unit weight, gravity τ: by the upper-bound theorem no
acceleration along d beyond the least admissible τ is withstood, so
h(d) ≤ τ. On a level board τ is the board's μ in every direction: a
structure that slides as a whole has a round set of withstood accelerations,
where the cutting planes would otherwise take many rounds to prove h exact.

Each support admits an interval of rises (its slack a + bτ - μ |P + τ Q| is
concave in τ), bounded by roots of a quadratic; the least admissible rise of
the whole structure is the least of those roots (and of -``RISE_LIMIT``)
where every support admits it.
"""

from __future__ import annotations

import math

import numpy as np

from sim.statics.model import Equilibrium
from sim.tol import tol

RISE_LIMIT = 1e3  # rises beyond this (per unit of horizontal motion) count as no mechanism
CHUNK = 32  # candidate rises checked at once, least first (each check costs supports × candidates)


def slide_bound(eq: Equilibrium, theta: float, moving: np.ndarray | None = None) -> float:
    """The least rise τ of an admissible translation along ``theta`` (rad) of the structure: h(d) ≤ τ.

    Args:
        eq: the structure.
        theta: the load's direction (rad).
        moving: (b,) which bodies translate together (the rest stand still); default all.

    Returns:
        τ, or inf when no rise makes it admissible (a support blocks the way,
        e.g. a wall beyond the structure or a fixed piece above it), or when
        the bodies may sink as they go (they are not held against gravity this way).
    """
    if moving is None:
        moving = np.ones(len(eq.bodies), dtype=bool)
    high, low = eq.sides(moving)
    outer = low != high  # contacts between a moving body and one standing still (or a support)
    if not outer.any():
        return math.inf
    n, mu = eq.normals[outer], eq.mu[outer]
    sign = np.where(high[outer], 1.0, -1.0)  # the moving bodies are the upper side, or the lower
    u = sign[:, None] * np.array([math.cos(theta), math.sin(theta), 0.0])  # w = u + τ v at each support
    v = sign[:, None] * np.array([0.0, 0.0, 1.0])
    a, b = np.einsum("ij,ij->i", u, n), np.einsum("ij,ij->i", v, n)
    p, q = u - a[:, None] * n, v - b[:, None] * n
    mu2 = mu * mu
    c2 = b * b - mu2 * np.einsum("ij,ij->i", q, q)
    c1 = 2.0 * (a * b - mu2 * np.einsum("ij,ij->i", p, q))
    c0 = a * a - mu2 * np.einsum("ij,ij->i", p, p)

    def slack(tau: np.ndarray) -> np.ndarray:
        """(m,) the least (separation - μ · slip) over the supports at each rise (m,)."""
        w = p[:, None, :] + tau[None, :, None] * q[:, None, :]
        return np.min(a[:, None] + b[:, None] * tau[None, :] - mu[:, None] * np.linalg.norm(w, axis=2), axis=0)

    disc = c1 * c1 - 4.0 * c2 * c0
    quad = (np.abs(c2) > tol.quadratic_zero) & (disc >= 0.0)
    root = np.sqrt(np.maximum(disc[quad], 0.0))
    half = -0.5 * (c1[quad] + np.where(c1[quad] >= 0.0, root, -root))
    lin = (np.abs(c2) <= tol.quadratic_zero) & (np.abs(c1) > tol.quadratic_zero)
    cands = np.concatenate([half / c2[quad], np.divide(c0[quad], half, out=np.full(len(half), np.nan),
                                                       where=half != 0.0), -c0[lin] / c1[lin]])
    cands = np.unique(cands[np.isfinite(cands) & (np.abs(cands) <= RISE_LIMIT)])  # sorted, each root once
    if slack(np.array([-RISE_LIMIT]))[0] >= 0.0:
        return math.inf  # admissible while sinking
    for start in range(0, len(cands), CHUNK):  # the least admissible root is usually among the first
        chunk = cands[start:start + CHUNK]
        ok = np.flatnonzero(slack(chunk) >= -tol.slide_admit)
        if len(ok):
            tau = float(chunk[ok[0]])
            return tau + tol.slide_admit * max(1.0, abs(tau))  # just inside the admissible side of its root
    return math.inf
