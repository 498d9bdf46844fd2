"""The games played through the viewer's controller with the referee plugged in (headless): the same actions a
window sends, the live physics, the statics judging each release."""

import json
from pathlib import Path

import pytest
from play_table import LoadedDie, StillTable
from play_talo_plan import staircase_game, viewer_actions

from sim.games.play.judge import statics_judge
from sim.games.setup import setup
from sim.viewer.control.actions import RefusalError, action, specs_with
from sim.viewer.control.controller import Controller
from sim.viewer.control.script import ScriptRunner
from sim.viewer.play.games import new_game
from sim.viewer.play.mode import Referee


def session(game, **kw):
    g = new_game(game, **kw)
    referee = Referee(g)
    c = Controller(g.scene, threaded=False, supply=g.supply, plugins=[referee])
    return c, referee


def run(c, actions):
    specs = specs_with(c.plugins)
    script = [action(a, f"actions[{i}]", specs) for i, a in enumerate(actions)]
    ScriptRunner(c, script, lambda request: None).run()


def refused(c, a):
    """Apply one action the rules must refuse, and return the refusal (a script would say it and go on)."""
    with pytest.raises(RefusalError) as e:
        c.apply(action(a, "action", specs_with(c.plugins)))
    return str(e.value)


def said(c, kind=None):
    return [m.text for m in c.messages if kind is None or m.kind == kind]


TALO_OPENING = [  # seed 7: red throws 4 (1 + 3), blue throws 8 (2 + 6)
    {"action": "start", "cell": [0, 0]}, {"action": "start", "cell": [0, 9]}, {"action": "throw"},
    {"action": "take", "blocks": [1, 3]},
    {"action": "pick", "piece": "b3-1"}, {"action": "rotate"}, {"action": "move-to", "at": [90, -90]},
    {"action": "drop"},  # fields 8, 9 and 10 of row 0: sticks out beyond the grid
    {"action": "pick", "piece": "b1-1"}, {"action": "move-to", "at": [-70, -90]}, {"action": "drop"},
    {"action": "pick", "piece": "b3-1"}, {"action": "tip"}, {"action": "move-to", "at": [-30, -90]},
    {"action": "drop"},
    {"action": "select-pawn"}, {"action": "move-pawn", "cell": [1, 0], "level": 1}, {"action": "end-turn"},
]


def test_talo_a_refused_placement_goes_back_to_the_stock_with_its_reason_and_the_pawn_walks_its_route():
    c, ref = session("talo", seed=7)
    run(c, TALO_OPENING[:8])
    assert any("sticks out beyond the grid" in t for t in said(c, "refused"))
    assert "b3-1" in c.supply and c.world.pose("b3-1")[0] < -0.2  # back on the stock board, on the left
    assert ref.refusal["rule"] == "protrusion" and "REFUSED (protrusion)" in ref.panel()
    run(c, TALO_OPENING[8:15])
    assert ref.view()["hand"] == [] and "b1-1" not in c.supply
    run(c, [{"action": "select-pawn"}])
    routes = ref.routes()
    assert len(routes) == 1 and len(routes[0]) == 2 and routes[0][1][2] == pytest.approx(0.02)  # onto level 1
    run(c, TALO_OPENING[16:17])
    pose = c.world.pose("pawn-red")
    assert pose[0] == pytest.approx(-0.07, abs=1e-4) and pose[2] > 0.02  # on top of the 1, in (1, 0)
    assert ref.view()["players"][0]["level"] == 1


def test_talo_a_collapse_ends_the_game_the_culprit_loses_the_highest_pawn_wins():
    c, ref = session("talo", seed=7)
    run(c, TALO_OPENING[:3] + TALO_OPENING[3:4] + TALO_OPENING[8:])
    assert ref.session.current == "blue"
    run(c, [{"action": "throw"}, {"action": "poke", "piece": "b3-1", "at": [-30, -90, 55],
                                  "direction": [1, 0, 0], "speed": 0.6}, {"action": "wait", "seconds": 1.5}])
    assert any("knocked down" in t for t in said(c, "collapse"))
    assert ref.session.over
    assert ref.view()["outcome"] == {"reason": "collapse", "winners": ["red"], "loser": "blue"}
    assert any("blue caused it and loses: red wins" in t for t in said(c))
    assert "over" in refused(c, {"action": "pick", "piece": "b5-1"})


def test_talo_undo_is_no_part_of_a_game():
    c, ref = session("talo", seed=7)
    run(c, [{"action": "wait", "seconds": 2.0}])
    assert len(c.history.moments) <= 1  # time does not go back in a game: no moments kept for it
    free = Controller(c.scene0, threaded=False)
    free.run(2.0)
    assert len(free.history.moments) >= 15  # building freely: one every 0.1 s
    free.close()
    assert "no undo in a game" in refused(c, {"action": "undo"})
    run(c, TALO_OPENING[:3])
    assert "walks its routes" in refused(c, {"action": "pick", "piece": "pawn-red"})


def test_talo_a_whole_game_through_the_viewer_to_level_10(tmp_path):
    scene = setup("talo")
    _, steps = staircase_game(StillTable(scene, [p.id for p in scene.pieces], statics_judge), 7)
    c, ref = session("talo", seed=7)
    run(c, viewer_actions(steps))
    assert ref.session.over and ref.view()["outcome"]["winners"] == ["red"]
    assert ref.session.refusals() == [] and not said(c, "collapse")
    assert c.world.pose("pawn-red")[2] > 0.2  # on top of the 10
    json.dumps(ref.session.to_json())


def test_tohuwabohu_the_turn_passes_when_the_time_runs_out_and_the_swap_is_once_a_turn():
    c, ref = session("tohuwabohu", players=("ann", "bob"), seed=3)
    first = ref.view()["players"][0]["open"][0]["id"]
    run(c, [{"action": "swap"}, {"action": "swap"}, {"action": "pick", "piece": "arch-1"},
            {"action": "move-to", "at": [0, 0]}, {"action": "wait", "seconds": 10.0}])
    assert ref.view()["players"][0]["open"][0]["id"] != first and "already swapped" in said(c, "refused")[-1]
    assert ref.session.seat == "ann" and c.hands  # 0:05 left, the arch in hand
    run(c, [{"action": "wait", "seconds": 5.0}])
    assert ref.session.seat == "bob" and c.player == "bob" and not c.hands  # time is up: the arch goes back
    assert "arch-1" in c.supply and ref.view()["time_left"] > 10.0  # bob's 15 s began
    assert any("time is up: bob's turn" in t for t in said(c))


def test_tohuwabohu_pro_a_collapse_stops_the_clock_until_the_players_choose():
    c, ref = session("tohuwabohu", players=("ann", "bob"), variant="pro", seed=3)
    level = "level-quad-1"
    run(c, [{"action": "pick", "piece": "small-red-1"}, {"action": "tip"}, {"action": "move-to", "at": [0, 0]},
            {"action": "drop"},
            {"action": "pick", "piece": level}, {"action": "move-to", "at": [0, 0]}, {"action": "drop"},
            {"action": "poke", "piece": level, "direction": [1, 0, 0], "speed": 0.8},
            {"action": "wait", "seconds": 1.0}])
    assert ref.view()["prompt"] is not None and "caused by ann" in ref.view()["prompt"]["question"]
    clock = ref.view()["time_left"]
    run(c, [{"action": "wait", "seconds": 2.0}])
    assert ref.view()["time_left"] == clock
    run(c, [{"action": "continue"}])
    assert ref.view()["prompt"] is None
    run(c, [{"action": "wait", "seconds": 1.0}])
    assert ref.view()["time_left"] < clock


BABYLON_FIRST = json.loads((Path(__file__).parent / "data" / "play" / "babylon-first-turn.json").read_text())


def test_babylon_a_refused_piece_a_refused_turn_then_a_legal_one_and_a_knocked_piece_put_back():
    c, ref = session("babylon", seed=0)
    run(c, BABYLON_FIRST[:6])  # two bridges on the table
    run(c, [{"action": "pick", "piece": "red-tower-1"}, {"action": "move-to", "at": [12.0, 0.0], "free": True},
            {"action": "drop", "free": True}])  # on the bridge, neither at an end nor in its middle
    assert "red-tower-1" in c.supply and ref.refusal is not None and ref.view()["count"] == "2 of 4-5"
    run(c, [{"action": "end-turn"}])
    assert "a turn places 4 or 5" in said(c, "refused")[-1] and ref.session.state.player == "red"
    run(c, BABYLON_FIRST[6:-1])
    assert ref.view()["count"] == "5 of 4-5"
    assert "5 pieces are down" in refused(c, {"action": "pick", "piece": "red-tower-3"})
    run(c, BABYLON_FIRST[-1:])
    assert ref.session.state.player == "blue" and len(ref.session.state.turns[0].placed) == 5
    before = c.world.pose("red-tower-1").copy()
    run(c, [{"action": "poke", "piece": "red-tower-1", "direction": [1, 0, 0], "speed": 0.8},
            {"action": "wait", "seconds": 1.5}])
    assert any("put back as they were" in t for t in said(c))
    assert c.world.pose("red-tower-1")[:3] == pytest.approx(before[:3], abs=2e-3)


def test_talo_four_and_one_placed_together_stand_in_the_live_physics():
    from sim.games.play.talo import TaloSession
    from sim.viewer.play.games import Game

    g = new_game("talo")
    g = Game(g.scene, g.supply, TaloSession(("red", "blue"), LoadedDie([1, 5]), statics_judge))
    referee = Referee(g)
    c = Controller(g.scene, threaded=False, supply=g.supply, plugins=[referee])
    run(c, [{"action": "start", "cell": [0, 0]}, {"action": "start", "cell": [0, 9]}, {"action": "throw"},
            {"action": "pick", "piece": "b1-1"}, {"action": "move-to", "at": [-10, -10]}, {"action": "drop"},
            {"action": "end-turn"}, {"action": "throw"}, {"action": "take", "blocks": [1, 4]}])
    four = [{"action": "pick", "piece": "b4-1"}, {"action": "rotate"}, {"action": "move-to", "at": [-20, -10]},
            {"action": "drop"}]  # fields 2..5 of row 4, its middle over the post's edge
    run(c, four)
    assert "balance" in said(c, "refused")[-1] and "b4-1" in c.supply
    run(c, [{"action": "together"}, *four])
    assert referee.view()["pending"] == "b4-1" and "b4-1" not in c.supply
    run(c, [{"action": "pick", "piece": "b1-2"}, {"action": "move-to", "at": [10, -10]}, {"action": "drop"},
            {"action": "wait", "seconds": 2.0}])
    assert referee.view()["hand"] == [] and referee.view()["pending"] is None
    assert not said(c, "collapse") and not referee.session.over
    assert c.world.pose("b4-1")[2] == pytest.approx(0.03, abs=1e-3)  # still lying on the post, at level 1
