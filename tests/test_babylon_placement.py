"""Babylon placement rules: every wrong placement is refused with its reason, right ones pass."""

from __future__ import annotations

import pytest

from sim.games.babylon import read_layout
from sim.games.babylon.construct import babylon_scene, bridge, noble, nobles_on, tower
from sim.games.babylon.placement import congruent_bridges, noble_violations, part_violations
from sim.geometry.transforms import euler_to_quat
from sim.scene import Piece

PLAYERS = ("red", "blue", "green")
GATE = (tower("g1", 0, 0), tower("g2", 50, 0), bridge("gate", 25, 0, 1))  # a bridge on two towers


def rules(*pieces, check=None, players=PLAYERS):
    lay = read_layout(babylon_scene(pieces, players))
    ids = check or [p.id for p in pieces]
    return [v.rule for v in part_violations(lay, ids) + congruent_bridges(lay, ids)
            + noble_violations(lay, ids, len(players))]


def test_a_correct_building_breaks_no_rule():
    t = tower("top", 50, 0, 2)
    assert rules(*GATE, tower("c", 25, 0, 2), t, bridge("cross", 50, 25, 3, along="y"),
                 tower("far", 50, 50, 0), tower("far1", 50, 50, 1), tower("far2", 50, 50, 2)) == []


@pytest.mark.parametrize("x", [-25, 0, 25])
def test_towers_stand_on_a_bridge_at_its_centre_or_ends(x):
    assert rules(*GATE, tower("t", 25 + x, 0, 2)) == []


@pytest.mark.parametrize("x", [-12.5, 12.5, 5])
def test_a_tower_between_a_bridges_spots_is_refused(x):
    assert rules(*GATE, tower("t", 25 + x, 0, 2), check=["t"]) == ["bridge-spot"]


def test_a_bridge_end_on_a_bridges_centre_is_allowed():
    # a bridge across the gate: its south end on the gate's centre, its north end on a column
    column = (tower("c0", 25, 50, 0), tower("c1", 25, 50, 1))
    assert rules(*GATE, *column, bridge("x", 25, 25, 2, along="y")) == []


def test_a_bridge_end_off_a_bridges_spots_is_refused():
    column = (tower("c0", 37.5, 50, 0), tower("c1", 37.5, 50, 1))
    assert rules(*GATE, *column, bridge("x", 37.5, 25, 2, along="y"), check=["x"]) == ["bridge-spot"]


def test_a_bridges_arch_on_a_tower_is_refused():
    assert rules(tower("a", 0, 0), tower("m", 25, 0), tower("b", 50, 0), bridge("x", 25, 0, 1),
                 check=["x"]) == ["arch-on-piece"]


def test_a_bridges_arch_on_another_bridges_centre_is_refused():
    column = (tower("c0", 25, 25, 0), tower("c1", 25, 25, 1))
    posts = (tower("p0", 25, -25, 0), tower("p1", 25, -25, 1))
    # crosswise over the gate with its middle on the gate's centre spot
    got = rules(*GATE, *column, *posts, bridge("x", 25, 0, 2, along="y"), check=["x"])
    assert "arch-on-piece" in got


def test_a_bridge_directly_and_congruently_above_another_is_refused():
    pieces = (*GATE, tower("u1", 0, 0, 2), tower("u2", 50, 0, 2), bridge("upper", 25, 0, 3))
    assert rules(*pieces, check=["upper"]) == ["congruent-bridges"]
    turned = (*GATE, tower("u1", 0, 0, 2), tower("u2", 50, 0, 2), tower("u3", 0, 50, 0), tower("u4", 0, 50, 1),
              tower("u5", 0, 50, 2), bridge("upper", 0, 25, 3, along="y"))
    assert rules(*turned, check=["upper"]) == []


def test_a_tower_off_a_tower_top_is_refused():
    assert rules(tower("a", 0, 0), tower("b", 6, 0, 1), check=["b"]) == ["tower-top"]


def test_a_part_turned_off_a_right_angle_is_refused():
    skew = Piece("s", "babylon.tower", {}, (0.0, 0.0, 0.03), tuple(euler_to_quat((0, 0, 30))))
    assert rules(tower("a", 0, 0), skew, check=["s"]) == ["square"]


def test_a_toppled_part_is_refused():
    lying = Piece("l", "babylon.tower", {}, (0.0, 0.0, 0.0125), tuple(euler_to_quat((90, 0, 0))))
    assert rules(lying) == ["upright"]


def test_nothing_stands_on_a_noble():
    t = tower("t", 0, 0)
    n = noble("n", t, "large", "red", (4.0, 0.0))  # its head clear of the slit in the top above
    # the hollow tower over the noble, its deck (1.5 thick) on the noble's head
    on_top = Piece("x", "babylon.tower", {}, (0.0, 0.0, (20 + 28 + 1.5 - 10) / 1000))
    assert rules(t, n, on_top, check=["x"]) == ["on-noble"]


def test_nobles_stand_only_on_towers():
    on_bridge = noble("n", GATE[2], "small", "red")
    assert rules(*GATE, on_bridge, check=["n"]) == ["noble-on-tower"]
    on_table = Piece("m", "babylon.noble", {"size": "small", "color": "red"}, (0.2, 0.0, 0.009))
    assert rules(on_table) == ["noble-on-tower"]


def test_a_lying_noble_is_refused():
    t = tower("t", 0, 0)
    lying = Piece("n", "babylon.noble", {"size": "small", "color": "red"}, (0.0, 0.0, 0.02 + 0.0055),
                  tuple(euler_to_quat((90, 0, 0))))
    assert rules(t, lying, check=["n"]) == ["noble-on-tower"]


def test_a_large_noble_stands_alone():
    t = tower("t", 0, 0)
    pair = nobles_on(t, [("a", "large", "red"), ("b", "small", "blue")])
    assert rules(t, *pair, check=["a", "b"]) == ["noble-count"]


@pytest.mark.parametrize("players, n, ok", [
    (("red", "blue", "green"), 2, True),
    (("red", "blue", "green", "yellow"), 3, False),
    (("red", "blue", "green", "yellow", "white"), 3, True),
])
def test_small_nobles_per_tower(players, n, ok):
    t = tower("t", 0, 0)
    nobles = nobles_on(t, [(f"n{k}", "small", c) for k, c in enumerate(players[:n])])
    assert rules(t, *nobles, check=[m.id for m in nobles], players=players) == ([] if ok else ["noble-count"])


def test_two_nobles_of_one_colour_never_share_a_tower():
    t = tower("t", 0, 0)
    pair = nobles_on(t, [("a", "small", "red"), ("b", "small", "red")])
    assert rules(t, *pair, check=["a", "b"]) == ["noble-colour"]
