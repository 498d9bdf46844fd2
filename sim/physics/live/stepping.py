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


class Stepping:
    """Fixed steps and frames (a part of :class:`~sim.physics.live.LiveWorld`)."""

    def step(self, n: int = 1) -> None:
        """Advance ``n`` fixed steps (``settings.dt`` each)."""
        for _ in range(n):
            self._step_once()

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
            self._step_once()
            done += 1
        wall = self._clock() - start
        simulated = done * dt
        return AdvanceReport(seconds, simulated, done, wall, simulated / wall if wall > 0 else float("inf"),
                             done < wanted)

    def _step_once(self) -> None:
        w = self.world
        shaking = self._shake is not None
        if shaking:
            self._shake_gravity()
        carrying = self.hands.busy or bool(self.pulls)
        free = self.free()
        if carrying or shaking or free:
            self._solver_for(len(free))
            self.hands.apply()
            self.pulls.apply()
            if shaking or carrying:
                # a hand or the table does work each step (a light piece lifted fast gains more in a frame than
                # the blow-up watch allows): the watch counts from the step before
                w.rebase_energy()
            w.step(1)
            self._touches()
        else:
            w.idle(1)  # everything held: nothing to simulate
        if w.steps % self._frame_steps == 0:
            self._frame()

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
        if self._shake is None and any(self._rested(i) for i in self.free()):
            self._certify()
