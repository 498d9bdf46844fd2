"""Trials on a Dask cluster: each experiment sent once, tasks sized as they go, two per worker thread in flight.

What a task costs on a cluster is the scheduler's, the client's and the
worker's bookkeeping (a few milliseconds of event loop each), whatever it
holds; so tasks are cut to run about half a second
(:mod:`sim.experiments.batching`), and no more are submitted than keep every
worker thread busy (two per thread: one running, one waiting), each new one
as one comes back. The experiment's JSON text goes to the cluster once, as a
task of its own that every trial task depends on: a worker fetches it once
and keeps it, and if the worker holding it dies the scheduler makes it again
(scattered data would be lost with its worker).

The scheduler itself re-runs the tasks of a worker that dies
(``distributed.scheduler.allowed-failures`` times), and says so: the client
listens to the scheduler's ``remove-worker`` events, which name the tasks the
worker was running or held, and counts those trials as run again (asking the
scheduler about every finished task instead cost it 5 ms of CPU a question).

A cluster's own event loops cost CPU whether it works or not: with Dask's
defaults about 0.1 CPU-second a second for a scheduler and two workers,
mostly the workers' statistical profiler (a sample every 10 ms) and every
process's event-loop tick (every 20 ms). :data:`QUIET` are the settings that
take this to under 0.01 for trials (docs/experiments.md: how to start
workers with them).
"""

from __future__ import annotations

import contextlib
import threading
import uuid

from sim.experiments.batching import Batcher, Task
from sim.experiments.execute import Collected, ExecutionError
from sim.experiments.trials import run_task

CONNECT_SECONDS = 4.0
"""How long to try to reach a Dask scheduler before giving up (s)."""

WORKERS_SECONDS = 30.0
"""How long to wait for the first worker of a Dask cluster that has none (s)."""

QUIET = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
}
"""Dask settings for a cluster that runs trials: no statistical profile of the tasks (the dashboard's Profile
page), the event loop's responsiveness checked once a second instead of every 20 ms, memory every second
instead of every 100 ms (a worker over its memory limit is stopped up to a second later), the system monitor
every 5 s. Measured on two idle workers and a scheduler: 0.1 CPU-second a second with Dask's defaults, under
0.01 with these (``tools/bench_experiments.py``)."""


def quiet_environment() -> dict[str, str]:
    """:data:`QUIET` as the environment variables Dask reads at a process's start (``DASK_DISTRIBUTED__...``)."""
    return {"DASK_" + key.upper().replace(".", "__").replace("-", "_"): str(value)
            for key, value in QUIET.items()}


def connect(scheduler, timeout: float = CONNECT_SECONDS):
    """A ``distributed.Client`` for an address, a cluster or a client (returned as is), and whether we own it.

    Raises:
        ExecutionError: the scheduler cannot be reached within ``timeout`` seconds, or the address is not one.
    """
    from distributed import Client
    from distributed.comm import get_address_host_port

    if isinstance(scheduler, Client):
        return scheduler, False
    if not isinstance(scheduler, str):
        return Client(scheduler, set_as_default=False), True
    try:
        # the address first: a Client given a malformed one fails half made, and at exit its finaliser
        # waits 8 s for a loop that never ran and prints a traceback
        get_address_host_port(scheduler)
    except (ValueError, TypeError) as e:
        raise ExecutionError(f"--scheduler {scheduler}: not a scheduler address, e.g. tcp://host:8786 ({e})") from None
    _answers(scheduler, timeout)
    try:
        return Client(scheduler, timeout=timeout, set_as_default=False), True
    except (OSError, TimeoutError) as e:
        raise ExecutionError(f"--scheduler {scheduler}: cannot reach the scheduler ({_first_line(e)})") from None


def _answers(address: str, timeout: float) -> None:
    """Make sure something at ``address`` answers as a Dask scheduler does, within ``timeout`` seconds in all.

    Distributed's own connect bounds the TCP connection but not the handshake after it: a peer that accepts
    and never answers held ``Client`` for ever, and one that answers something else made it read a length
    from the garbage (3 EiB) and fail half made, its finaliser printing a traceback at exit. The handshake is
    tried here first, on a connection of its own, as a whole within the timeout.

    Raises:
        ExecutionError: no connection, no answer in time, or an answer that is not a scheduler's.
    """
    import asyncio

    from distributed.comm import connect

    async def handshake() -> None:
        comm = await asyncio.wait_for(connect(address, timeout=timeout), timeout)
        await comm.close()

    try:
        asyncio.run(handshake())
    except TimeoutError:
        raise ExecutionError(f"--scheduler {address}: cannot reach the scheduler: no answer within {timeout:g} s "
                             "(is a Dask scheduler listening there?)") from None
    except OSError as e:
        raise ExecutionError(f"--scheduler {address}: cannot reach the scheduler ({_first_line(e)})") from None
    except Exception as e:  # noqa: BLE001 - whatever the protocol makes of a stranger's bytes (MemoryError too)
        raise ExecutionError(f"--scheduler {address}: what answered is not a Dask scheduler "
                             f"({type(e).__name__})") from None


def _first_line(e: BaseException) -> str:
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def experiment_text(spec: str) -> str:
    """The task that holds an experiment's JSON text on the cluster (its result is its argument)."""
    return spec


class Deaths:
    """The keys of the tasks that were on a worker when it left the cluster (they run again elsewhere), from the
    scheduler's ``remove-worker`` events; filled by the client's event loop.

    Args:
        client: the ``distributed.Client``; its events of the topic ``all`` come here until :meth:`stop` (a
            handler of that topic set on the client before is replaced).
    """

    TOPIC = "all"

    def __init__(self, client):
        self.client = client
        self._keys: set[str] = set()
        self._lock = threading.Lock()
        client.subscribe_topic(self.TOPIC, self._event)  # before any task: the same stream, in order

    @property
    def keys(self) -> set[str]:
        """The keys named so far."""
        with self._lock:
            return set(self._keys)

    def _event(self, event) -> None:
        _, message = event
        if isinstance(message, dict) and message.get("action") == "remove-worker":
            with self._lock:
                self._keys.update(message.get("processing-tasks", ()))
                self._keys.update(message.get("lost-computed-tasks", ()))

    def stop(self) -> None:
        """Stop listening (quietly, on a client that lost its scheduler)."""
        with contextlib.suppress(Exception):
            self.client.unsubscribe_topic(self.TOPIC)


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
    sent: dict = {}  # key -> task, of every trial task
    specs = []
    deaths = None
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
        deaths = Deaths(client)
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
                sent[future.key] = task
                pending.add(future)

        fill()
        for group in pending.batches():
            for future in group:
                _, task = futures.pop(future.key)
                rows, seconds = _result(future, task, where)
                batcher.done(task, seconds)
                collected.add(task, rows, False, report=False)
                future.release()  # its rows live here now: a worker that dies later costs nothing
            fill()
            collected.report()
        for key in deaths.keys & sent.keys():  # the scheduler said so before it sent the rerun's result
            collected.retried[sent[key].job] += len(sent[key].indices)
        return where
    finally:
        if deaths is not None:
            deaths.stop()
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
