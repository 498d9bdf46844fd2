"""Computer players at a served table (``towerlab serve --bot SEAT:LEVEL``): a real server on loopback, the computer
player a client of it on its own thread, a headless client playing against it; the option's bad input."""

from __future__ import annotations

import re

import pytest
from net_table import joined, on_table, run, served

from sim.bots.pace import GRIP_S, RELEASE_S
from sim.cli.play import PlayArgumentError, bot_levels
from sim.net.bots import STEP_HZ, start_bots
from sim.net.table import ServedTable, Setup, replay

PACE = 0.25
"""The computer player's pace in these tests: a quarter of a person's."""


def test_a_computer_player_that_thinks_past_its_turn_sends_nothing_stale(tmp_path):
    """A decision that outlasts the seat's turn (a loaded machine) is dropped, not sent: the referee would refuse
    its pick for the turn (issue 29: no computer move is ever refused). Its turns of 2 s, each decision 2.5 s."""
    import time as _time

    setup = Setup("tohuwabohu", "basic", ("red", "blue"), 3, 2.0)
    with served(setup, record=tmp_path / "net.tlrec") as server:
        server.bots = {"red": 1}
        bots = start_bots(server, server.bots, pace=PACE)
        slow = bots[0].bot.decide

        def thinking(state):
            _time.sleep(2.5)
            return slow(state)
        bots[0].bot.decide = thinking
        try:
            async def scenario():
                blue, watcher = await joined(server, "blue", watchers=1)  # blue lets its turns run out
                for turn in ("blue", "red", "blue"):  # red's turn ran out twice while it thought
                    await watcher.wait_for(lambda c, t=turn: c.state.get("current") == t, 30)
                for c in (blue, watcher):
                    await c.close()
            run(scenario(), 120)
        finally:
            for b in bots:
                b.stop()
    assert bots[0].failed is None and bots[0].stale >= 1
    assert not [a for d in bots[0].decisions for a in d["answers"] if not a["ok"]]


def test_a_computer_player_plays_its_turns_through_the_table_at_a_hand_s_pace_against_a_headless_client(tmp_path):
    setup = Setup("tohuwabohu", "basic", ("red", "blue"), 3, 6.0)
    with served(setup, record=tmp_path / "net.tlrec") as server:
        server.bots = {"red": 1}
        bots = start_bots(server, server.bots, pace=PACE)
        try:
            async def scenario():
                blue, watcher = await joined(server, "blue", watchers=1)
                roster = {pid: n for n, pid in enumerate(watcher.pieces)}
                rows: list[set] = []
                watcher.on_message = lambda c, m: rows.append({r[0] for r in m.get("rows", ())}) \
                    if m["type"] == "poses" else None
                await watcher.wait_for(lambda c: c.state.get("current") == "blue", 60)  # red's turn ran out
                piece = await on_table(server, lambda t: t.session.candidates(t.referee.table)[0])
                for a in ({"action": "pick", "piece": piece}, {"action": "move-to", "at": [-40.0, 30.0]},
                          {"action": "drop"}):
                    assert (await blue.act(a))["ok"], a
                await watcher.wait_for(lambda c: c.state.get("current") == "red", 60)
                n = len(bots[0].decisions)
                await watcher.wait_for(lambda c: len(bots[0].decisions) > n, 60)  # its second turn
                picked = [e for e in watcher.events if e["kind"] == "picked" and e["cause"]["player"] == "red"]
                assert picked  # every client saw red's hand at work ...
                moved = roster[picked[0]["pieces"][0]]
                assert sum(moved in r for r in rows) >= 5  # ... carrying the piece across, frame after frame
                for c in (blue, watcher):
                    await c.close()
            run(scenario(), 240)
        finally:
            for b in bots:
                b.stop()
        assert bots[0].failed is None
    frames, log = server.table.frame_no, server.table.log
    answers = [a for d in bots[0].decisions for a in d["answers"]]
    # no step refused by the game; on a loaded machine its 6 s turn may run out mid-carry (the table's `turn`)
    assert answers and all(a["ok"] or a["rule"] == "turn" for a in answers), [a for a in answers if not a["ok"]]
    assert any(a["ok"] and a["action"]["action"] in ("pick", "orient") for a in answers)
    placed = [d for d in bots[0].decisions if d["decision"]["action"]["action"] == "place" and
              [a["action"]["action"] for a in d["answers"]][-1:] == ["drop"]]
    assert placed
    for d in placed:  # the hand took the piece across at a person's pace, a step at a time
        sent = {a["action"]["action"]: a["sent"] for a in reversed(d["answers"])}
        assert d["carry_s"] >= PACE * (GRIP_S + RELEASE_S / 2)
        assert sent["drop"] - sent["pick"] >= d["carry_s"] - 0.02
        steps = sum(a["action"]["action"] == "move-to" for a in d["answers"])
        assert steps >= STEP_HZ * (d["carry_s"] - PACE * (GRIP_S + RELEASE_S / 2)) - 1
    again = replay(setup, log, frames)  # the same referee, the same log: the game the clients saw, bit for bit
    try:
        assert again.controller.world.poses().tobytes() == server.table.controller.world.poses().tobytes()
        assert [e.to_json() for e in again.session.journal] == [e.to_json() for e in server.table.session.journal]
    finally:
        again.close()


def test_a_computer_player_builds_where_everyone_builds_at_once_with_hands_of_its_own():
    setup = Setup("babylon", "fast", ("red", "blue", "green"), 2)
    with served(setup) as server:
        bots = start_bots(server, {"green": 1}, pace=PACE)
        try:
            async def scenario():
                red, blue = await joined(server, "red", "blue")
                await red.wait_for(lambda c: sum(1 for g in c.game if g["kind"] == "placed" and
                                                 g["data"].get("player") == "green") >= 2, 120)
                assert (await red.act({"action": "pick", "piece": "red-tower-1"}))["ok"]  # red's hands, meanwhile
                n = len(bots[0].decisions)
                await red.wait_for(lambda c: len(bots[0].decisions) > n, 60)  # green goes on while red carries
                assert "red" in red.state["hands"]
                await red.act({"action": "move-to", "at": [-200.0, -200.0]})
                await red.act({"action": "drop"})
                for c in (red, blue):
                    await c.close()
            run(scenario(), 240)
        finally:
            for b in bots:
                b.stop()
    assert bots[0].failed is None
    log = [e for e in server.table.log if "action" in e]
    assert not [e for e in log if e["action"]["action"] == "seat"]  # nobody seated: each seat has its own hands
    assert {e["action"]["hand"] for e in log if e["seat"] == "green" and "hand" in e["action"]} == {"green"}


@pytest.fixture(scope="module")
def babylon_table():
    t = ServedTable(Setup("babylon", "fast", ("red", "blue", "green")))
    yield t
    t.close()


@pytest.mark.parametrize("specs, fragment", [
    (["red"], "--bot red: expected SEAT:LEVEL, e.g. green:2"),
    (["pink:1"], "no seat 'pink' in this game (its players: red, blue, green)"),
    (["red:1", "red:1"], "red is given twice"),
    (["blue:4"], "level: expected one of 1, 2, 3, got 4"),
])
def test_a_bad_bot_option_says_what_is_wrong(babylon_table, specs, fragment):
    t = babylon_table
    with pytest.raises(PlayArgumentError, match=re.escape(fragment)):
        bot_levels(specs, t.players, t.setup.game, t.variant.name)


def test_bot_options_seat_their_levels(babylon_table):
    t = babylon_table
    assert bot_levels(["green:1", "red:1"], t.players, t.setup.game, t.variant.name) == {"green": 1, "red": 1}


def test_a_bad_bot_option_of_serve_is_one_line(tmp_path):
    from test_net_cli import one_line, towerlab

    one_line(towerlab("serve", "talo", "--bot", "blue:7", "--port", "0", "--no-record", "--autosave",
                      str(tmp_path / "t.json"), cwd=tmp_path), "--bot blue:7: level: expected one of 1, 2, 3")


def test_computer_players_take_talo_seats_choose_their_starts_and_play_their_turns():
    """``towerlab serve talo --bot blue:1`` (the README's example), here both seats: each computer player chooses
    its own start field in turn, then throws and plays its turns, every one of its moves the game's (the table once
    judged Talo's turns by the hands last at work, red's: blue's moves were refused)."""
    setup = Setup("talo", "green", ("red", "blue"), 5)
    with served(setup) as server:
        server.bots = {"red": 1, "blue": 1}
        bots = start_bots(server, server.bots, pace=PACE)
        try:
            async def scenario():
                watcher = (await joined(server, watchers=1))[0]
                turns = []
                watcher.on_message = lambda c, m: turns.append(m.get("current")) if m["type"] == "state" else None
                await watcher.wait_for(lambda c: sum(1 for a, b in zip(turns, turns[1:]) if a != b) >= 4, 180)
                await watcher.close()
            run(scenario(), 240)
        finally:
            for b in bots:
                b.stop()
    for bot in bots:
        assert bot.failed is None
        moves = [d["decision"]["action"]["action"] for d in bot.decisions]
        assert moves[0] == "start" and "throw" in moves, (bot.seat, moves)
        answers = [a for d in bot.decisions for a in d["answers"]]
        assert answers and all(a["ok"] for a in answers), [a for a in answers if not a["ok"]]
