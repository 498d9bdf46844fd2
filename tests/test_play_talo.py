"""Talo played on a table: start fields, the seeded die, taking from the stock, placements judged on release
(with the statics as the judge), the 4 + 1 placed together, pawn routes, collapse and level 10."""

import json

import numpy as np
import pytest
from play_table import StillTable
from play_talo_plan import grid_pose, staircase_game
from scipy.spatial.transform import Rotation

from sim.games.play.judge import statics_judge
from sim.games.play.session import PlayError, Walk
from sim.games.play.talo import TaloSession
from sim.games.setup import setup

SCENE = setup("talo")


def table():
    return StillTable(SCENE, [p.id for p in SCENE.pieces], statics_judge)


def started(seed=4, rolls=None, players=("red", "blue")):
    """A session with the pawns on (0, 0) and (0, 9); ``rolls`` forces the die (a generator that returns them)."""
    rng = np.random.default_rng(seed) if rolls is None else _Loaded(rolls)
    s, t = TaloSession(players, rng, statics_judge), table()
    for cell in ([0, 0], [0, 9], [9, 9])[:len(players)]:
        t.act(s, "start", cell=cell)
    return s, t


class _Loaded:
    """A die that shows the given numbers (the generator's ``integers`` as the die calls it)."""

    def __init__(self, rolls):
        self.rolls = list(rolls)

    def integers(self, lo, hi):
        r = self.rolls.pop(0)
        assert lo <= r < hi
        return r


def test_pawns_go_onto_start_fields_in_turn_then_the_first_player_throws():
    s, t = TaloSession(("red", "blue"), np.random.default_rng(0), statics_judge), table()
    assert s.phase == "start" and s.current == "red"
    t.act(s, "throw")
    assert "start field" in t.last("refused")
    t.act(s, "start", cell=[4, 4])
    t.act(s, "start", cell=[4, 4])
    assert "taken" in t.last("refused") and s.current == "blue"
    t.act(s, "start", cell=[0, 9])
    assert s.phase == "throw" and s.current == "red" and t.seat == "red"
    assert t.poses["pawn-blue"][:2] == pytest.approx(grid_pose(1, (0, 9))[:2])


def test_the_die_is_seeded_and_a_pick_takes_the_combination_holding_its_length():
    rolls = []
    for _ in range(2):
        s, t = started(seed=11)
        t.act(s, "throw")
        rolls.append(s.view()["rolls"])
    assert rolls[0] == rolls[1]
    s, t = started(rolls=[5])
    t.act(s, "throw")
    assert s.view()["options"] == [[5], [1, 4], [2, 3]]
    assert not t.pick(s, "b6-1") and "allows 5 | 1+4 | 2+3" in t.last("refused")
    assert t.pick(s, "b4-1")  # 1 + 4 taken
    assert s.view()["hand"] == [1, 4] and s.view()["stock"][4] == 6 and s.view()["stock"][1] == 9
    t.drop(s, grid_pose(4, (3, 3), 0, "x"))
    assert not t.pick(s, "b2-1") and "no block of length 2" in t.last("refused")
    assert not t.pick(s, "b4-1") and "built in" in t.last("refused")
    assert not t.pick(s, "pawn-red") and "walks its routes" in t.last("refused")


def test_refused_placements_go_back_with_their_reasons_and_stay_in_hand():
    s, t = started(rolls=[6])
    t.act(s, "throw")
    home = t.poses["b6-1"]
    assert t.pick(s, "b6-1")
    off = grid_pose(6, (6, 2), 0, "x")  # fields 6..11: two beyond the grid
    assert not t.drop(s, off)
    assert "protrusion" in t.last("refused") and "[10, 2], [11, 2]" in t.last("refused")
    assert t.poses["b6-1"] == home  # back where it was picked up
    turned = (*grid_pose(6, (2, 2), 0, "x")[:3], *Rotation.from_euler("z", 45, degrees=True).as_quat())
    assert t.pick(s, "b6-1") and not t.drop(s, turned) and "diagonal" in t.last("refused")
    assert s.view()["hand"] == [6] and [r["rule"] for r in s.refusals()] == ["protrusion", "diagonal"]
    assert t.pick(s, "b6-1") and t.drop(s, grid_pose(6, (2, 2), 0, "x"))
    assert s.view()["hand"] == [] and "placed b6-1 on [2, 2] at level 0" in t.last()


def test_balance_is_judged_by_the_statics_and_the_four_and_one_go_on_together():
    s, t = started(rolls=[1, 5])
    t.act(s, "throw")
    t.pick(s, "b1-1")
    t.drop(s, grid_pose(1, (4, 4)))  # the post
    t.act(s, "end-turn")
    t.act(s, "throw")  # blue throws 5: takes 1 + 4
    assert s.current == "blue"
    t.act(s, "take", blocks=[1, 4])
    on_post = grid_pose(4, (2, 4), 1, "x")  # its middle over the post's edge: a knife edge at best
    assert t.pick(s, "b4-1") and not t.drop(s, on_post)
    assert "balance" in t.last("refused") and "does not stand on its own" in t.last("refused")
    t.act(s, "together")
    assert t.pick(s, "b4-1") and t.drop(s, on_post)
    assert "b4-1" in t.pinned and s.view()["pending"] == "b4-1"
    t.act(s, "move-pawn", cell=[1, 9], level=1)
    assert "before or after placing two blocks together" in t.last("refused")
    assert t.pick(s, "b1-2") and not t.drop(s, grid_pose(1, (2, 4), 2))  # on the end that tips: both go back
    assert "balance" in t.last("refused") and "b4-1" not in t.pinned and t.poses["b4-1"] == t.homes["b4-1"]
    assert s.view()["hand"] == [1, 4] and s.view()["pending"] is None and not s.view()["together"]
    t.act(s, "together")
    assert t.pick(s, "b4-1") and t.drop(s, on_post)
    assert t.pick(s, "b1-2") and t.drop(s, grid_pose(1, (5, 4), 2))  # the counterweight over the post's far side
    assert not t.pinned and s.view()["hand"] == []
    assert "b4-1 on [2, 4] at level 1 and b1-2 on [5, 4] at level 2" in t.last()
    assert [len(e.data["blocks"]) for e in s.state.log if e.action == "place"] == [1, 2]


def test_a_refusal_for_balance_names_the_blocks_that_would_fall_as_the_table_names_them():
    """The game numbers its blocks as they are built (b1, b2 ...); the players see the table's names: a 5 set
    off-centre on a cube is "b5-6", never the game's "b2" (a block of length 2, to a player)."""
    s, t = started(rolls=[1, 5, 5])
    t.act(s, "throw")
    assert t.pick(s, "b1-1") and t.drop(s, grid_pose(1, (1, 0)))  # the cube
    t.act(s, "end-turn")
    t.act(s, "throw")
    t.act(s, "take", blocks=[5])
    off_centre = grid_pose(5, (1, 0), 1, "y")  # fields (1, 0)..(1, 4) at level 1: only its end on the cube
    assert t.pick(s, "b5-6") and not t.drop(s, off_centre)
    refusal = t.last("refused")
    assert "b5-6 would fall" in refusal and "b2" not in refusal.replace("b5-6", ""), refusal
    assert s.refusals()[-1]["rule"] == "balance"
    # two set down together: both named, the one set down last first
    t.act(s, "end-turn")
    t.act(s, "throw")  # red throws 5 again: 1 + 4 together, the 4 off the cube and the 1 on its far end
    t.act(s, "take", blocks=[1, 4])
    t.act(s, "together")
    assert t.pick(s, "b4-1") and t.drop(s, grid_pose(4, (1, 0), 1, "y"))
    assert t.pick(s, "b1-2") and not t.drop(s, grid_pose(1, (1, 3), 2))
    assert "b1-2, b4-1 would fall" in t.last("refused"), t.last("refused")


def test_a_pawn_shows_its_routes_and_walks_one_step_by_step():
    s, t = started(rolls=[3])
    t.act(s, "throw")
    t.act(s, "take", blocks=[1, 2])
    t.pick(s, "b1-1")
    t.drop(s, grid_pose(1, (1, 0)))
    t.pick(s, "b2-1")
    t.drop(s, grid_pose(2, (2, 0)))
    t.act(s, "select-pawn")
    dests = s.view()["selected"]["destinations"]
    assert [(d["cell"], d["level"]) for d in dests] == [([1, 0], 1), ([2, 0], 2)]
    assert dests[1]["route"] == [[0, 0, 0], [1, 0, 1], [2, 0, 2]]
    effects = s.act("move-pawn", {"cell": [2, 0], "level": 2}, t)
    walk = next(e for e in effects if isinstance(e, Walk))
    assert walk.piece == "pawn-red" and len(walk.poses) == 2
    assert walk.poses[-1][2] > walk.poses[0][2] > t.poses["pawn-red"][2]  # up a level each step
    t.play(effects)
    assert s.view()["players"][0]["level"] == 2 and s.view()["selected"] is None
    t.act(s, "move-pawn", cell=[5, 5], level=1)
    assert "cannot reach field [5, 5]" in t.last("refused")


def test_a_collapse_ends_the_game_the_culprit_loses_the_highest_pawn_before_it_wins():
    s, t = started(rolls=[3, 4], players=("red", "blue", "green"))
    t.act(s, "throw")
    t.act(s, "take", blocks=[1, 2])
    t.pick(s, "b1-1")
    t.drop(s, grid_pose(1, (1, 0)))
    t.act(s, "move-pawn", cell=[1, 0], level=1)  # red on level 1
    t.act(s, "end-turn")
    t.act(s, "throw")  # blue: 4
    t.act(s, "take", blocks=[4])
    t.pick(s, "b4-1")
    t.drop(s, grid_pose(4, (5, 5)))
    t.play(s.knocked(["b1-1"], "blue", t))  # blue's hand swept red's post away
    assert s.over and s.view()["outcome"] == {"reason": "collapse", "winners": ["red"], "loser": "blue"}
    assert "blue caused it and loses: red wins" in t.last("win")
    assert not t.pick(s, "b5-1") and "over" in t.last("refused")
    t.act(s, "throw")
    assert "over" in t.last("refused")


def test_a_pawn_knocked_off_alone_goes_back_to_its_spot():
    s, t = started(rolls=[1])
    t.act(s, "throw")
    t.pick(s, "b1-1")
    t.drop(s, grid_pose(1, (1, 0)))
    t.act(s, "move-pawn", cell=[1, 0], level=1)
    spot = t.poses["pawn-red"]
    t.poses["pawn-red"] = (0.3, 0.3, 0.0, 0, 0, 0, 1)
    t.play(s.knocked(["pawn-red"], "red", t))
    assert not s.over and t.poses["pawn-red"] == pytest.approx(spot)


def test_a_whole_seeded_game_climbs_to_level_10_and_replays_the_same():
    s, steps = staircase_game(table(), seed=7)
    assert s.over and s.view()["outcome"] == {"reason": "level 10", "winners": ["red"], "loser": None}
    assert s.view()["players"][0]["level"] == 10 and s.state.turn == 11
    again, steps2 = staircase_game(table(), seed=7)
    assert steps2 == steps and again.to_json() == s.to_json()
    json.dumps(s.to_json())
    json.dumps(s.view())
    assert [e.kind for e in s.journal][-1] == "game_over"


def test_bad_requests_are_errors_not_refusals():
    with pytest.raises(PlayError, match="pawns are"):
        TaloSession(("red", "purple"), np.random.default_rng(0), statics_judge)
    with pytest.raises(PlayError, match="variant"):
        TaloSession(("red",), np.random.default_rng(0), statics_judge, variant="moon")
    s, t = started()
    with pytest.raises(PlayError, match="not an action of talo"):
        s.act("swap", {}, t)


def test_a_blockaded_pawn_may_restart_on_a_free_start_field():
    s, t = started(rolls=[6, 1, 2])
    t.act(s, "throw")
    t.act(s, "take", blocks=[3, 3])
    for piece, cell in (("b3-1", (1, 0)), ("b3-2", (0, 1))):  # red walls itself in: two columns of 3
        t.pick(s, piece)
        assert t.drop(s, grid_pose(3, cell)), t.last()
    t.act(s, "restart", cell=[0, 5])
    assert "not now" in t.last("refused")
    t.act(s, "end-turn")
    t.act(s, "throw")
    t.act(s, "take", blocks=[1])
    t.act(s, "end-turn")
    assert s.view()["blocked"] and [0, 5] in s.view()["free_starts"] and [0, 0] not in s.view()["free_starts"]
    assert "blockaded" in t.last("turn")
    t.act(s, "restart", cell=[0, 9])  # blue's field
    assert "not a free start field" in t.last("refused")
    t.act(s, "restart", cell=[0, 5])
    assert s.view()["players"][0]["cell"] == [0, 5] and "starts again on [0, 5]" in t.last()
    assert t.poses["pawn-red"][:2] == pytest.approx(grid_pose(1, (0, 5))[:2])
    t.act(s, "restart", cell=[0, 6])
    assert "not blockaded" in t.last("refused")


def test_the_island_board_keeps_blocks_off_the_water_at_level_0():
    s, t = TaloSession(("red",), _Loaded([4]), statics_judge, variant="island"), table()
    t.act(s, "start", cell=[4, 4])
    assert "not a start field" in t.last("refused")
    t.act(s, "start", cell=[0, 0])
    t.act(s, "throw")
    t.act(s, "take", blocks=[4])
    assert t.pick(s, "b4-1") and not t.drop(s, grid_pose(4, (3, 0), 0, "y"))
    assert "water" in t.last("refused")


def test_a_player_may_end_the_turn_without_taking_the_throws_blocks():
    s, t = started(rolls=[5])
    t.act(s, "throw")
    t.act(s, "end-turn")
    assert s.current == "blue" and s.view()["stock"] == {n: 11 - n for n in range(1, 11)}
