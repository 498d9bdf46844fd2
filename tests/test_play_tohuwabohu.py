"""Tohuwabohu played on a table: the seeded deal, the turn timer passing the turn, the swap, a card fulfilled
the moment a legal structure stands (the statics judge), collapses, the winner; the professional variant."""

import json

import numpy as np
import pytest
from helpers import CARD_SCENES
from play_table import StillTable

from sim.games.play.judge import statics_judge
from sim.games.play.session import PlayError
from sim.games.play.tohuwabohu import TohuwabohuSession
from sim.games.setup import setup
from sim.games.tohuwabohu import physics_scene
from sim.scene import load_scene

SCENE = setup("tohuwabohu", seed=0)


def table():
    return StillTable(SCENE, [p.id for p in SCENE.pieces], lambda s: statics_judge(physics_scene(s)))


def build(t: StillTable, card: str) -> list[str]:
    """Put the card's example construction on the area with the table's own pieces; their ids."""
    used, ids = set(), []
    for q in load_scene(CARD_SCENES / f"{card}.json").pieces:
        p = next(p for p in SCENE.pieces if p.id not in used and p.kind == q.kind and p.params == q.params)
        used.add(p.id)
        ids.append(p.id)
        t.poses[p.id] = (*q.pos, *q.quat)
        t._supply.discard(p.id)
    return ids


def test_the_deal_is_seeded_and_the_first_card_is_face_up():
    a = TohuwabohuSession(("ann", "bob", "cy"), np.random.default_rng(5))
    b = TohuwabohuSession(("ann", "bob", "cy"), np.random.default_rng(5))
    assert a.to_json() == b.to_json()
    view = a.view()
    assert [p["pile"] + len(p["open"]) for p in view["players"]] == [12, 12, 12]  # 4 of each colour for three
    assert view["seat"] == "ann" and view["clock"] == "0:15" and len(view["players"][0]["open"]) == 1
    assert view["players"][1]["open"] == []  # only the active player's card is up
    json.dumps(view)


def test_the_turn_passes_when_the_time_runs_out_and_the_hands_empty():
    s, t = TohuwabohuSession(("ann", "bob"), np.random.default_rng(1)), table()
    t.pick(s, "arch-1")
    t.play(s.tick(10.0, t))
    assert s.seat == "ann" and s.view()["clock"] == "0:05" and t.hands == {"right": "arch-1"}
    t.play(s.tick(5.0, t))
    assert s.seat == "bob" and t.seat == "bob" and t.hands == {} and "time is up: bob's turn" in t.last("turn")
    assert s.view()["clock"] == "0:15" and s.view()["players"][1]["open"]
    assert [e.kind for e in s.journal].count("turn_changed") == 2


def test_the_advanced_variant_gives_ten_seconds():
    s, t = TohuwabohuSession(("ann", "bob"), np.random.default_rng(1), variant="advanced"), table()
    t.play(s.tick(9.9, t))
    assert s.seat == "ann"
    t.play(s.tick(0.2, t))
    assert s.seat == "bob"


def test_one_swap_a_turn():
    s, t = TohuwabohuSession(("ann", "bob"), np.random.default_rng(2)), table()
    first = s.view()["players"][0]["open"][0]["id"]
    t.act(s, "swap")
    second = s.view()["players"][0]["open"][0]["id"]
    assert second != first and "under the pile" in t.last()
    t.act(s, "swap")
    assert "already swapped" in t.last("refused")
    t.play(s.tick(15.0, t))
    t.act(s, "swap")
    assert s.view()["players"][1]["open"][0]["id"] != second and s.refusals()[0]["rule"] == "swap"


def test_a_card_is_fulfilled_the_moment_its_structure_stands_then_the_next_is_revealed():
    s, t = TohuwabohuSession(("ann", "bob"), np.random.default_rng(3)), table()
    card = s.view()["players"][0]["open"][0]["id"]
    t.play(s.settled(t))  # the empty area fulfils nothing
    assert s.view()["players"][0]["done"] == 0
    build(t, card)
    t.play(s.settled(t))
    view = s.view()["players"][0]
    assert view["done"] == 1 and view["open"][0]["id"] != card and "fulfilled" in t.last("score")
    assert any(e.kind == "card_fulfilled" and e.data["card"] == card for e in s.journal)


def test_a_collapse_costs_nothing_in_the_basic_game():
    s, t = TohuwabohuSession(("ann", "bob"), np.random.default_rng(3)), table()
    t.play(s.knocked(["level-quad-1"], "ann", t))
    assert "no penalty" in t.last("collapse") and not s.over


def test_the_last_card_fulfilled_wins():
    s, t = TohuwabohuSession(("ann", "bob"), np.random.default_rng(4)), table()
    for _ in range(18):  # 6 of each of the 3 colours for two: ann fulfils every one, built afresh each time
        card = s.view()["players"][0]["open"][0]["id"]
        t.poses, t._supply = dict(t.homes), {p.id for p in SCENE.pieces}
        build(t, card)
        t.play(s.settled(t))
        if s.over:
            break
    assert s.over and s.view()["winner"] == "ann" and "wins" in t.last("win")
    assert s.journal[-1].kind == "game_over"


def test_pro_everyone_builds_stop_checks_the_claim_and_a_removal_from_below_is_refused():
    s, t = TohuwabohuSession(("ann", "bob"), np.random.default_rng(6), variant="pro"), table()
    view = s.view()
    assert view["clock"] == "4:00" and [len(p["open"]) for p in view["players"]] == [3, 3]
    t.act(s, "swap")
    assert "no swap" in t.last("refused")
    card = view["players"][1]["open"][0]["id"]
    t.act(s, "seat", player="bob")
    assert s.seat == "bob" and t.seat == "bob"
    ids = build(t, card)
    t.act(s, "stop", player="ann")  # a false claim: still, every fulfilled open card is set aside
    assert "none of ann's open cards" in t.last("refused") and "set aside: bob" in t.last("refused")
    assert s.view()["players"][1]["done"] == 1 and s.view()["players"][0]["done"] == 0
    bottom = ids[0]  # the example's first piece stands lowest
    assert not t.pick(s, bottom) and "highest level" in t.last("refused")


def test_pro_a_collapse_asks_and_punishment_starts_a_new_round():
    s, t = TohuwabohuSession(("ann", "bob"), np.random.default_rng(6), variant="pro"), table()
    card = s.view()["players"][0]["open"][0]["id"]
    build(t, card)
    t.act(s, "stop", player="ann")
    assert s.view()["players"][0]["done"] == 1
    t.play(s.knocked(["arch-1"], "ann", t))
    assert s.view()["prompt"]["choices"][1] == ["Punish (X)", "punish"]
    clock = s.view()["time_left"]
    t.play(s.tick(30.0, t))
    assert s.view()["time_left"] == clock  # the clock stands while they choose
    assert not t.pick(s, "arch-2") and "interrupted" in t.last("refused")
    t.act(s, "punish")
    assert s.view()["players"][0]["done"] == 0 and s.view()["prompt"] is None and "round 2" in t.last("turn")
    assert t.poses == t.homes  # the area cleared


def test_bad_requests():
    with pytest.raises(PlayError, match="variant"):
        TohuwabohuSession(("ann", "bob"), np.random.default_rng(0), variant="speed")
    with pytest.raises(PlayError):
        TohuwabohuSession(("ann",), np.random.default_rng(0))
