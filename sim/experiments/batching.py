"""How trials are cut into tasks: sized from the measured time of a trial, smaller towards the end.

A task costs the same to send, schedule and report whatever it holds (on a
Dask cluster some milliseconds of the scheduler's, the client's and the
worker's event loops; on the local pool a round trip through a pipe), so a
task should run long enough to make that negligible: :data:`TARGET_SECONDS`.
How long a trial takes is not known before one has run (5 ms for a statics
trial of a small scene, seconds for a simulated Babylon city), so the first
tasks of each experiment hold a few trials (:data:`FIRST`), each task comes
back with the CPU seconds its trials took on the worker (not the wall clock,
which a loaded machine stretches while the overhead stays what it is), and
the next tasks of that experiment hold as many trials as fill the target at
the median rate measured so far.
Towards the end the tasks shrink (guided self-scheduling: at most a
``1 / (2 · slots)`` share of the trials still to hand out), so that the workers
finish together instead of one running a long last task alone.

Which trials go together never changes a result: a trial depends only on its
experiment and its index.
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from dataclasses import dataclass

TARGET_SECONDS = 0.5
"""How long a task should run on its worker (CPU seconds): its overhead (milliseconds) then costs under 1%."""

FIRST = {"statics": 4, "dynamics": 1, "both": 1}
"""Trials in a task before a trial's time is measured, per method."""

RATES_KEPT = 16
"""Per experiment, the latest measured rates whose median sizes the next task (a worker's first task,
slowed by its start, is outvoted)."""


@dataclass(frozen=True)
class Task:
    """A batch: some trials of one experiment.

    Attributes:
        job: which experiment (index into the jobs given to :class:`Batcher`).
        spec: its JSON text.
        indices: the trial indices.
    """

    job: int
    spec: str
    indices: tuple[int, ...]

    @property
    def name(self) -> str:
        """``trials FIRST-LAST`` (for messages)."""
        return f"trials {self.indices[0]}-{self.indices[-1]}"


class Batcher:
    """Hands out the trials of some experiments as tasks, sized from the trials' measured time.

    Args:
        jobs: (experiment JSON text, trials) per experiment; trial indices run 0…trials-1.
        method: ``statics``, ``dynamics`` or ``both`` (the size of the first tasks).
        slots: how many tasks run at once (worker processes or threads).
        target: seconds a task should run.
    """

    def __init__(self, jobs: list[tuple[str, int]], method: str, slots: int, target: float = TARGET_SECONDS):
        self.jobs = jobs
        self.first = FIRST[method]
        self.slots = max(1, slots)
        self.target = target
        self._job = 0
        self._next = 0  # the next trial index of the current job
        self._left = sum(n for _, n in jobs)
        self._rates: list[deque] = [deque(maxlen=RATES_KEPT) for _ in jobs]
        self._again: deque[Task] = deque()

    def take(self) -> Task | None:
        """The next task (one given back first), or None when every trial has been handed out."""
        if self._again:
            return self._again.popleft()
        while self._job < len(self.jobs) and self._next >= self.jobs[self._job][1]:
            self._job, self._next = self._job + 1, 0
        if self._job >= len(self.jobs):
            return None
        spec, trials = self.jobs[self._job]
        size = min(self.size(self._job), trials - self._next)
        task = Task(self._job, spec, tuple(range(self._next, self._next + size)))
        self._next += size
        self._left -= size
        return task

    def size(self, job: int) -> int:
        """Trials in the next task of ``job``: what fills the target at the measured rate (the first tasks:
        :data:`FIRST`), at most a ``1 / (2 · slots)`` share of the trials not yet handed out."""
        rate = self.seconds_per_trial(job)
        size = self.first if rate is None else max(1, int(self.target / max(rate, 1e-9)))
        return max(1, min(size, math.ceil(self._left / (2 * self.slots))))

    def seconds_per_trial(self, job: int) -> float | None:
        """The median measured seconds per trial of ``job``, None before one of its tasks came back (the points
        of a sweep may differ a hundredfold: one is not sized by another's rate)."""
        rates = self._rates[job]
        return statistics.median(rates) if rates else None

    def done(self, task: Task, seconds: float) -> None:
        """A task came back; its trials took ``seconds`` on the worker."""
        self._rates[task.job].append(seconds / len(task.indices))

    def again(self, task: Task) -> None:
        """Give a task back, to be handed out before any other (its worker died)."""
        self._again.append(task)
