"""The live world's clock: fixed steps, the real-time driver, and what is taken once a frame.

:class:`Stepping` is the part of :class:`~sim.physics.live.LiveWorld` that advances it: a step simulates
only when something is free, carried, pulled or shaken (else the clock advances for free); once a frame
(:data:`FRAME_HZ`) the motion tracker's events, the history and, when free pieces have come to rest, the
statics are taken. :meth:`Stepping.advance` steps what fits in a wall-clock budget.
"""

from __future__ import annotations

import numpy as np

from sim.physics.bodies import GRAVITY
from sim.physics.live.records import AdvanceReport, WorldEvent

FRAME_HZ = 60.0
"""Frames per simulated second: events, history and the rest check are taken once a frame."""


CROWD_PIECES = 12
"""More free pieces than this at once (neither held, parked nor carried) is a collapse or a pile in motion: the
statics hold whatever rests, so the free ones are falling, tumbling or about to be held again. Their steps get at
most :data:`CROWD_ITERATIONS` solver iterations instead of the live world's 1000, which a tumbling pile never
converges within anyway: the Talo stock knocked over (about 30 free) took 11.4 s for 2 s with 1000 and 3.4 s
with 100, the same blocks knocked down within a few (29, 34); a hand's stacking of a few free pieces keeps
1000."""

CROWD_ITERATIONS = 100
"""The iteration bound of a crowded step (see :data:`CROWD_PIECES`)."""

CROWD_SPAN = 2
"""A crowded step (:data:`CROWD_PIECES`) is one engine step of this many fixed steps (``settings.dt`` each: 1/240 s),
taken where the clock is a multiple of it and the call asks for that many more (else single steps), while no pull
or shake acts, no free piece holds its faces as face pyramids (vault blocks, voussoirs: with coarse steps the
vault's blocks woken around a carried one all came down, 365 of 366, against none with single steps) and no piece
was let go in the last few steps (``sim.physics.live.rest.LET_GO_SINGLE``). The clock, the frames and the actions
stay on the grid of fixed steps, and the same calls give the same world. Measured in CPU seconds for the 2 s of
``tools/live_motion.py`` (load 6-14): the Talo stock knocked over 1.56 s with single steps, 0.76 s with 2
(1.02-1.07 s with the let-go rule), 2.75 s with 4 (at 1/120 s the blocks jitter: 38 knocked down instead of 29-30,
5 never held again); the Babylon bench struck 7.6 s, 4.7 s and 4.9 s (9.7 s and 6.9 s with the let-go rule).
Choosing it by how many free pieces still move (coarse only while most of them move) kept a Talo block trembling
between the two for ever: slower than single steps."""


class Stepping:
    """Fixed steps and frames (a part of :class:`~sim.physics.live.LiveWorld`)."""

    def step(self, n: int = 1) -> None:
        """Advance ``n`` fixed steps (``settings.dt`` each; a crowd takes them :data:`CROWD_SPAN` at once)."""
        done = 0
        while done < n:
            done += self._step_once(n - done)

    def advance(self, seconds: float, budget: float | None = None) -> AdvanceReport:
        """Step as many fixed steps as ``seconds`` of simulated time hold, within a wall-clock ``budget`` (s).

        A viewer calls it once a frame with the frame's duration (times a slow-motion factor); when the
        budget runs out the rest is dropped, so the world slows down rather than freezing the window.

        Returns:
            What was done, with the real-time factor.
        """
        start = self._clock()
        dt = self.world.settings.dt
        wanted = max(0, int(round(seconds / dt)))
        done = 0
        while done < wanted:
            if budget is not None and done and self._clock() - start >= budget:
                break
            done += self._step_once(wanted - done)
        wall = self._clock() - start
        simulated = done * dt
        return AdvanceReport(seconds, simulated, done, wall, simulated / wall if wall > 0 else float("inf"),
                             done < wanted)

    def _step_once(self, left: int = 1) -> int:
        """One engine step (of :meth:`_span` fixed steps, at most ``left``), or the clock advanced a fixed step when
        nothing is simulated; then the frame's work when a frame ends. Returns the fixed steps taken."""
        w = self.world
        shaking = self._shake is not None
        if shaking:
            self._shake_gravity()
        carrying = self.hands.busy or bool(self.pulls)
        free = self.free()
        span = 1
        if carrying or shaking or free:
            span = self._span(free, left)
            self._solver_for(len(free))
            self.hands.apply()
            self.pulls.apply()
            if shaking or carrying:
                # a hand or the table does work each step (a light piece lifted fast gains more in a frame than
                # the blow-up watch allows): the watch counts from the step before
                w.rebase_energy()
            w.step(1, span)
            self._touches()
        else:
            w.idle(1)  # everything held: nothing to simulate
        if w.steps % self._frame_steps < span:
            self._frame()
        return span

    def _span(self, free: list[str], left: int) -> int:
        """How many fixed steps the engine takes at once (:data:`CROWD_SPAN` for a crowd, else 1)."""
        k = CROWD_SPAN
        w = self.world
        if (len(free) <= CROWD_PIECES or k <= 1 or left < k or w.steps % k or self._frame_steps % k
                or w.steps < self._single_until or self._shake is not None or self.pulls
                or any(self._exact_faces(i) for i in free if i not in self.flights.flying)):
            return 1
        return k

    def _exact_faces(self, piece_id: str) -> bool:
        """Whether a piece's body holds its faces as face pyramids (``sim.physics.children``: voussoirs, vault
        blocks): a crowd with one of them free keeps single steps (see :data:`CROWD_SPAN`)."""
        known = self._pyramids.get(piece_id)
        if known is None:
            from sim.physics.children import plan

            known = self._pyramids[piece_id] = any(c.pyramid for c in plan(self.world.piece(piece_id).shape,
                                                                           self.world.settings))
        return known

    def _solver_for(self, free: int) -> None:
        """The solver's iteration bound for a step with ``free`` pieces simulated (:data:`CROWD_PIECES`)."""
        w = self.world
        iterations = w.settings.solver_iterations
        if free > CROWD_PIECES:
            iterations = min(iterations, CROWD_ITERATIONS)
        if w.get_precision()[1] != iterations:
            w.set_precision(w.settings.residual_velocity, iterations)

    def _shake_gravity(self) -> None:
        amplitude, hz, direction, start, end = self._shake
        if self.time >= end:
            self._shake = None
            self.world.set_probe(0.0)
            self._certify(force=True)
            return
        omega = 2 * np.pi * hz
        self.world.set_probe(amplitude * omega**2 * np.sin(omega * (self.time - start)) / GRAVITY, direction)

    def _frame(self) -> None:
        """Once a frame: events, the history, and the statics when pieces have come to rest."""
        awake = bool(self.hands.carried() or self.free() or self._shake is not None)
        if not awake and not self._dirty and not self.tracker.unsettled:
            self.history.repeat()  # nothing moved, nothing changed: the last frame again, for free
            return
        # pieces the statics just held still owe their tracker its rest: it is fed until it says ``settled``
        # (else a piece certified before its rest window ended never came to rest, and nothing judged again)
        self._dirty = awake
        poses = self.poses()
        tracked = {i: k for k, i in enumerate(self.ids)}
        rows = [tracked[i] for i in self.tracker.ids]
        resting = np.ones(len(self.ids), dtype=bool)  # held and parked pieces rest by construction
        quiet = resting.copy()
        awake = [k for k, i in enumerate(self.ids) if i not in self.held and i not in self.parked]
        if awake:
            awake_ids = [self.ids[k] for k in awake]
            resting[awake] = self.world.at_rest(awake_ids)
            quiet[awake] = self.world.at_rest(awake_ids, self._settle_speed)
        for kind_event in self.tracker.frame(self.time, poses[rows], self._contacts, resting[rows]):
            self.events.append(WorldEvent(kind_event.time, kind_event.kind, kind_event.pieces,
                                         self.actions[-1] if self.actions else None))
        self.history.record(poses)
        for i, rest in zip(self.ids, quiet):
            if not rest:
                self._rest_since.pop(i, None)
            else:
                self._rest_since.setdefault(i, self.time)
        taken = set(self.carried()) | self.pulls.pieces()
        self.flights.land(taken)
        self.flights.update([self.ids[k] for k in awake if self.ids[k] not in taken])
        if self._shake is None and any(self._rested(i) for i in self.free()):
            self._certify()
