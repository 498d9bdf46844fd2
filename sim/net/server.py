"""The table's server: an asyncio WebSocket server over a :class:`~sim.net.runner.Runner` (docs/network.md).

It does the network's part and nothing of the game's: it checks who connects (the link's seat and secret, the
protocol's version, a seat taken), reads every message as hostile (:mod:`sim.net.protocol`: size, rate, JSON,
fields, sequence numbers), hands a seat's actions to the table's thread and sends back its answers, and sends
every client the table as it goes: a keyframe when it comes (and whenever it falls behind), then the pose rows
that changed, the events and the game's state. The table's stream is made once per batch of frames and written to
every client that keeps up at once (``websockets.broadcast``: one encoding, no task woken per client); a client
whose connection is behind (its socket's buffer past :data:`BEHIND_BYTES`, or messages of its own waiting) is sent
through its own queue instead, in order. Nothing a client sends or fails to read holds the table up: a client that
cannot keep up gets a fresh keyframe instead of the pose messages it missed, and one that falls too far behind is
closed (it may come back).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed

from sim.net.links import Link, request_link, same_token
from sim.net.protocol import CLOSE, HARD_MESSAGE, PROTOCOL, Bucket, ProtocolError, client_message, dumps
from sim.net.runner import Runner, Update
from sim.net.table import ServedTable

HELLO_SECONDS = 10.0
"""How long a new connection has to say ``hello``."""
MAX_CLIENTS = 64
"""Connections at most (seats and spectators together)."""
LAG = 120
"""Messages waiting for a client after which its pose messages are left out until it is sent a keyframe."""
MAX_WAITING = 2000
"""Messages waiting for a client after which it is closed as too slow (code 4010)."""
ANSWERS_KEPT = 64
"""The answers a seat's welcome repeats (those a client may have missed as it dropped)."""
BEHIND_BYTES = 2 ** 15
"""Bytes waiting in a connection's socket buffer past which it is behind: the table's stream goes through its
queue (where pose messages are left out once it lags) instead of the broadcast (the library's own high-water
mark: its sends wait for the buffer to drain past it)."""
PING_SECONDS = 5.0
"""The keepalive's ping interval and timeout (s): a client gone without a word is noticed within twice this."""

_quiet = logging.getLogger("towerlab.net")
_quiet.addHandler(logging.NullHandler())
_quiet.propagate = False  # a port scanner's failed handshakes are not the table's business


@dataclass
class Seat:
    """A seat's bookkeeping on the server: its secret and the last action it numbered."""

    name: str
    token: str
    last: int = 0
    answers: deque = field(default_factory=lambda: deque(maxlen=ANSWERS_KEPT))
    conn: Conn | None = None


@dataclass(eq=False)
class Conn:
    """One client's connection."""

    ws: ServerConnection
    seat: Seat | None
    bucket: Bucket
    queue: deque = field(default_factory=deque)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    resync: bool = False
    synced: bool = False
    sending: bool = False  # its sender is writing a message of its queue
    sent: int = 0  # bytes sent
    queued: int = 0  # messages sent through its queue (the rest: broadcast)

    @property
    def name(self) -> str:
        return "spectator" if self.seat is None else self.seat.name

    def keeps_up(self) -> bool:
        """Nothing of its own waits to be sent and its socket takes what it is given: the broadcast may write to
        it now (in order with what it was sent before)."""
        return not (self.queue or self.sending or self.resync) and \
            self.ws.transport.get_write_buffer_size() <= BEHIND_BYTES


class Server:
    """A table served (see the module docstring).

    Args:
        table: the game; the server's runner owns it from :meth:`serve` on.
        seats: seat -> its secret.
        watch: the spectators' secret.
        host, port: where to listen (port 0: any free port; :attr:`port` says which).
        autosave: the autosave's file, or None.
        autosave_seconds: between two autosaves.
        advertised: the host the links name (default ``host``).
    """

    def __init__(self, table: ServedTable, seats: dict[str, str], watch: str, *, host: str = "127.0.0.1", port: int = 0,
                 autosave=None, autosave_seconds: float = 5.0, advertised: str | None = None):
        self.table = table
        self.seats = {name: Seat(name, token) for name, token in seats.items()}
        self.watch = watch
        self.host, self.port = host, port
        self.advertised = advertised or host
        self.autosave, self.autosave_seconds = autosave, autosave_seconds
        self.incarnation = secrets.token_hex(8)  # this run of the server: a client tells a restart by it
        self.conns: set[Conn] = set()
        self.latest: Update | None = None
        self.state: dict | None = None
        self.roster = {pid: i for i, pid in enumerate(table.pieces)}
        self.runner: Runner | None = None
        self.traffic = {"sent": 0, "received": 0, "messages": 0}
        self.bots: dict[str, int] = {}  # seat -> the level of the computer player that holds it (the status line)
        self._updates: deque[Update] = deque()
        self._woken = False
        self._legal = False  # a seat's client asked for the legal moves (the table works them out from then on)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._wake: asyncio.Event | None = None

    # --- links -------------------------------------------------------------------------------------

    def links(self) -> dict[str | None, Link]:
        """Seat -> its link (None -> the spectators')."""
        out: dict[str | None, Link] = {n: Link(self.advertised, self.port, n, s.token) for n, s in self.seats.items()}
        out[None] = Link(self.advertised, self.port, None, self.watch)
        return out

    # --- running -----------------------------------------------------------------------------------

    async def serve(self, ready: Callable[[Server], None] | None = None) -> None:
        """Serve until :meth:`stop`: the table's thread runs its frames, the clients come and go.

        Raises:
            OSError: the port cannot be listened on (in use, not allowed).
        """
        self._loop = asyncio.get_running_loop()
        self._stop, self._wake = asyncio.Event(), asyncio.Event()
        self.runner = Runner(self.table, self._from_table, autosave=self.autosave,
                             autosave_seconds=self.autosave_seconds)
        async with serve(self._handler, self.host, self.port, max_size=HARD_MESSAGE, max_queue=64,
                         compression=None, ping_interval=PING_SECONDS, ping_timeout=PING_SECONDS,
                         open_timeout=HELLO_SECONDS, logger=_quiet, server_header=None) as ws_server:
            self.port = ws_server.sockets[0].getsockname()[1]
            self.runner.start()
            pump = asyncio.create_task(self._pump())
            if ready is not None:
                ready(self)
            try:
                await self._stop.wait()
            finally:
                pump.cancel()
                ws_server.close(close_connections=True)
                await asyncio.to_thread(self.runner.stop)

    def stop(self) -> None:
        """End :meth:`serve` (from the loop's thread)."""
        if self._stop is not None:
            self._stop.set()

    def stop_soon(self) -> None:
        """End :meth:`serve` from any thread."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self.stop)

    # --- from the table's thread -------------------------------------------------------------------

    def _from_table(self, update: Update) -> None:
        self._updates.append(update)
        if not self._woken:
            self._woken = True
            self._loop.call_soon_threadsafe(self._wake.set)
        if self.runner is not None and self.runner.failed is not None:
            self._loop.call_soon_threadsafe(self.stop)

    async def _pump(self) -> None:
        """Every batch of frames from the table, sent to every client (pose rows merged over the batch)."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            self._woken = False
            batch = []
            while self._updates:
                batch.append(self._updates.popleft())
            if batch:
                self._broadcast(batch)
            if self.runner.failed is not None:
                self.stop()

    def _broadcast(self, batch: list[Update]) -> None:
        last = batch[-1]
        first = self.latest is None
        self.latest = last
        texts = []
        if first or any(u.changed is None for u in batch):  # a client that joined before the first frame has none
            texts.append(self._keyframe())
        else:
            rows = np.unique(np.concatenate([u.changed for u in batch]))
            if len(rows):
                texts.append(self._rows(rows))
        events = [e for u in batch for e in u.events]
        said = [s for u in batch for s in u.said]
        game = [g for u in batch for g in u.game]
        if events or said or game:
            texts.append(dumps({"type": "events", "frame": last.frame, "events": events, "said": said, "game": game}))
        state = next((u.state for u in reversed(batch) if u.state is not None), None)
        if state is not None:
            self.state = state
            texts.append(self._state())
        poses = bool(texts) and texts[0].startswith('{"type":"poses"')
        fast = []
        for c in list(self.conns):
            if not c.synced:
                continue
            if c.keeps_up():
                fast.append(c)
                continue
            for k, text in enumerate(texts):
                if k == 0 and poses and (c.resync or len(c.queue) >= LAG):
                    c.resync = True  # it will be sent a keyframe once it has caught up
                    continue
                self._push(c, text)
        if fast:
            sockets = [c.ws for c in fast]
            size = 0
            for text in texts:
                data = text.encode("utf-8")  # once for every client
                broadcast(sockets, data, text=True)
                size += len(data)
            for c in fast:
                c.sent += size
            self.traffic["sent"] += size * len(fast)

    def _keyframe(self) -> str:
        u = self.latest
        return dumps({"type": "keyframe", "frame": u.frame, "time": u.time,
                      "ids": [self.roster[i] for i in u.ids], "poses": u.poses.tolist()})

    def _rows(self, rows: np.ndarray) -> str:
        u = self.latest
        numbers = [self.roster[u.ids[i]] for i in rows.tolist()]
        return dumps({"type": "poses", "frame": u.frame, "time": u.time,
                      "rows": [[n, *p] for n, p in zip(numbers, u.poses[rows].tolist())]})

    def _state(self) -> str:
        return dumps({"type": "state", "frame": self.latest.frame, **self.state})

    # --- a client ----------------------------------------------------------------------------------

    def _push(self, c: Conn, text: str) -> None:
        if len(c.queue) >= MAX_WAITING:
            c.queue.clear()
            asyncio.ensure_future(self._close(c, "slow", "too far behind the table (it may come back)"))
            return
        c.queue.append(text)
        c.wake.set()

    async def _sender(self, c: Conn) -> None:
        try:
            while True:
                if not c.queue:
                    if c.resync and self.latest is not None:
                        c.resync = False
                        c.queue.append(self._keyframe())
                    else:
                        c.wake.clear()
                        await c.wake.wait()
                        continue
                text = c.queue.popleft()
                c.sending = True
                try:
                    await c.ws.send(text)
                finally:
                    c.sending = False
                n = len(text.encode("utf-8")) if not text.isascii() else len(text)
                c.sent += n
                c.queued += 1
                self.traffic["sent"] += n
        except ConnectionClosed:
            return

    async def _handler(self, ws: ServerConnection) -> None:
        admitted = await self._admit(ws)
        if admitted is False:
            return
        seat, hello = admitted
        c = Conn(ws, seat, Bucket(time.monotonic))
        sender = asyncio.create_task(self._sender(c))
        try:
            if seat is not None:
                seat.conn = c
                await asyncio.wrap_future(self.runner.call(ServedTable.joined, seat.name))
                if hello.get("legal") and not self._legal:  # a seat's window rings its carries' places from now on
                    self._legal = True
                    await asyncio.wrap_future(self.runner.call(ServedTable.start_legal))
            self.conns.add(c)
            self._push(c, dumps(self._welcome(c)))
            if self.latest is not None:
                self._push(c, self._keyframe())
            if self.state is not None:
                self._push(c, self._state())
            c.synced = True
            async for raw in ws:
                self.traffic["received"] += len(raw)
                self.traffic["messages"] += 1
                if not c.bucket.take():
                    if c.bucket.flooding:
                        await self._close(c, "flood", "too many messages: the connection is closed (a flood)")
                        return
                    self._error(c, "rate", f"more than {c.bucket.rate:g} messages a second: this one was dropped")
                    continue
                try:
                    self._message(c, client_message(raw))
                except ProtocolError as e:
                    self._error(c, e.code, e.message)
        except ConnectionClosed:
            pass
        finally:
            self.conns.discard(c)
            sender.cancel()
            if seat is not None and seat.conn is c:
                seat.conn = None
                with contextlib.suppress(RuntimeError):  # the table has stopped
                    await asyncio.wrap_future(self.runner.call(ServedTable.left, seat.name))

    async def _admit(self, ws: ServerConnection):
        """The seat the link asks for (None: a spectator), its secret and the hello checked; False when refused
        (with an error message and a close code). The hello comes first, so that a client always reads why."""
        try:
            async with asyncio.timeout(HELLO_SECONDS):
                raw = await ws.recv()
            hello = client_message(raw)
        except TimeoutError:
            return await self._refuse(ws, "hello", f"no hello within {HELLO_SECONDS:g} s")
        except ProtocolError as e:
            return await self._refuse(ws, e.code, e.message)
        except ConnectionClosed:
            return False
        if hello["type"] != "hello":
            return await self._refuse(ws, "hello", f"expected a hello first, got a {hello['type']}")
        if hello["protocol"] != PROTOCOL:
            return await self._refuse(ws, "version", f"this server speaks {PROTOCOL}, the client "
                                                     f"{hello['protocol'][:40]}: use the same towerlab on both ends")
        asked = request_link(ws.request.path)
        if asked is None:
            return await self._refuse(ws, "not-found", "not a table's link: expected /seat/NAME?token=... or "
                                                       "/watch?token=...")
        name, token = asked
        seat = None if name is None else self.seats.get(name)
        if name is not None and seat is None:
            return await self._refuse(ws, "not-found", f"this table has no seat {name!r} (its seats: "
                                                       f"{', '.join(self.seats)})")
        if not same_token(token, self.watch if seat is None else seat.token):
            return await self._refuse(ws, "token", "the link's secret is not this table's (an old link, or a "
                                                   "link of another table)")
        if seat is not None and seat.conn is not None:
            return await self._refuse(ws, "seat-taken", f"the seat {seat.name} is taken: someone is connected with "
                                                        "its link")
        if len(self.conns) >= MAX_CLIENTS:
            return await self._refuse(ws, "full", f"the table has its {MAX_CLIENTS} connections")
        return seat, hello

    async def _refuse(self, ws: ServerConnection, code: str, message: str):
        try:
            await ws.send(dumps({"type": "error", "code": code, "message": message}))
            await ws.close(CLOSE.get(code, 4000), code)
        except ConnectionClosed:
            pass
        return False

    async def _close(self, c: Conn, code: str, message: str) -> None:
        c.queue.clear()  # what waits is not sent after the error that says why the connection closes
        with contextlib.suppress(ConnectionClosed):
            await c.ws.send(dumps({"type": "error", "code": code, "message": message}))
        await c.ws.close(CLOSE[code], code)

    def _error(self, c: Conn, code: str, message: str, **extra) -> None:
        self._push(c, dumps({"type": "error", "code": code, "message": message, **extra}))

    def _welcome(self, c: Conn) -> dict:
        t = self.table
        s = c.seat
        return {"type": "welcome", "protocol": PROTOCOL, "server": _version(), "table": self.incarnation,
                "role": "spectator" if s is None else "seat", "seat": None if s is None else s.name,
                "game": t.setup.game, "variant": t.session.variant, "players": list(t.players),
                "seed": t.setup.seed, "turn_seconds": t.setup.turn_seconds, "pieces": list(t.pieces),
                "frame": 0 if self.latest is None else self.latest.frame,
                "next_seq": 1 if s is None else s.last + 1, "answers": [] if s is None else list(s.answers)}

    def _message(self, c: Conn, m: dict) -> None:
        kind = m["type"]
        if kind == "ping":
            self._push(c, dumps({"type": "pong", "id": m.get("id"), "frame": self.latest.frame if self.latest else 0,
                                 "load": self.runner.load()}))
        elif kind == "sync":
            c.resync = True
            c.wake.set()
            if self.state is not None:
                self._push(c, self._state())
        elif kind == "hello":
            self._error(c, "hello", "hello is said once, at the start")
        elif c.seat is None:
            self._error(c, "spectator", "a spectator watches: the spectators' link cannot act", seq=m["seq"])
        else:
            self._act(c, c.seat, m["seq"], m["action"])

    def _act(self, c: Conn, seat: Seat, seq: int, action: dict) -> None:
        if seq <= seat.last:
            self._error(c, "replayed", f"action {seq} was answered already (the last was {seat.last})", seq=seq)
            return
        if seq != seat.last + 1:
            self._error(c, "sequence", f"expected action {seat.last + 1}, got {seq}", seq=seq)
            return
        seat.last = seq
        future = self.runner.call(ServedTable.submit, seat.name, action)

        def answered(f) -> None:
            try:
                answer = {**f.result(), "frame": self.runner.table.frame_no}
            except Exception as e:  # noqa: BLE001 - a defect of the table's: the seat is told, the table goes on
                answer = {"ok": False, "rule": "server", "reason": f"the server failed: {type(e).__name__}: {e}",
                          "frame": self.runner.table.frame_no}
            self._loop.call_soon_threadsafe(self._answered, seat, seq, answer)
        future.add_done_callback(answered)

    def _answered(self, seat: Seat, seq: int, answer: dict) -> None:
        message = {"type": "answer", "seq": seq, **answer}
        seat.answers.append(message)
        if seat.conn is not None:
            self._push(seat.conn, dumps(message))

    # --- the status line ---------------------------------------------------------------------------

    def status(self) -> str:
        """One line: who is connected, whose turn, the load."""
        seats = " ".join(n + (f" (bot {self.bots[n]})" if n in self.bots else "") +
                         ("" if s.conn is not None else " (away)") for n, s in self.seats.items())
        watching = sum(1 for c in self.conns if c.seat is None)
        st = self.state or {}
        turn = st.get("current") or "-"
        stands = f" ({st['stands']})" if st.get("stands") else ""
        load = self.runner.load() if self.runner is not None else {"rtf": 1.0, "busy": 0.0, "frame_ms": 0.0}
        over = "game over; " if st.get("over") else ""
        return (f"seats: {seats}; watching: {watching}; {over}turn: {turn}{stands}; "
                f"{load['rtf']:.2f}x real time, {load['frame_ms']:.1f} ms a frame ({100 * load['busy']:.0f}% busy)")


def _version() -> str:
    from sim import __version__

    return f"towerlab {__version__}"


__all__ = ["Server"]
