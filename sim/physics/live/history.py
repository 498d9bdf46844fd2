"""Snapshots and stepping back: the live world's full state in memory, and the last seconds of it.

A :class:`LiveSnapshot` holds everything the live world needs to go on from
a moment: the world's state (poses, velocities, time), the held pieces, the
hands' grips, the motion tracker, and how many actions and events there were.
Restoring one makes every body afresh (``World.set_state``), so the same
actions from the same snapshot give the same timeline, bit for bit. The
:class:`History` keeps the poses of the last ``seconds`` frame by frame (for
a viewer scrubbing back) and a cheap snapshot every second, from which
:meth:`History.rewind` replays the actions made since.
"""

from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass, replace

import numpy as np

from sim.physics.live.rest import LET_GO_SINGLE, InterfaceCache
from sim.physics.world import WorldState
from sim.tol import tol

SNAPSHOT_EVERY = 1.0
"""Simulated seconds between the history's own snapshots (a rewind replays at most this much)."""


@dataclass(frozen=True, eq=False)
class LiveSnapshot:
    """The live world at one moment (in memory; the world's state is plain data, the tracker a copy).

    Attributes:
        state: the world's pieces, poses, velocities and time.
        held: the pieces the statics held.
        parked: the pieces set aside.
        hands: the hands' grips.
        pulls: the pulls (:class:`~sim.physics.live.pulls.Pull`).
        actions: how many actions had been made; ``events``: how many events seen.
    """

    state: WorldState
    held: frozenset
    parked: frozenset
    hands: tuple
    actions: int
    events: int
    tracker: object
    certification: object
    rest_since: dict
    shake: tuple | None
    last_certified: float
    pulls: tuple = ()

    @property
    def time(self) -> float:
        """Simulated time (s) of the snapshot."""
        return self.state.time


class History:
    """The live world's recent past: frames (time, poses) and periodic snapshots.

    Args:
        live: the :class:`~sim.physics.live.LiveWorld`.
        seconds: how far back it reaches (s).

    Attributes:
        frames: (time, ids, poses) of the last ``seconds``, one per frame, oldest first.
    """

    def __init__(self, live, seconds: float):
        self.live = live
        self.seconds = float(seconds)
        self.frames: deque = deque(maxlen=max(1, int(round(seconds * 60.0)) + 1))
        self._snapshots: deque = deque(maxlen=max(2, int(np.ceil(seconds / SNAPSHOT_EVERY)) + 2))
        self._snapshots.append(self.capture())

    def capture(self) -> LiveSnapshot:
        """The live world's state now (cheap: poses and velocities read, the tracker copied)."""
        lw = self.live
        return LiveSnapshot(lw.world.get_state(), frozenset(lw.held), frozenset(lw.parked), lw.hands.states(),
                            len(lw.actions), len(lw.events), copy.deepcopy(lw.tracker), lw.certification,
                            dict(lw._rest_since), lw._shake, lw._last_certified, lw.pulls.states())

    def restore(self, snap: LiveSnapshot) -> None:
        """Put the live world back to ``snap`` (bodies made afresh; later frames, actions and events dropped)."""
        lw = self.live
        lw.world.set_state(snap.state)
        lw.flights.clear()  # every body made afresh, exactly
        static = sorted(snap.held | snap.parked)
        lw.world.set_static(static, True)
        lw.held, lw.parked = set(snap.held), set(snap.parked)
        lw._static_poses = dict(zip(static, lw.world.poses(static)))
        lw.hands.restore(snap.hands)
        lw.pulls.restore(snap.pulls)
        lw.tracker = copy.deepcopy(snap.tracker)
        lw.certification = snap.certification
        lw._rest_since = dict(snap.rest_since)
        lw._shake = snap.shake
        lw._last_certified = snap.last_certified
        lw._dirty = True  # the next frame looks at everything
        lw._stale = True  # a new engine has found no contacts yet
        lw._single_until = lw.world.steps + LET_GO_SINGLE  # and takes single steps first (``_let_go``)
        lw._interfaces = InterfaceCache()  # found afresh: what follows depends on the snapshot alone
        del lw.actions[snap.actions:]
        del lw.events[snap.events:]
        lw._drained = min(lw._drained, snap.events)
        while self.frames and self.frames[-1][0] > snap.time:
            self.frames.pop()
        while self._snapshots and self._snapshots[-1].time > snap.time:
            self._snapshots.pop()
        if not self._snapshots:
            self._snapshots.append(snap)

    def record(self, poses: np.ndarray) -> None:
        """Keep this frame's poses; take a snapshot once a second."""
        lw = self.live
        self.frames.append((lw.time, tuple(lw.ids), poses))
        if lw.time - self._snapshots[-1].time >= SNAPSHOT_EVERY - tol.clock:
            self._snapshots.append(self.capture())

    def repeat(self) -> None:
        """A frame in which nothing moved or changed: the last poses again, and the last snapshot at the new
        time once a second (no engine call)."""
        lw = self.live
        if self.frames:
            _, ids, poses = self.frames[-1]
            self.frames.append((lw.time, ids, poses))
        last = self._snapshots[-1]
        if lw.time - last.time >= SNAPSHOT_EVERY - tol.clock:
            state = replace(last.state, time=lw.time, steps=lw.world.steps)
            self._snapshots.append(replace(last, state=state))

    def rewind(self, t: float) -> None:
        """Go back to simulated time ``t``: restore the last snapshot at or before it and replay the actions
        made between, step by step (deterministic: the same rewind gives the same world)."""
        lw = self.live
        earlier = [s for s in self._snapshots if s.time <= t + tol.clock] or [self._snapshots[0]]
        snap = earlier[-1]
        replay = [a for a in lw.actions[snap.actions:] if a.time <= t + tol.clock]
        self.restore(snap)
        dt = lw.world.settings.dt
        for action in replay:
            lw.step(max(0, int(round((action.time - lw.time) / dt))))
            lw.apply(action)
        lw.step(max(0, int(round((t - lw.time) / dt))))
