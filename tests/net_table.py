"""Helpers of the networked table's tests: a real server on loopback (a free port) and real clients."""

from __future__ import annotations

import asyncio
import contextlib
import socket

from sim.net.background import Background
from sim.net.client import Client
from sim.net.links import new_token
from sim.net.server import Server
from sim.net.table import ServedTable, Setup


@contextlib.contextmanager
def served(setup: Setup, *, record=None, autosave=None, port: int = 0, **table_args):
    """A table of ``setup`` served on loopback at ``port`` (0: a free one), on a thread of its own, with secrets
    of its own: the :class:`Server`."""
    table = ServedTable(setup, record=record, **table_args)
    server = Server(table, {p: new_token() for p in table.players}, new_token(), port=port, autosave=autosave)
    try:
        with Background(server) as s:
            yield s
    finally:
        table.close()


def run(coro, timeout: float = 120.0):
    """Run a test's scenario on a loop of its own, bounded in time."""
    async def bounded():
        async with asyncio.timeout(timeout):
            return await coro
    return asyncio.run(bounded())


async def joined(server: Server, *seats, watchers: int = 0):
    """Clients of ``seats`` (and ``watchers`` spectators) joined and sent the table: the clients in that order."""
    links = server.links()
    clients = [Client(links[s]) for s in seats] + [Client(links[None]) for _ in range(watchers)]
    for c in clients:
        await c.join()
    for c in clients:
        await c.wait_for(lambda c: c.frame >= 0 and bool(c.state))
    return clients


async def on_table(server: Server, fn, *args):
    """``fn(table, *args)`` on the table's thread (the test reads the authoritative game there)."""
    return await asyncio.wrap_future(server.runner.call(fn, *args))


async def hold_the_server_s_poses(server: Server, clients, timeout: float = 10.0) -> None:
    """Wait until every client holds the table's poses now, bit for bit."""
    truth = await on_table(server, lambda t: (list(t.controller.world.ids), t.controller.world.poses()))
    for c in clients:
        await c.wait_for(lambda c: c.pose_array()[0] == truth[0] and
                         c.pose_array()[1].tobytes() == truth[1].tobytes(), timeout)


async def quiet(server: Server, timeout: float = 20.0) -> None:
    """Wait until nothing moves on the table and no hand is lowering a piece."""
    async with asyncio.timeout(timeout):
        while not await on_table(server, lambda t: t.controller.quiet() and not t.controller.hands):
            await asyncio.sleep(0.05)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def recorded(r) -> tuple:
    """Everything a recording holds that a game makes: every frame's time, pieces and poses (as bits), every
    action and event."""
    frames = tuple((float(t), tuple(r.frame(g)[0]), r.frame(g)[1].tobytes()) for g, t in enumerate(r.times))
    return frames, r.actions, r.events
