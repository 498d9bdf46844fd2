"""Two seats carrying at once where everyone builds at once: each seat's hands its own on the served table, each pick
and drop judged for its own player, a seat that leaves putting back its own piece only, the carries planned
together, and the log played again bit for bit."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest
from net_table import joined, on_table, quiet, recorded, run, served

from sim.errors import TowerlabError
from sim.net.table import ServedTable, Setup, replay
from sim.viewer.control.hands import SET_DOWN_TIME, ride

FAST = Setup("babylon", "fast", ("red", "blue", "green"), 0)
SW, SE, NORTH = [-150.0, -80.0], [150.0, -80.0], [0.0, 150.0]  # (mm) red and blue's area, green and red's,
# blue and green's


def _placed(c) -> list[tuple[str, str]]:
    return [(e["data"]["player"], e["data"]["pieces"][0]) for e in c.game if e["kind"] == "placed"]


def _refused(c) -> list[dict]:
    return [e["data"] for e in c.game if e["kind"] == "refused"]


def test_two_seats_pick_carry_and_drop_at_once_each_judged_for_its_own_player_and_the_log_replays(tmp_path):
    with served(FAST, record=tmp_path / "net.tlrec") as server:
        async def scenario():
            red, blue, green = await joined(server, "red", "blue", "green")
            both = await asyncio.gather(red.act({"action": "pick", "piece": "red-tower-1"}),
                                        blue.act({"action": "pick", "piece": "blue-tower-1"}))
            assert all(a["ok"] for a in both), both
            await green.wait_for(lambda c: set(c.state["hands"]) == {"red", "blue"})
            assert {h: v["player"] for h, v in green.state["hands"].items()} == {"red": "red", "blue": "blue"}
            assert [(e["cause"]["player"], e["pieces"]) for e in green.events if e["kind"] == "picked"] in (
                [("red", ["red-tower-1"]), ("blue", ["blue-tower-1"])],
                [("blue", ["blue-tower-1"]), ("red", ["red-tower-1"])])
            # another seat's hand is not a seat's to use; a hand that holds nothing has nothing to drop
            assert (await red.act({"action": "drop", "hand": "blue"}))["rule"] == "not-yours"
            assert (await green.act({"action": "drop"}))["rule"] == "not-carrying"
            await asyncio.gather(red.act({"action": "move-to", "at": SE}), blue.act({"action": "move-to", "at": NORTH}))
            drops = await asyncio.gather(red.act({"action": "drop"}), blue.act({"action": "drop", "hand": "blue"}))
            assert all(a["ok"] for a in drops), drops
            await quiet(server)
            await green.wait_for(lambda c: len(_placed(c)) == 2)
            assert sorted(_placed(green)) == [("blue", "blue-tower-1"), ("red", "red-tower-1")]
            # blue's piece set down in red and green's area while red carries: refused for blue, with the rule
            await asyncio.gather(red.act({"action": "pick", "piece": "red-tower-2"}),
                                 blue.act({"action": "pick", "piece": "blue-tower-2"}))
            await asyncio.gather(red.act({"action": "move-to", "at": SW}), blue.act({"action": "move-to", "at": SE}))
            assert (await blue.act({"action": "drop"}))["ok"]  # answered as the hand lowers it; judged as it lands
            await green.wait_for(lambda c: _refused(c) and set(c.state["hands"]) == {"red"})
            assert _refused(green)[-1]["player"] == "blue" and _refused(green)[-1]["rule"] == "area"
            assert "blue's construction areas" in _refused(green)[-1]["reason"]
            assert (await red.act({"action": "drop"}))["ok"]  # red's carry went on all the while
            await green.wait_for(lambda c: len(_placed(c)) == 3)
            assert _placed(green)[-1] == ("red", "red-tower-2")
            await quiet(server)
            seated = await on_table(server, lambda t: [e for e in t.log if e.get("action", {}).get("action") == "seat"])
            assert seated == []  # nobody was seated: each hand was its own seat's
            for c in (red, blue, green):
                await c.close()
        run(scenario())
    frames, log = server.table.frame_no, server.table.log
    assert [e["action"].get("hand") for e in log if "action" in e and e["action"]["action"] == "pick"] == [
        e["seat"] for e in log if "action" in e and e["action"]["action"] == "pick"]  # every hand named, its seat's
    again = replay(FAST, log, frames, record=tmp_path / "again.tlrec")
    from sim.replay import load_recording

    a, b = load_recording(tmp_path / "net.tlrec"), load_recording(tmp_path / "again.tlrec")
    assert a.complete and b.complete and recorded(a) == recorded(b)
    assert again.session.to_json() == server.table.session.to_json()


def test_a_seat_that_drops_mid_carry_puts_back_its_own_piece_only():
    with served(FAST) as server:
        async def scenario():
            red, blue, green = await joined(server, "red", "blue", "green")
            start = await on_table(server, lambda t: t.controller.world.pose("red-tower-1"))
            await asyncio.gather(red.act({"action": "pick", "piece": "red-tower-1"}),
                                 blue.act({"action": "pick", "piece": "blue-tower-1"}))
            await asyncio.gather(red.act({"action": "move-to", "at": SW}), blue.act({"action": "move-to", "at": NORTH}))
            await green.wait_for(lambda c: set(c.state["hands"]) == {"red", "blue"})
            await red.drop()  # red's network goes
            await green.wait_for(lambda c: set(c.state["hands"]) == {"blue"})
            back = await on_table(server, lambda t: t.controller.world.pose("red-tower-1"))
            assert np.linalg.norm(back[:3] - start[:3]) < 1e-3  # where red picked it up
            puts = await on_table(server, lambda t: [e for e in t.log if e.get("control") == "put-back"])
            assert [e["hand"] for e in puts] == ["red"]
            assert (await blue.act({"action": "drop"}))["ok"]  # blue's carry is whole
            await green.wait_for(lambda c: _placed(c) == [("blue", "blue-tower-1")])
            await red.wait_connected()
            for c in (red, blue, green):
                await c.close()
        run(scenario())


def _step(t: ServedTable, frames: int, watch=None) -> None:
    for _ in range(frames):
        t.step()
        if watch is not None:
            watch()


def test_two_carries_sent_to_one_place_never_rest_on_each_other():
    t = ServedTable(FAST)
    try:
        for p in t.players:
            t.joined(p)
        c = t.controller
        world = c.world

        def rides(piece):
            return ride(piece, world.piece(piece).shape.vertices, world.pose(piece), 0)

        gaps = []

        def watch():  # where the two pieces' footprints overlap, how far blue's rides above red's
            r, b = rides("red-tower-1"), rides("blue-tower-1")
            if np.linalg.norm(r.xy - b.xy) < 0.01:
                gaps.append(b.bottom - r.top)

        assert t.submit("red", {"action": "pick", "piece": "red-tower-1"})["ok"]
        assert t.submit("red", {"action": "move-to", "at": SW})["ok"]
        _step(t, 90)
        assert t.submit("blue", {"action": "pick", "piece": "blue-tower-1"})["ok"]
        assert t.submit("blue", {"action": "move-to", "at": SW})["ok"]
        _step(t, 150, watch)
        assert gaps and min(gaps) > 0.0, gaps[:5]  # the later carry goes over the other
        assert c.carries["blue"].ghost[2] < rides("red-tower-1").bottom  # its ghost: on the table, not on red's
        assert t.submit("blue", {"action": "drop"})["ok"]  # red's piece rides under its place: blue's waits above
        _step(t, int(2 * SET_DOWN_TIME * 60), watch)
        assert "blue" in c.hands and min(gaps) > 0.0
        assert t.submit("red", {"action": "move-to", "at": SE})["ok"]  # red's goes on: blue's comes down
        for _ in range(600):
            t.step()
            if "blue" not in c.hands:
                break
        assert "blue" not in c.hands
        placed = [dict(e.data) for e in t.session.journal if e.kind == "placed"]
        assert placed == [{"player": "blue", "pieces": ["blue-tower-1"]}]
        assert abs(world.pose("blue-tower-1")[2] - c.scene0.piece("blue-tower-1").pos[2]) < 2e-3  # on the table
    finally:
        t.close()


def test_a_table_served_again_from_its_autosave_has_each_seat_s_carry_in_its_own_hand(tmp_path):
    from sim.viewer.play.save import read_game, save_game

    t = ServedTable(FAST)
    try:
        for p in t.players:
            t.joined(p)
        for seat in ("red", "blue"):
            assert t.submit(seat, {"action": "pick", "piece": f"{seat}-tower-1"})["ok"]
        _step(t, 20)
        path = save_game(t.controller, t.referee, tmp_path / "table.json")
        poses = t.controller.world.poses().tobytes()
    finally:
        t.close()
    again = ServedTable(FAST, saved=read_game(path))
    try:
        c = again.controller
        assert {h: (s.piece, s.player) for h, s in c.hands.items()} == {"red": ("red-tower-1", "red"),
                                                                        "blue": ("blue-tower-1", "blue")}
        assert c.world.poses().tobytes() == poses
        for p in again.players:
            again.joined(p)
        assert again.submit("blue", {"action": "move-to", "at": NORTH})["ok"]
        assert again.submit("blue", {"action": "drop"})["ok"]
        _step(again, 240)
        assert [dict(e.data) for e in again.session.journal if e.kind == "placed"] == [
            {"player": "blue", "pieces": ["blue-tower-1"]}]
        assert "red" in c.hands  # red's carry waits for red
    finally:
        again.close()
    data = json.loads(path.read_text())
    data["viewer"]["hands"]["blue"]["player"] = "red"  # a hostile file: blue's hand said to be red's
    path.write_text(json.dumps(data))
    with pytest.raises(TowerlabError, match=r"hands\.blue: expected the player blue"):
        ServedTable(FAST, saved=read_game(path))
