"""Pieces inside each other: the separating-axis depth against closed forms and a linear program, one policy."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.spatial.transform import Rotation

from sim.cli import main
from sim.scene import find_overlaps, from_dict, load_scene, refuse_overlaps
from sim.tol import tol
from tests.helpers import box_record, free_scene, scene_files

CUBE = (20, 20, 20)


def depths(*pieces, board=None) -> dict:
    data = {"format": "towerlab-scene/1", "game": "free", "pieces": list(pieces)}
    if board:
        data["board"] = board
    return {(o.a, o.b): o.depth * 1000 for o in find_overlaps(from_dict(data))}


def test_axis_aligned_boxes_interpenetrate_by_their_least_overlap():
    # 20 mm cubes 15 mm apart along x and 5 along y overlap 5 mm along x, 15 along y, 20 along z
    got = depths(box_record("a", CUBE, (0, 0, 10)), box_record("b", CUBE, (15, 5, 10)))
    assert got == {("a", "b"): pytest.approx(5.0)}


@pytest.mark.parametrize("gap_mm, overlaps", [(0.0, False), (-0.1, False), (-0.3, True), (0.5, False)])
def test_touching_and_tolerance(gap_mm, overlaps):
    side = depths(box_record("a", CUBE, (0, 0, 10)), box_record("b", CUBE, (20 + gap_mm, 0, 10)))
    on_top = depths(box_record("a", CUBE, (0, 0, 10)), box_record("b", CUBE, (3, 4, 30 + gap_mm)))
    assert bool(side) == overlaps and bool(on_top) == overlaps
    if overlaps:
        assert side[("a", "b")] == pytest.approx(-gap_mm) and on_top[("a", "b")] == pytest.approx(-gap_mm)


def test_a_turned_cube_s_edge_pressed_into_a_face():
    # turned 45° about z, the cube's vertical edge reaches 10√2 mm from its centre; 22 mm from
    # the other cube's centre it lies 10√2 - 12 mm inside that cube's face at x = 10
    got = depths(box_record("a", CUBE, (0, 0, 10)), box_record("b", CUBE, (22, 0, 10), rot=[0, 0, 45]))
    assert got == {("a", "b"): pytest.approx(10 * np.sqrt(2) - 12, abs=1e-9)}


def test_hollow_is_hollow_a_box_inside_a_babylon_tower_is_not_inside_its_walls():
    tower = {"id": "t", "kind": "babylon.tower", "pos": [0, 0, 10]}  # 25 x 25 x 20, walls 1.5 mm
    inside = box_record("in", (5, 5, 5), (0, 0, 10))
    through = box_record("wall", (5, 5, 5), (12.5, 0, 15))  # x 10..15 across the +x wall (x 11..12.5)
    got = depths(tower, inside, through)
    assert list(got) == [("t", "wall")] and got[("t", "wall")] == pytest.approx(2.5, abs=1e-9)  # out by +x


def _halfspaces(size, rot, pos):
    r = Rotation.from_euler("xyz", rot, degrees=True).as_matrix()
    normals = np.vstack([r.T, -r.T])  # rows: ±each box axis
    half = np.concatenate([np.asarray(size) / 2] * 2)
    return normals, half + normals @ np.asarray(pos)


def _common_slack(a, b) -> float:
    """The largest t such that some point lies at least t inside both boxes' faces (mm; < 0: apart)."""
    na, oa = _halfspaces(*a)
    nb, ob = _halfspaces(*b)
    normals, offsets = np.vstack([na, nb]), np.concatenate([oa, ob])
    # maximise t: normals · x + t <= offsets
    res = linprog(c=[0, 0, 0, -1], A_ub=np.column_stack([normals, np.ones(len(normals))]), b_ub=offsets,
                  bounds=[(None, None)] * 3 + [(-1e3, 1e3)], method="highs")
    assert res.status == 0
    return -res.fun


def test_the_depth_agrees_with_a_linear_program_on_random_turned_boxes():
    """A ball of radius t inside both boxes means they must move 2t apart (depth >= 2t); no common
    interior point (t < 0) means no depth at all."""
    rng = np.random.default_rng(7)
    checked = {"apart": 0, "inside": 0}
    for _ in range(300):
        a = (rng.uniform(5, 40, 3), rng.uniform(-180, 180, 3), np.array([0.0, 0.0, 500.0]))
        b = (rng.uniform(5, 40, 3), rng.uniform(-180, 180, 3), np.array([0, 0, 500.0]) + rng.uniform(-35, 35, 3))
        t = _common_slack(a, b)
        got = depths(box_record("a", a[0], a[2], rot=list(a[1])), box_record("b", b[0], b[2], rot=list(b[1])))
        if t < 0:
            assert not got, (a, b, t)
            checked["apart"] += 1
        elif 2 * t > tol.overlap * 1000:
            assert got[("a", "b")] >= 2 * t - 1e-6, (a, b, t)
            checked["inside"] += 1
    assert min(checked.values()) > 50  # both sides of the question were asked often


def test_a_piece_wholly_below_the_board_says_so():
    got = find_overlaps(from_dict({"format": "towerlab-scene/1", "game": "talo", "pieces": [
        {"id": "deep", "kind": "talo.block", "length": 2, "pos": [0, 0, -70]},
        {"id": "sunk", "kind": "talo.block", "length": 2, "pos": [0, 50, 5]},
        {"id": "beside", "kind": "talo.block", "length": 2, "pos": [300, 0, 0]},
        {"id": "under", "kind": "talo.block", "length": 2, "pos": [300, 0, -20]},
        {"id": "ok", "kind": "talo.block", "length": 2, "pos": [300, 50, 4]}]}))  # on the table, 6 mm down
    assert [o.describe() for o in got] == ["deep lies below the board top", "sunk reaches 5.00 mm into the board",
                                          "beside reaches 4.00 mm into the table", "under lies below the table top"]
    on_table = find_overlaps(free_scene(box_record("low", CUBE, (0, 0, -15))))
    assert [o.describe() for o in on_table] == ["low lies below the table top"]


def test_many_overlaps_are_named_up_to_three():
    scene = free_scene(*(box_record(f"c{i}", CUBE, (0, 0, 10)) for i in range(50)))
    with pytest.raises(Exception, match=r"pieces\[1\]: overlapping pieces: c0 and c1 \(20.00 mm deep\), "
                                        r"c0 and c2 .*, c0 and c3 .*; and more$"):
        refuse_overlaps(scene)


@pytest.mark.parametrize("path", scene_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_shipped_scene_has_pieces_inside_each_other(path):
    assert find_overlaps(load_scene(path)) == []


# --- one policy for every command ----------------------------------------------------------

OVERLAPPING = {
    "free": {"format": "towerlab-scene/1", "game": "free", "pieces": [
        box_record("a", CUBE, (0, 0, 10)), box_record("b", CUBE, (10, 0, 10))]},
    "talo": {"format": "towerlab-scene/1", "game": "talo", "players": ["red"], "pieces": [
        {"id": "a", "kind": "talo.block", "length": 3, "cell": [0, 0], "layer": 0, "axis": "x"},
        {"id": "b", "kind": "talo.block", "length": 3, "cell": [2, 0], "layer": 0, "axis": "y"},
        {"id": "p", "kind": "talo.pawn", "color": "red", "cell": [5, 5], "layer": 0}]},
    "tohuwabohu": {"format": "towerlab-scene/1", "game": "tohuwabohu", "pieces": [
        {"id": "a", "kind": "tohuwabohu.brick", "size": "small", "color": "red", "pos": [0, 0, 10]},
        {"id": "b", "kind": "tohuwabohu.brick", "size": "small", "color": "red", "pos": [0, 5, 10]}]},
    "babylon": {"format": "towerlab-scene/1", "game": "babylon", "players": ["red", "blue"], "pieces": [
        {"id": "a", "kind": "babylon.tower", "pos": [0, 0, 10], "owner": "red"},
        {"id": "b", "kind": "babylon.tower", "pos": [10, 0, 10], "owner": "blue"}]},
}

COMMANDS = {
    "validate": ("free", ["validate", "{scene}"]),
    "render": ("free", ["render", "{scene}", "-o", "{scene}.png", "--size", "64x64"]),
    "talo-check": ("talo", ["talo", "check", "{scene}"]),
    "talo-check-no-physics": ("talo", ["talo", "check", "{scene}", "--no-physics"]),
    "talo-moves": ("talo", ["talo", "moves", "{scene}", "--pawn", "red"]),
    "tohuwabohu-check": ("tohuwabohu", ["tohuwabohu", "check", "{scene}"]),
    "babylon-score": ("babylon", ["babylon", "score", "{scene}", "--no-physics"]),
    "babylon-check-turn": ("babylon", ["babylon", "check-turn", "{scene}", "{scene}", "--player", "red",
                                       "--no-physics"]),
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_refuses_pieces_inside_each_other_the_same_way(name, tmp_path, capsys):
    game, args = COMMANDS[name]
    path = tmp_path / f"{game}.json"
    path.write_text(json.dumps(OVERLAPPING[game]))
    code = main([a.format(scene=path) for a in args])
    out, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1, err
    assert f"{path}: pieces[1]: overlapping pieces: a and b (" in err and "Traceback" not in out + err


def test_validate_json_reports_the_overlap(tmp_path, capsys):
    path = tmp_path / "o.json"
    path.write_text(json.dumps(OVERLAPPING["free"]))
    assert main(["validate", "--json", str(path)]) == 2
    (report,) = json.loads(capsys.readouterr().out)
    assert report["valid"] is False and "overlapping pieces: a and b (10.00 mm deep)" in report["error"]
