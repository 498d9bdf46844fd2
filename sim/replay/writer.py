"""The recording's writer: members in order, chunks encoded and written by a thread of its own.

A session hands over a chunk (what makes its arrays and JSON body) and goes on at
once; the thread encodes it, compresses the arrays (NPZ), fills in the digests (the arrays' sha256
and the chain to the chunk before) and appends both members. It starts on a
chunk the moment it is handed over, so a process that dies loses what it had
not written yet, at most the chunk under way. An error (a full disk) is kept
and raised by the next call.
"""

from __future__ import annotations

import hashlib
import queue
import threading
import time

from sim.replay.container import AppendZip
from sim.replay.members import json_bytes, npz_bytes


class ChunkWriter:
    """Writes the members of a recording, in order.

    Args:
        path: the file (one that exists is replaced once the first chunk is written, or at :meth:`close`).
        sync: sync members to the disk too (see :class:`~sim.replay.container.AppendZip`).

    Attributes:
        digests: (name, size, sha256) of every member written, in order.
        cpu: CPU time (s) the writing thread has spent on chunks, encoding them too (what recording costs
            besides the session's own calls).

    Raises:
        OSError: the file cannot be made.
    """

    def __init__(self, path, *, sync: bool = True):
        self._zip = AppendZip(path, sync=sync)
        self.digests: list[tuple[str, int, str]] = []
        self.cpu = 0.0  # CPU time (s) the writing thread has spent encoding and writing chunks
        self._previous = ""  # sha256 of the last JSON member that the next chunk chains to
        self._queue: queue.Queue = queue.Queue()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="recording-writer", daemon=True)
        self._thread.start()

    @property
    def closed(self) -> bool:
        """The file is closed (complete, or abandoned)."""
        return self._zip.closed

    def write(self, name: str, data: bytes, *, chain: bool = False) -> None:
        """Append a member now (after every chunk handed over before it).

        Args:
            name: the member's name.
            data: its bytes.
            chain: the next chunk chains to it (the header).

        Raises:
            OSError: this write or an earlier one failed.
        """
        self.drain()
        self._append(name, data)
        if chain:
            self._previous = self.digests[-1][2]

    def chunk(self, npz_name: str, json_name: str, encode) -> None:
        """Hand a chunk over: ``encode()``, called on the writing thread (chunks in order), gives its arrays
        (written as NPZ) and its JSON body (the digests filled in).

        Raises:
            OSError: an earlier write failed.
        """
        self.check()
        self._queue.put((npz_name, json_name, encode))

    def drain(self) -> None:
        """Wait until every chunk handed over is written.

        Raises:
            OSError: a write failed.
        """
        self._queue.join()
        self.check()

    def check(self) -> None:
        """Raise the error of a failed write, if one failed."""
        if self._error is not None:
            raise self._error

    def close(self) -> None:
        """Write the central directory (after every chunk) and close the file."""
        self.drain()
        self._stop()
        self._zip.close()

    def abandon(self) -> None:
        """Stop writing and close the file as it is (what a crash leaves)."""
        self._stop()
        self._zip.abandon()

    def _stop(self) -> None:
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is None:
                    return
                if self._error is None:
                    start = time.thread_time()
                    npz_name, json_name, encode = item
                    arrays, body = encode()
                    self._append(npz_name, npz_bytes(arrays))
                    body = {**body, "npz_sha256": self.digests[-1][2], "previous_sha256": self._previous}
                    self._append(json_name, json_bytes(body))
                    self._previous = self.digests[-1][2]
                    self._zip.place()  # a whole chunk (second) is in it: worth replacing an older file for
                    self.cpu += time.thread_time() - start
            except BaseException as e:  # noqa: BLE001 (kept, and raised in the session's thread)
                self._error = e
            finally:
                self._queue.task_done()

    def _append(self, name: str, data: bytes) -> None:
        self._zip.write(name, data)
        self.digests.append((name, len(data), hashlib.sha256(data).hexdigest()))
