"""End to end, in a real window: ``towerlab play --join LINK`` under Xvfb on a table served on loopback, beside
headless players (sim.net.client).

Babylon's fast game for red, blue and green: red's window plays its script (a tower picked, carried into red's
area and set down) through the server; blue, headless, then sets one of its towers down; the window shows the
server's poses exactly (its probe); red's End key in the window (done) reaches the server's log; the window
closes with Ctrl+Q."""

from __future__ import annotations

import asyncio
import json
import shutil

import numpy as np
import pytest
from desktop import Desktop, launch, pixel
from net_table import free_port, joined, on_table, quiet, run, served

from sim.net.links import Link
from sim.net.table import Setup

SIZE = (900, 600)
MISSING = [tool for tool in ("Xvfb", "xdotool") if shutil.which(tool) is None]

pytestmark = [pytest.mark.skipif(bool(MISSING), reason=f"needs {' and '.join(MISSING)} (make test installs them)"),
              pytest.mark.window]

FAST = Setup("babylon", "fast", ("red", "blue", "green"), 0)


async def _red_s_window(display, tmp_path, server, moves):
    """Blue and green joined headless, then red's seat taken by a window that plays ``moves``."""
    blue, green = await joined(server, "blue", "green")
    proc = launch(display, tmp_path, "play", "--join", server.links()["red"].url, "--actions", str(moves),
                  "--size", f"{SIZE[0]}x{SIZE[1]}")
    return blue, green, await asyncio.to_thread(Desktop, display, tmp_path, proc, "towerlab play", SIZE, 0.0, 120.0)


def _game(state: dict) -> dict:
    return next(g for g in state["game"] if "seat" in g)


def test_a_window_plays_a_seat_of_a_served_table_beside_a_headless_player(display, tmp_path):
    moves = tmp_path / "moves.json"
    moves.write_text(json.dumps([{"action": "pick", "piece": "red-tower-1"},
                                 {"action": "move-to", "at": [-200, -200]}, {"action": "drop"},
                                 {"action": "wait", "seconds": 1.0}]))
    with served(FAST) as server:
        async def scenario():
            blue, green, window = await _red_s_window(display, tmp_path, server, moves)
            state = await asyncio.to_thread(
                window.wait, lambda s: not s["scripted"] and _game(s)["answered"] == _game(s)["sent"] >= 3
                and not _game(s)["server_hands"], 120.0, "red's script answered")
            assert _game(state)["refused"] == [] and _game(state)["seat"] == "red"
            for a in ({"action": "pick", "piece": "blue-tower-1"}, {"action": "move-to", "at": [-200, 200]},
                      {"action": "drop"}):
                assert (await blue.act(a))["ok"], a
            await quiet(server)
            ids, poses = await on_table(server, lambda t: (list(t.controller.world.ids), t.controller.world.poses()))
            for piece, sign in (("red-tower-1", -1.0), ("blue-tower-1", 1.0)):  # each in its seat's area
                x, y = poses[ids.index(piece)][:2]
                assert -0.45 < x < 0.0 and 0.0 < sign * y < 0.45, (piece, x, y)

            def shows_the_server(s) -> bool:
                return s["ids"] == ids and np.array_equal(np.asarray(s["poses"]), poses)
            await asyncio.to_thread(window.wait, shows_the_server, 60.0, "the server's poses in the window")
            sent = _game(window.state())["sent"]
            await asyncio.to_thread(window.keys, "End")  # red is done building: a game key, sent
            await asyncio.to_thread(window.wait, lambda s: _game(s)["answered"] == sent + 1, 30.0, "End answered")
            log = await on_table(server, lambda t: [e["action"] for e in t.log if e.get("seat") == "red"])
            assert {"action": "done", "player": "red"} in log
            assert [a["action"] for a in log if a["action"] in ("pick", "drop")] == ["pick", "drop"]
            assert log[-3] == {"action": "move-to", "at": [-200.0, -200.0], "free": False,
                               "hand": "red"}  # the script's, as sent: the window names its seat's own hand
            assert await asyncio.to_thread(window.quit) == 0
            for c in (blue, green):
                await c.close()
        run(scenario(), timeout=300)


TOHU = Setup("tohuwabohu", "basic", ("red", "blue"), 3, 600.0)


def _panel(state: dict) -> str:
    return "\n".join(t["text"] for t in state["texts"])


def test_a_window_says_when_its_table_is_gone_and_when_its_link_no_longer_opens_it(display, tmp_path):
    """The server stops: the window says the connection is lost and that it is coming back; a server started again
    on that port without the seats' secrets (an expired link): the window says why it cannot come back, and stays
    open until its player closes it."""
    port = free_port()
    with served(TOHU, port=port) as server:
        link = server.links()["red"]

        async def seated():
            blue, = await joined(server, "blue")
            proc = launch(display, tmp_path, "play", "--join", link.url, "--size", f"{SIZE[0]}x{SIZE[1]}")
            window = await asyncio.to_thread(Desktop, display, tmp_path, proc, "towerlab play", SIZE, 0.0, 120.0)
            await asyncio.to_thread(window.wait, lambda s: "red's seat at ws://127.0.0.1" in _panel(s)
                                    and _game(s)["connected"], 120.0, "red's window at the table")
            await blue.close()
            return window
        window = run(seated(), timeout=200)
    state = window.wait(lambda s: "connection lost: coming back" in _panel(s), 60.0, "the lost connection said")
    assert not _game(state)["connected"]
    with served(TOHU, port=port):  # the same port, new secrets: red's link is an old one
        state = window.wait(lambda s: "cannot be joined again" in _panel(s), 60.0, "the expired link said")
        assert "the link's secret is not this table's" in _panel(state)
        assert window.proc.poll() is None
    assert window.quit() == 0


def test_with_a_display_a_refused_join_is_one_line_before_any_window_opens(display, tmp_path):
    with served(TOHU) as server:
        links = server.links()
        wrong = Link(links["red"].host, links["red"].port, "red", links["blue"].token).url
        proc = launch(display, tmp_path, "play", "--join", wrong)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("towerlab: error: ") and "secret is not this table's" in lines[0]
    assert not (tmp_path / "probe.json").exists()  # no window was opened


def test_a_seat_s_window_rings_where_its_carried_piece_may_go_as_the_server_says(display, tmp_path):
    from test_play_window_legal import cyan

    from sim.viewer.play.legal import ring, ring_radius

    moves = tmp_path / "moves.json"
    moves.write_text(json.dumps([{"action": "pick", "piece": "red-tower-2"},
                                 {"action": "move-to", "at": [-200, -200]}]))  # carried over red's area
    with served(FAST) as server:
        async def scenario():
            blue, green, window = await _red_s_window(display, tmp_path, server, moves)

            def ringed(s):
                legal = next((g["legal"] for g in s["game"] if "legal" in g), {})
                return not s["scripted"] and not s["busy"] and bool(legal.get("right", {}).get("places"))
            state = await asyncio.to_thread(window.steady, None, ringed, 120.0)
            legal = next(g["legal"] for g in state["game"] if "legal" in g)["right"]
            served_places = await on_table(server, lambda t: t.legal()["red"]["places"])
            assert legal["piece"] == "red-tower-2" and legal["places"] == served_places
            shot = await asyncio.to_thread(window.picture, tmp_path / "carried.png")
            mask = cyan(shot)
            ys, xs = np.nonzero(mask)
            r = ring_radius(server.table.referee.table.setup_piece("red-tower-2"))
            rings = [np.array([pixel(state, p) for p in ring(point, r)]) for point in legal["places"]]
            found = sum(np.mean([np.any((np.abs(xs - x) <= 2) & (np.abs(ys - y) <= 2)) for x, y in px]) >= 0.25
                        for px in rings)
            assert found >= 0.6 * len(rings), f"{found} of {len(rings)} rings seen"
            await asyncio.to_thread(window.keys, "Escape")  # put back, at the server too: the rings go
            after = await asyncio.to_thread(
                window.wait, lambda s: not s["hands"] and not _game(s)["server_hands"], 60.0, "the carry put back")
            assert next(g["legal"] for g in after["game"] if "legal" in g) == {}
            assert await asyncio.to_thread(window.quit) == 0
            for c in (blue, green):
                await c.close()
        run(scenario(), timeout=300)


def test_talo_s_pawn_keys_in_a_seat_s_window_point_at_the_table_and_reach_the_server(display, tmp_path):
    """Red's window at a served Talo table: M over a start field starts red's pawn there (the field under the
    cursor, as the play window finds it), and after its throw V asks the server where the pawn can go (the window
    draws the routes of the server's view with the play window's drawing)."""

    moves = tmp_path / "moves.json"
    moves.write_text(json.dumps([{"action": "wait", "seconds": 0.2}]))
    with served(Setup("talo", "green", ("red", "blue"), 4)) as server:
        async def scenario():
            (blue,) = await joined(server, "blue")
            proc = launch(display, tmp_path, "play", "--join", server.links()["red"].url, "--actions", str(moves),
                          "--size", f"{SIZE[0]}x{SIZE[1]}")
            window = await asyncio.to_thread(Desktop, display, tmp_path, proc, "towerlab play", SIZE, 0.0, 120.0)
            state = await asyncio.to_thread(window.wait, lambda s: not s["scripted"], 120.0, "the script done")
            board = await on_table(server, lambda t: (t.session.board.grid, sorted(t.session.board.starts)))
            grid, starts = board
            i, j = starts[0]
            field = (grid.origin[0] + (i + 0.5) * grid.cell, grid.origin[1] + (j + 0.5) * grid.cell, 0.0)
            x, y = pixel(state, field)
            await asyncio.to_thread(window.point, x, y)
            sent = _game(window.state())["sent"]
            await asyncio.to_thread(window.keys, "m")
            await asyncio.to_thread(window.wait, lambda s: _game(s)["answered"] == sent + 1, 30.0, "M answered")
            log = await on_table(server, lambda t: [e["action"] for e in t.log if e.get("seat") == "red"])
            assert log[-1] == {"action": "start", "cell": [i, j]}, log[-1]
            answer = await blue.act({"action": "start", "cell": list(starts[-1])})
            assert answer["ok"], answer
            assert (await blue.act({"action": "throw"}))["ok"] is False  # red's turn: red throws first
            await asyncio.to_thread(window.keys, "x")  # red throws (a game key), then asks where its pawn goes
            await asyncio.to_thread(window.wait, lambda s: _game(s)["answered"] == sent + 2, 30.0, "X answered")
            await asyncio.to_thread(window.keys, "v")
            await asyncio.to_thread(window.wait, lambda s: _game(s)["answered"] == sent + 3, 30.0, "V answered")
            log = await on_table(server, lambda t: [e["action"] for e in t.log if e.get("seat") == "red"])
            assert log[-2:] == [{"action": "throw"}, {"action": "select-pawn", "player": "red"}]
            view = await on_table(server, lambda t: t.session.view())
            assert view["selected"]["pawn"] == "red"  # (its routes: none yet on a board with no block built)
            assert await asyncio.to_thread(window.quit) == 0
            await blue.close()
        run(scenario(), timeout=300)
