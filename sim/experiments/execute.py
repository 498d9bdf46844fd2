"""Where trials run: in this process, on a local process pool, or on a Dask cluster; retried when a worker dies.

Work goes out as tasks, each some trials of one experiment (its JSON text,
:func:`sim.experiments.trials.run_task`), cut as the run goes by a
:class:`~sim.experiments.batching.Batcher` from the measured time of a trial,
and comes back as plain rows; since a trial's result depends only on the
experiment and its index, the same rows come back however the trials are cut
and wherever they run.

- ``workers=1``: in this process.
- ``workers=K``: a pool of K processes (``concurrent.futures``; forked from a
  fork server that has imported towerlab once), two tasks per worker in
  flight; when a worker process dies the pool breaks, and the tasks it had in
  flight go to a new pool (at most :data:`ATTEMPTS` times each).
- ``scheduler=ADDRESS`` (or a ``distributed.Client``/``LocalCluster``): a Dask
  cluster (:mod:`sim.experiments.cluster`).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from sim.errors import TowerlabError
from sim.experiments.batching import Batcher, Task
from sim.experiments.trials import run_task, warm_up

ATTEMPTS = 3
"""Times a task may be started on the local pool before its trials count as killing their worker."""


class ExecutionError(TowerlabError):
    """Trials that could not be run: a scheduler out of reach, workers that keep dying."""


class Collected:
    """Rows as tasks come back, per experiment, and how many trials were run again.

    Args:
        jobs: (experiment JSON text, trials) per experiment.
        progress: called as ``progress(trials_done, trials_total)``.
    """

    def __init__(self, jobs: list[tuple[str, int]], progress: Callable[[int, int], None]):
        self.rows: list[list[tuple | None]] = [[None] * n for _, n in jobs]
        self.retried = [0] * len(jobs)
        self.total = sum(n for _, n in jobs)
        self.count = 0
        self.progress = progress
        progress(0, self.total)

    def add(self, task: Task, rows: list[tuple], rerun: bool, report: bool = True) -> None:
        """A task's rows; ``rerun``: it ran again because a worker died with it."""
        mine = self.rows[task.job]
        for i, row in zip(task.indices, rows):
            mine[i] = row
        if rerun:
            self.retried[task.job] += len(task.indices)
        self.count += len(task.indices)
        if report:
            self.report()

    def report(self) -> None:
        """Tell the progress callback how many trials are done."""
        self.progress(self.count, self.total)


@dataclass(frozen=True)
class Executed:
    """Per experiment its rows in trial order, and the trials run again after a worker died.

    Attributes:
        rows: per experiment, one row per trial.
        retried: per experiment, trials run again (or rescheduled) because a worker died with them.
        where: ``in this process``, ``K local processes`` or the scheduler's address.
    """

    rows: list[list[tuple]]
    retried: list[int]
    where: str


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def execute(jobs: list[tuple[str, int]], method: str, *, workers: int | None = None, scheduler=None,
            progress: Callable[[int, int], None] | None = None) -> Executed:
    """Run the trials of some experiments.

    Args:
        jobs: (experiment JSON text, trials) per experiment (the points of a sweep, say).
        method: their method (``statics``, ``dynamics``, ``both``: how large the first tasks are).
        workers: local processes (default: every core); 1 runs in this process.
        scheduler: a Dask scheduler's address (``tcp://host:port``), a ``distributed.Client``
            or a ``LocalCluster``; overrides ``workers``.
        progress: called as ``progress(trials_done, trials_total)`` as tasks come back.

    Raises:
        ExecutionError: the scheduler cannot be reached or has no workers; a task killed its
            worker every time it ran.
    """
    collected = Collected(jobs, progress or (lambda done, total: None))
    if scheduler is not None:
        from sim.experiments.cluster import on_dask

        where = on_dask(jobs, method, scheduler, collected)
        return Executed(collected.rows, collected.retried, where)
    workers = default_workers() if workers is None else workers
    batcher = Batcher(jobs, method, max(1, workers))
    if workers <= 1 or collected.total <= 1:
        while (task := batcher.take()) is not None:
            rows, seconds = run_task(task.spec, task.indices)
            batcher.done(task, seconds)
            collected.add(task, rows, False)
        return Executed(collected.rows, collected.retried, "in this process")
    _on_pool(batcher, workers, collected)
    return Executed(collected.rows, collected.retried, f"{workers} local processes")


def _on_pool(batcher: Batcher, workers: int, collected: Collected) -> None:
    attempts: dict[tuple[int, int], int] = {}
    context = worker_context()
    first = batcher.take()
    if first is None:
        return
    batcher.again(first)
    while True:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start_worker,
                                   initargs=(first.spec, os.getpid()))
        flying: dict = {}
        finished_all = False
        try:
            while True:
                while len(flying) < 2 * workers and (task := batcher.take()) is not None:
                    key = (task.job, task.indices[0])
                    attempts[key] = attempts.get(key, 0) + 1
                    flying[pool.submit(run_task, task.spec, task.indices)] = task
                if not flying:
                    break
                finished, _ = wait(flying, return_when=FIRST_COMPLETED)
                for future in finished:
                    task = flying[future]
                    rows, seconds = future.result()  # a broken pool raises here: the task stays in flight
                    del flying[future]
                    batcher.done(task, seconds)
                    collected.add(task, rows, attempts[task.job, task.indices[0]] > 1)
            finished_all = True
            return
        except BrokenProcessPool:
            lost = sorted(flying.values(), key=lambda t: (t.job, t.indices[0]))
            for task in lost:
                if attempts[task.job, task.indices[0]] >= ATTEMPTS:
                    raise ExecutionError(f"{task.name}: their worker process died "
                                         f"{attempts[task.job, task.indices[0]]} times running them") from None
            for task in lost:
                batcher.again(task)
            first = lost[0]
        finally:  # idle workers end at once; after a death or Ctrl-C nobody waits for the rest
            pool.shutdown(wait=finished_all, cancel_futures=True)


def _start_worker(spec: str, parent: int) -> None:
    """A pool worker's start: it ends when ``parent`` does, then warms up for ``spec``."""
    end_with(parent)
    warm_up(spec)


def end_with(parent: int) -> None:
    """End this process (at once, whatever it is doing) when the process ``parent`` ends.

    A pool's workers are the fork server's children, not the run's: killed with -9, the run left them to
    finish their tasks and wait for more for ever, and with them the fork server and the resource tracker
    (which live while any worker holds their pipes). A thread waits on the parent's pidfd (Linux), else asks
    every half second whether it is still there.
    """
    import select
    import threading

    def wait() -> None:
        try:
            fd = os.pidfd_open(parent)
        except (AttributeError, OSError):  # not Linux 5.3+, or it is gone already
            fd = None
        if fd is not None:
            select.select([fd], [], [])
        else:
            while _alive(parent):
                threading.Event().wait(0.5)
        os._exit(1)

    threading.Thread(target=wait, name="ends-with-parent", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's: ours is gone
        return False
    return True


PRELOAD = ["sim.experiments.trials", "sim.statics", "sim.contact", "sim.physics"]
"""Modules the fork server imports once, so that a new worker process starts in milliseconds instead of
importing numpy, scipy, shapely and pybullet again (1-3 s of CPU each)."""


def worker_context():
    """Worker processes forked from a fork server that has imported towerlab (never a fork of this process,
    which may hold threads, a Dask client or a physics engine); spawned where there is no fork server."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context
