"""Faults of a networked table: a client dropping mid-carry, a seat waited for (then the game paused or going on),
a rejoin with the same link, and the server killed and served again from its autosave."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from net_table import free_port, joined, on_table, quiet, run, served

from sim.net.client import Client
from sim.net.table import Setup

TOHU = Setup("tohuwabohu", "basic", ("red", "blue"), 3, 600.0)
ROOT = Path(__file__).resolve().parent.parent


def _pose(t, piece):
    return t.controller.world.pose(piece)


def test_a_client_that_drops_mid_carry_has_its_piece_put_back_and_its_seat_waits_until_it_is_back():
    with served(TOHU) as server:
        async def scenario():
            red, blue = await joined(server, "red", "blue")
            piece = await on_table(server, lambda t: t.session.candidates(t.referee.table)[0])
            start = await on_table(server, _pose, piece)
            assert (await red.act({"action": "pick", "piece": piece}))["ok"]
            await red.act({"action": "move-to", "at": [0.0, 0.0]})
            await blue.wait_for(lambda c: "right" in c.state["hands"])
            await red.drop()  # the network goes: the server notices the closed connection
            await blue.wait_for(lambda c: c.state["stands"] == "waiting for red" and not c.state["hands"])
            await quiet(server)
            back = await on_table(server, _pose, piece)
            assert np.linalg.norm(back[:3] - start[:3]) < 1e-3  # where it was picked up
            await red.wait_connected()  # by itself, with the same link
            await blue.wait_for(lambda c: c.state["stands"] is None and c.state["seats"]["red"]["present"])
            assert red.connects == 2
            again = await red.act({"action": "pick", "piece": piece})
            assert again["ok"] and again["seq"] == 3  # the seat's numbering goes on
            for c in (red, blue):
                await c.close()
        run(scenario())


def test_rejoining_with_the_same_link_resumes_the_seat_with_the_game_as_it_is_now():
    with served(TOHU) as server:
        async def scenario():
            red, blue = await joined(server, "red", "blue")
            await red.act({"action": "swap"})
            await red.close()
            await blue.act({"action": "swap"})  # not blue's turn: refused, while red is away
            back = Client(server.links()["red"])
            welcome = await back.join()
            assert welcome["next_seq"] == 2 and [a["seq"] for a in welcome["answers"]] == [1]
            await back.wait_for(lambda c: bool(c.state) and c.frame >= 0)
            truth = await on_table(server, lambda t: (t.state()["current"], len(t.session.journal)))
            assert back.state["current"] == truth[0] == "red"
            for c in (back, blue):
                await c.close()
        run(scenario())


def test_an_absent_seat_is_waited_for_then_the_game_goes_on_or_pauses_by_the_table_s_setting():
    timed = Setup("tohuwabohu", "basic", ("red", "blue"), 3, 3.0)
    for absent in ("go-on", "pause"):
        with served(timed, absent=absent, seat_timeout=1.0) as server:
            async def scenario(absent=absent):
                red, blue = await joined(server, "red", "blue")
                await blue.wait_for(lambda c: c.state["current"] == "red" and c.state["stands"] is None)
                await red.close()
                await blue.wait_for(lambda c: c.state["stands"] == "waiting for red")
                if absent == "go-on":  # after the timeout red's clock runs out and the turn passes
                    await blue.wait_for(lambda c: c.state["current"] == "blue", timeout=15.0)
                else:  # the table pauses: nothing may change over a span longer than the timeout
                    await asyncio.sleep(2.5)
                    assert blue.state["stands"] == "waiting for red" and blue.state["current"] == "red"
                await blue.close()
            run(scenario())


async def rested_and_saved(client: Client, autosave: Path, timeout: float = 60.0) -> None:
    """Wait until the poses ``client`` sees have stood still for half a second and the autosave was written
    since they came to rest (the server in a process of its own: what its clients and files show)."""
    last, since = None, time.time()
    async with asyncio.timeout(timeout):
        while True:
            _, poses = client.pose_array()
            now = time.time()
            if last is None or not np.array_equal(poses, last):
                last, since = poses, now
            elif now - since >= 0.5 and autosave.exists() and autosave.stat().st_mtime > since:
                return
            await asyncio.sleep(0.05)  # (a polling pause)


def _serve(*args, cwd):
    """``towerlab serve`` in a process of its own: the process and its links (seat -> link)."""
    p = subprocess.Popen([sys.executable, "-m", "sim", "serve", *args], cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    links = {}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = p.stdout.readline()
        if not line:
            raise AssertionError(f"serve ended: {p.stderr.read()}")
        m = re.match(r"\s+(\w+):\s+towerlab play --(join|watch) '(\S+)'", line)
        if m:
            links[None if m[2] == "watch" else m[1]] = m[3]
        if m and m[2] == "watch":
            return p, links
    raise AssertionError("serve printed no links")


def test_a_server_killed_and_served_again_from_its_autosave_brings_the_game_back_and_the_clients_by_themselves(
        tmp_path):
    port = free_port()
    autosave = tmp_path / "table.json"
    common = ("--autosave-seconds", "0.5", "--no-record")
    first, links = _serve("tohuwabohu", "--players", "red,blue", "--turn-seconds", "600", "--port", str(port),
                          "--autosave", str(autosave), *common, cwd=tmp_path)
    second = None
    try:
        async def scenario():
            nonlocal second
            red, blue = Client(links["red"]), Client(links["blue"])
            for c in (red, blue):
                await c.join()
            await red.wait_for(lambda c: c.state.get("stands") is None and c.state.get("current") == "red")
            piece = next(p for p in red.pieces if p.startswith("figure-"))
            for a in ({"action": "pick", "piece": piece}, {"action": "move-to", "at": [10.0, 5.0]},
                      {"action": "drop"}):
                assert (await red.act(a))["ok"], a
            await red.wait_for(lambda c: [e["kind"] for e in c.events][-1:] == ["dropped"])
            await rested_and_saved(red, autosave)
            before = red.pose_array()
            first.send_signal(signal.SIGKILL)
            first.wait(30)
            await red.wait_for(lambda c: not c.connected, timeout=30)
            second, _ = await asyncio.to_thread(_serve, "--resume", str(autosave), *common, cwd=tmp_path)
            for c in (red, blue):  # they come back by themselves, with the links they had
                await c.wait_connected(60)
            await red.wait_for(lambda c: c.connects == 2 and c.welcome["next_seq"] == 1)
            # the game as the autosave holds it: the pieces at rest where they were (a piece resting on others
            # still moves by a bit or two of its pose now and then, before the kill as after it)
            await red.wait_for(lambda c: c.pose_array()[0] == before[0] and
                               np.abs(c.pose_array()[1] - before[1]).max() < 1e-9, timeout=30)
            assert red.state["current"] == "red"
            assert (await red.act({"action": "swap"}))["seq"] == 1  # a new server: numbered afresh
            for c in (red, blue):
                await c.close()
        run(scenario(), timeout=240)
    finally:
        for p in (first, second):
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGINT)
                try:
                    p.wait(30)
                except subprocess.TimeoutExpired:
                    p.kill()
    assert second is not None and second.returncode == 130
    assert "saved in" in second.stdout.read()


def test_a_seat_that_leaves_as_its_piece_is_being_set_down_lets_it_land_and_one_mid_carry_has_it_put_back():
    from sim.net.table import ServedTable

    t = ServedTable(TOHU)
    try:
        for p in t.players:
            t.joined(p)
        pieces = t.session.candidates(t.referee.table)[:2]
        for piece, drop in zip(pieces, (True, False)):
            start = _pose(t, piece)
            for a in ({"action": "pick", "piece": piece}, {"action": "move-to", "at": [10.0, 0.0]}):
                assert t.submit("red", a)["ok"]
            for _ in range(30):
                t.step()
            if drop:
                assert t.submit("red", {"action": "drop"})["ok"]
            t.left("red")
            for _ in range(120):
                t.step()
            moved = np.linalg.norm(_pose(t, piece)[:2] - start[:2])
            assert (moved > 0.05) if drop else (moved < 1e-3), (piece, drop, moved)
            t.joined("red")
        assert [e["control"] for e in t.log if e.get("control") == "put-back"] == ["put-back"]
    finally:
        t.close()


def test_a_server_thread_that_does_not_stop_is_reported_with_its_stack_not_waited_for_in_silence():
    import warnings

    from sim.net.background import Background

    class Stuck:  # a server whose serve() ignores the stop it is asked for
        async def serve(self, ready):
            ready(self)
            await asyncio.sleep(1.5)

        def stop_soon(self):
            pass

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        t0 = time.monotonic()
        with Background(Stuck(), timeout=0.3):
            pass
    assert time.monotonic() - t0 < 1.2
    assert len(seen) == 1 and "did not stop within 0.3 s" in str(seen[0].message)
    assert "in serve" in str(seen[0].message)  # the stuck thread's stack, down to the coroutine that holds it
