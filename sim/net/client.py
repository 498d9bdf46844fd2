"""A table's client without a window: for tests, benchmarks, computer players and the window's own client.

:class:`Client` joins a table by its link (a seat's or the spectators'), keeps the table as the server sends it
(every piece's pose, bit for bit as the server's; the game's state; the events, what was said, the game's
journal), and acts for its seat: :meth:`Client.act` numbers an action, sends it and waits for its answer. A
connection that drops is made again by itself (waiting 0.2 s, then twice as long each time, up to 5 s); the
actions sent and not yet answered are sent again if the server did not get them, or answered from the answers
the server repeats in its welcome; a server that restarted from its autosave (another ``table`` in the
welcome) answers none of them: they are answered ``lost``.

Whatever the server sends is checked before it is used (:func:`sim.net.protocol.server_message`). A refusal to
join (a wrong secret, a seat taken, another protocol version, no such table) is a :class:`JoinError` with the
server's reason in one line.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable

import numpy as np
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from sim.errors import TowerlabError
from sim.net.links import Link, parse_link
from sim.net.protocol import BURST, MAX_SERVER_MESSAGE, PROTOCOL, RATE, Bucket, ProtocolError, dumps, server_message

BACKOFF = (0.2, 5.0)
"""The first and the longest wait (s) before connecting again."""
FINAL = frozenset({"token", "not-found", "version", "full", "flood"})
"""Refusals after which a client does not try again."""
TAKEN_SECONDS = 30.0
"""How long a reconnecting client tries again while its seat is still taken (the server notices a dead
connection within ten seconds)."""


class JoinError(TowerlabError):
    """The table could not be joined: unreachable, or the server refused (its reason)."""

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.code = code


class Client:
    """A client of a table (see the module docstring).

    Args:
        link: the table's link (a :class:`~sim.net.links.Link` or its URL).
        reconnect: make a dropped connection again by itself.
        name: what the client calls itself in its hello.
        on_message: ``on_message(client, message)`` after each message is taken in (on the client's loop).
        legal: ask the table to say where carried pieces may go (its state's ``legal``: a window's rings; worked
            out on the server from the first seat that asks, at some cost of its CPU).
    """

    def __init__(self, link: Link | str, *, reconnect: bool = True, name: str = "towerlab",
                 on_message: Callable | None = None, legal: bool = False):
        self.link = parse_link(link) if isinstance(link, str) else link
        self.legal = legal
        self.reconnect = reconnect
        self.name = name
        self.on_message = on_message
        self.welcome: dict | None = None
        self.pieces: tuple[str, ...] = ()
        self.present = np.zeros(0, dtype=np.int64)  # roster numbers of the pieces present, in the world's order
        self.pose_of = np.zeros((0, 7))  # each roster number's last pose
        self.frame = -1
        self.latest: tuple | None = None  # (frame, time, roster numbers, poses): replaced whole, for other threads
        self.time = 0.0
        self.state: dict = {}
        self.events: list[dict] = []
        self.said: list[dict] = []
        self.game: list[dict] = []
        self.errors: list[dict] = []
        self.answers: dict[int, dict] = {}
        self.pongs: dict[int, float] = {}  # ping id -> seconds it took
        self.server_load: dict | None = None  # the server's load, as its last pong said
        self.failed: JoinError | None = None
        self.connects = 0
        self.received = {"bytes": 0, "messages": 0}
        self.pose_times: deque[tuple[float, int]] = deque(maxlen=4096)  # (monotonic, frame) of each pose message
        self.latencies: list[float] = []  # seconds from sending an action to its answer
        self._ws: ClientConnection | None = None
        self._next = 1
        self._pings: dict[int, float] = {}
        self._bucket = Bucket(time.monotonic, 0.8 * RATE, 0.5 * BURST)
        self._pace_lock = asyncio.Lock()
        self._pending: dict[int, tuple[dict, asyncio.Future, float]] = {}
        self._reader: asyncio.Task | None = None
        self._closing = False
        self._changed = asyncio.Event()
        self._connected = asyncio.Event()

    # --- joining -----------------------------------------------------------------------------------

    async def join(self, timeout: float = 10.0) -> dict:
        """Connect, say hello and take in the welcome (the table's keyframe and state follow).

        Raises:
            JoinError: unreachable, or refused (the server's reason).
        """
        await self._open(timeout)
        self._reader = asyncio.create_task(self._read())
        return self.welcome

    async def _open(self, timeout: float) -> None:
        try:
            ws = await asyncio.wait_for(connect(self.link.url, max_size=MAX_SERVER_MESSAGE, compression=None,
                                                ping_interval=5.0, ping_timeout=5.0, open_timeout=timeout,
                                                user_agent_header=None), timeout)
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as e:
            raise JoinError(f"{self.link.address}: cannot reach the table ({_why(e)})") from None
        try:
            hello = {"type": "hello", "protocol": PROTOCOL, "client": self.name[:80]}
            if self.legal:
                hello["legal"] = True
            await ws.send(dumps(hello))
            raw = await asyncio.wait_for(ws.recv(), timeout)
            m = server_message(raw, None)
        except ConnectionClosed:
            raise JoinError(f"{self.link.address}: the table closed the connection") from None
        except TimeoutError:
            await ws.close()
            raise JoinError(f"{self.link.address}: no welcome within {timeout:g} s") from None
        except ProtocolError as e:
            await ws.close()
            raise JoinError(f"{self.link.address}: {e.message}", e.code) from None
        if m["type"] == "error":
            await ws.close()
            raise JoinError(f"{self.link.address}: the table refused: {m['message']}", m["code"])
        if m["type"] != "welcome":
            await ws.close()
            raise JoinError(f"{self.link.address}: expected a welcome, got a {m['type']}")
        again = self.welcome is not None and self.welcome["table"] == m["table"]
        if self.welcome is not None and not again:
            self._lost("the server started again from its autosave: this action was not done")
        self.welcome = m
        self.pieces = tuple(m["pieces"])
        if len(self.pose_of) != len(self.pieces):
            self.pose_of = np.zeros((len(self.pieces), 7))
            self.present = np.zeros(0, dtype=np.int64)
        self._ws = ws
        self.connects += 1
        for a in m.get("answers") or []:
            self._answer(a)
        self._next = max(self._next, m["next_seq"]) if again else m["next_seq"]
        sent = m["next_seq"] - 1
        while True:  # sent before the drop and never received (or asked for meanwhile): sent again, in order
            todo = [seq for seq in sorted(self._pending) if seq > sent]
            if not todo:
                break  # no wait between this look and the connection marked open: nothing is left unsent
            for seq in todo:
                await ws.send(dumps({"type": "act", "seq": seq, "action": self._pending[seq][0]}))
                sent = seq
        self._connected.set()
        self._changed.set()

    async def _read(self) -> None:
        delay = BACKOFF[0]
        taken_since = None
        while True:
            try:
                async for raw in self._ws:
                    self._take(raw)
            except ConnectionClosed:
                pass
            self._connected.clear()
            self._changed.set()
            if self._closing or not self.reconnect:
                self._lost("the connection to the table is closed")
                return
            if self.errors and self.errors[-1]["code"] in FINAL:
                self.failed = JoinError(f"{self.link.address}: {self.errors[-1]['message']}", self.errors[-1]["code"])
                self._lost(str(self.failed))
                return
            while not self._closing:
                await asyncio.sleep(delay)
                delay = min(delay * 2.0, BACKOFF[1])
                try:
                    await self._open(10.0)
                    delay, taken_since = BACKOFF[0], None
                    break
                except JoinError as e:
                    if e.code == "seat-taken":
                        taken_since = taken_since or time.monotonic()
                        if time.monotonic() - taken_since < TAKEN_SECONDS:
                            continue
                    if e.code in FINAL or e.code == "seat-taken":
                        self.failed = e
                        self._lost(str(e))
                        return
            if self._closing:
                return

    def _take(self, raw) -> None:
        size = len(raw)
        self.received["bytes"] += size
        self.received["messages"] += 1
        try:
            m = server_message(raw, len(self.pieces))
        except ProtocolError as e:
            self.errors.append({"code": "malformed", "message": f"from the server: {e.message}"})
            return
        kind = m["type"]
        if kind == "keyframe":
            self.present = m["ids"]
            self.pose_of[m["ids"]] = m["poses"]
            self._moved(m)
        elif kind == "poses":
            if m["frame"] <= self.frame:
                return  # an old frame: nothing to learn
            self.pose_of[m["ids"]] = m["poses"]
            self._moved(m)
        elif kind == "state":
            self.state = {k: v for k, v in m.items() if k != "type"}
        elif kind == "events":
            self.events += m.get("events") or []
            self.said += m.get("said") or []
            self.game += m.get("game") or []
        elif kind == "answer":
            self._answer(m)
        elif kind == "pong" and m.get("id") in self._pings:
            self.pongs[m["id"]] = time.monotonic() - self._pings.pop(m["id"])
            self.server_load = m.get("load") if isinstance(m.get("load"), dict) else None
        elif kind == "error":
            self.errors.append(m)
            seq = m.get("seq")
            if isinstance(seq, int) and seq in self._pending and m["code"] in ("spectator", "malformed"):
                self._resolve(seq, {"type": "answer", "seq": seq, "ok": False, "rule": m["code"],
                                    "reason": m["message"], "frame": self.frame})
        if self.on_message is not None:
            self.on_message(self, m)
        self._changed.set()

    def _moved(self, m: dict) -> None:
        self.frame, self.time = m["frame"], m["time"]
        self.latest = (self.frame, self.time, self.present.copy(), self.pose_of[self.present].copy())
        self.pose_times.append((time.monotonic(), m["frame"]))

    def _answer(self, m: dict) -> None:
        self.answers[m["seq"]] = m
        self._resolve(m["seq"], m)

    def _resolve(self, seq: int, m: dict) -> None:
        pending = self._pending.pop(seq, None)
        if pending is not None and not pending[1].done():
            self.latencies.append(time.monotonic() - pending[2])
            pending[1].set_result(m)

    def _lost(self, why: str) -> None:
        for seq in sorted(self._pending):
            self._resolve(seq, {"type": "answer", "seq": seq, "ok": False, "rule": "lost", "reason": why,
                                "frame": self.frame})

    # --- acting ------------------------------------------------------------------------------------

    async def act(self, action: dict, timeout: float = 30.0) -> dict:
        """Send one action for the seat and wait for its answer (``{"ok": true}`` or the rule and the reason).

        Raises:
            TimeoutError: no answer within ``timeout`` (the connection may be coming back).
        """
        future = self.send(action)
        return await asyncio.wait_for(future, timeout)

    def send(self, action: dict) -> asyncio.Future:
        """Send one action without waiting: the future of its answer."""
        seq = self._next
        self._next += 1
        future = asyncio.get_running_loop().create_future()
        self._pending[seq] = (action, future, time.monotonic())
        if self._connected.is_set():
            asyncio.ensure_future(self._paced({"type": "act", "seq": seq, "action": action}))
        return future

    async def _paced(self, message: dict) -> None:
        """An action sent within the server's rate (an honest client is never refused for it), in the order asked."""
        async with self._pace_lock:
            while not self._bucket.take():
                await asyncio.sleep(1.0 / self._bucket.rate)
            await self._send(message)

    async def raw(self, text) -> None:
        """Send anything (tests of a hostile client)."""
        await self._ws.send(text)

    async def ping(self, timeout: float = 10.0) -> float:
        """The round trip to the server and back (s): the connection is open and the server answers.

        Raises:
            TimeoutError: no pong within ``timeout``.
        """
        k = len(self._pings) + len(self.pongs) + 1
        self._pings[k] = time.monotonic()
        await self._send({"type": "ping", "id": k})
        await self.wait_for(lambda c: k in c.pongs, timeout)
        return self.pongs[k]

    async def sync(self) -> None:
        """Ask for the whole table again (a keyframe and the state)."""
        await self._send({"type": "sync"})

    async def _send(self, message: dict) -> None:
        with contextlib.suppress(ConnectionClosed):  # an action is sent again once the connection is back
            await self._ws.send(dumps(message))

    # --- reading -----------------------------------------------------------------------------------

    def poses(self) -> dict[str, np.ndarray]:
        """Piece id -> its pose (7,) as the server last sent it."""
        return {self.pieces[n]: self.pose_of[n].copy() for n in self.present.tolist()}

    def pose_array(self) -> tuple[list[str], np.ndarray]:
        """The pieces present in the world's order and their (n, 7) poses."""
        return [self.pieces[n] for n in self.present.tolist()], self.pose_of[self.present].copy()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    async def wait_for(self, predicate: Callable[[Client], bool], timeout: float = 10.0) -> None:
        """Wait until ``predicate(self)`` holds, looked at after every message.

        Raises:
            TimeoutError: it did not within ``timeout`` seconds.
        """
        async with asyncio.timeout(timeout):
            while not predicate(self):
                self._changed.clear()
                await self._changed.wait()

    async def wait_connected(self, timeout: float = 30.0) -> None:
        async with asyncio.timeout(timeout):
            await self._connected.wait()

    async def drop(self) -> None:
        """Drop the connection as a network would (the client connects again if it reconnects)."""
        if self._ws is not None:
            self._ws.transport.abort()

    async def close(self) -> None:
        """Leave the table."""
        self._closing = True
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            try:
                await asyncio.wait_for(self._reader, 5.0)
            except (TimeoutError, asyncio.CancelledError):
                self._reader.cancel()

    async def __aenter__(self) -> Client:
        await self.join()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()


def _why(e: BaseException) -> str:
    if isinstance(e, ConnectionRefusedError):
        return "connection refused: is the server running, at this port?"
    if isinstance(e, TimeoutError):
        return "no answer in time"
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return f"{type(e).__name__}: {e}"[:200]


__all__ = ["BACKOFF", "Client", "JoinError"]
