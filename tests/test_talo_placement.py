"""Talo building rules: grid, no diagonals, protrusion and water at level 0, level 10, support, stock, balance."""

from sim.games.talo import GridBlock, GridPawn, Layout, Verdict, check_layout, layout_of, talo_board
from sim.games.talo.placement import placement_violations
from sim.scene import from_dict

GREEN = talo_board("talo-green")
ISLAND = talo_board("talo-island")


def B(bid, n, cell, layer, axis):
    return GridBlock(bid, n, cell, layer, axis)


def rules(blocks, board=GREEN, pawns=()):
    return {v.rule for v in check_layout(Layout(board, tuple(blocks), tuple(pawns)))}


def refusals(before, new, board=GREEN, verdict=None, pawns=()):
    return placement_violations(Layout(board, tuple(before), tuple(pawns)), list(new), verdict)


def scene(*pieces, board="talo-green"):
    return from_dict({"format": "towerlab-scene/1", "game": "talo", "board": board, "pieces": list(pieces)})


def test_blocks_on_the_board_may_not_stick_out_of_the_grid():
    assert rules([B("a", 3, (8, 0), 0, "x")]) == {"protrusion"}
    assert rules([B("a", 3, (7, 0), 0, "x")]) == set()


def test_from_level_1_up_blocks_may_stick_out():
    base = B("base", 1, (9, 0), 0, "z")
    assert rules([base, B("a", 3, (8, 0), 1, "x")]) == set()


def test_nothing_on_water_at_level_0_on_the_island_board():
    assert rules([B("a", 2, (2, 0), 0, "x")], ISLAND) == {"water"}  # (3, 0) is water
    assert rules([B("a", 3, (0, 0), 0, "x")], ISLAND) == set()  # the corner island
    assert rules([B("a", 2, (4, 4), 0, "y")], ISLAND) == set()  # the middle island


def test_water_may_be_overbuilt_from_level_1():
    piers = [B("l", 1, (2, 0), 0, "z"), B("r", 1, (7, 0), 0, "z")]
    assert rules([*piers, B("span", 6, (2, 0), 1, "x")], ISLAND) == set()
    sticking_out = [B("pier", 1, (9, 0), 0, "z"), B("out", 3, (8, 0), 1, "x")]  # reaches field (10, 0)
    assert rules([*piers, *sticking_out], ISLAND) == set()


def test_nothing_above_level_10():
    tower = [B("t1", 10, (0, 0), 0, "z")]
    assert rules(tower) == set()
    assert "height" in rules([B("t", 9, (0, 0), 0, "z"), B("top", 2, (0, 0), 9, "z")])
    assert "height" not in rules([B("t", 9, (0, 0), 0, "z"), B("top", 2, (0, 0), 9, "x")])


def test_overlap_and_support():
    assert rules([B("a", 3, (0, 0), 0, "x"), B("b", 3, (2, 0), 0, "y")]) == {"overlap"}
    assert rules([B("a", 3, (0, 0), 2, "x")]) == {"support"}


def test_more_blocks_than_the_set_has():
    ones = [B(f"c{k}", 1, (k, 0), 0, "z") for k in range(10)]
    assert rules(ones) == set()
    assert rules(ones + [B("c10", 1, (0, 1), 0, "z")]) == {"stock"}


def test_a_placement_is_blamed_only_for_what_it_breaks():
    before = [B("a", 3, (8, 0), 0, "x")]  # already sticking out
    assert refusals(before, [B("b", 1, (0, 0), 0, "z")]) == []
    got = refusals(before, [B("b", 2, (0, 0), 0, "z"), B("c", 2, (0, 0), 0, "x")])
    assert [v.rule for v in got] == ["overlap"]


def test_a_block_may_not_fill_a_pawns_room():
    pawn = GridPawn("pawn-red", "red", (3, 3), 0)
    got = refusals([], [B("b", 3, (1, 3), 1, "x")], pawns=[pawn])
    assert {v.rule for v in got} == {"pawn", "support"}
    assert any("red pawn" in v.reason for v in got)


def test_the_balance_verdict_refuses_with_the_fallen_pieces():
    before = [B("post", 1, (4, 4), 0, "z")]
    four = B("four", 4, (2, 4), 1, "x")  # centred on a 1: its middle is over the post's edge
    got = refusals(before, [four], verdict=Verdict(False, 0.0, frozenset({"four"})))
    assert [(v.rule, v.pieces) for v in got] == [("balance", ("four",))]
    assert refusals(before, [four], verdict=Verdict(True, 0.3)) == []


def test_grid_shorthand_and_poses_land_on_the_same_fields():
    s = scene({"id": "a", "kind": "talo.block", "length": 4, "cell": [2, 3], "layer": 1, "axis": "y"},
              {"id": "b", "kind": "talo.block", "length": 4, "pos": [-50, 1.5, 30], "rot": [0, 0, 90]},
              {"id": "p", "kind": "talo.pawn", "color": "red", "cell": [5, 6], "layer": 2})
    lay = layout_of(s)
    assert lay.block("a") == GridBlock("a", 4, (2, 3), 1, "y")
    assert lay.block("b") == GridBlock("b", 4, (2, 3), 1, "y")  # 1.5 mm off: within the tolerance
    assert lay.pawn("red") == GridPawn("p", "red", (5, 6), 2)


def test_off_grid_diagonal_and_tilted_blocks_are_named():
    s = scene({"id": "off", "kind": "talo.block", "length": 2, "pos": [-80, -90 + 8, 10]},
              {"id": "diag", "kind": "talo.block", "length": 3, "pos": [0, 0, 10], "rot": [0, 0, 45]},
              {"id": "lean", "kind": "talo.block", "length": 3, "pos": [50, 50, 30], "rot": [0, 30, 0]},
              {"id": "cube", "kind": "talo.block", "length": 1, "pos": [-50, 50, 10], "rot": [0, 0, 20]},
              {"id": "down", "kind": "talo.pawn", "color": "red", "pos": [70, -70, 7], "rot": [90, 0, 0]})
    got = {v.pieces[0]: v.rule for v in layout_of(s).problems}
    assert got == {"off": "grid", "diag": "diagonal", "lean": "grid", "cube": "diagonal", "down": "pawn"}


def test_standing_and_lying_blocks_snap_with_their_axis():
    s = scene({"id": "up", "kind": "talo.block", "length": 3, "cell": [1, 1], "layer": 0, "axis": "z"},
              {"id": "flipped", "kind": "talo.block", "length": 3, "pos": [-30, -50, 10], "rot": [180, 0, 180]})
    lay = layout_of(s)
    assert lay.block("up").voxels() == ((1, 1, 0), (1, 1, 1), (1, 1, 2))
    assert lay.block("flipped") == GridBlock("flipped", 3, (2, 2), 0, "x")


def test_pawn_rules_in_a_scene():
    lay = Layout(ISLAND, (B("a", 3, (0, 0), 0, "x"),),
                 (GridPawn("w", "red", (5, 0), 0), GridPawn("f", "blue", (1, 1), 3),
                  GridPawn("x", "pink", (0, 0), 1), GridPawn("y", "orange", (0, 0), 1)))
    got = [(v.rule, v.pieces) for v in check_layout(lay)]
    assert ("pawn", ("w",)) in got  # on water
    assert ("pawn", ("f",)) in got  # floats
    assert ("pawn", ("x", "y")) in got  # two on one spot
    assert len(got) == 3


def test_the_verdict_is_read_from_a_physics_check_result():
    from types import SimpleNamespace as NS

    fell = NS(stable=False, margin_g=0.0, pieces={"a": NS(knocked_down=True), "b": {"knocked_down": False}})
    assert Verdict.from_check(fell) == Verdict(False, 0.0, frozenset({"a"}))
    stands = NS(stable=True, margin_g=0.25, pieces={"a": NS(knocked_down=True)})
    assert Verdict.from_check(stands) == Verdict(True, 0.25, frozenset())  # standing: nothing fell
