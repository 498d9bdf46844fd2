"""The session's memory: moments of the whole state, the undo and redo stacks, and the time history.

A :class:`Moment` is everything the controller needs to be back at an instant:
the live world's snapshot, what each hand carries and how, and which pieces are
still in the supply. Undo is by moments (unlimited in a session): undoing an
action puts everything back as it was just before it, the falls it caused
included. The time history keeps a moment every :data:`HISTORY_PERIOD` of
simulated time, for stepping back through the last :data:`HISTORY_SECONDS`.
"""

from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass, field

from sim.viewer.control.live import Snapshot

HISTORY_PERIOD = 0.1
"""Simulated seconds between two moments of the time history."""
HISTORY_SECONDS = 15.0
"""How far back (simulated seconds) the time history reaches."""


@dataclass(frozen=True, eq=False)
class Moment:
    """The whole session state at one instant.

    Attributes:
        snapshot: the live world's.
        hands: hand name -> the controller's carry state (copies).
        supply: ids of the pieces still in the supply.
        plugins: each session plug-in's own state (:meth:`SessionPlugin.state`), in their order.
    """

    snapshot: Snapshot
    hands: dict = field(default_factory=dict)
    supply: frozenset = frozenset()
    plugins: tuple = ()

    @property
    def time(self) -> float:
        return self.snapshot.time

    def hands_copy(self) -> dict:
        """The hands, copied again (a moment can be restored any number of times)."""
        return copy.deepcopy(self.hands)


@dataclass
class Entry:
    """One undoable step.

    Attributes:
        label: what it was (``pick-and-drop of b3-1``).
        moment: the state just before it (on the redo stack: just before it was undone).
        hand: the hand it concerned, for folding a carry's steps into one.
        carry: the carry it belongs to (a pick and everything until its drop), or None.
    """

    label: str
    moment: Moment
    hand: str | None = None
    carry: int | None = None


class UndoStack:
    """Unlimited undo and redo of moments."""

    def __init__(self):
        self.undo: list[Entry] = []
        self.redo: list[Entry] = []

    def push(self, entry: Entry) -> None:
        """A new step: it can be undone; what was undone can no longer be redone."""
        self.undo.append(entry)
        self.redo.clear()

    def fold(self, carry: int, label: str) -> Entry | None:
        """Make one step of a carry's pick and everything done with it since (rotations, lifts); that step."""
        first = next((k for k, e in enumerate(self.undo) if e.carry == carry), None)
        if first is None:
            return None
        keep = [e for e in self.undo[first + 1:] if e.carry != carry]
        self.undo[first + 1:] = keep
        self.undo[first].label = label
        self.undo[first].carry = None
        return self.undo[first]

    def forget(self, entry: Entry) -> None:
        """Take one step off the undo stack (it turned out not to have happened: a rejected drop)."""
        self.undo = [e for e in self.undo if e is not entry]

    def drop_carry(self, carry: int) -> None:
        """Forget a carry's steps (it was cancelled: the piece is back where it was picked)."""
        self.undo = [e for e in self.undo if e.carry != carry]

    def take_undo(self, now: Moment) -> Entry | None:
        """The step to undo (None when there is none); ``now`` goes on the redo stack."""
        if not self.undo:
            return None
        e = self.undo.pop()
        self.redo.append(Entry(e.label, now, e.hand, e.carry))
        return e

    def take_redo(self, now: Moment) -> Entry | None:
        """The step to redo (None when there is none); ``now`` goes back on the undo stack."""
        if not self.redo:
            return None
        e = self.redo.pop()
        self.undo.append(Entry(e.label, now, e.hand, e.carry))
        return e

    def clear(self) -> None:
        self.undo.clear()
        self.redo.clear()


class TimeHistory:
    """Moments at regular simulated times, for stepping back; browsing keeps a cursor into them."""

    def __init__(self, period: float = HISTORY_PERIOD, seconds: float = HISTORY_SECONDS):
        self.period = period
        self.moments: deque[Moment] = deque(maxlen=int(round(seconds / period)) + 1)
        self.cursor: int | None = None  # index of the moment shown while browsing, None when live

    @property
    def browsing(self) -> bool:
        return self.cursor is not None

    def due(self, time: float) -> bool:
        """Whether a moment should be kept at ``time`` (live, and a period since the last)."""
        return self.cursor is None and (not self.moments or time - self.moments[-1].time >= self.period - 1e-9)

    def record(self, moment: Moment) -> None:
        self.moments.append(moment)

    def back(self, now: float, seconds: float) -> Moment | None:
        """The moment at least ``seconds`` before ``now`` (the oldest kept, if it reaches no further), or None."""
        if not self.moments:
            return None
        goal = now - seconds
        start = len(self.moments) - 1 if self.cursor is None else self.cursor
        k = start
        while k > 0 and self.moments[k].time > goal + 1e-9:
            k -= 1
        if self.cursor is None and self.moments[k].time > now - 1e-9 and k == 0:
            return None
        self.cursor = k
        return self.moments[k]

    @property
    def reach(self) -> float:
        """How far back (s) the kept moments go from the newest."""
        return self.moments[-1].time - self.moments[0].time if self.moments else 0.0

    def go_live(self) -> None:
        """Leave browsing: the moments after the one shown are a future that will not happen."""
        if self.cursor is not None:
            while len(self.moments) > self.cursor + 1:
                self.moments.pop()
            self.cursor = None

    def forget_after(self, time: float) -> None:
        """Drop the moments after ``time`` (the state went back there)."""
        while self.moments and self.moments[-1].time > time + 1e-9:
            self.moments.pop()
        self.cursor = None

    def clear(self) -> None:
        self.moments.clear()
        self.cursor = None
