"""Bad input on the command line of a networked table: a bad link, no server, a wrong secret, a seat taken, a server
of another protocol version, a port in use: one line and exit 2 each; and a seat's action file played through a
real server."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from net_table import free_port, joined, run, served
from websockets.asyncio.server import serve

from sim.net.links import Link
from sim.net.table import Setup

ROOT = Path(__file__).resolve().parent.parent
TOHU = Setup("tohuwabohu", "basic", ("red", "blue"), 3, 600.0)


def towerlab(*args, cwd=None, timeout=120):
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    return subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, env={**env, "PYTHONPATH": str(ROOT)})


def one_line(r, *fragments):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("towerlab: error: "), r.stderr
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("url, fragment", [
    ("http://127.0.0.1:8765/seat/red?token=abc", "ws://"),
    ("ws://127.0.0.1/seat/red?token=abc", "a port"),
    ("ws://127.0.0.1:8765/red", "/seat/NAME or /watch"),
    ("ws://127.0.0.1:99999/seat/red?token=abc", "Port out of range"),
    ("ws://127.0.0.1:8765/watch?token=abc", "the spectators' link"),
])
def test_a_link_that_is_not_one_is_one_line(url, fragment):
    one_line(towerlab("play", "--join", url), "--join", fragment)


def test_no_server_a_wrong_secret_and_a_taken_seat_are_one_line_each():
    port = free_port()
    one_line(towerlab("play", "--join", f"ws://127.0.0.1:{port}/seat/red?token=abc"), "cannot reach the table",
             "connection refused")
    with served(TOHU) as server:
        links = server.links()
        wrong = Link(links["red"].host, links["red"].port, "red", links["blue"].token).url
        one_line(towerlab("play", "--join", wrong), "the table refused", "secret is not this table's")

        async def taken():
            red, = await joined(server, "red")
            r = await asyncio.to_thread(towerlab, "play", "--join", links["red"].url)
            await red.close()
            return r
        one_line(run(taken()), "the seat red is taken")


def test_an_expired_link_of_a_table_served_again_with_new_secrets_is_one_line():
    """A table served again on its port without its seats file has new secrets: the old link is refused, in one
    line that says it may be an old link."""
    port = free_port()
    with served(TOHU, port=port) as server:
        old = server.links()["red"].url
    with served(TOHU, port=port) as server:
        assert server.links()["red"].url != old
        line = one_line(towerlab("play", "--join", old), "the table refused", "secret is not this table's")
    assert "an old link" in line


def test_a_server_of_another_protocol_version_is_one_line():
    port = free_port()
    started, stop = threading.Event(), None

    async def old_server():
        nonlocal stop
        stop = asyncio.get_running_loop().create_future()

        async def handler(ws):
            await ws.recv()
            await ws.send(json.dumps({"type": "welcome", "protocol": "towerlab-net/0"}))
            await ws.wait_closed()
        async with serve(handler, "127.0.0.1", port):
            started.set()
            await stop
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(old_server(),), daemon=True)
    thread.start()
    started.wait(10)
    try:
        one_line(towerlab("play", "--join", f"ws://127.0.0.1:{port}/seat/red?token=abc"),
                 "the server speaks \"towerlab-net/0\", this client towerlab-net/1")
    finally:
        loop.call_soon_threadsafe(stop.set_result, None)
        thread.join(10)


def test_a_server_refuses_a_client_of_another_protocol_version():
    from websockets.asyncio.client import connect

    with served(TOHU) as server:
        async def old_client():
            async with connect(server.links()["red"].url) as ws:
                await ws.send(json.dumps({"type": "hello", "protocol": "towerlab-net/0"}))
                m = json.loads(await ws.recv())
                await ws.wait_closed()
                return m, ws.close_code
        m, code = run(old_client())
    assert m["code"] == "version" and "towerlab-net/1" in m["message"] and code == 4001


def test_a_port_in_use_is_one_line(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        one_line(towerlab("serve", "tohuwabohu", "--port", str(port), "--no-record", cwd=tmp_path),
                 f"--port {port}", "in use")


def test_a_seat_plays_an_action_file_through_the_server(tmp_path):
    moves = tmp_path / "moves.json"
    with served(TOHU) as server:
        piece = server.runner.call(lambda t: t.session.candidates(t.referee.table)[0]).result(30)
        moves.write_text(json.dumps([{"action": "pick", "piece": piece}, {"action": "move-to", "at": [5, 5]},
                                     {"action": "drop"}, {"action": "wait", "seconds": 0.5},
                                     {"action": "throw"}]))
        links = server.links()
        bad = tmp_path / "bad.json"
        bad.write_text('[{"action": "pick", "piece": "figure-red-1", "colour": "red"}]')
        one_line(towerlab("play", "--join", links["red"].url, "--actions", str(bad)), "bad.json:1: actions[0].colour")

        async def both():
            blue, = await joined(server, "blue")
            r = await asyncio.to_thread(towerlab, "play", "--join", links["red"].url, "--actions", str(moves))
            await blue.close()
            return r
        r = run(both())
    assert r.returncode == 2  # "throw" is Talo's: this game's action file cannot hold it
    assert "actions[4].action: unknown action \"throw\"" in r.stderr
    moves.write_text(moves.read_text().replace(', {"action": "throw"}', ""))
    with served(TOHU) as server:
        r = towerlab("play", "--join", server.links()["red"].url, "--actions", str(moves))
        watched = towerlab("play", "--watch", server.links()[None].url)
    assert watched.returncode == 0 and watched.stdout.startswith("watched at ws://127.0.0.1:"), watched.stderr
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("the game goes on") and "red's seat at ws://127.0.0.1" in r.stdout
    assert "3 action(s) sent, 0 refused" in r.stdout
