"""Contact interfaces: face overlaps, edge and corner contacts, the board and the table, any orientation."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from sim.contact import BOARD, find_interfaces, is_table_contact, part_faces
from sim.pieces import shape
from sim.scene import from_dict


def _scene(*pieces, game="free", **top):
    return from_dict({"format": "towerlab-scene/1", "game": game, "pieces": list(pieces), **top})


def _pair(interfaces, a, b):
    found = [f for f in interfaces if {f.a, f.b} == {a, b}]
    assert len(found) == 1, found
    return found[0]


def _signed_area(f):
    """Area of an interface polygon from its vertices, positive when counter-clockwise about its normal."""
    p = f.polygon
    return 0.5 * float(np.dot(np.cross(p, np.roll(p, -1, axis=0)).sum(axis=0), f.normal))


def test_a_box_on_a_box_touches_over_their_overlap_with_the_normal_up():
    s = _scene({"id": "low", "kind": "box", "size": [100, 40, 20], "pos": [0, 0, 10]},
               {"id": "high", "kind": "box", "size": [60, 40, 20], "pos": [50, 10, 30]})
    f = _pair(find_interfaces(s), "low", "high")
    assert (f.a, f.b) == ("low", "high")
    np.testing.assert_allclose(f.normal, [0, 0, 1], atol=1e-12)
    assert f.area == pytest.approx(0.030 * 0.030)  # x 20..50, y -10..20 mm
    assert _signed_area(f) == pytest.approx(f.area)
    np.testing.assert_allclose(f.polygon[:, 2], 0.02, atol=1e-12)


def test_every_piece_on_the_endless_table_rests_on_the_board():
    s = _scene({"id": "a", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10]},
               {"id": "b", "kind": "cylinder", "radius": 10, "height": 30, "pos": [500, 500, 15]})
    found = find_interfaces(s)
    assert [(f.a, f.b) for f in found] == [(BOARD, "a"), (BOARD, "b")]
    assert found[1].area == pytest.approx(np.pi * 0.01 ** 2, rel=1e-9)  # exact-area tessellation


def test_the_board_slab_clips_a_piece_overhanging_its_edge_and_the_table_carries_pieces_beside_it():
    s = _scene({"id": "half", "kind": "talo.block", "length": 2, "pos": [100, 0, 10]},
               {"id": "beside", "kind": "talo.block", "length": 1, "pos": [150, 0, -6 + 10]}, game="talo")
    found = find_interfaces(s)
    half = _pair(found, BOARD, "half")
    assert half.area == pytest.approx(0.02 * 0.02)  # only the part over the 200 mm board
    assert not is_table_contact(s, half)
    beside = _pair(found, BOARD, "beside")
    assert is_table_contact(s, beside)
    np.testing.assert_allclose(beside.polygon[:, 2], -0.006, atol=1e-12)


def test_side_by_side_blocks_touch_with_a_horizontal_normal():
    s = _scene({"id": "a", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10]},
               {"id": "b", "kind": "box", "size": [20, 20, 40], "pos": [20, 5, 20]})
    f = _pair(find_interfaces(s), "a", "b")
    np.testing.assert_allclose(np.abs(f.normal), [1, 0, 0], atol=1e-12)
    assert f.area == pytest.approx(0.015 * 0.02)


def test_faces_meeting_only_along_their_rims_give_no_interface():
    # b stands on c, right beside a: b's bottom meets a's top only along a line
    s = _scene({"id": "a", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10]},
               {"id": "c", "kind": "box", "size": [20, 20, 20], "pos": [20, 0, 10]},
               {"id": "b", "kind": "box", "size": [20, 20, 20], "pos": [20, 20, 30]})
    pairs = {frozenset((f.a, f.b)) for f in find_interfaces(s)}
    assert frozenset(("a", "b")) not in pairs
    assert frozenset(("c", "b")) not in pairs  # c's top and b's bottom only share an edge too
    assert frozenset(("a", "c")) in pairs


def test_a_block_leaning_on_its_edge_touches_along_a_segment():
    angle = np.radians(30)
    low = 20 * np.sin(angle) + 10 * np.cos(angle)  # its lowest edge's depth below its centre (mm)
    s = _scene({"id": "e", "kind": "box", "size": [40, 20, 20], "pos": [0, 0, low], "rot": [0, 30, 0]})
    f = _pair(find_interfaces(s), BOARD, "e")
    assert f.area == 0.0 and len(f.polygon) == 2
    assert np.linalg.norm(f.polygon[1] - f.polygon[0]) == pytest.approx(0.02)
    np.testing.assert_allclose(f.polygon[:, 2], 0.0, atol=1e-12)


def test_a_cube_on_its_corner_touches_at_a_point():
    rot = Rotation.from_euler("xyz", [np.degrees(np.arctan(1 / np.sqrt(2))), 45, 0], degrees=True)
    low = -(shape("box", size=(20, 20, 20)).vertices @ rot.as_matrix().T)[:, 2].min()
    s = _scene({"id": "c", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, low * 1000], "quat": list(rot.as_quat())})
    f = _pair(find_interfaces(s), BOARD, "c")
    assert len(f.polygon) == 1 and f.area == 0.0


def test_a_plank_leaning_on_a_boxs_top_edge_touches_it_along_that_edge_and_the_floor_along_its_own():
    s = _scene({"id": "box", "kind": "box", "size": [40, 60, 60], "pos": [20, 0, 30]}, leaning_plank())
    found = find_interfaces(s)
    f = _pair(found, "box", "plank")
    assert len(f.polygon) == 2  # the box's edge, where it lies under the plank's face
    np.testing.assert_allclose(f.polygon[:, [0, 2]], [[0, 0.06], [0, 0.06]], atol=1e-9)
    assert np.linalg.norm(f.polygon[1] - f.polygon[0]) == pytest.approx(0.03)
    floor = _pair(found, BOARD, "plank")
    np.testing.assert_allclose(floor.polygon[:, [0, 2]], [[-0.1, 0], [-0.1, 0]], atol=1e-9)


def test_gaps_and_overlaps_within_tolerance_touch_and_beyond_do_not():
    def gap(z_mm):
        return _scene({"id": "a", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10]},
                      {"id": "b", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 30 + z_mm]})
    assert len(find_interfaces(gap(0.04))) == 2
    assert len(find_interfaces(gap(-0.15))) == 2
    assert len(find_interfaces(gap(0.2))) == 1
    assert len(find_interfaces(gap(-1.0))) == 1
    assert len(find_interfaces(gap(0.2), gap=3e-4)) == 2


def test_poses_override_the_scenes_own():
    s = _scene({"id": "a", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10]},
               {"id": "b", "kind": "box", "size": [20, 20, 20], "pos": [100, 0, 10]})
    poses = s.poses()
    poses[1, :3] = [0, 0, 0.03]
    assert {(f.a, f.b) for f in find_interfaces(s, poses)} == {(BOARD, "a"), ("a", "b")}
    assert {(f.a, f.b) for f in find_interfaces(s, {"b": poses[1]})} == {(BOARD, "a"), ("a", "b")}


def test_thin_walled_babylon_towers_touch_along_their_walls():
    s = _scene({"id": "t1", "kind": "babylon.tower", "pos": [0, 0, 10]},
               {"id": "t2", "kind": "babylon.tower", "pos": [0, 0, 30]}, game="babylon")
    between = [f for f in find_interfaces(s) if {f.a, f.b} == {"t1", "t2"}]
    assert between and all(f.a == "t1" and f.normal[2] > 0.999 for f in between)
    # the upper tower's wall ring (25² - 22² mm²) less its 10 mm arched opening in the 1.5 mm wall
    assert sum(f.area for f in between) == pytest.approx((25 * 25 - 22 * 22 - 10 * 1.5) * 1e-6, rel=1e-6)


def test_part_faces_are_counter_clockwise_polygons_on_their_planes():
    for part in shape("tohuwabohu.arch").parts:
        faces = part_faces(part)
        for n, d, poly in zip(faces.normals, faces.offsets, faces.polygons):
            np.testing.assert_allclose(poly @ n, d, atol=1e-12)
            area = 0.5 * np.dot(np.cross(poly, np.roll(poly, -1, axis=0)).sum(axis=0), n)
            assert area > 0


@settings(max_examples=25, deadline=None)
@given(q=st.tuples(*[st.floats(-1, 1)] * 4).filter(lambda q: np.linalg.norm(q) > 0.1),
       shift=st.tuples(*[st.floats(-0.5, 0.5)] * 3))
def test_interfaces_turn_and_move_with_the_pieces(q, shift):
    """Two boxes face to face, in any orientation and place (no board under them)."""
    rot = Rotation.from_quat(q)
    base = [np.array([0, 0, 0.01]), np.array([0.015, 0.005, 0.03])]
    sizes = [[40, 30, 20], [30, 30, 20]]
    pieces = [{"id": f"p{i}", "kind": "box", "size": sz, "pos": list((rot.apply(b) + shift) * 1000 + [0, 0, 2000]),
               "quat": list(rot.as_quat())} for i, (b, sz) in enumerate(zip(base, sizes))]
    f = _pair(find_interfaces(_scene(*pieces)), "p0", "p1")
    assert f.area == pytest.approx(0.02 * 0.025, rel=1e-6)  # x 0..20, y -5..20 mm (both within the 30 mm)
    assert abs(np.dot(f.normal, rot.apply([0, 0, 1]))) == pytest.approx(1.0)
    assert f.normal[2] >= -1e-3  # oriented so that b rests on a
    assert _signed_area(f) == pytest.approx(f.area, rel=1e-6)


def leaning_plank():
    """A 10 mm plank from the floor at x = -100 mm up over the top edge (x = 0, z = 60 mm) of a box.

    Its underside lies on the floor along its lower edge and on the box's top edge, 20 mm short of its end.
    """
    angle = np.arctan2(60, 100)
    along = np.array([np.cos(angle), 0, np.sin(angle)])
    up = np.array([-np.sin(angle), 0, np.cos(angle)])
    length = np.hypot(100, 60) + 20
    centre = np.array([-100.0, 0, 0]) + along * length / 2 + up * 5
    return {"id": "plank", "kind": "box", "size": [length, 30, 10], "pos": list(centre),
            "rot": [0, -np.degrees(angle), 0]}


def _ridged_block(rise_mm: float) -> dict:
    """A fixed 120 x 60 x 40 mm block whose top folds along its middle (x = 0), raised there by ``rise_mm``."""
    corners = [[x, y, z] for x in (-60.0, 60.0) for y in (-30.0, 30.0) for z in (0.0, 40.0)]
    ridge = [[0.0, y, 40.0 + rise_mm] for y in (-30.0, 30.0)]
    return {"id": "ridge", "kind": "hull", "vertices": corners + ridge, "pos": [0, 0, 20.0 + rise_mm / 2],
            "fixed": True}


def test_a_block_on_a_top_folded_within_the_gap_touches_both_halves_each_an_interface():
    # folded by 10 µm: ten times the precision, a fifth of the gap. The box lies on both halves; keeping one
    # interface per pair of parts kept half its footprint, and the statics saw it turn over the fold.
    rise = 0.01
    s = _scene(_ridged_block(rise), {"id": "box", "kind": "box", "size": [100, 50, 20],
                                     "pos": [0, 0, 40.0 + rise + 10.0]})
    on = [f for f in find_interfaces(s) if {f.a, f.b} == {"ridge", "box"}]
    assert len(on) == 2 and {f.part_a for f in on} == {0} and {f.part_b for f in on} == {0}
    assert sum(f.area for f in on) == pytest.approx(100e-3 * 50e-3, rel=1e-3)
    assert all(f.normal[2] > 0.999 for f in on)
    from sim.statics import analyze

    # on its whole footprint it slides (μ = 0.5) long before it turns over; on half of it, it balanced on the fold
    assert analyze(s).margin_g == pytest.approx(0.5, rel=1e-2)


def test_one_contact_seen_from_both_faces_is_one_interface():
    # a 20 mm cube turned by 1.6e-3 rad (beyond the angle that makes two faces face each other) on a post as
    # wide: each one's corners lie within the gap of the other's face, so the contact is found from both
    # faces, and kept once
    s = _scene({"id": "post", "kind": "box", "size": [20, 20, 40], "pos": [0, 0, 20], "fixed": True},
               {"id": "cube", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 50.0], "rot": [0, 0.09, 0]})
    on = [f for f in find_interfaces(s) if {f.a, f.b} == {"post", "cube"}]
    assert len(on) == 1 and on[0].area == pytest.approx(400e-6, rel=1e-3)


def test_a_joint_both_voussoirs_write_to_the_micrometre_is_clipped_whole_by_either_guard(monkeypatch):
    # two voussoirs' copies of one rounded joint, each placed with its own pose, differ in the last bits; GEOS
    # 3.14's floating overlay clipped one by the other to two points and the joint was lost. Snapping the
    # shared corners onto one another, and (without it) clipping such a result again on a picometre grid,
    # each keep every joint
    import importlib

    from sim.cases.arches import Arch, arch_scene, critical_ratio
    from sim.cases.rewrite import rewritten

    clip_module = importlib.import_module("sim.contact.clip")
    arch = Arch(5)
    scene = rewritten(arch_scene(replace(arch, ratio=1.01 * critical_ratio(arch)), 90.0, (-40.0, 300.0, 0.0)),
                      decimals=3, turn=Rotation.from_euler("z", 23.0, degrees=True))
    joints = [(f.a, f.b) for f in find_interfaces(scene)]
    assert len(joints) == 8 and len(set(joints)) == 8
    with monkeypatch.context() as m:  # the snapping alone
        m.setattr(clip_module, "_clip_again", lambda *args: None)
        assert [(f.a, f.b) for f in find_interfaces(scene)] == joints
    monkeypatch.setattr(clip_module, "_snapped", lambda cands, rows: [cands[i].touch for i in rows])
    assert [(f.a, f.b) for f in find_interfaces(scene)] == joints  # the clipping again alone
