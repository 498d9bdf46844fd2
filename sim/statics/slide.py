"""An upper bound of the support function: the whole structure sliding on its supports as one block.

Translating every piece of a structure together by a virtual velocity
t = (d, τ) (d the horizontal unit direction, τ its rise) opens no contact
inside the structure, and is admissible at a contact with its supports (the
board, fixed pieces) when the contact separates at least μ times as fast as
it slides (associated Coulomb flow: t · n ≥ μ |t_t|). The load then does the
work |d|² = 1 per unit weight, gravity τ: by the upper-bound theorem no
acceleration along d beyond the least admissible τ is withstood, so
h(d) ≤ τ. On a level board τ is the board's μ in every direction: a
structure that slides as a whole has a round set of withstood accelerations,
where the cutting planes would otherwise take many rounds to prove h exact.
"""

from __future__ import annotations

import math

import numpy as np

from sim.statics.model import Equilibrium

RISE_LIMIT = 1e3  # rises beyond this (per unit of horizontal motion) count as no mechanism
BISECTIONS = 60


def slide_bound(eq: Equilibrium, theta: float) -> float:
    """The least rise τ of an admissible whole-structure translation along ``theta`` (rad): h(d) ≤ τ.

    Returns inf when no rise makes it admissible (a support blocks the way,
    e.g. a wall beyond the structure or a fixed piece above it).
    """
    outer = (eq.below < 0) | (eq.above < 0)
    if not outer.any():
        return math.inf
    normals, mu = eq.normals[outer], eq.mu[outer]
    sign = np.where(eq.below[outer] < 0, 1.0, -1.0)  # the structure is the upper side, or the lower
    d = np.array([math.cos(theta), math.sin(theta), 0.0])

    def slack(tau: float) -> float:
        """The least (separation - μ · slip) over the supports for rise τ: concave in τ."""
        w = sign[:, None] * (d + np.array([0.0, 0.0, tau]))[None, :]
        wn = np.einsum("ij,ij->i", w, normals)
        slip = np.linalg.norm(w - wn[:, None] * normals, axis=1)
        return float(np.min(wn - mu * slip))

    lo, hi = -RISE_LIMIT, RISE_LIMIT
    for _ in range(BISECTIONS):  # the top of the concave slack
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if slack(a) < slack(b):
            lo = a
        else:
            hi = b
    top = (lo + hi) / 2
    if slack(top) < 0:
        return math.inf
    lo, hi = -RISE_LIMIT, top
    if slack(lo) >= 0:
        return math.inf  # admissible while sinking: the structure is not held against gravity this way
    for _ in range(BISECTIONS):  # the least admissible rise
        mid = (lo + hi) / 2
        if slack(mid) >= 0:
            hi = mid
        else:
            lo = mid
    return hi
