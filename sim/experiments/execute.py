"""Where trials run: in this process, on a local process pool, or on a Dask cluster; retried when a worker dies.

Work goes out as tasks, each a batch of trial indices of one experiment (its
JSON text, :func:`sim.experiments.trials.run_batch`), and comes back as plain
rows; since a trial's result depends only on the experiment and its index,
the same rows come back however the trials are batched and wherever they run.

- ``workers=1``: in this process.
- ``workers=K``: a pool of K processes (``concurrent.futures``; forked from a
  fork server that has imported towerlab once), at most 2K batches in flight;
  when a worker process dies the pool breaks, and the batches it had in flight
  go to a new pool (at most :data:`ATTEMPTS` times each).
- ``scheduler=ADDRESS`` (or a ``distributed.Client``/``LocalCluster``): a Dask
  cluster. The scheduler itself re-runs the tasks of a worker that dies
  (``distributed.scheduler.allowed-failures`` times), and says which it re-ran
  (``TaskState.suspicious``).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from sim.errors import TowerlabError
from sim.experiments.trials import run_batch, warm_up

ATTEMPTS = 3
"""Times a batch may be started on the local pool before its trials count as killing their worker."""

CONNECT_SECONDS = 4.0
"""How long to try to reach a Dask scheduler before giving up (s)."""

WORKERS_SECONDS = 30.0
"""How long to wait for the first worker of a Dask cluster that has none (s)."""

BATCH_CAP = {"statics": 64, "dynamics": 8, "both": 8}
"""The most trials in one task, per method: statics trials take milliseconds (a batch amortises
sending it), simulated ones up to seconds (small batches spread them evenly)."""

Task = tuple[str, Sequence[int]]
"""A batch: (the experiment's JSON text, trial indices)."""


class ExecutionError(TowerlabError):
    """Trials that could not be run: a scheduler out of reach, workers that keep dying."""


@dataclass(frozen=True)
class Executed:
    """Rows per task, and which tasks had to be run again after a worker died.

    Attributes:
        rows: per task, the rows of its trials (task order).
        rerun: per task, whether it was run again (or rescheduled) because a worker died with it.
        where: ``in this process``, ``K local processes`` or the scheduler's address.
    """

    rows: list[list[tuple]]
    rerun: list[bool]
    where: str

    @property
    def retried(self) -> int:
        """Trials run again because a worker died with them."""
        return sum(len(r) for r, again in zip(self.rows, self.rerun) if again)


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def batches(trials: int, method: str, workers: int) -> list[list[int]]:
    """Trial indices 0…trials-1 cut into batches: at least four per worker when there are enough trials,
    at most :data:`BATCH_CAP` trials each."""
    size = max(1, min(BATCH_CAP[method], math.ceil(trials / (4 * max(1, workers)))))
    return [list(range(a, min(a + size, trials))) for a in range(0, trials, size)]


def execute(tasks: list[Task], *, workers: int | None = None, scheduler=None,
            progress: Callable[[int, int], None] | None = None) -> Executed:
    """Run the tasks.

    Args:
        tasks: the batches.
        workers: local processes (default: every core); 1 runs in this process.
        scheduler: a Dask scheduler's address (``tcp://host:port``), a ``distributed.Client``
            or a ``LocalCluster``; overrides ``workers``.
        progress: called as ``progress(trials_done, trials_total)`` as batches come back.

    Raises:
        ExecutionError: the scheduler cannot be reached or has no workers; a batch killed its
            worker every time it ran.
    """
    total = sum(len(t[1]) for t in tasks)
    report = progress or (lambda done, total: None)
    report(0, total)
    if scheduler is not None:
        return _on_dask(tasks, scheduler, report, total)
    workers = default_workers() if workers is None else workers
    if workers <= 1 or len(tasks) <= 1:
        rows, done = [], 0
        for spec, indices in tasks:
            rows.append(run_batch(spec, indices))
            done += len(indices)
            report(done, total)
        return Executed(rows, [False] * len(rows), "in this process")
    return _on_pool(tasks, workers, report, total)


def _on_pool(tasks: list[Task], workers: int, report, total: int) -> Executed:
    rows: list[list[tuple] | None] = [None] * len(tasks)
    attempts = [0] * len(tasks)
    todo = list(range(len(tasks)))
    done = 0
    context = _context()
    while todo:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=warm_up,
                                   initargs=(tasks[todo[0]][0],))
        flying: dict = {}
        finished_all = False
        try:
            while todo or flying:
                while todo and len(flying) < 2 * workers:
                    i = todo.pop(0)
                    attempts[i] += 1
                    flying[pool.submit(run_batch, *tasks[i])] = i
                finished, _ = wait(flying, return_when=FIRST_COMPLETED)
                for future in finished:
                    i = flying[future]
                    rows[i] = future.result()  # a broken pool raises here: the batch stays in flight, to go again
                    del flying[future]
                    done += len(tasks[i][1])
                    report(done, total)
            finished_all = True
        except BrokenProcessPool:
            lost = sorted(flying.values())
            for i in lost:
                if attempts[i] >= ATTEMPTS:
                    first, last = tasks[i][1][0], tasks[i][1][-1]
                    raise ExecutionError(f"trials {first}-{last}: their worker process died {attempts[i]} times "
                                         "running them") from None
            todo = lost + todo
        finally:  # idle workers end at once; after a death or Ctrl-C nobody waits for the rest
            pool.shutdown(wait=finished_all, cancel_futures=True)
    return Executed(rows, [a > 1 for a in attempts], f"{workers} local processes")


PRELOAD = ["sim.experiments.trials", "sim.statics", "sim.contact", "sim.physics"]
"""Modules the fork server imports once, so that a new worker process starts in milliseconds instead of
importing numpy, scipy, shapely and pybullet again (1-3 s of CPU each)."""


def _context():
    """Worker processes forked from a fork server that has imported towerlab (never a fork of this process,
    which may hold threads, a Dask client or a physics engine); spawned where there is no fork server."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def _suspicious(dask_scheduler=None, keys=()) -> dict:
    """On the scheduler: how often each task was on a worker that died."""
    return {k: dask_scheduler.tasks[k].suspicious for k in keys if k in dask_scheduler.tasks}


def connect(scheduler, timeout: float = CONNECT_SECONDS):
    """A ``distributed.Client`` for an address, a cluster or a client (returned as is), and whether we own it.

    Raises:
        ExecutionError: the scheduler cannot be reached within ``timeout`` seconds, or the address is not one.
    """
    from distributed import Client

    if isinstance(scheduler, Client):
        return scheduler, False
    if not isinstance(scheduler, str):
        return Client(scheduler, set_as_default=False), True
    try:
        return Client(scheduler, timeout=timeout, set_as_default=False), True
    except (OSError, TimeoutError) as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ExecutionError(f"--scheduler {scheduler}: cannot reach the scheduler ({reason})") from None
    except (ValueError, TypeError) as e:
        raise ExecutionError(f"--scheduler {scheduler}: not a scheduler address, e.g. tcp://host:8786 ({e})") from None


def _on_dask(tasks: list[Task], scheduler, report, total: int) -> Executed:
    from distributed import as_completed

    client, own = connect(scheduler)
    where = client.scheduler.address
    futures = []
    try:
        if not client.scheduler_info().get("workers"):
            try:
                client.wait_for_workers(1, timeout=WORKERS_SECONDS)
            except (TimeoutError, OSError):
                raise ExecutionError(f"--scheduler {where}: no worker joined within {WORKERS_SECONDS:g} s") from None
        token = uuid.uuid4().hex[:12]
        futures = [client.submit(run_batch, spec, list(indices), key=f"towerlab-trials-{token}-{i}", pure=False)
                   for i, (spec, indices) in enumerate(tasks)]
        index = {f.key: i for i, f in enumerate(futures)}
        rows: list[list[tuple] | None] = [None] * len(tasks)
        rerun = [False] * len(tasks)
        done = 0
        for group in as_completed(futures).batches():
            # how often each finished task was on a worker that died, asked before the scheduler forgets it
            counts = client.run_on_scheduler(_suspicious, keys=[f.key for f in group])
            for future in group:
                i = index[future.key]
                rows[i] = _result(future, tasks[i], where)
                rerun[i] = bool(counts.get(future.key))
                future.release()  # a finished batch's rows live here now: a worker that dies later costs nothing
                done += len(tasks[i][1])
                report(done, total)
        return Executed(rows, rerun, where)
    finally:
        pending = [f for f in futures if not f.done()]
        if pending:
            client.cancel(pending)
        if own:
            client.close()


def _result(future, task: Task, where: str) -> list[tuple]:
    """A finished Dask future's rows, its failure as one line (errors of the trials themselves pass through)."""
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    first, last = task[1][0], task[1][-1]
    try:
        return future.result()
    except KilledWorker:
        raise ExecutionError(f"trials {first}-{last}: the workers running them died each time "
                             "(the scheduler's allowed-failures)") from None
    except FutureCancelledError:
        raise ExecutionError(f"--scheduler {where}: trials {first}-{last} were cancelled") from None
    except (OSError, TimeoutError) as e:
        raise ExecutionError(f"--scheduler {where}: lost the scheduler ({e})") from None
    except ImportError as e:
        raise ExecutionError(f"--scheduler {where}: a worker cannot run towerlab ({e}); install it on every "
                             "worker") from None
