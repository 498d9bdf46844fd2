"""Babylon's fast game played on a table of still pieces: hot seat, placements judged by the fast game's rules,
knocked-down pieces (the pile, the minus points, out of the round), "stop", the round's score, three round wins."""

import json

import pytest
from play_table import StillTable

from sim.games.babylon import construct as c
from sim.games.babylon.fast import noble_reasons
from sim.games.play.babylon_fast import FastSession
from sim.games.play.session import PlayError
from sim.games.setup import setup

PLAYERS = ("red", "blue", "green")  # red at -y; red and blue share the south-west, green and red the south-east
SCENE = setup("babylon", PLAYERS, mode="fast")
SW, SE, NORTH = (-150.0, -80.0), (150.0, -80.0), (0.0, 150.0)  # (mm) an area of red and blue, green and red,
# blue and green


class Builder:
    """A fast game on a still table; puts a player's next supply piece where the construct helpers say (mm)."""

    def __init__(self, variant="fast"):
        self.s = FastSession(PLAYERS, variant)
        self.t = StillTable(SCENE, [p.id for p in SCENE.pieces])
        self.at = {}

    def seat(self, who):
        self.t.act(self.s, "seat", player=who)

    def piece(self, who, kind, size=None):
        return next(p.id for p in SCENE.pieces if p.id in self.t.supply and p.kind == f"babylon.{kind}"
                    and (p.owner == who or p.params.get("color") == who) and p.params.get("size", size) == size)

    def put(self, name, kind, *args, size=None, spot=(0.0, 0.0), **kw):
        """``name``: the test's name for it; a noble's ``args`` name the piece it stands on."""
        piece = self.piece(self.s.seat, kind, size)
        on = [self.at[args[0]], size, self.s.seat, spot] if kind == "noble" else args
        probe = getattr(c, kind)(piece, *on, **kw)
        if not self.t.place(self.s, piece, probe):
            return False
        self.at[name] = probe
        return True

    def rest(self):
        self.t.play(self.s.settled(self.t))

    def player(self, who):
        return next(p for p in self.s.view()["players"] if p["color"] == who)


def two_towers_each_shared(b: Builder):
    """Red's tower in each of red's areas; on the south-west one red's and blue's nobles, on the south-east one
    red's and green's: red scores 1 with each neighbour, blue and green 1 with red and 0 with each other."""
    assert b.put("sw", "tower", *SW) and b.put("se", "tower", *SE)
    assert b.put("r-sw", "noble", "sw", size="small", spot=(-6.2, 0)) and b.put("r-se", "noble", "se", size="small",
                                                                                 spot=(-6.2, 0))
    b.seat("blue")
    assert b.put("b-sw", "noble", "sw", size="small", spot=(6.2, 0))
    b.seat("green")
    assert b.put("g-se", "noble", "se", size="small", spot=(6.2, 0))


def test_hot_seat_a_player_uses_their_own_hands_and_pieces():
    b = Builder()
    assert b.s.seat == "red"
    assert not b.t.pick(b.s, "blue-tower-1") and "belongs to blue; red's hands are at work" in b.t.last("refused")
    b.t.pick(b.s, "red-tower-1")
    b.seat("blue")
    assert b.t.hands == {} and b.t.seat == "blue" and "blue's hands" in b.t.last()  # what red held went back
    assert b.t.pick(b.s, "blue-tower-1")
    with pytest.raises(PlayError, match="no player 'black'"):
        b.s.act("seat", {"player": "black"}, b.t)


def test_placements_are_judged_by_the_fast_games_rules_where_they_land():
    b = Builder()
    assert not b.put("far", "tower", *NORTH)  # blue and green's area
    assert "red-tower-1 stands outside red's construction areas (the two shared with blue and green)" \
        in b.t.last("refused")
    assert b.s.refusals()[-1]["rule"] == "area" and "red-tower-1" in b.t.supply
    assert b.put("sw", "tower", *SW)
    assert not b.put("off", "tower", SW[0] + 12, SW[1], 1)  # half over the tower's top
    assert "not squarely on the top of tower" in b.t.last("refused")
    assert not b.t.pick(b.s, b.at["sw"].id) and "is placed and stays" in b.t.last("refused")
    x, y, z = SCENE.piece("red-tower-9").pos  # still in red's supply
    assert b.t.pick(b.s, "red-tower-2") and not b.t.drop(b.s, (x, y, z + 0.02, 0, 0, 0, 1))
    assert "red-tower-2 stands neither on the table nor on a building (no preliminary constructions)" \
        in b.t.last("refused")
    noble = b.piece("red", "noble", "small")
    assert b.t.pick(b.s, noble) and not b.t.drop(b.s, (-0.15, -0.05, 0.009, 0, 0, 0, 1))  # on the bare table
    assert "stands on no tower or bridge" in b.t.last("refused")
    assert b.put("bridge", "bridge", SE[0], SE[1])
    assert b.put("on-bridge", "noble", "bridge", size="small")  # no placement rule keeps a noble off a bridge
    assert noble_reasons_of(b, b.at["on-bridge"].id) == ["does not stand upright on a tower"]  # it scores nothing
    assert [e.data["pieces"] for e in b.s.journal if e.kind == "placed"] == [
        [b.at["sw"].id], [b.at["bridge"].id], [b.at["on-bridge"].id]]


def noble_reasons_of(b, nid):
    from sim.games.babylon import read_layout

    return noble_reasons(read_layout(b.s.built(b.t)), nid)


def test_a_placed_noble_moves_aside_on_its_tower_and_a_small_one_leaves_a_large_ones_tower():
    b = Builder()
    assert b.put("sw", "tower", *SW) and b.put("se", "tower", *SE)
    assert b.put("n", "noble", "sw", size="small")
    n = b.at["n"].id
    assert b.t.pick(b.s, n) and b.t.drop(b.s, (*c.noble(n, b.at["sw"], "small", "red", (-6.2, 0)).pos, 0, 0, 0, 1))
    assert b.t.pick(b.s, n) and not b.t.drop(b.s, (*c.noble(n, b.at["se"], "small", "red").pos, 0, 0, 0, 1))
    assert "may only be moved aside on it" in b.t.last("refused")
    b.seat("blue")
    assert not b.t.pick(b.s, n) and "belongs to red" in b.t.last("refused")
    assert b.put("large", "noble", "sw", size="large", spot=(6.2, 0))  # beside red's small one
    b.seat("red")
    assert b.t.pick(b.s, n) and b.t.drop(b.s, (*c.noble(n, b.at["se"], "small", "red").pos, 0, 0, 0, 1))


def test_knocked_down_parts_go_to_the_pile_a_minus_point_each_and_another_players_noble_puts_a_player_out():
    b = Builder()
    assert b.put("sw", "tower", *SW) and b.put("sw2", "tower", *SW, 1) and b.put("se", "tower", *SE)
    assert b.put("r", "noble", "sw2", size="small", spot=(-6.2, 0))
    b.seat("blue")
    assert b.put("bn", "noble", "sw2", size="small", spot=(6.2, 0))
    b.rest()
    b.seat("green")
    low, top = b.at["sw"].id, b.at["sw2"].id
    b.t.poses[low] = (-0.1, -0.1, 0.0125, 0.7071, 0, 0, 0.7071)  # on its side: the physics says it fell
    b.t.play(b.s.knocked([low], "green", b.t))
    pile = {pid: b.t.poses[pid] for pid in (low, top)}
    assert all(p[2] < 0 and abs(p[0]) < 0.45 and p[1] < -0.45 for p in pile.values())  # off the table, behind red
    assert b.t.poses[b.at["se"].id][2] > 0  # what did not stand on it stays
    assert {b.at["r"].id, b.at["bn"].id} <= b.t.supply  # fallen nobles go back to their players
    assert f"knocked down {low}, {top}: -2 for green" in " ".join(t for _, t in b.t.said)
    assert "green knocked down another player's noble" in b.t.last("collapse")
    green = b.player("green")
    assert green["knocked"] == [low, top] and green["out"]
    assert not b.t.pick(b.s, "green-tower-1") and "out of round 1" in b.t.last("refused")
    b.seat("red")
    assert not b.t.pick(b.s, low) and "knocked down: it lies on the pile" in b.t.last("refused")
    knocked = [e.data for e in b.s.journal if e.kind == "knocked"][-1]
    assert knocked == {"player": "green", "pieces": [low, top, b.at["r"].id, b.at["bn"].id], "parts": [low, top],
                       "nobles_of_others": [b.at["r"].id, b.at["bn"].id]}
    b.t.act(b.s, "done")
    b.seat("blue")
    b.t.act(b.s, "done")  # green is out: nobody builds any further
    last = b.s.view()["last"]
    assert last["reason"] == "nobody can build any further" and last["scores"]["green"] is None
    assert last["score"]["players"]["green"]["knocked_penalty"] == -2
    assert last["winners"] == ["red"]  # 0 each; red has fewer pieces unplaced (the knocked-down ones were placed)


def test_stop_is_for_a_player_with_every_noble_placed_then_the_round_is_scored_by_the_four_conditions():
    b = Builder()
    two_towers_each_shared(b)
    b.seat("red")
    b.t.act(b.s, "stop")
    assert "red has placed 2 of 8 nobles:" in b.t.last("refused") and b.s.stopped is None
    for k in range(3):  # six towers more; red's other six nobles on them (two large)
        assert b.put(f"t{k}", "tower", SW[0] - 30 - 30 * k, SW[1] - 30)
        assert b.put(f"u{k}", "tower", SE[0] + 30 + 30 * k, SE[1] - 30)
    for k, (on, size) in enumerate([("t0", "large"), ("u0", "large"), ("t1", "small"), ("u1", "small"),
                                    ("t2", "small"), ("u2", "small")]):
        assert b.put(f"m{k}", "noble", on, size=size), b.t.last()
    b.rest()
    assert b.player("red")["nobles"] == 8 and "red placed every noble: Enter calls stop" in panel(b)
    b.seat("blue")
    b.t.act(b.s, "stop", player="blue")
    assert "blue has placed 1 of 8" in b.t.last("refused")
    b.t.act(b.s, "stop", player="red")
    last = b.s.view()["last"]
    assert last["reason"] == "red called stop (all nobles placed)"
    # red: 1 with each neighbour (its nobles alone on towers score nothing: condition 4); blue and green: 1 with
    # red, 0 with each other
    assert last["scores"] == {"red": 1, "blue": 0, "green": 0} and last["winners"] == ["red"]
    red = last["score"]["players"]["red"]
    assert red["areas"] == {"blue": 1, "green": 1}
    assert red["nobles"][b.at["m0"].id]["reason"] == "no noble of another colour stands on its building"
    assert not b.t.pick(b.s, "blue-tower-1") and "round 1 is over" in b.t.last("refused")
    assert [e.data for e in b.s.journal if e.kind == "round_ended"] == [
        {"round": 1, "reason": last["reason"], "winners": ["red"], "scores": last["scores"]}]
    b.t.act(b.s, "next-round")
    assert b.t.set_aside == {"red-large-2"} and b.s.round == 2 and b.t.poses["red-tower-1"] == b.t.homes["red-tower-1"]
    assert b.player("red")["to_place"] == 7 and b.player("red")["wins"] == 1
    assert "round 2 begins on a cleared table; set aside for the game: red-large-2" in b.t.last()


def panel(b):
    from sim.viewer.play.panels import panel_lines

    return "\n".join(panel_lines(b.s.view()))


def test_three_round_wins_win_the_game():
    b = Builder()
    for rnd in range(1, 4):
        b.seat("blue")  # blue places a tower and a noble on it; nobody scores: blue has fewest unplaced
        assert b.put(f"t{rnd}", "tower", *SW) and b.put(f"n{rnd}", "noble", f"t{rnd}", size="small")
        for who in PLAYERS:
            b.t.act(b.s, "done", player=who)
        assert b.s.view()["last"]["winners"] == ["blue"]
        if rnd < 3:
            b.t.act(b.s, "next-round")
    assert b.s.over and b.s.winners == ("blue",)
    assert b.t.set_aside == {"blue-large-2", "blue-large-1"}
    assert "blue wins the game (three rounds)" in b.t.last("win")
    over = [e.data for e in b.s.journal if e.kind == "game_over"]
    assert over == [{"reason": "three round wins", "winners": ["blue"], "loser": None}]
    assert "GAME OVER: blue won three rounds" in panel(b)
    json.dumps(b.s.to_json())


def test_the_expert_game_doubles_a_noble_on_a_building_of_one_orientation():
    b = Builder("fast-expert")
    two_towers_each_shared(b)
    b.seat("red")
    b.rest()
    assert b.player("red")["areas"] == {"blue": 2, "green": 2}  # each tower alone: one orientation


def test_bad_requests():
    with pytest.raises(PlayError, match="variant"):
        FastSession(PLAYERS, "blitz")
    with pytest.raises(PlayError, match="--players: expected 3 to 5 players, got 2"):
        FastSession(("red", "blue"))
    with pytest.raises(PlayError, match="each colour plays once"):
        FastSession(("red", "blue", "red"))
    b = Builder()
    b.t.act(b.s, "next-round")
    assert "round 1 is still on" in b.t.last("refused")


def test_a_noble_in_hand_when_its_tower_falls_stays_in_hand_and_is_placed_afresh():
    b = Builder()
    assert b.put("sw", "tower", *SW) and b.put("se", "tower", *SE) and b.put("n", "noble", "sw", size="small")
    b.rest()
    n, sw = b.at["n"].id, b.at["sw"].id
    assert b.t.pick(b.s, n)  # lifted: it may only be moved aside on its tower
    b.t.poses[sw] = (-0.1, -0.1, 0.0125, 0.7071, 0, 0, 0.7071)
    b.t.play(b.s.knocked([sw], "red", b.t))
    assert b.t.hands == {"right": n} and n not in b.t.supply
    assert b.player("red")["knocked"] == [sw] and not b.player("red")["out"]  # its own noble: no exclusion
    assert b.t.drop(b.s, (*c.noble(n, b.at["se"], "small", "red").pos, 0, 0, 0, 1))  # the tower it left is gone


def test_the_fast_game_is_set_up_with_its_own_allotment():
    five = ("red", "blue", "green", "yellow", "white")
    for mode, towers in (("fast", 15), ("tactical", 16)):  # the rulebook's tables differ with five players
        scene = setup("babylon", five, mode=mode)
        assert sum(1 for p in scene.pieces if p.owner == "white" and p.kind == "babylon.tower") == towers
