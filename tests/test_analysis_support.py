"""The support graph: what rests on what, side contacts, structures, foundations and heights."""

from __future__ import annotations

import pytest

from sim.analysis import TABLE, support_graph
from sim.contact import BOARD
from sim.scene import from_dict
from tests.test_contact_interfaces import leaning_plank


def _talo(*pieces):
    return from_dict({"format": "towerlab-scene/1", "game": "talo", "pieces": list(pieces)})


def _block(id_, length, cell, layer, axis):
    return {"id": id_, "kind": "talo.block", "length": length, "cell": list(cell), "layer": layer, "axis": axis}


@pytest.fixture(scope="module")
def bridge():
    """Two posts, a beam across them, a cube beside a post, a pawn on the beam, a block on the table."""
    return support_graph(_talo(
        _block("post1", 2, (2, 4), 0, "z"),
        _block("post2", 2, (6, 4), 0, "z"),
        _block("beam", 5, (2, 4), 2, "x"),
        _block("cube", 1, (3, 4), 0, "z"),
        {"id": "pawn", "kind": "talo.pawn", "color": "red", "cell": [4, 4], "layer": 3},
        _block("lone", 3, (0, 0), 0, "y"),
        {"id": "away", "kind": "talo.block", "length": 1, "pos": [150, 0, -6 + 10]},
    ))


def test_rests_on_and_carries(bridge):
    assert bridge.rests_on("beam") == ["post1", "post2"]
    assert bridge.rests_on("post1") == [BOARD]
    assert bridge.rests_on("pawn") == ["beam"]
    assert bridge.carries("beam") == ["pawn"]
    assert bridge.carries("post2") == ["beam"]
    assert bridge.carries("pawn") == []
    assert set(bridge.carries(BOARD)) == {"post1", "post2", "cube", "lone"}


def test_side_contacts_are_touching_but_not_resting(bridge):
    assert bridge.touching("cube") == [BOARD, "post1"]
    assert bridge.side_contacts("cube") == ["post1"]
    assert "cube" in bridge.side_contacts("post1")
    assert bridge.side_contacts("beam") == []


def test_structures_group_every_contact_and_exclude_the_board(bridge):
    groups = bridge.structures()
    assert groups == [frozenset({"post1", "post2", "beam", "cube", "pawn"}), frozenset({"lone"}),
                      frozenset({"away"})]
    assert bridge.structure_of("pawn") == groups[0]
    assert bridge.foundation(groups[0]) == {BOARD}


def test_pieces_beside_the_board_stand_on_the_table(bridge):
    assert bridge.rests_on("away") == [TABLE]
    assert not bridge.on_board("away")
    assert bridge.on_board("post1") and not bridge.on_board("beam")
    assert bridge.foundation({"away"}) == {TABLE}
    assert bridge.carries(TABLE) == ["away"]


def test_heights_above_the_board(bridge):
    assert bridge.bottom("beam") == pytest.approx(0.04)
    assert bridge.top("beam") == pytest.approx(0.06)
    assert bridge.top("pawn") == pytest.approx(0.06 + 0.032)
    assert bridge.bottom("away") == pytest.approx(-0.006)


def test_fixed_pieces_are_foundations_not_members():
    g = support_graph(from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": [
        {"id": "shelf", "kind": "box", "size": [100, 100, 20], "pos": [0, 0, 110], "fixed": True},
        {"id": "a", "kind": "box", "size": [20, 20, 20], "pos": [-30, 0, 130]},
        {"id": "b", "kind": "box", "size": [20, 20, 20], "pos": [30, 0, 130]},
        {"id": "c", "kind": "box", "size": [20, 20, 20], "pos": [-30, 0, 150]},
    ]}))
    assert g.structures() == [frozenset({"a", "c"}), frozenset({"b"})]
    assert g.foundation({"a", "c"}) == {"shelf"}
    assert g.rests_on("shelf") == []  # a fixed piece in mid-air rests on nothing, and needs not
    with pytest.raises(KeyError):
        g.structure_of("shelf")


def test_aleaning_plank_rests_on_the_floor_and_a_box_edge_and_a_wall_is_a_side_contact():
    g = support_graph(from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": [
        {"id": "box", "kind": "box", "size": [40, 60, 60], "pos": [20, 0, 30]},
        leaning_plank(),
        {"id": "wall", "kind": "box", "size": [20, 60, 100], "pos": [50, 0, 50]},
    ]}))
    assert g.rests_on("plank") == [BOARD, "box"]
    assert g.touching("box") == [BOARD, "plank", "wall"]
    assert g.side_contacts("wall") == ["box"]


def test_unknown_ids_are_key_errors(bridge):
    with pytest.raises(KeyError):
        bridge.rests_on("nobody")
