"""Babylon buildings read from poses: cells, levels, uprightness, connected buildings, construction areas."""

from __future__ import annotations

import numpy as np
import pytest
from shapely.geometry import Polygon

from sim.games.babylon import BabylonError, players_of, read_layout
from sim.games.babylon.construct import babylon_scene, bridge, noble, nobles_on, tower
from sim.pieces import board
from sim.scene import Piece

PLAYERS = ("red", "blue", "green")


def layout(*pieces, players=PLAYERS):
    return read_layout(babylon_scene(pieces, players))


def test_bridge_cells_follow_its_turn():
    lay = layout(bridge("b", 100, 50, 0, along="y"))
    b = lay.parts["b"]
    assert np.allclose(b.cells * 1000, [(100, 25), (100, 50), (100, 75)])
    assert b.level == 0 and b.top_level == 1 and b.upright


def test_noble_level_counts_the_levels_beneath_it():
    t0, t1 = tower("t0", 0, 0, 0), tower("t1", 0, 0, 1)
    b = bridge("b", 25, 50, 0)
    t2 = tower("t2", 25, 50, 1)
    lay = layout(t0, t1, noble("n", t1, "small", "red"), b, t2, noble("m", t2, "large", "blue"))
    assert lay.nobles["n"].level == 2 and lay.tower_of("n") == "t1"
    assert lay.nobles["m"].level == 2 and lay.tower_of("m") == "t2"


def test_tower_orientation_is_where_its_opening_faces():
    lay = layout(*(tower(f"t{k}", 50 * k, 0, facing=f) for k, f in enumerate((0, 90, 180, 270))))
    assert [lay.parts[f"t{k}"].orientation for k in range(4)] == [0, 90, 180, 270]


def test_toppled_pieces_are_not_upright_and_stand_on_no_tower():
    t = tower("t", 0, 0, 0)
    lying = Piece("n", "babylon.noble", {"size": "small", "color": "red"}, (0.05, 0.0, 0.0055),
                  (0.7071068, 0.0, 0.0, 0.7071068))
    fallen = Piece("f", "babylon.tower", {}, (0.1, 0.0, 0.0125), (0.7071068, 0.0, 0.0, 0.7071068))
    lay = layout(t, lying, fallen)
    assert not lay.nobles["n"].upright and lay.tower_of("n") is None
    assert not lay.parts["f"].upright and lay.parts["t"].upright


def test_towers_side_by_side_are_two_buildings_until_a_bridge_joins_them():
    a, b = tower("a", 0, 0), tower("b", 25, 0)
    assert len(layout(a, b).buildings) == 2  # touching sides attach nothing: a push separates them
    c = tower("c", 50, 0)
    joined = layout(a, b, c, bridge("x", 25, 0, 1))
    assert joined.buildings == (frozenset("abcx"),)


def test_a_noble_belongs_to_the_building_it_stands_on():
    t, u = tower("t", 0, 0), tower("u", 100, 0)
    lay = layout(t, u, noble("n", t, "small", "red"), noble("m", u, "small", "blue"))
    assert lay.building_of("n") == frozenset({"t", "n"})
    assert lay.building_of("m") == frozenset({"u", "m"})


def test_set_aside_pieces_leave_the_building():
    t0 = tower("t0", 0, 0, 0)
    t1 = tower("t1", 0, 0, 1)
    lay = layout(t0, t1, noble("n", t1, "small", "red")).without(["t1"])
    assert "t1" not in lay.parts and lay.tower_of("n") is None
    assert frozenset({"n"}) in lay.buildings


def test_base_area_is_the_union_seen_from_above():
    lay = layout(tower("a", 0, 0), tower("b", 0, 0, 1), bridge("c", 25, 50))
    assert lay.base().area == pytest.approx(0.025 ** 2 + 3 * 0.025 ** 2)


def test_two_nobles_fit_on_a_tower_side_by_side():
    t = tower("t", 0, 0)
    lay = layout(t, *nobles_on(t, [("a", "small", "red"), ("b", "small", "blue")]))
    assert [n.id for n in lay.nobles_on("t")] == ["a", "b"]


@pytest.mark.parametrize("players, message", [
    (None, "players: required"),
    (("red", "blue"), "expected 3 to 5 players"),
    (("red", "blue", "pink"), "players[2]: expected a noble colour"),
])
def test_players_must_be_three_to_five_noble_colours(players, message):
    scene = babylon_scene([], players or ())
    if players is None:
        scene = scene.__class__("babylon", "babylon-table", ())
    with pytest.raises(BabylonError, match=message.replace("[", r"\[").replace("]", r"\]")):
        players_of(scene)


def test_a_noble_of_a_colour_that_does_not_play_is_refused():
    t = tower("t", 0, 0)
    with pytest.raises(BabylonError, match="not one of the players"):
        players_of(babylon_scene([t, noble("n", t, "small", "white")], PLAYERS))


def test_construction_areas_lie_between_neighbouring_seats():
    seating = board("babylon-table").seating
    areas = seating.areas(["red", "blue", "green", "yellow"])
    assert [a.players for a in areas] == [("red", "blue"), ("blue", "green"), ("green", "yellow"), ("yellow", "red")]
    # red sits at the edge at -y; clockwise from above its left-hand neighbour blue sits at -x
    assert areas[0].contains((-0.3, -0.3)) and not areas[0].contains((0.3, -0.3))
    assert areas[3].contains((0.3, -0.3))
    assert sum(Polygon(a.polygon).area for a in areas) == pytest.approx(0.9 ** 2)
    assert all(Polygon(a.polygon).exterior.is_ccw for a in areas)


def test_levels_survive_the_settling_sink_of_a_noble():
    t0, t1 = tower("t0", 0, 0, 0), tower("t1", 0, 0, 1)
    n = noble("n", t1, "small", "red")
    sunk = n.moved((n.pos[0], n.pos[1], n.pos[2] - 1e-4), n.quat)  # 0.1 mm into the top, as after settling
    lay = layout(t0, t1, sunk)
    assert lay.nobles["n"].level == 2 and lay.tower_of("n") == "t1"
