"""A cheap sufficient test that a structure withstands a horizontal acceleration: forces along the tilted gravity.

Under a uniform horizontal acceleration α (in g) every piece feels its
weight along the tilted vertical v = (-α_x, -α_y, 1) (scaled by its weight).
If every contact carries its force along v, force balance reduces to one
number per piece (how much of v it passes on) and moment balance to two (the
moments about the two axes across v): three equations per piece, one unknown
per contact point, no friction directions. A contact may carry a force along
v only where v lies inside its friction cone (for a level contact: |α| ≤ μ).
When this small LP has a solution, the real structure stands under α with
those forces: a proof that α is withstood. It proves nothing when it fails
(a piece may need a force across v, from a wall or by wedging).

The margin search uses it to prove a whole disc of accelerations at once
(:func:`tilt_points`), where its support-function evaluations would need
dozens of directions: a structure that slides on a level surface withstands
the same acceleration in every direction.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from sim.statics.lp import _highs
from sim.statics.model import Equilibrium, G
from sim.tol import tol

DISC_POINTS = 32  # accelerations tested around a disc: the polygon's inradius is cos(π/32) = 99.52 % of theirs
DISC_SHRINK = 1e-4  # the tested radius lies this fraction inside the margin found (a tipping limit is no proof)
COARSE_POINTS = 8  # the first, wider polygon of tests: its inradius is its radius times cos(π/8)
GIVE_UP = 4  # tests that must all fail, from the weakest direction on, before the rest are not tried


def tilt_points(test: TiltTest, margin: float, first_theta: float = 0.0, goal: float = 0.0) -> list:
    """Accelerations (2,) around the origin that the tilted-gravity test proves withstood.

    First ``COARSE_POINTS`` at equal angles, half a step off ``first_theta``
    (rad; the weakest direction found), at the radius where their convex hull
    just contains the disc of radius ``goal`` (g): when all hold, that is the
    proof wanted (a structure whose withstood set is a polygon with its
    nearest edge across ``first_theta``, as when it tips). At the first
    failure, ``DISC_POINTS`` directions on the circle just inside ``margin``
    (g) instead; consecutive tests start from the last one's basis. When the
    first ``GIVE_UP`` of those all fail, the model does not fit the structure
    (it leans on walls): the rest are not tried.
    """
    out = []
    if goal > 0.0:
        radius = goal / math.cos(math.pi / COARSE_POINTS)
        for k in range(COARSE_POINTS):
            theta = first_theta + 2.0 * math.pi * (k + 0.5) / COARSE_POINTS
            alpha = radius * np.array([math.cos(theta), math.sin(theta)])
            if not test.holds(alpha):
                break
            out.append(alpha)
        else:
            return out
    radius = margin * (1.0 - DISC_SHRINK)
    fine = []
    for k in range(DISC_POINTS):
        theta = first_theta + 2.0 * math.pi * k / DISC_POINTS
        alpha = radius * np.array([math.cos(theta), math.sin(theta)])
        if test.holds(alpha):
            fine.append(alpha)
        elif k + 1 == GIVE_UP and not fine:
            break
    return out + fine


def holds(eq: Equilibrium, alpha: np.ndarray) -> bool:
    """Whether every piece can be held with all contact forces along the tilted gravity of ``alpha`` (2,) g."""
    return TiltTest(eq).holds(alpha)


class TiltTest:
    """The tilted-gravity LP of one structure, re-solved for one acceleration after another."""

    def __init__(self, eq: Equilibrium):
        self.eq = eq
        self.rhs = np.zeros(3 * len(eq.bodies))
        self.rhs[0::3] = eq.mass * G / eq.weight
        self._h = None
        self._basis = None
        self._usable = None
        if _highs is not None:
            self._h = _highs._Highs()
            self._h.setOptionValue("output_flag", False)
            self._h.setOptionValue("presolve", "off")
            self._h.setOptionValue("primal_feasibility_tolerance", tol.lp_feasibility)
            self._h.setOptionValue("dual_feasibility_tolerance", tol.lp_feasibility)

    def holds(self, alpha: np.ndarray) -> bool:
        """Whether the LP has a solution for ``alpha`` (2,) g."""
        matrix, usable = self._matrix(alpha)
        if matrix is None:
            return False
        if self._h is None:
            res = linprog(np.zeros(len(usable)), A_eq=matrix, b_eq=self.rhs, bounds=(0, None), method="highs-ds",
                          options={"presolve": False, "primal_feasibility_tolerance": tol.lp_feasibility,
                                   "dual_feasibility_tolerance": tol.lp_feasibility})
            return res.status == 0
        h = self._h
        h.clearModel()
        n = len(usable)
        h.addVars(n, np.zeros(n), np.full(n, np.inf))
        matrix = sp.csr_array(matrix)
        matrix.sort_indices()
        h.addRows(len(self.rhs), self.rhs, self.rhs, matrix.nnz, matrix.indptr[:-1].astype(np.int32),
                  matrix.indices.astype(np.int32), matrix.data.astype(float))
        if self._basis is not None and self._usable is not None and np.array_equal(usable, self._usable):
            h.setBasis(self._basis)
        h.run()
        ok = h.getModelStatus() == _highs.HighsModelStatus.kOptimal
        if ok:
            self._basis, self._usable = h.getBasis(), usable
        return ok

    def _matrix(self, alpha: np.ndarray):
        """The LP's (3b, k) matrix and its k usable contact points; None when some piece has none."""
        eq = self.eq
        v = np.array([-alpha[0], -alpha[1], 1.0])
        vn = eq.normals @ v
        slip = np.linalg.norm(v[None, :] - vn[:, None] * eq.normals, axis=1)
        usable = np.flatnonzero((vn > 0) & (slip <= eq.mu * vn))
        b = len(eq.bodies)
        u1 = np.cross(v, [1.0, 0.0, 0.0] if abs(v[0]) < 0.9 * np.linalg.norm(v) else [0.0, 1.0, 0.0])
        u1 /= np.linalg.norm(u1)
        u2 = np.cross(v / np.linalg.norm(v), u1)  # u1, u2: unit axes across v
        rows, cols, vals = [], [], []
        held = np.zeros(b, dtype=bool)
        for side, sign in ((eq.above, 1.0), (eq.below, -1.0)):
            body = side[usable]
            live = body >= 0
            point, body = usable[live], body[live]
            held[body] = True
            arm = (eq.points[point] - eq.com[body]) / eq.length
            for k, value in enumerate((np.full(len(point), sign), sign * (arm @ u1), sign * (arm @ u2))):
                rows.append(3 * body + k)
                cols.append(np.flatnonzero(live))
                vals.append(value)
        if not held.all():
            return None, usable
        return sp.csc_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                            shape=(3 * b, len(usable))), usable
