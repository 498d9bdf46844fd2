"""A served table on a thread of its own, with its own event loop: tests, benchmarks, a window's local table.

Leaving the block stops the server; a thread that does not stop within its timeout is said with its loop's task
stacks (a diagnosis: what the server still waits for), never waited for in silence.
"""

from __future__ import annotations

import asyncio
import threading

from sim.net.server import Server


class Background:
    """A server on a thread of its own, with its own event loop (tests, benchmarks, a window's local table).

    ``with Background(server) as s:`` starts it and waits until it listens (its :attr:`Server.port` is known);
    leaving the block stops it (the table's last autosave written) and waits for the thread.

    Args:
        server: the server.
        timeout: seconds to wait for it to listen.
    """

    def __init__(self, server: Server, timeout: float = 60.0):
        self.server = server
        self.timeout = timeout
        self.error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="towerlab-server", daemon=True)

    def _run(self) -> None:
        async def serve():
            self._loop = asyncio.get_running_loop()
            await self.server.serve(lambda s: self._ready.set())

        try:
            asyncio.run(serve())
        except BaseException as e:  # noqa: BLE001 - handed to the thread that waits
            self.error = e
        finally:
            self._ready.set()

    def __enter__(self) -> Server:
        self._thread.start()
        if not self._ready.wait(self.timeout):
            raise TimeoutError(f"the server did not listen within {self.timeout:g} s")
        if self.error is not None:
            raise self.error
        return self.server

    def __exit__(self, *exc) -> None:
        self.server.stop_soon()
        self._thread.join(self.timeout)
        if self._thread.is_alive():  # never silently: say what it waits for (the thread is a daemon, left behind)
            import warnings

            warnings.warn(f"the server did not stop within {self.timeout:g} s; its tasks are at:\n{self._tasks()}",
                          RuntimeWarning, stacklevel=2)

    def _tasks(self) -> str:
        """The stacks of the server loop's tasks (read from another thread: for a diagnosis only)."""
        import io

        out = io.StringIO()
        for _ in range(3):
            try:
                tasks = list(asyncio.all_tasks(self._loop)) if self._loop is not None else []
                break
            except RuntimeError:  # the loop's set of tasks changed while it was read
                continue
        else:
            tasks = []
        for t in tasks:
            t.print_stack(limit=8, file=out)
        return out.getvalue() or "(no task)"


__all__ = ["Background"]
