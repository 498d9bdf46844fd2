"""Tohuwabohu through the viewer's controller (offscreen, the live physics, the statics judging): order cards
fulfilled by hand, piece by piece, a turn that ends by time with a piece in hand, the professional variant's
collapse with its punishment, and a whole game to its winner."""

from __future__ import annotations

import numpy as np
import pytest
from play_tohuwabohu_plan import HandBuilder, card_pieces

from sim.viewer.control.controller import Controller
from sim.viewer.play.games import new_game
from sim.viewer.play.mode import Referee


def game(players=("ann", "bob"), variant=None, seed=3):
    g = new_game("tohuwabohu", players, variant, seed)
    referee = Referee(g)
    c = Controller(g.scene, threaded=False, supply=g.supply, plugins=[referee])
    return c, referee, HandBuilder(c, referee)


def events(referee, kind):
    return [dict(e.data) for e in referee.session.journal if e.kind == kind]


def test_a_card_fulfilled_by_hand_is_set_aside_and_the_next_revealed():
    c, referee, hands = game()
    s = referee.session
    card = hands.order("ann")
    assert card == "join-tri-tri" and referee.view()["players"][0]["open"][0]["id"] == card
    hands.play("ann", max_cards=1)
    assert events(referee, "card_fulfilled") == [{"player": "ann", "card": card}]
    view = referee.view()["players"][0]
    assert view["done"] == 1 and view["open"][0]["id"] != card and view["pile"] == 16
    assert not s.refusals() and not [m for m in c.messages if m.kind == "collapse"]
    built = {p.id for p in hands.built()}
    assert len(built) == len(card_pieces(card))  # built by hand, piece by piece, from around the area
    assert all(pid not in c.supply for pid in built)
    assert c.verdict(wait=True).stands
    assert any("ann fulfilled 'Triangle and triangle joined by an arch'" in m.text for m in c.messages)


def test_a_turn_ends_by_time_with_a_piece_in_hand_the_building_stays():
    c, referee, hands = game()
    s = referee.session
    first = card_pieces("join-tri-tri")[:2]
    for q in first:  # two pillars stand; then a third piece is carried when the time runs out
        p = next(p for p in c.scene().pieces if p.kind == q.kind and p.params == q.params and p.id in c.supply)
        hands.place(p, (*q.pos, *q.quat), "ann")
    standing = {p.id: c.world.pose(p.id).copy() for p in hands.built()}
    hands.run([{"action": "pick", "piece": "level-tri-1"}, {"action": "move-to", "at": [0, 0]}])
    assert s.seat == "ann" and c.hands
    hands.run([{"action": "wait", "seconds": round(s.state.time_left + 0.05, 3)}])
    assert s.seat == "bob" and c.player == "bob" and not c.hands  # the turn passed: the hand emptied
    assert "level-tri-1" in c.supply  # back where it was picked up
    home = c.scene0.piece("level-tri-1")
    assert np.allclose(c.world.pose("level-tri-1"), [*home.pos, *home.quat], atol=1e-6)
    assert c.mode == "build"  # the status line says no carry
    # a piece in a hand is never knocked down: the put-back is no event, no collapse, no culprit
    assert not [e for e in c.events if e.kind == "knocked_down"] and not events(referee, "knocked")
    assert not [m for m in c.messages if m.kind == "collapse"]
    assert all(np.allclose(c.world.pose(pid), pose, atol=1e-4) for pid, pose in standing.items())
    assert referee.view()["players"][1]["open"] and events(referee, "turn_changed")[-1] == {"player": "bob"}
    assert any("time is up: bob's turn" in m.text for m in c.messages)


def test_pro_a_collapse_through_the_viewer_then_the_culprit_is_punished():
    c, referee, hands = game(variant="pro")
    s = referee.session
    card = next(o["id"] for o in referee.view()["players"][0]["open"] if len(card_pieces(o["id"])) <= 9)
    hands.build(card, "ann")
    hands.run([{"action": "stop", "player": "ann"}, {"action": "wait", "seconds": 0.5}])
    assert events(referee, "card_fulfilled") == [{"player": "ann", "card": card}]
    assert referee.view()["players"][0]["done"] == 1
    top = hands.built()[0].id
    hands.run([{"action": "poke", "piece": top, "direction": [1, 0, 0], "speed": 1.0},
               {"action": "wait", "seconds": 1.5}])
    prompt = referee.view()["prompt"]
    assert prompt is not None and "caused by ann" in prompt["question"]
    clock = referee.view()["time_left"]
    hands.run([{"action": "wait", "seconds": 2.0}])
    assert referee.view()["time_left"] == clock  # the clock stands while they choose
    hands.run([{"action": "punish"}, {"action": "wait", "seconds": 0.5}])
    assert referee.view()["prompt"] is None and referee.view()["round"] == 2
    assert referee.view()["players"][0]["done"] == 0 and s.state.hand("ann").pile[-1] == card  # under the pile
    assert events(referee, "collapse_choice")[-1] == {"choice": "punish", "culprit": "ann", "card": card}
    assert hands.built() == [] and set(c.supply) == {p.id for p in c.scene().pieces}  # the area cleared
    assert referee.view()["time_left"] > clock  # a new round's clock


@pytest.mark.slow
def test_a_whole_game_built_by_hand_to_its_winner():
    """Four players; ann builds every order card of hers by hand, piece by piece (the area cleared between
    cards), within her 15-second turns; the others let their turns pass. Nine cards, then she wins."""
    c, referee, hands = game(("ann", "bob", "cy", "dee"))
    hands.play("ann")
    s = referee.session
    assert s.over and referee.view()["winner"] == "ann"
    fulfilled = events(referee, "card_fulfilled")
    assert len(fulfilled) == 9 and {f["player"] for f in fulfilled} == {"ann"}
    assert events(referee, "game_over") == [{"reason": "every order fulfilled", "winners": ["ann"], "loser": None}]
    assert not s.refusals()
    turns = events(referee, "turn_changed")
    assert [t["player"] for t in turns[:5]] == ["ann", "bob", "cy", "dee", "ann"]
