"""Talo-Fantasy played on the table: the die and the stock as in Talo, blocks placed anywhere any way round and
judged by the statics, a block that would fall refused, a collapse losing the game, the goal reached together,
the blocks used up; through the viewer too."""

import json

import numpy as np
import pytest
from play_fantasy_plan import UNIT, row_pose, rows_game, viewer_actions
from play_table import LoadedDie, StillTable

from sim.games.play.fantasy import FantasySession
from sim.games.play.judge import statics_judge
from sim.games.play.session import PlayError
from sim.games.registry import fantasy_table, game_rng, new_game
from sim.games.talo.fantasy import FantasyState

TABLE = fantasy_table()


def table():
    return StillTable(TABLE, [p.id for p in TABLE.pieces], statics_judge)


def test_the_table_has_the_stock_and_no_board_no_pawns_and_nothing_snaps():
    assert TABLE.board == "table" and TABLE.board_info.grid is None
    assert len(TABLE.pieces) == 55 and {p.kind for p in TABLE.pieces} == {"talo.block"}
    assert min(p.pos[2] - UNIT / 2 for p in TABLE.pieces) == pytest.approx(0.0, abs=1e-9)  # on the table top
    assert not [p for p in TABLE.pieces if abs(p.pos[0]) < 0.12]  # the middle is free to build on


def test_a_block_goes_anywhere_any_way_round_one_that_would_fall_is_refused_and_stays_in_hand():
    s, t = FantasySession(("ann", "ben"), LoadedDie([5]), statics_judge), table()
    assert not t.pick(s, "b5-1") and "throw the die first" in t.last("refused")
    t.act(s, "throw")
    assert t.pick(s, "b4-1") and s.view()["hand"] == [1, 4]  # picking a 4 takes 1 + 4
    slant = (0.013, -0.021, UNIT / 2, 0.0, 0.0, float(np.sin(np.radians(33) / 2)), float(np.cos(np.radians(33) / 2)))
    assert t.drop(s, slant) and s.view()["hand"] == [1]
    assert s.state.scene.piece("f1").quat == pytest.approx(slant[3:]) and s.live_of == {"f1": "b4-1"}
    over_edge = (0.013 + 0.047, -0.021, UNIT * 1.5, 0.0, 0.0, 0.0, 1.0)  # the 1 on the 4's far end, off it
    assert t.pick(s, "b1-1") and not t.drop(s, over_edge)
    assert "would not stay" in t.last("refused") and s.view()["hand"] == [1] and s.refusals()[-1]["rule"] == "balance"
    assert t.pick(s, "b1-1") and t.drop(s, (0.013, -0.021, UNIT * 1.5, 0, 0, 0, 1))  # on its middle
    t.act(s, "end-turn")
    assert s.current == "ben" and "ben's turn" in t.last("turn") and t.seat == "ben"
    assert [e.data["pieces"] for e in s.journal if e.kind == "placed"] == [["b4-1"], ["b1-1"]]


def test_two_blocks_placed_together_are_judged_as_one():
    s, t = FantasySession(("ann", "ben"), LoadedDie([5]), statics_judge), table()
    t.act(s, "throw")
    t.act(s, "take", blocks=[1, 4])
    t.act(s, "together")
    lying = (0.0, 0.0, UNIT / 2, 0.0, 0.0, 0.0, 1.0)
    t.pick(s, "b4-1")
    assert t.drop(s, lying) and "b4-1" in t.pinned and s.view()["pending"] == "b4-1"
    t.pick(s, "b1-1")
    assert t.drop(s, (0.03, 0.0, UNIT * 1.5, 0, 0, 0, 1)) and not t.pinned and s.view()["built"] == 2


def test_a_collapse_ends_the_game_the_culprit_loses_nobody_wins():
    s, t = FantasySession(("ann", "ben", "cy"), LoadedDie([2]), statics_judge), table()
    t.act(s, "throw")
    t.pick(s, "b2-1")
    t.drop(s, row_pose(0, 2))
    t.play(s.knocked(["b2-1"], "ann", t))
    assert s.over and s.view()["outcome"] == {"reason": "collapse", "winners": [], "loser": "ann"}
    assert "ann caused it and loses: nobody wins" in t.last("win")
    assert not t.pick(s, "b3-1") and "over" in t.last("refused")


def test_the_goal_reached_ends_the_game_everyone_winning():
    t = table()
    s, _ = rows_game(t, 4, turns=3)
    t.act(s, "finish")
    assert s.over and s.view()["outcome"] == {"reason": "goal reached", "winners": ["ann", "ben"], "loser": None}
    assert s.journal[-1].kind == "game_over"
    t.act(s, "finish")
    assert "over" in t.last("refused")


@pytest.mark.slow
def test_a_whole_game_until_the_blocks_are_used_up():
    t = table()
    s, steps = rows_game(t, 11)
    assert s.over and s.view()["outcome"]["reason"] == "blocks used up"
    assert s.view()["built"] == 55 and sum(s.view()["stock"].values()) == 0 and not t.supply
    assert s.view()["outcome"]["winners"] == ["ann", "ben"] and s.refusals() == []
    rolled = [e.data["rolls"] for e in s.journal if e.kind == "rolled"]
    assert all(1 <= r <= 10 for rolls in rolled for r in rolls)
    state = s.to_json()["state"]
    assert FantasyState.from_json(json.loads(json.dumps(state))).to_json() == state


def test_the_same_seed_gives_the_same_game():
    a, _ = rows_game(table(), 11, turns=6)
    b, _ = rows_game(table(), 11, turns=6)
    assert a.to_json() == b.to_json() and [e.to_json() for e in a.journal] == [e.to_json() for e in b.journal]


def test_bad_requests():
    with pytest.raises(PlayError, match="2 to 4 players"):
        FantasySession(("ann",), game_rng(0), statics_judge)
    with pytest.raises(PlayError, match="names must differ"):
        FantasySession(("ann", "ann"), game_rng(0), statics_judge)
    g = new_game("talo", ("ann", "ben", "cy", "dee"), "fantasy")
    assert isinstance(g.session, FantasySession) and g.scene.board == "table"
    with pytest.raises(PlayError, match="not an action"):
        g.session.act("move-pawn", {}, table())


def test_fantasy_through_the_viewer_a_few_turns_then_the_goal(tmp_path):
    from sim.viewer.control.actions import action, specs_with
    from sim.viewer.control.controller import Controller
    from sim.viewer.control.script import ScriptRunner
    from sim.viewer.play.mode import Referee

    _, steps = rows_game(table(), 4, rows=5)
    g = new_game("talo", ("ann", "ben"), "fantasy", seed=4)
    referee = Referee(g)
    c = Controller(g.scene, threaded=False, supply=g.supply, plugins=[referee])
    script = viewer_actions(steps) + [{"action": "finish"}]
    specs = specs_with(c.plugins)
    ScriptRunner(c, [action(a, f"actions[{i}]", specs) for i, a in enumerate(script)], lambda r: None).run()
    s = referee.session
    assert s.over and s.view()["outcome"]["reason"] == "goal reached" and s.refusals() == []
    built = [referee.session.live_of[f] for f in sorted(s.live_of)]
    for k, piece in enumerate(sorted(built, key=lambda pid: c.world.pose(pid)[1])):
        pose = c.world.pose(piece)
        want = row_pose(k, 1)
        assert pose[:2] == pytest.approx(want[:2], abs=1.5e-3)  # where it was set down, off any grid
        assert abs(abs(pose[3:] @ np.array(want[3:])) - 1.0) < 1e-4  # turned as it was
    assert "TALO-FANTASY" in referee.panel() and "GAME OVER (goal reached)" in referee.panel()
    assert not [m for m in c.messages if m.kind == "collapse"]
