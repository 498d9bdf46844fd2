"""The viewer and the games: each game's set-up and supply, and snapping to each game's places."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from sim.contact import find_interfaces
from sim.games.setup import SetupError, setup
from sim.pieces import dimensions as dim
from sim.scene import Piece, from_dict
from sim.viewer.control.actions import action
from sim.viewer.control.controller import Controller
from sim.viewer.control.snapping import snap


def session(scene, **kw):
    return Controller(scene, threaded=False, **kw)


def do(c, name, **fields):
    c.apply(action(name, **fields))
    c.run_until_quiet()


def _no_overlaps(scene):
    # pieces touch only the board or table, face on face, and never one another
    for f in find_interfaces(scene):
        assert f.a == "board", (f.a, f.b)


def test_talo_setup_is_the_whole_box_sorted_by_length_beside_the_board():
    s = setup("talo")
    blocks = [p for p in s.pieces if p.kind == "talo.block"]
    assert Counter(p.params["length"] for p in blocks) == Counter(dim.TALO_COUNT)
    assert {p.params["color"] for p in s.pieces if p.kind == "talo.pawn"} == set(dim.TALO_PAWN_COLORS)
    half = s.board_info.shape.extent[0] / 2
    for p in blocks:  # on the table beside the board: short ones left, long ones right
        n = p.params["length"]
        assert (p.pos[0] < -half) if n <= 5 else (p.pos[0] > half)
        assert p.pos[2] == pytest.approx(-s.board_info.thickness + dim.TALO_UNIT / 2000)
    for side in (range(1, 6), range(6, 11)):  # each length a row of its own, in order of length
        rows = [np.mean([p.pos[1] for p in blocks if p.params["length"] == n]) for n in side]
        assert rows == sorted(rows)
    _no_overlaps(s)


def test_tohuwabohu_setup_spreads_the_box_around_the_area():
    s = setup("tohuwabohu", seed=3)
    counts = Counter((p.kind,) + tuple(sorted(p.params.values())) for p in s.pieces)
    assert sum(counts.values()) == sum(dim.TOHU_BOX.values())
    half = s.board_info.shape.extent[0] / 2
    for p in s.pieces:  # around the area, not on it: every corner outside it
        corners = p.shape.box_corners @ _matrix(p.quat).T + p.pos
        assert np.all(np.abs(corners[:, :2]).max(axis=1) > half)
    sides = Counter(int(np.round(np.degrees(np.arctan2(p.pos[1], p.pos[0])) / 90.0)) % 4 for p in s.pieces)
    assert max(sides.values()) - min(sides.values()) <= 2  # evenly round the four sides
    assert setup("tohuwabohu", seed=3) == s and setup("tohuwabohu", seed=4) != s
    _no_overlaps(s)


def _matrix(quat):
    from scipy.spatial.transform import Rotation

    return Rotation.from_quat(quat).as_matrix()


def test_babylon_setup_gives_each_player_their_pieces_in_front_of_their_seat():
    players = ("red", "white", "blue", "green")
    s = setup("babylon", players)
    assert s.players == players
    seating = s.board_info.seating
    for k, player in enumerate(players):
        mine = [p for p in s.pieces if p.owner == player or p.params.get("color") == player]
        kinds = Counter(p.kind for p in mine)
        assert kinds == {"babylon.tower": 21, "babylon.bridge": 5, "babylon.noble": 8}
        seat = np.radians(seating.seat_angle(k, len(players)))
        toward = np.array([np.cos(seat), np.sin(seat)])
        assert all(np.array(p.pos[:2]) @ toward > 0.2 for p in mine)  # in front of their seat
    _no_overlaps(s)
    with pytest.raises(SetupError, match="--players: Babylon takes 3 to 5 players, got 2"):
        setup("babylon", ("red", "blue"))
    with pytest.raises(SetupError, match="--game: expected one of"):
        setup("chess")


def test_babylon_pieces_snap_onto_tower_tops_and_bridge_spots():
    scene = from_dict({"format": "towerlab-scene/1", "game": "babylon", "players": ["red", "blue", "green"],
                       "pieces": [
                           {"id": "t1", "kind": "babylon.tower", "pos": [0, 0, 10], "owner": "red"},
                           {"id": "t2", "kind": "babylon.tower", "pos": [50, 0, 10], "owner": "red"},
                           {"id": "br", "kind": "babylon.bridge", "pos": [100, 100, 10], "rot": [0, 0, 90],
                            "owner": "red"}]})
    tower = Piece("new", "babylon.tower", {})
    s = snap(scene, tower, (0.006, -0.004), (0, 0, np.sin(0.2), np.cos(0.2)))  # near t1, turned a little
    np.testing.assert_allclose(s.xy, [0.0, 0.0], atol=1e-12)
    assert s.label == "top of t1"
    np.testing.assert_allclose(abs(s.quat[3]), 1.0, atol=1e-9)  # squared up with the tower under it
    s = snap(scene, tower, (0.103, 0.122), (0, 0, 0, 1))  # the bridge's far spot, 25 mm along its length
    np.testing.assert_allclose(s.xy, [0.1, 0.125], atol=1e-12)
    assert s.label == "right spot of br"
    bridge = scene.piece("br")
    s = snap(scene, bridge, (0.028, 0.003), (0, 0, 0, 1), skip={"br"})  # a bridge from t1 to t2
    np.testing.assert_allclose(s.xy, [0.025, 0.0], atol=1e-12)
    assert "t1" in s.label or "t2" in s.label
    far = snap(scene, tower, (0.2, -0.2), (0, 0, 0, 1))
    assert far.label is None and np.allclose(far.xy, [0.2, -0.2])


def test_tohuwabohu_figures_snap_to_the_figure_points_and_carry_there():
    scene = from_dict({"format": "towerlab-scene/1", "game": "tohuwabohu", "pieces": [
        {"id": "leg1", "kind": "tohuwabohu.brick", "size": "small", "color": "red", "pos": [-40, 0, 20],
         "rot": [0, 90, 0]},
        {"id": "leg2", "kind": "tohuwabohu.brick", "size": "small", "color": "red", "pos": [40, 0, 20],
         "rot": [0, 90, 0]},
        {"id": "plate", "kind": "tohuwabohu.level", "shape": "quad", "pos": [0, 0, 41.5]},
        {"id": "fig", "kind": "tohuwabohu.figure", "color": "blue", "pos": [0, -120, 11]}]})
    plate = scene.piece("plate")
    points = {a.color: np.array(a.position[:2]) for a in plate.shape.anchors if a.kind == "figure_point"}
    c = session(scene)
    do(c, "pick", piece="fig")
    aim = points["blue"] + [0.006, -0.005]
    do(c, "move-to", at=list(aim * 1000))
    carry = c.carries["right"]
    assert carry.snapped == "blue point of plate"
    np.testing.assert_allclose(carry.ghost[:2], points["blue"], atol=1e-12)
    do(c, "drop")
    p = c.world.pose("fig")
    np.testing.assert_allclose(p[:2], points["blue"], atol=5e-4)
    assert p[2] == pytest.approx(0.043 + 0.011, abs=5e-4)  # standing on the plate
    assert c.describe("fig")["rests_on"] == ["plate"]


def test_talo_pawn_snaps_to_a_field_centre_and_blocks_to_whole_fields():
    scene = from_dict({"format": "towerlab-scene/1", "game": "talo", "pieces": []})
    grid = scene.board_info.grid
    pawn = Piece("p", "talo.pawn", {"color": "red"})
    s = snap(scene, pawn, (0.013, 0.018), (0, 0, 0, 1))
    np.testing.assert_allclose(s.xy, grid.centre(*grid.field_of((0.013, 0.018))), atol=1e-12)
    four = Piece("b", "talo.block", {"length": 4})
    s = snap(scene, four, (-0.012, 0.013), (0, 0, np.sin(np.radians(40)), np.cos(np.radians(40))))  # turned 80°
    np.testing.assert_allclose(s.xy, [-0.01, 0.02], atol=1e-12)  # along y over fields (4, 4)..(4, 7)
    assert s.label == "field (4, 4)"
