"""Babylon's fast game through the viewer's controller (headless, the live physics): a whole scripted game from the
set-up to its winner, recorded, and the recording judged by ``towerlab penalty``.

The game (tests/data/play/babylon-fast-game.json, three players): round 1, red's tower refused in blue and
green's area, red's "stop" refused with two of eight nobles placed, one tower in each of red's areas shared with
a neighbour's noble, everyone done: red wins with 1 (the smaller of 1 and 1). Round 2: green pokes red's tower
carrying blue's noble: the tower goes to the pile (-1 for green), the noble back to blue, green is out; red wins
on fewer unplaced pieces. Round 3: red places its six small nobles (its two large ones were set aside) and calls
stop: its third round win.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.replay import load_recording
from sim.replay.penalty import settle
from sim.viewer.control.actions import RefusalError, action, specs_with
from sim.viewer.control.controller import Controller
from sim.viewer.control.recording import SessionRecording
from sim.viewer.control.script import ScriptRunner
from sim.viewer.play.games import new_game
from sim.viewer.play.mode import Referee

GAME = json.loads((Path(__file__).parent / "data" / "play" / "babylon-fast-game.json").read_text())
PLAYERS = ("red", "blue", "green")
ROUND_2, POKE, ROUND_3 = 28, 37, 46  # where the script's second round, green's poke and the third round begin


def run(c, actions):
    specs = specs_with(c.plugins)
    ScriptRunner(c, [action(a, f"actions[{i}]", specs) for i, a in enumerate(actions)], lambda r: None).run()


def said(c, kind=None):
    return [m.text for m in c.messages if kind is None or m.kind == kind]


@pytest.mark.slow
def test_a_whole_fast_game_through_the_viewer_recorded_and_judged(tmp_path):
    g = new_game("babylon", PLAYERS, "fast")
    recording = SessionRecording(tmp_path / "fast.tlrec", 0, PLAYERS, "fast")
    ref = Referee(g, recording)
    c = Controller(g.scene, threaded=False, supply=g.supply, plugins=[recording, ref])
    try:
        run(c, GAME[:ROUND_2 - 1])
        refused = said(c, "refused")
        assert "red-tower-2 stands outside red's construction areas (the two shared with blue and green)" in refused[0]
        assert 'red has placed 2 of 8 nobles: "stop" is called once all are placed' in refused[1]
        last = ref.view()["last"]
        assert last["round"] == 1 and last["scores"] == {"red": 1, "blue": 0, "green": 0}
        assert last["winners"] == ["red"] and last["score"]["players"]["red"]["areas"] == {"blue": 1, "green": 1}
        with pytest.raises(RefusalError, match="round 1 is over"):
            c.apply(action({"action": "pick", "piece": "blue-tower-1"}, "action", specs_with(c.plugins)))

        run(c, GAME[ROUND_2 - 1:POKE + 2])
        assert "red-large-2" not in c.world.ids  # set aside for the game
        pile = c.world.pose("red-tower-1")
        assert pile[2] < 0.0 and pile[1] < -0.45  # on the floor beyond the table's edge behind red's seat
        assert "blue-small-1" in c.supply and "red-tower-1" not in c.supply
        assert any("knocked down red-tower-1: -1 for green" in t for t in said(c, "collapse"))
        green = next(p for p in ref.view()["players"] if p["color"] == "green")
        assert green["out"] and green["knocked"] == ["red-tower-1"]
        with pytest.raises(RefusalError, match="green knocked down another player's noble and is out of round 2"):
            c.apply(action({"action": "pick", "piece": "green-tower-1"}, "action", specs_with(c.plugins)))

        run(c, GAME[POKE + 2:ROUND_3])
        assert ref.view()["last"]["winners"] == ["red"] and ref.view()["last"]["scores"]["green"] is None
        assert c.world.pose("red-tower-1")[2] > 0.0 and "red-tower-1" in c.supply  # the new round: all back
        run(c, GAME[ROUND_3:])
        assert ref.session.over and ref.session.winners == ("red",)
        assert ref.view()["last"]["reason"] == "red called stop (all nobles placed)"
        assert not said(c, "error")
    finally:
        c.close()

    r = load_recording(tmp_path / "fast.tlrec")
    assert r.variant == "fast" and tuple(r.players) == PLAYERS
    ended = [dict(e.data) for e in r.timeline_events if e.kind == "round_ended"]
    assert [(e["round"], e["winners"]) for e in ended] == [(1, ["red"]), (2, ["red"]), (3, ["red"])]
    over = [dict(e.data) for e in r.timeline_events if e.kind == "game_over"]
    assert over == [{"reason": "three round wins", "winners": ["red"], "loser": None}]
    p = settle(r)
    assert p.variant == "fast" and [c.culprit for c in p.collapses] == ["green"]
    assert p.consequence["players"] == {"green": {"minus_points": 1, "parts_out_of_round": ["red-tower-1"],
                                                  "nobles_of_others": ["blue-small-1"], "out_of_round": True}}
    assert p.consequence["rounds"] == [{"round": 2, "players": p.consequence["players"]}]
    assert p.lines == ("round 2: green: -1 (knocked down red-tower-1: it leaves the round); out of the round for "
                       "knocking down blue-small-1 of another player",)


def test_the_windows_keys_are_panda3d_buttons_on_the_docs_page_and_the_panel():
    pytest.importorskip("panda3d")
    from panda3d.core import ButtonRegistry, KeyboardButton

    from sim.viewer.play.panels_fast import KEYS
    from sim.viewer.window.play.draw_fast import FastWindow

    KeyboardButton.space()  # the registry holds the buttons once the class is used
    registry = ButtonRegistry.ptr()
    doc = (Path(__file__).resolve().parents[1] / "docs" / "play.md").read_text(encoding="utf-8")
    fast = doc[doc.index("## Babylon (fast)"):]
    window = FastWindow(Referee(new_game("babylon", PLAYERS, "fast")))
    controls = window.game_controls()
    assert [c.keys for c in controls] == ["Tab", "Enter", "End", "G"]
    assert [c.keys for c in window.controls()] == ["Tab", "Enter", "End", "G", "F5"]  # and every game's save
    for c in controls:
        assert all(registry.find_button(e) != registry.find_button("no-such-button") for e in c.events), c.events
        assert f"**{c.keys}**" in fast and f"{c.keys} " in KEYS


def test_the_construction_areas_are_outlined_inside_their_edges_and_around_the_supplies():
    pytest.importorskip("panda3d")
    from shapely.geometry import Point, Polygon

    from sim.games.babylon.fast import construction_areas
    from sim.games.setup import setup
    from sim.viewer.window.play.draw_fast import AROUND, INSET, outlines, supply_ground

    for players in (PLAYERS, ("red", "blue", "green", "yellow", "white")):
        scene = setup("babylon", players, mode="fast")
        supplies = supply_ground(scene)
        for area in construction_areas(scene, players):
            rings = outlines(area, supplies)
            wedge = Polygon(area.polygon)
            points = [Point(p) for ring in rings for p in ring]
            assert rings and all(wedge.contains(p) for p in points)
            assert min(wedge.exterior.distance(p) for p in points) >= INSET - 1e-6
            assert min(supplies.distance(p) for p in points) >= AROUND + INSET - 1e-6
