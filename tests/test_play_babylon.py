"""Babylon's tactical game played on a table: each piece judged as it is set down, the turn at its end, the live
count, the special move, knocked-down pieces put back, the majority table, the final score."""

import json

import pytest
from play_babylon_plan import witness_game
from play_table import StillTable

from sim.games.babylon import construct as c
from sim.games.babylon.scoring import score_tactical
from sim.games.babylon.tactical import TacticalState
from sim.games.play.babylon_tactical import TacticalSession
from sim.games.play.judge import statics_judge
from sim.games.play.session import PlayError
from sim.games.setup import setup

PLAYERS = ("red", "blue", "green")
SCENE = setup("babylon", PLAYERS)


class Builder:
    """Puts a player's next supply piece of a kind where the construct helpers say (mm, levels)."""

    def __init__(self):
        self.s = TacticalSession(PLAYERS)
        self.t = StillTable(SCENE, [p.id for p in SCENE.pieces], statics_judge)
        self.at = {}

    def next_piece(self, who, kind, size=None):
        return next(p.id for p in SCENE.pieces if p.id in self.t.supply and p.kind == f"babylon.{kind}"
                    and (p.owner == who or p.params.get("color") == who) and p.params.get("size", size) == size)

    def put(self, name, kind, *args, who=None, size=None, **kw):
        who = who or self.s.state.player
        piece = self.next_piece(who, kind, size)
        if kind == "noble":
            probe = c.noble(piece, self.at[args[0]], size, who, args[1] if len(args) > 1 else (0.0, 0.0))
        else:
            probe = getattr(c, kind)(piece, *args, **kw)
        ok = self.t.pick(self.s, piece) and self.t.drop(self.s, (*probe.pos, *probe.quat))
        if ok:
            self.at[name] = probe
        return ok

    def end(self):
        self.t.act(self.s, "end-turn")
        return self.t.last()


def first_round(b: Builder):
    """The three first turns: red's five low pieces, blue's and green's widening the base."""
    assert b.put("b-south", "bridge", 0, 0, 0) and b.put("b-north", "bridge", 0, 50, 0)
    assert b.put("b-west", "bridge", -25, 25, 1, along="y")
    assert b.put("t-south", "tower", 25, 0, 1) and b.put("t-north", "tower", 25, 50, 1)
    assert "blue's turn" in b.end()
    for name, x, y, lv in (("u-foot", 75, 0, 0), ("u-post", 75, 0, 1)):
        assert b.put(name, "tower", x, y, lv)
    assert b.put("u-bridge", "bridge", 50, 0, 2) and b.put("u-top", "tower", 75, 0, 3)
    assert "green's turn" in b.end()
    for name, x, y, lv in (("g-foot", 75, 50, 0), ("g-post", 75, 50, 1)):
        assert b.put(name, "tower", x, y, lv)
    assert b.put("g-bridge", "bridge", 50, 50, 2) and b.put("g-top", "tower", 75, 50, 3)
    assert "red's turn" in b.end(), b.t.said[-3:]


def test_the_first_round_refuses_nobles_and_a_short_turn_then_counts_live():
    b = Builder()
    assert not b.t.pick(b.s, "red-small-1") and "no nobles in the first round" in b.t.last("refused")
    assert not b.t.pick(b.s, "blue-tower-1") and "belongs to blue" in b.t.last("refused")
    assert b.put("b-south", "bridge", 0, 0, 0) and b.put("b-north", "bridge", 0, 50, 0)
    assert b.s.view()["count"] == "2 of 4-5" and "2 of 4-5" in b.t.last()
    assert b.s.view()["hands"]["red"]["bridges"] == 4  # the two set down are out of the hand
    b.end()
    assert "a turn places 4 or 5" in b.t.last("refused") and b.s.state.player == "red"
    assert b.put("b-west", "bridge", -25, 25, 1, along="y")
    assert not b.put("bad", "tower", 12, 0, 1)  # on a bridge, neither at an end nor in the middle
    assert "refused" in b.t.said[-1][0]
    assert b.put("t-south", "tower", 25, 0, 1) and b.put("t-north", "tower", 25, 50, 1)
    assert not b.t.pick(b.s, "red-tower-3") and "5 pieces are down" in b.t.last("refused")
    assert "blue's turn" in b.end()
    assert not b.t.pick(b.s, "red-tower-1") and "earlier turn and stays" in b.t.last("refused")
    assert b.s.view()["hands"]["red"] == {"towers": 25, "bridges": 3, "small": 6, "large": 2}


def test_an_illegal_turn_is_refused_with_its_reasons_and_taken_back():
    b = Builder()
    first_round(b)
    assert b.put("t-far", "tower", 300, 0, 0)  # on the table, far from the building
    assert b.put("n1", "noble", "u-top", (-6.2, 0), size="small") and b.put("n2", "noble", "g-top", size="large")
    assert b.put("t-far2", "tower", 300, 0, 1)
    b.end()
    assert "not connected" in b.t.last("refused") and "t-far" not in b.t.last("refused")
    assert b.s.state.player == "red" and b.s.refusals()[-1]["rule"] == "not-connected"
    b.t.act(b.s, "take-back")
    assert b.s.view()["placed"] == [] and {"red-tower-4", "red-small-1", "red-large-1"} <= b.t.supply


def red_and_blue_with_nobles(b: Builder):
    """Red's and blue's second turns: a tower on each free bridge spot, two nobles each on level 4."""
    assert b.put("r-t", "tower", 25, 0, 3)
    assert b.put("r1", "noble", "r-t", size="small") and b.put("r2", "noble", "u-top", (-6.2, 0), size="small")
    assert b.put("r3", "noble", "g-top", size="large")
    assert "blue's turn" in b.end(), b.t.said[-3:]
    assert b.put("b-t", "tower", 50, 0, 3) and b.put("b-t2", "tower", 25, 50, 3)
    assert b.put("n-b1", "noble", "u-top", (6.2, 0), size="small") and b.put("n-b2", "noble", "b-t", size="small")
    assert "green's turn" in b.end(), b.t.said[-3:]


def test_a_legal_turn_with_the_special_move_then_the_majority_table():
    b = Builder()
    first_round(b)
    red_and_blue_with_nobles(b)
    red_hi, blue_hi = b.at["r1"].id, b.at["n-b2"].id
    for name, x, y, lv in (("g1", 0, 0, 1), ("g2", 0, 50, 1), ("g3", -25, 25, 2), ("g4", 50, 50, 3)):
        assert b.put(name, "tower", x, y, lv), b.t.last()
    b.t.act(b.s, "swap-nobles", nobles=[red_hi, b.at["r3"].id])
    assert "one size" in b.t.last("refused")
    b.t.act(b.s, "swap-nobles", nobles=[red_hi, blue_hi])
    assert b.s.view()["special"] == ["swap", red_hi, blue_hi]
    assert b.t.poses[red_hi][:2] == pytest.approx(b.at["n-b2"].pos[:2])
    assert not b.t.pick(b.s, "green-small-1") and "special move was made" in b.t.last("refused")
    said = b.end()
    assert f"green placed 4 and swapped {red_hi} and {blue_hi}" in said and "red's turn" in said
    assert b.s.state.turns[-1].swapped == (red_hi, blue_hi)
    b.t.play(b.s.settled(b.t))
    level4 = next(r for r in b.s.view()["majority"] if r["level"] == 4)
    assert level4["counts"] == {"red": 3, "blue": 2} and level4["winner"] == "red" and level4["points"] == 4
    assert b.s.view()["totals"] == {"red": 4 - 3, "blue": -5, "green": -5}  # a point off for each bridge left


def test_a_special_move_that_puts_two_of_one_colour_on_a_tower_is_refused_at_the_end():
    b = Builder()
    first_round(b)
    red_and_blue_with_nobles(b)
    for name, x, y, lv in (("g1", 0, 0, 1), ("g2", 0, 50, 1), ("g3", -25, 25, 2), ("g4", 50, 50, 3)):
        assert b.put(name, "tower", x, y, lv)
    b.t.act(b.s, "swap-nobles", nobles=[b.at["r1"].id, b.at["n-b1"].id])  # red would stand twice on u-top
    b.end()
    assert "holds 2 red nobles" in b.t.last("refused") and b.s.refusals()[-1]["rule"] == "noble-colour"
    assert b.s.state.player == "green" and len(b.s.state.turns) == 5  # the turn goes on
    b.t.act(b.s, "take-back")  # the swap undone too
    assert b.t.poses[b.at["r1"].id][:2] == pytest.approx(b.at["r1"].pos[:2])


def test_knocked_down_pieces_are_put_back_as_they_were():
    b = Builder()
    first_round(b)
    assert b.put("r-t", "tower", 25, 0, 3)
    was = {pid: b.t.poses[pid] for pid in ("red-bridge-1", "red-tower-3")}
    for pid in was:
        b.t.poses[pid] = (0.3, 0.3, 0.01, 0, 0, 0, 1)
    b.t.play(b.s.knocked(list(was) + ["blue-tower-20"], "red", b.t))
    for pid, pose in was.items():
        assert b.t.poses[pid] == pytest.approx(pose)
    assert "put back as they were" in b.t.last("collapse")


def test_a_whole_game_from_the_set_up_to_the_final_score():
    t = StillTable(SCENE, [p.id for p in SCENE.pieces], statics_judge)
    s, steps = witness_game(t)
    assert s.over and s.view()["final"] is not None
    final = score_tactical(s.state.layout, PLAYERS)
    assert s.view()["final"] == final.to_json() and final.winners
    winner = final.winners[0]
    assert t.last("win") == f"{winner} wins"
    scores = [text for kind, text in t.said if kind == "score"][-3:]
    assert [x.split(":")[0] for x in scores] == list(PLAYERS)
    assert all("for bridges left" in x for x in scores) and any("not scoring" in x for x in scores)
    assert s.journal[-1].kind == "game_over" and s.journal[-1].data["winners"] == [winner]
    placed = [e.data["pieces"] for e in s.journal if e.kind == "placed"]
    assert len(placed) == len(s.state.turns) and placed[-1] == []  # the last turn placed none: the end
    assert all(len(turn.placed) in (4, 5) for turn in s.state.turns[:-1])


def test_bad_requests():
    with pytest.raises(PlayError, match="variant"):
        TacticalSession(PLAYERS, variant="blitz")
    with pytest.raises(PlayError, match="players"):
        TacticalSession(("red", "blue"))
    b = Builder()
    with pytest.raises(PlayError, match="two noble ids"):
        b.s.act("swap-nobles", {"nobles": "red-small-1"}, b.t)
    json.dumps(b.s.view())
    assert TacticalState.from_json(b.s.to_json()["state"]) == b.s.state
