"""Where everyone builds at once, each player with hands of their own: the pure sessions judge a pick and a drop for
the player whose hand it is (Babylon's fast game, Tohuwabohu's professional one); the games of turns refuse anyone
else's."""

import numpy as np
from play_table import StillTable

from sim.games.babylon import construct as c
from sim.games.play import session as play
from sim.games.play.babylon_fast import FastSession
from sim.games.play.tohuwabohu import TohuwabohuSession
from sim.games.setup import setup

PLAYERS = ("red", "blue", "green")
SCENE = setup("babylon", PLAYERS, mode="fast")
SW, SE, NORTH = (-150.0, -80.0), (150.0, -80.0), (0.0, 150.0)  # (mm) red and blue's area, green and red's,
# blue and green's


def _tower(who: str, k: int = 1) -> str:
    return f"{who}-tower-{k}"


def _at(piece: str, xy) -> tuple:
    probe = c.tower(piece, *xy)
    return (*probe.pos, *probe.quat)


def test_babylon_s_fast_game_judges_each_pick_and_drop_for_the_player_whose_hand_it_is():
    s, t = FastSession(PLAYERS), StillTable(SCENE, [p.id for p in SCENE.pieces])
    assert s.seat == "red" and s.simultaneous
    # red's and blue's hands carry at once; red's hands are "at work" for the hot seat, blue's are blue's own
    assert t.pick(s, _tower("red"), "red")
    assert t.pick(s, _tower("blue"), "blue", player="blue")
    assert not t.pick(s, _tower("green"), "blue-2", player="blue")  # green's piece in blue's hand
    assert s.journal[-1].kind == "refused" and dict(s.journal[-1].data) == {
        "rule": "not-yours", "player": "blue",
        "reason": "green-tower-1 belongs to green; blue's hands are at work"}  # no hot seat's Tab to press
    # blue sets down in red and green's area while red carries: refused for blue, by the area rule
    assert not t.drop(s, _at(_tower("blue"), SE), "blue")
    refused = dict(s.journal[-1].data)
    assert refused["rule"] == "area" and refused["player"] == "blue"
    assert "blue's construction areas" in refused["reason"]
    assert t.hands == {"red": _tower("red")}  # red's carry goes on
    # the same spot is red's: placed for red; blue's own area takes blue's tower
    assert t.drop(s, _at(_tower("red"), SE), "red")
    assert t.pick(s, _tower("blue"), "blue", player="blue") and t.drop(s, _at(_tower("blue"), NORTH), "blue")
    placed = [dict(e.data) for e in s.journal if e.kind == "placed"]
    assert placed == [{"player": "red", "pieces": [_tower("red")]}, {"player": "blue", "pieces": [_tower("blue")]}]
    assert s.parts == {_tower("red"): "red", _tower("blue"): "blue"}
    assert s.seat == "red"  # nobody was seated: the hands were each their own player's


def test_a_player_done_or_out_of_the_round_has_only_their_own_hands_emptied():
    s, t = FastSession(PLAYERS), StillTable(SCENE, [p.id for p in SCENE.pieces])
    assert t.pick(s, _tower("red"), "red") and t.pick(s, _tower("blue"), "blue", player="blue")
    t.act(s, "done", player="blue")
    assert t.hands == {"red": _tower("red")}  # blue's piece went back, red's is still carried
    assert not t.pick(s, _tower("blue", 2), "blue", player="blue")
    assert dict(s.journal[-1].data)["rule"] == "done" and dict(s.journal[-1].data)["player"] == "blue"


def test_a_game_of_turns_refuses_a_pick_or_a_drop_of_anyone_but_the_player_whose_turn_it_is():
    s = TohuwabohuSession(("red", "blue"), np.random.default_rng(3), "basic")
    table = StillTable(setup("tohuwabohu", ("red", "blue")), [])
    piece = table.scene0.pieces[0].id
    assert not s.simultaneous
    ok, effects = s.pick(piece, table, "blue")
    assert not ok and dict(s.journal[-1].data) == {"rule": "turn", "reason": "it is red's turn, not blue's",
                                                   "player": "blue"}
    assert any(isinstance(e, play.Say) and e.kind == "refused" for e in effects)
    assert s.pick(piece, table, "red")[0] and s.pick(piece, table)[0]  # its own turn, named or not


def test_tohuwabohu_s_professional_game_lets_every_player_pick_and_blames_a_collapse_on_whose_action_it_was():
    s = TohuwabohuSession(("red", "blue"), np.random.default_rng(3), "pro")
    table = StillTable(setup("tohuwabohu", ("red", "blue")), [])
    piece = table.scene0.pieces[0].id
    assert s.simultaneous and s.seat == "red"
    assert s.pick(piece, table, "blue")[0]
    effects = s.knocked((piece,), "blue", table)
    assert s.collapse_by == "blue" and isinstance(effects[0], play.EmptyHands)  # everyone stops for the choice
