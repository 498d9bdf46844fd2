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

from sim.statics.lp import linprog_cold, new_highs, optimal
from sim.statics.model import Equilibrium, G

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
    out = polygon_points(test, first_theta, goal) if goal > 0.0 else []
    if len(out) == COARSE_POINTS:
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


def polygon_points(test: TiltTest, first_theta: float, goal: float) -> list:
    """The ``COARSE_POINTS`` accelerations (2,) whose hull just contains the disc of radius ``goal`` (g), as far
    as the test proves them: half a step off ``first_theta`` (rad), in order, up to the first that fails."""
    out = []
    radius = goal / math.cos(math.pi / COARSE_POINTS)
    for k in range(COARSE_POINTS):
        theta = first_theta + 2.0 * math.pi * (k + 0.5) / COARSE_POINTS
        alpha = radius * np.array([math.cos(theta), math.sin(theta)])
        if not test.holds(alpha):
            break
        out.append(alpha)
    return out


class TiltTest:
    """The tilted-gravity LP of one structure, re-solved for one acceleration after another.

    Columns: the usable contact points (one force along v each); rows: three
    a body. Each column's entries (its upper and its lower body's three rows)
    are built at once as flat arrays, in HiGHS's column-wise form.

    Args:
        eq: the structure.
        warm: re-solve with HiGHS's own object, from the last basis (default: when scipy
            provides it); else each test from scratch by :func:`sim.statics.lp.linprog_cold`.
    """

    def __init__(self, eq: Equilibrium, warm: bool | None = None):
        self.eq = eq
        self.rhs = np.zeros(3 * len(eq.bodies))
        self.rhs[0::3] = eq.mass * G / eq.weight
        # (p, 2): each point's two bodies (upper, lower; -1 for a support) and the sign of its force on them
        self._body = np.column_stack([eq.above, eq.below])
        self._sign = np.where(self._body >= 0, np.array([1.0, -1.0]), 0.0)
        self._arm = np.stack([(eq.points - eq.com[np.maximum(eq.above, 0)]) / eq.length,
                              (eq.points - eq.com[np.maximum(eq.below, 0)]) / eq.length], axis=1)  # (p, 2, 3)
        # (p, 2, 3): each point's row indices on its two sides, and which of them exist (not a support)
        self._index = (3 * self._body[:, :, None] + np.arange(3)).astype(np.int32)
        self._live = np.repeat(self._body >= 0, 3, axis=1).reshape(-1, 2, 3)
        self._nnz = 3 * (self._body >= 0).sum(axis=1)  # (p,) entries of each point's column
        self._basis = None
        self._usable = None
        self._h = h = None if warm is False else new_highs()
        self.warm = h is not None  # re-solved with HiGHS's own object (else by linprog_cold)
        if h is not None:
            h.setOptionValue("simplex_scale_strategy", 0)  # entries are of order one: scaling costs more than it saves
            h.setOptionValue("simplex_dual_edge_weight_strategy", 0)  # a few pivots a test: no edge weights to set up

    def holds(self, alpha: np.ndarray, removed: np.ndarray | None = None) -> bool:
        """Whether the LP has a solution for ``alpha`` (2,) g.

        Args:
            alpha: the acceleration (2,) g.
            removed: (b,) bodies taken out (they carry no weight, and their contacts nothing); None for none.
        """
        columns = self._columns(alpha, removed)
        if columns is None:
            return False
        usable, starts, index, value = columns
        rhs = self.rhs if removed is None else np.where(np.repeat(removed, 3), 0.0, self.rhs)
        n, m = len(usable), len(rhs)
        if self._h is None:
            matrix = sp.csc_array((value, index, np.append(starts, len(index))), shape=(m, n))
            return linprog_cold(np.zeros(n), A_eq=matrix, b_eq=rhs, bounds=(0, None)).status == 0
        h = self._h
        h.clearModel()
        none = np.zeros(0, dtype=np.int32)
        h.addRows(m, rhs, rhs, 0, none, none, np.zeros(0))
        h.addCols(n, np.zeros(n), np.zeros(n), np.full(n, np.inf), len(index), starts, index, value)
        if self._basis is not None and self._usable is not None and np.array_equal(usable, self._usable):
            h.setBasis(self._basis)
        h.run()
        ok = optimal(h)
        if ok:
            self._basis, self._usable = h.getBasis(), usable
        return ok

    def _columns(self, alpha: np.ndarray, removed: np.ndarray | None = None):
        """The usable points (k,) and the LP's columns (starts, row indices, values); None when a body has none."""
        eq = self.eq
        v = np.array([-alpha[0], -alpha[1], 1.0])
        vn = eq.normals @ v
        slip = np.linalg.norm(v[None, :] - vn[:, None] * eq.normals, axis=1)
        ok = (vn > 0) & (slip <= eq.mu * vn)
        held = np.zeros(len(eq.bodies) + 1, dtype=bool)
        if removed is not None:
            upper, lower = eq.sides(removed)
            ok &= ~upper & ~lower
            held[:-1] = removed  # a body taken out needs no support
        usable = np.flatnonzero(ok)
        body = self._body[usable]  # (k, 2)
        held[body.ravel()] = True  # index -1 (a support) lands on the extra last slot
        if not held[:-1].all():
            return None
        ax, ay = float(alpha[0]), float(alpha[1])
        size = math.sqrt(ax * ax + ay * ay + 1.0)
        c = math.sqrt(1.0 + ay * ay)
        across = np.array([[0.0, 1.0 / c, ay / c],  # u1 = v × x̂, and u2 = v̂ × u1: unit axes across v
                           [-(1.0 + ay * ay) / (size * c), ax * ay / (size * c), -ax / (size * c)]])
        arm = self._arm[usable]  # (k, 2, 3)
        sign = self._sign[usable]  # (k, 2)
        value = np.empty((len(usable), 2, 3))
        value[:, :, 0] = sign
        value[:, :, 1:] = sign[:, :, None] * (arm.reshape(-1, 3) @ across.T).reshape(-1, 2, 2)  # (k, 2, 3): side, row
        live = self._live[usable]
        starts = np.zeros(len(usable), dtype=np.int32)
        np.cumsum(self._nnz[usable[:-1]], out=starts[1:])
        return usable, starts, self._index[usable][live], value[live]
