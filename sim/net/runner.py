"""The table's own thread: sixty frames a second of wall time, the seats' commands between them, the autosaves.

:class:`Runner` owns the :class:`~sim.net.table.ServedTable`: nothing else touches it. The server hands it commands
(:meth:`Runner.call`: a function of the table, run between two frames, its result a future) and gets back, after
every frame, an :class:`Update` (the poses, the rows that changed bit for bit, the events, what was said, the
game's journal, the state when it changed). No client can hold it up: a command is a queue's item, and the
frames are paced by the clock, not by the network. A frame that costs more than its 1/60 s is caught up by the
next ones (the game's time stays the wall's); more than :data:`MAX_BEHIND` behind, the game slows down instead
(the status line's real-time factor says so).

The autosave (a saved game, ``towerlab-game/1``, :mod:`sim.viewer.play.save`) is taken between frames every
``autosave_seconds`` and written atomically by a thread of its own (the file grows with the game). It only
reads the game: the game going on is not touched.
"""

from __future__ import annotations

import contextlib
import json
import queue
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sim.net.table import FRAME, ServedTable

MAX_BEHIND = 2.0
"""Wall seconds the frames may fall behind before the game slows down rather than catching up."""
STATE_EVERY = 6
"""Frames between two looks at the game's state (10 a second), besides every frame a seat acted in."""


@dataclass
class Update:
    """What one frame changed, for the clients.

    Attributes:
        frame: frames run so far.
        time: the table's time (s).
        ids: the pieces present, in the world's order.
        poses: (n, 7) their poses (a copy of the frame's).
        changed: indices into ``ids`` of the rows that differ bit for bit from the frame before; None when the
            pieces present changed (a keyframe is due).
        events: the live world's and the controller's events (``{t, kind, pieces, cause}``).
        said: what the table said (``{text, kind, t}``).
        game: the referee's journal entries (``{time, kind, data}``).
        state: the game's state (:meth:`ServedTable.state`) when it changed, else None.
    """

    frame: int
    time: float
    ids: tuple[str, ...]
    poses: np.ndarray
    changed: np.ndarray | None
    events: list = field(default_factory=list)
    said: list = field(default_factory=list)
    game: list = field(default_factory=list)
    state: dict | None = None


class Runner:
    """The table's thread (see the module docstring).

    Args:
        table: the table it owns from now.
        publish: ``publish(update)``, called on the table's thread after every frame (hand it to another thread
            at once).
        autosave: the saved game's file, or None for none.
        autosave_seconds: wall seconds between two autosaves.
        clock: monotonic wall seconds (injected in tests).
    """

    def __init__(self, table: ServedTable, publish: Callable[[Update], None], *, autosave: Path | None = None,
                 autosave_seconds: float = 5.0, clock: Callable[[], float] = time.monotonic):
        self.table = table
        self.publish = publish
        self.clock = clock
        self.inbox: queue.Queue = queue.Queue()
        self.autosave = None if autosave is None else Autosave(autosave)
        self.autosave_seconds = float(autosave_seconds)
        self.failed: BaseException | None = None
        self._stop = threading.Event()
        self._closing = threading.Lock()
        self._closed = False  # the thread has ended: no command is served any more
        self._thread = threading.Thread(target=self._run, name="towerlab-table", daemon=True)
        self._costs: deque[tuple[float, float, float]] = deque(maxlen=120)  # each frame's (wall end, wall s, CPU s)
        self._ids: tuple[str, ...] = ()
        self._bits = np.zeros((0, 7), dtype=np.int64)
        self._seen = {"events": 0, "said": 0, "game": 0}
        self._journal = None
        self._state_text = ""
        self._log_seen = 0

    # --- from other threads ------------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def call(self, fn: Callable, *args) -> Future:
        """``fn(table, *args)`` on the table's thread, between two frames; its result (or exception) a future. Once
        the thread has ended, the future fails at once (a client's handler never waits on a table that is gone)."""
        f: Future = Future()
        with self._closing:
            if self._closed:
                f.set_exception(RuntimeError("the table has stopped"))
            else:
                self.inbox.put((fn, args, f))
        return f

    def stop(self, save: bool = True) -> None:
        """Stop the frames (a last autosave with ``save``) and wait for the thread; the table stays open."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        if save and self.autosave is not None and self.failed is None:
            self.autosave.write(self.table)
        if self.autosave is not None:
            self.autosave.close()

    def load(self) -> dict:
        """The frames' load over the last two seconds: ``{rtf, busy, frame_ms, frame_ms_max, cpu}`` (the real-time
        factor: table seconds per wall second; busy: the share of wall time spent on frames; cpu: CPU seconds the
        table's thread spent per table second, what a machine of its own would need: below 1, real time)."""
        costs = list(self._costs)
        if len(costs) < 2:
            return {"rtf": 1.0, "busy": 0.0, "frame_ms": 0.0, "frame_ms_max": 0.0, "cpu": 0.0}
        wall = max(costs[-1][0] - costs[0][0], 1e-9)
        work = [c[1] for c in costs[1:]]
        cpu = sum(c[2] for c in costs[1:])
        return {"rtf": (len(costs) - 1) * FRAME / wall, "busy": sum(work) / wall,
                "frame_ms": 1000.0 * sum(work) / len(work), "frame_ms_max": 1000.0 * max(work),
                "cpu": cpu / ((len(costs) - 1) * FRAME)}

    # --- the thread --------------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._loop()
        except BaseException as e:  # a defect of the table's: said once, the server stops
            self.failed = e
            traceback.print_exc(file=sys.stderr)
        finally:
            with self._closing:  # nobody waits on a command forever: those queued fail, later ones at once
                self._closed = True
                while True:
                    try:
                        _, _, f = self.inbox.get_nowait()
                    except queue.Empty:
                        break
                    f.set_exception(RuntimeError("the table has stopped"))

    def _loop(self) -> None:
        due = self.clock()
        saved = self.clock()
        while not self._stop.is_set():
            now = self.clock()
            if now < due:
                try:
                    command = self.inbox.get(timeout=due - now)
                except queue.Empty:
                    continue
                self._serve(command)
                continue
            while True:  # every command that came before the frame is done before it
                try:
                    self._serve(self.inbox.get_nowait())
                except queue.Empty:
                    break
            start, cpu = time.perf_counter(), time.thread_time()
            self.table.step()
            self._publish()
            end = self.clock()
            self._costs.append((end, time.perf_counter() - start, time.thread_time() - cpu))
            due += FRAME
            if end - due > MAX_BEHIND:
                due = end  # too far behind to catch up: the game slows down
            if self.autosave is not None and end - saved >= self.autosave_seconds:
                self.autosave.take(self.table)
                saved = self.clock()

    def _serve(self, command) -> None:
        fn, args, f = command
        if not f.set_running_or_notify_cancel():
            return
        try:
            result = fn(self.table, *args)
        except StopIteration as e:  # which a future cannot hold
            f.set_exception(RuntimeError(f"StopIteration: {e}"))
            return
        except Exception as e:  # the command's own failure goes back to who asked
            f.set_exception(e)
            return
        f.set_result(result)

    def _publish(self) -> None:
        """The frame's :class:`Update`, handed to :attr:`publish`."""
        t, c = self.table, self.table.controller
        ids = tuple(c.world.ids)
        poses = c.world.poses()
        bits = np.ascontiguousarray(poses, dtype=np.float64).view(np.int64)
        if ids != self._ids:
            changed = None
        else:
            changed = np.nonzero((bits != self._bits).any(axis=1))[0]
        self._ids, self._bits = ids, bits
        u = Update(t.frame_no, t.time, ids, poses, changed)
        u.events = [_event(e) for e in c.events[self._seen["events"]:]]
        u.said = [{"text": m.text, "kind": m.kind, "t": m.time} for m in c.messages[self._seen["said"]:]]
        session = t.session
        if session is not self._journal:
            self._journal, self._seen["game"] = session, 0
        u.game = [e.to_json() for e in session.journal[self._seen["game"]:]]
        self._seen = {"events": len(c.events), "said": len(c.messages), "game": len(session.journal)}
        if u.game or u.events or len(t.log) != self._log_seen or t.frame_no % STATE_EVERY == 0:
            self._log_seen = len(t.log)
            state = t.state()
            text = json.dumps(state, sort_keys=True)
            if text != self._state_text:
                self._state_text = text
                u.state = state
        self.publish(u)


def _event(e) -> dict:
    cause = None if e.cause is None else {"action": e.cause.name, "piece": e.cause.piece, "hand": e.cause.hand,
                                          "player": e.cause.player}
    return {"t": e.time, "kind": e.kind, "pieces": list(e.pieces), "cause": cause}


class Autosave:
    """The table's saved game, taken between frames and written by a thread of its own (the newest wins).

    Args:
        path: the file (``towerlab-game/1``: ``towerlab play --resume`` reads it as well as ``towerlab serve
            --resume``).
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.error: str | None = None
        self.written = 0
        self._slot: queue.Queue = queue.Queue(maxsize=1)
        self._thread = threading.Thread(target=self._run, name="towerlab-autosave", daemon=True)
        self._thread.start()

    @staticmethod
    def text(table: ServedTable) -> str:
        from sim.viewer.play.save import game_data

        return json.dumps(game_data(table.controller, table.referee), allow_nan=False, separators=(",", ":"))

    def take(self, table: ServedTable) -> None:
        """The game now, to be written (a save still waiting is replaced: only the newest matters)."""
        text = self.text(table)
        with contextlib.suppress(queue.Empty):
            self._slot.get_nowait()
        self._slot.put(text)

    def write(self, table: ServedTable) -> None:
        """The game now, written before this returns (the last save, as the server stops)."""
        self.close()
        self._put(self.text(table))

    def close(self) -> None:
        if self._thread.is_alive():
            self._slot.put(None)
            self._thread.join()

    def _run(self) -> None:
        while True:
            text = self._slot.get()
            if text is None:
                return
            self._put(text)

    def _put(self, text: str) -> None:
        from sim.atomic import write_text

        try:
            write_text(self.path, text)
            self.written += 1
            self.error = None
        except OSError as e:
            self.error = f"{self.path}: the autosave cannot be written ({e.strerror or e})"


__all__ = ["MAX_BEHIND", "Autosave", "Runner", "Update"]
