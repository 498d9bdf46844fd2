"""The statics LP in its kinematic form: virtual velocities of the bodies, one row per force generator.

The equilibrium LP (forces x ≥ 0 along friction-cone generators, A x = load)
is solved through its dual: a virtual velocity y (6 numbers per body) that
no contact force can resist, ``A_jᵀ y ≤ 0`` for every generator j, doing the
most work with the load. By LP duality the two have the same optimum, and
the forces are the multipliers of the rows. In this form every change the
statics make is one the dual simplex continues from warm: a new horizontal
direction changes four row bounds, a new friction generator is a new row (a
cutting plane of the Coulomb cone).

* **Feasibility (help).** With each ``|y_i| ≤ 1``, max b · y (b the weights) is
  the least total *help* (an external wrench per body, cost 1 per unit) that
  holds every body: zero exactly when the structure stands. The multipliers
  of the bounds ``|y_i| ≤ 1`` are each body's help.
* **Support function h(d).** With y free and four rows ``±u_x · y - z ≤ ∓d_x``
  (and y), min over y of (cap · Σz - b · y) is h(d) = max {d · α : α withstood,
  |α_x|, |α_y| ≤ cap}, the largest uniform horizontal acceleration α (in g)
  projected on d; the multipliers of the four rows are α.
* **Coulomb cone.** Each contact point starts with its normal force alone
  (and friction along ± the fall line of a sloped contact); a solve whose y makes
  some point's ``w · n + μ |w_t| > 0`` (w the virtual velocity there) gets
  the generator along ``w_t``: the cut that y violates most. Repeated until
  no cut is violated by more than ``tol.friction_cone_rel``: exact for the
  circular cone in the limit.
"""

from __future__ import annotations

import math

import numpy as np

from sim.statics.lp import RowLP, Solution
from sim.statics.model import Equilibrium
from sim.statics.slide import slide_bound
from sim.tol import tol

MARGIN_CAP_G = 10.0  # margins are reported up to this (g): beyond it nothing in these games falls
MAX_DIRECTIONS = 16  # most support-function evaluations of the margin search
MAX_ROUNDS = 50  # most cutting-plane rounds per solve
FIRST_DIRECTION_DEG = 0.0  # the margin search's first direction; the tilted-gravity proof follows
SPREAD = 1  # most friction directions per round given to every parallel contact plane


def peel_unheld(program, test=None, strict: int | None = None) -> list[int]:
    """The bodies that cannot be held, peeled from the top by ``program`` (a :class:`Problem` or a cone
    program: its ``eq``, ``least_help()`` and ``remove(body)``); see :meth:`Problem.unheld`.

    ``strict``: after this many bodies taken out one program at a time, every body that still needs help is
    taken out at once (None: one at a time to the end). A coarser answer (a body that would stand once those
    above it are gone may be among them) in a few programs instead of one per body: the live world's choice
    for large collapses, never the verdict's.

    Before every program, the bodies that no chain of contacts joins to the ground any more
    (:meth:`~sim.statics.model.Equilibrium.ungrounded`) are taken out at once: no forces can hold them, so
    the one-at-a-time peel would take every one of them out too (in some order among the others, and none
    of them touches what it leaves): exact, and a vault without its supports is decided with no program at
    all instead of one a block."""
    out: list[int] = []
    removed = np.zeros(len(program.eq.bodies), dtype=bool)
    height = program.eq.com[:, 2]
    peeled = 0  # bodies taken out one program at a time
    while True:
        loose = program.eq.ungrounded(removed)  # no forces hold them: out at once, no program needed
        for body in loose:
            out.append(int(body))
            program.remove(int(body))
            removed[body] = True
        if len(loose) and (removed.all() or (test is not None and test.holds(np.zeros(2), removed))):
            return sorted(out)
        need = program.least_help()
        failing = [i for i in np.flatnonzero(need > tol.unheld_slack) if i not in out]
        if not failing:
            return sorted(out)
        taken = failing if strict is not None and peeled >= strict else [max(failing, key=lambda i: (height[i], -i))]
        peeled += len(taken) == 1
        for top in taken:
            out.append(int(top))
            program.remove(int(top))
            removed[top] = True
        if test is not None and test.holds(np.zeros(2), removed):
            return sorted(out)


class Problem:
    """The kinematic LP of one structure.

    Attributes:
        eq: the equilibrium system.
        friction: whether contact points start with a friction pyramid (else the normal force).
        lp: the LP: variables y (6 per body) then z (4); rows: the four acceleration rows, then
            one per generator.
        live: (p,) which contact points may carry force (a removed body's do not).
        seeded: (p,) which contact points have their generators in the LP. Supports (interfaces
            within ``tol.support_angle`` of level) are seeded from the start; a side contact when
            a solution first needs it (any body with no support has all its contacts seeded).
        row_point: (r,) contact point of each generator row.
    """

    def __init__(self, eq: Equilibrium, warm: bool | None = None, friction: bool = False):
        self.eq = eq
        self.friction = friction
        m = eq.num_rows
        cost = np.concatenate([-eq.gravity_load(), np.full(4, MARGIN_CAP_G)])
        lower = np.concatenate([np.full(m, -1.0), np.zeros(4)])
        upper = np.concatenate([np.full(m, 1.0), np.full(4, np.inf)])
        self.lp = RowLP(cost, lower, upper, warm)
        ux, uy = eq.horizontal_load(0), eq.horizontal_load(1)
        accel = np.hstack([np.vstack([ux, -ux, uy, -uy]), -np.eye(4)])
        self.alpha_rows = self.lp.add_rows(accel, -np.inf, np.inf)  # inactive until a direction is set
        self.live = np.ones(len(eq.points), dtype=bool)
        self.seeded = np.zeros(len(eq.points), dtype=bool)
        self.row_point = np.zeros(0, dtype=int)
        self.row_cut = np.zeros(0, dtype=bool)  # (r,) whether a generator row is a cut (not seeded)
        self._cutting = False
        self._solves_before = 0  # solves of the LP _widen replaced
        support = eq.supports
        held = np.zeros(len(eq.bodies), dtype=bool)
        held[eq.above[support & (eq.above >= 0)]] = True
        held[eq.below[support & (eq.below >= 0)]] = True  # carries a support: its own weight goes there too
        loose = ~held[np.maximum(eq.above, 0)] & (eq.above >= 0) | ~held[np.maximum(eq.below, 0)] & (eq.below >= 0)
        self._seed(np.flatnonzero(support | loose))

    @property
    def solves(self) -> int:
        """LP solves so far."""
        return self._solves_before + self.lp.solves

    # --- generators ---------------------------------------------------------------------------

    def _seed(self, point: np.ndarray) -> None:
        """Give contact points their first generators.

        The normal force alone, and friction along ± the fall line where the
        contact plane is sloped (friction that holds a piece on a slope under
        gravity lies along it: a block on a tilted plank is exact at once).
        Friction in any other direction comes as cuts, where a solution needs
        it: a structure of level contacts standing under gravity needs none,
        and its LP has one row per contact point, not four. A structure that
        needs friction under gravity alone (``friction``: it leans on side
        contacts) starts with a four-sided pyramid inscribed in the cone along
        the upper piece's own axes instead of the normal force.
        """
        point = point[~self.seeded[point] & self.live[point]]
        if len(point) == 0:
            return
        self.seeded[point] = True
        if self.friction:
            t = self.eq.tangents[point]
            self._add_generators(np.repeat(point, 4), np.stack([t[:, 0], -t[:, 0], t[:, 1], -t[:, 1]],
                                                               axis=1).reshape(-1, 3))
        else:
            self._add_generators(point, np.zeros((len(point), 3)))
        normals = self.eq.normals[point]
        up = np.array([0.0, 0.0, 1.0])
        proj = up - (normals @ up)[:, None] * normals
        size = np.linalg.norm(proj, axis=1)
        slope = size > tol.fall_line
        sloped, e = point[slope], proj[slope] / size[slope, None]
        self._add_generators(np.concatenate([sloped, sloped]), np.vstack([e, -e]))

    def _add_generators(self, point: np.ndarray, tangent: np.ndarray) -> None:
        """Add the rows of generators ``n + μ e`` at (live) contact points for unit tangents ``e`` (or 0)."""
        keep = self.live[point]
        point, tangent = point[keep], tangent[keep]
        if len(point):
            self.lp.add_rows(self.eq.force_rows(point, self.eq.generators(point, tangent)),
                             -np.inf, 0.0)
            self.row_point = np.concatenate([self.row_point, point])
            self.row_cut = np.concatenate([self.row_cut, np.full(len(point), self._cutting)])

    def purge(self) -> None:
        """Drop the cut rows the last solve does not bind, once they outnumber the seeded ones by half.

        Cuts found for one direction rarely bind in another; dropping them
        keeps each pivot cheap. A cut dropped and needed again is found again.
        """
        if np.count_nonzero(self.row_cut) * 2 <= np.count_nonzero(~self.row_cut):
            return
        idle = self.lp.inactive_rows()[len(self.alpha_rows):] & self.row_cut
        if idle.any():
            self.lp.delete_rows(len(self.alpha_rows) + np.flatnonzero(idle))
            self.row_point, self.row_cut = self.row_point[~idle], self.row_cut[~idle]

    def violations(self, sol: Solution) -> tuple[np.ndarray, np.ndarray]:
        """The contact points whose cone a solution's virtual velocity violates, and its tangent there.

        Returns:
            (k,) live point indices, (k, 3) unit tangents along which a generator would be violated most.
        """
        eq = self.eq
        w = eq.point_duals(sol.x[:eq.num_rows])
        wn = np.einsum("ij,ij->i", w, eq.normals)
        wt = w - wn[:, None] * eq.normals
        size = np.linalg.norm(wt, axis=1)
        pick = np.flatnonzero((wn + eq.mu * size > tol.friction_cone_rel) & self.live)
        e = np.divide(wt[pick], size[pick, None], out=eq.tangents[pick, 0], where=size[pick, None] > 0)
        return pick, e

    def solve(self, enough=None, max_rounds: int = MAX_ROUNDS, bounded=None) -> tuple[Solution, bool]:
        """Solve, adding what the solution violates until nothing is violated.

        A violated contact point without generators gets its interface's
        first generators (the contact comes into play); one with generators gets the
        generator along its violation (the cut it violates most), and the
        commonest such directions are given to parallel contact planes.

        Args:
            enough: stop early once this is true of the objective (it only rises as rows are
                added, so a bound met stays met).
            max_rounds: most rounds of additions.
            bounded: true of a solution whose objective comes within the precision of a proven
                upper bound: it is exact whatever it violates.

        Returns:
            The last solution, and whether it is exact for the circular cone and every contact.
        """
        for round_ in range(max_rounds + 1):
            sol = self.lp.solve()
            while not sol.optimal and self._widen():
                sol = self.lp.solve()
            if not sol.optimal or len(self.eq.points) == 0:
                return sol, sol.optimal
            if bounded is not None and bounded(sol):
                return sol, True
            pick, e = self.violations(sol)
            if len(pick) == 0:
                return sol, True
            if round_ == max_rounds or (enough is not None and enough(sol.objective)):
                return sol, False
            fresh = ~self.seeded[pick]
            if fresh.any():
                self._seed(np.flatnonzero(np.isin(self.eq.interface, self.eq.interface[pick[fresh]])))
            pick, e = pick[~fresh], e[~fresh]
            self._cutting = True
            self._add_generators(pick, e)
            self._spread(pick, e)
            self._cutting = False
        raise AssertionError("unreachable")
    def _widen(self) -> bool:
        """Start again with the friction pyramid at every contact point, after a solve found no optimum: whether
        it did.

        A kinematic LP with no optimum (unbounded, or HiGHS's solve error on the way there)
        means that the generators so far cannot hold the structure under any load in the
        margin's box, and no cut can come from a solve without an optimum. It happens where
        the LP started with normal forces alone (the structure stands on vertical forces) and
        some contacts slope by less than ``tol.fall_line`` (no fall-line friction seeded) yet
        by more than the LP's tolerance absorbs: pieces the simulation left tilted by 1e-7 rad,
        which the tilted-gravity test (it needs no generators) finds held. The pyramid holds
        any force in the cone's inner pyramid, vertical ones among them, as for structures that
        lean. Only for a structure with nothing taken out, only once, and only after a failed
        solve: no answer that had an optimum changes.
        """
        if self.friction or not self.live.all():
            return False
        margin = not np.isfinite(self.lp.lower[:self.eq.num_rows]).any()
        solves = self.solves
        lo, hi = self.lp.row_lo[self.alpha_rows], self.lp.row_hi[self.alpha_rows]  # the direction being solved
        self.__init__(self.eq, self.lp.warm, friction=True)
        self._solves_before = solves
        if margin:
            self.start_margin()
        self.lp.set_row_bounds(self.alpha_rows, lo, hi)
        return True

    def _spread(self, pick: np.ndarray, e: np.ndarray) -> None:
        """Add the commonest new friction directions at every point of the same contact plane orientation.

        A body sliding as a whole violates every one of its contacts in the
        same direction; the next weakest interface of a stack would slide the
        same way. Giving every parallel contact plane that direction at once
        settles such sliding in one round instead of one round per interface.
        """
        eq = self.eq
        keys = np.round(np.hstack([eq.normals[pick], e]), 3)
        uniq, counts = np.unique(keys, axis=0, return_counts=True)
        for key in uniq[np.argsort(-counts)][counts[np.argsort(-counts)] >= 2][:SPREAD]:
            n, t = key[:3], key[3:]
            same = (eq.normals @ (n / np.linalg.norm(n)) > 1.0 - tol.parallel) & self.live & self.seeded
            same[pick[np.all(keys == key, axis=1)]] = False  # these have just had (nearly) that direction
            same = np.flatnonzero(same)
            t = t - (eq.normals[same] @ t)[:, None] * eq.normals[same]
            t /= np.linalg.norm(t, axis=1)[:, None]
            self._add_generators(same, t)

    # --- feasibility --------------------------------------------------------------------------

    def least_help(self) -> np.ndarray:
        """(b,) the help each body needs under gravity alone (scaled); all zero when it stands."""
        sol, _ = self.solve(enough=lambda objective: objective >= -tol.lp_feasibility)
        if not sol.optimal:  # cannot happen: y = 0 is always feasible and |y| ≤ 1 bounds it
            raise RuntimeError("the feasibility LP has no optimum")
        return np.abs(sol.col_duals[:self.eq.num_rows]).reshape(-1, 6).sum(axis=1)

    def remove(self, body: int) -> None:
        """Take a body out: it stands still (y = 0, free help) and its contacts carry nothing."""
        rows = np.arange(6 * body, 6 * body + 6)
        self.lp.set_bounds(rows, 0.0, 0.0)
        dead = (self.eq.below == body) | (self.eq.above == body)
        self.live &= ~dead
        gone = len(self.alpha_rows) + np.flatnonzero(dead[self.row_point])
        if len(gone):
            self.lp.set_row_bounds(gone, -np.inf, np.inf)

    def unheld(self, test=None, strict: int | None = None) -> list[int]:
        """The bodies that cannot be held, peeled from the top.

        While some bodies need help, the highest of them (by centre of mass)
        is taken out and the rest tried again: what remains stands by itself,
        and what was taken out is what falls (a failing piece and whatever
        could only stand on it). Only feasibility answers and heights decide,
        so the answer does not depend on which of several least-help
        solutions the LP happens to return.

        Args:
            test: the structure's :class:`~sim.statics.tilt.TiltTest`, if any: where vertical
                forces alone hold what remains, that proves it stands without another LP solve.
            strict: see :func:`peel_unheld`.
        """
        return peel_unheld(self, test, strict)

    # --- margin ---------------------------------------------------------------------------------

    def start_margin(self) -> None:
        """Free the virtual velocities (no help): from now on each solve evaluates h(d)."""
        self.lp.set_bounds(np.arange(self.eq.num_rows), -np.inf, np.inf)


    def support(self, theta: float, enough: float = math.inf, max_rounds: int = MAX_ROUNDS):
        """h(d) for the unit direction at angle ``theta`` (rad).

        Args:
            enough: stop refining once h is known to be at least this (g): the best so far
                less (part of) the precision, which this direction then cannot undercut.
            max_rounds: most rounds of additions.

        Returns:
            (h, its maximiser α (2,), whether h is exact). An inexact h is a lower
            bound, and α lies in the set of withstood accelerations all the same.
            Once the LP comes within the margin precision of the sliding bound
            (:func:`sim.statics.slide.slide_bound`), h is that bound: an upper
            bound of the true h, exact to the precision.
        """
        d = np.array([math.cos(theta), math.sin(theta)])
        self.purge()
        self.lp.set_row_bounds(self.alpha_rows, -np.inf, np.array([-d[0], d[0], -d[1], d[1]]))
        whole = slide_bound(self.eq, theta)
        ceiling = [whole]

        def bounded(sol: Solution) -> bool:
            """Whether the objective is within the precision of a sliding bound (kept in ``ceiling``)."""
            ceiling[0] = min(whole, slide_bound(self.eq, theta, self.sliding(sol, d)))
            return bool(sol.objective >= ceiling[0] - _slack(ceiling[0]) - tol.lp_feasibility)

        sol, exact = self.solve(enough=lambda objective: objective >= enough,
                                max_rounds=max_rounds, bounded=bounded)
        if not sol.optimal:  # cannot happen: y = 0, z = 0 is feasible and the cap bounds it
            raise RuntimeError("the margin LP has no optimum")
        mult = -sol.row_duals[self.alpha_rows]
        a = np.array([mult[0] - mult[1], mult[2] - mult[3]])
        h = float(d @ a)
        if exact and h >= ceiling[0] - _slack(ceiling[0]) - tol.lp_feasibility:  # h to the precision
            h = max(h, ceiling[0])
        return h, a, exact

    def sliding(self, sol: Solution, d: np.ndarray) -> np.ndarray:
        """(b,) the bodies a solution's mechanism moves along d at least half as fast as the fastest.

        The LP's virtual velocities sketch the collapse; where it is sliding,
        these bodies move as one block, and :func:`sim.statics.slide.slide_bound`
        of them bounds h(d) from above.
        """
        y = sol.x[:self.eq.num_rows].reshape(-1, 6)
        along = y[:, :2] @ d
        peak = along[np.argmax(np.abs(along))] if len(along) else 0.0
        if peak == 0.0:
            return np.ones(len(along), dtype=bool)
        return along / peak >= 0.5


def _slack(ceiling: float) -> float:
    """How far below a sliding bound (g) an objective may stay and be that bound to the margin precision."""
    return max(tol.margin_precision, tol.margin_precision_rel * ceiling) if math.isfinite(ceiling) else 0.0
