"""Trials on a Dask cluster: each experiment sent once, tasks sized as they go, two per worker thread in flight.

What a task costs on a cluster is the scheduler's, the client's and the
worker's bookkeeping (a few milliseconds of event loop each), whatever it
holds; so tasks are cut to run about half a second
(:mod:`sim.experiments.batching`), and no more are submitted than keep every
worker thread busy (two per thread: one running, one waiting), each new one
as one comes back. The experiment's JSON text goes to the cluster once, as a
task of its own that every trial task depends on: a worker fetches it once
and keeps it, and if the worker holding it dies the scheduler makes it again
(scattered data would be lost with its worker). Whether a finished task had
been on a worker that died (``TaskState.suspicious``) is asked of the
scheduler once a second for every task finished since, not once per task.

The scheduler itself re-runs the tasks of a worker that dies
(``distributed.scheduler.allowed-failures`` times).
"""

from __future__ import annotations

import time
import uuid

from sim.experiments.batching import Batcher, Task
from sim.experiments.execute import Collected, ExecutionError
from sim.experiments.trials import run_task

CONNECT_SECONDS = 4.0
"""How long to try to reach a Dask scheduler before giving up (s)."""

WORKERS_SECONDS = 30.0
"""How long to wait for the first worker of a Dask cluster that has none (s)."""

ASK_SECONDS = 1.0
"""How often the scheduler is asked which finished tasks were on a worker that died (s)."""


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


def experiment_text(spec: str) -> str:
    """The task that holds an experiment's JSON text on the cluster (its result is its argument)."""
    return spec


def _suspicious(dask_scheduler=None, keys=()) -> dict:
    """On the scheduler: how often each task was on a worker that died."""
    return {k: dask_scheduler.tasks[k].suspicious for k in keys if k in dask_scheduler.tasks}


def on_dask(jobs: list[tuple[str, int]], method: str, scheduler, collected: Collected) -> str:
    """Run the trials of ``jobs`` on a cluster into ``collected``.

    Returns:
        The scheduler's address.

    Raises:
        ExecutionError: see :func:`sim.experiments.execute.execute`.
    """
    from distributed import as_completed

    client, own = connect(scheduler)
    where = client.scheduler.address
    futures: dict = {}  # key -> (future, task), in flight
    specs = []
    try:
        workers = client.scheduler_info().get("workers")
        if not workers:
            try:
                client.wait_for_workers(1, timeout=WORKERS_SECONDS)
            except (TimeoutError, OSError):
                raise ExecutionError(f"--scheduler {where}: no worker joined within {WORKERS_SECONDS:g} s") from None
            workers = client.scheduler_info().get("workers", {})
        slots = sum(w.get("nthreads", 1) for w in workers.values()) or 1
        batcher = Batcher(jobs, method, slots)
        token = uuid.uuid4().hex[:12]
        specs = [client.submit(experiment_text, spec, key=f"towerlab-experiment-{token}-{j}", pure=False)
                 for j, (spec, _) in enumerate(jobs)]
        pending = as_completed(loop=client.loop)  # a client that is not the default one: its loop, given
        count = 0

        def fill() -> None:
            nonlocal count
            while len(futures) < 2 * slots and (task := batcher.take()) is not None:
                future = client.submit(run_task, specs[task.job], list(task.indices),
                                       key=f"towerlab-trials-{token}-{count}", pure=False)
                count += 1
                futures[future.key] = (future, task)
                pending.add(future)

        fill()
        unasked: list[tuple] = []
        asked = time.monotonic()
        for group in pending.batches():
            for future in group:
                _, task = futures.pop(future.key)
                rows, seconds = _result(future, task, where)
                batcher.done(task, seconds)
                collected.add(task, rows, False, report=False)
                unasked.append((future, task))
            fill()
            collected.report()
            if not futures or time.monotonic() - asked >= ASK_SECONDS:
                # how often each finished task was on a worker that died, asked before the scheduler forgets it
                counts = client.run_on_scheduler(_suspicious, keys=[f.key for f, _ in unasked])
                for future, task in unasked:
                    if counts.get(future.key):
                        collected.retried[task.job] += len(task.indices)
                    future.release()  # its rows live here now: a worker that dies later costs nothing
                unasked, asked = [], time.monotonic()
        return where
    finally:
        flying = [f for f, _ in futures.values() if not f.done()]
        if flying:
            client.cancel(flying)
        for spec in specs:
            spec.release()
        if own:
            client.close()


def _result(future, task: Task, where: str) -> tuple[list[tuple], float]:
    """A finished Dask future's rows and seconds, its failure as one line (errors of the trials themselves pass
    through)."""
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    try:
        return future.result()
    except KilledWorker:
        raise ExecutionError(f"{task.name}: the workers running them died each time "
                             "(the scheduler's allowed-failures)") from None
    except FutureCancelledError:
        raise ExecutionError(f"--scheduler {where}: {task.name} were cancelled") from None
    except (OSError, TimeoutError) as e:
        raise ExecutionError(f"--scheduler {where}: lost the scheduler ({e})") from None
    except ImportError as e:
        raise ExecutionError(f"--scheduler {where}: a worker cannot run towerlab ({e}); install it on every "
                             "worker") from None
