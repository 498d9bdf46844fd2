"""Cameras, framing and the light's views: pure numpy, no Panda3D."""

from __future__ import annotations

import numpy as np
import pytest

from sim.render.camera import (
    CAMERAS,
    MARGIN,
    Camera,
    CameraError,
    fit_camera,
    framed_points,
    piece_corners,
    scene_camera,
    table_shadows,
    view_direction,
)
from sim.render.lightview import fit_light, top_view
from sim.render.looks import LIGHTING
from sim.scene import load_scene, loads
from tests.helpers import scene_files


def _scene(pieces: str, game: str = "free", board: str | None = None):
    b = f'"board": "{board}", ' if board else ""
    return loads(f'{{"format": "towerlab-scene/1", "game": "{game}", {b}"pieces": [{pieces}]}}')


TOWER = _scene('{"id": "t", "kind": "talo.block", "length": 10, "pos": [0, 0, 100], "rot": [0, 90, 0]},'
               '{"id": "w", "kind": "box", "size": [300, 20, 10], "pos": [120, 40, 5], "rot": [0, 0, 25]}')


def test_projection_of_the_target_is_the_image_centre_and_axes_point_the_right_way():
    cam = Camera((0.0, -1.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), (200, 100), fov_y=40.0)
    px = cam.project([[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.0, 0.1]])
    np.testing.assert_allclose(px[0], [100.0, 50.0])
    assert px[1, 0] > 100.0 and px[1, 1] == pytest.approx(50.0)  # +x is to the right
    assert px[2, 1] < 50.0  # +z is up, rows count down
    # a point at the top edge of the vertical field of view lands on row 0
    edge = np.tan(np.radians(20.0))
    assert cam.project([[0.0, 0.0, edge]])[0, 1] == pytest.approx(0.0, abs=1e-9)
    assert cam.fov_x == pytest.approx(np.degrees(2 * np.arctan(2 * np.tan(np.radians(20.0)))))


@pytest.mark.parametrize("name", CAMERAS)
@pytest.mark.parametrize("size", [(256, 256), (400, 150), (120, 480)])
def test_named_views_frame_every_piece_box_and_its_table_shadow_inside_the_margin(name, size):
    cam = scene_camera(TOWER, size, name)
    shadows = table_shadows(TOWER, LIGHTING.key_direction(cam.basis[2]))
    px = cam.project(np.vstack([piece_corners(TOWER), shadows]))
    w, h = size
    tol = 1e-6 * max(w, h)
    assert px[:, 0].min() >= MARGIN * w - tol and px[:, 0].max() <= (1 - MARGIN) * w + tol
    assert px[:, 1].min() >= MARGIN * h - tol and px[:, 1].max() <= (1 - MARGIN) * h + tol
    # tight: the points touch the margin on at least one axis, and are centred on both
    lo, hi = px.min(axis=0), px.max(axis=0)
    touches = [np.isclose(lo[0], MARGIN * w, atol=1e-6 * w), np.isclose(lo[1], MARGIN * h, atol=1e-6 * h)]
    assert any(touches)
    np.testing.assert_allclose((lo + hi) / 2, [w / 2, h / 2], atol=1e-6 * max(w, h))
    assert np.all(cam.to_camera(piece_corners(TOWER))[:, 2] > cam.near)


@pytest.mark.parametrize("path", scene_files(), ids=lambda p: p.relative_to(p.parents[1]).as_posix())
def test_iso_framing_keeps_every_piece_of_every_example_scene_inside(path):
    scene = load_scene(path)
    cam = scene_camera(scene, (320, 240), "iso")
    for p in scene.pieces:
        px = cam.project(piece_corners(scene.with_pieces([p])))
        assert px.min() >= 0.0 and px[:, 0].max() <= 320 and px[:, 1].max() <= 240, p.id


def test_view_directions_and_unknown_camera():
    toward, up = view_direction("front")
    np.testing.assert_allclose(toward, [0, -1, 0])  # the eye is in front (-y) looking along +y
    toward, up = view_direction("top")
    np.testing.assert_allclose(toward, [0, 0, 1])
    np.testing.assert_allclose(up, [0, 1, 0])
    iso, _ = view_direction("iso")
    assert iso[0] > 0 and iso[1] < 0 and iso[2] > 0  # front-right, above
    with pytest.raises(CameraError, match="unknown camera 'fisheye'"):
        scene_camera(TOWER, (64, 64), "fisheye")


def test_explicit_eye_and_target():
    cam = scene_camera(TOWER, (100, 100), eye=(0.5, -0.5, 0.3), look_at=(0.0, 0.0, 0.05))
    np.testing.assert_allclose(cam.project([[0.0, 0.0, 0.05]])[0], [50, 50])
    assert cam.near < np.min(cam.to_camera(piece_corners(TOWER))[:, 2])
    with pytest.raises(CameraError, match="both"):
        scene_camera(TOWER, (100, 100), eye=(0.5, -0.5, 0.3))
    with pytest.raises(CameraError, match="coincide"):
        scene_camera(TOWER, (100, 100), eye=(0.1, 0.1, 0.1), look_at=(0.1, 0.1, 0.1))
    straight_down = scene_camera(TOWER, (100, 100), eye=(0.0, 0.0, 1.0), look_at=(0.0, 0.0, 0.0))
    assert np.all(np.isfinite(straight_down.basis))


def test_the_board_is_framed_when_it_is_not_much_larger_than_the_pieces():
    one_block = _scene('{"id": "a", "kind": "talo.block", "length": 1, "cell": [0, 0], "layer": 0, "axis": "x"}',
                       game="talo")
    spread = _scene('{"id": "a", "kind": "talo.block", "length": 10, "cell": [0, 0], "layer": 0, "axis": "x"}',
                    game="talo")
    assert len(framed_points(one_block)) == 8  # a 20 mm block on a 200 mm board: the block alone
    assert len(framed_points(spread)) == 16  # a 200 mm block: the board too
    empty = _scene("", game="talo")
    np.testing.assert_allclose(np.ptp(framed_points(empty)[:, :2], axis=0), [0.2, 0.2])
    assert len(framed_points(_scene(""))) == 8  # endless table, no pieces: a default region


def test_fit_camera_is_the_closest_one():
    pts = np.array([[x, y, z] for x in (-0.1, 0.1) for y in (-0.05, 0.05) for z in (0.0, 0.1)])
    toward, up = view_direction("iso")
    cam = fit_camera(pts, toward, up, (300, 300))
    closer = Camera(tuple(np.asarray(cam.eye) + 0.01 * cam.basis[2]), cam.target, cam.up, cam.size)
    px = closer.project(pts)
    inside = (px >= MARGIN * 300 - 1e-9) & (px <= (1 - MARGIN) * 300 + 1e-9)
    assert not inside.all()  # one centimetre closer and a point crosses the margin


def test_light_view_maps_casters_and_their_floor_shadows_into_the_map():
    pts = piece_corners(TOWER)
    toward = np.array([-0.4, -0.3, 0.85])
    toward /= np.linalg.norm(toward)
    view = fit_light(pts, toward, floor_z=0.0)
    m = view.texture_matrix()
    shadows = pts - np.outer(pts[:, 2] / toward[2], toward)
    for p in np.vstack([pts, shadows]):
        s = m @ np.append(p, 1.0)
        assert 0 < s[0] < 1 and 0 < s[1] < 1 and 0 < s[2] < 1
    # a point's shadow on the floor is at the same map position, deeper
    s_top = m @ np.append(pts[0], 1.0)
    s_floor = m @ np.append(shadows[0], 1.0)
    np.testing.assert_allclose(s_top[:2], s_floor[:2], atol=1e-12)
    assert s_floor[2] > s_top[2]
    # straight down: the occlusion map puts higher points at smaller depth
    top = top_view(pts, 0.0, 0.01, 256)
    mt = top.texture_matrix()
    assert (mt @ [0, 0, 0.2, 1])[2] < (mt @ [0, 0, 0.0, 1])[2]
    assert top.texel(256) >= 0.01 / 2.5


def test_on_the_table_the_shadow_of_a_piece_held_up_is_framed_and_shows_its_height():
    held = _scene('{"id": "a", "kind": "box", "size": [40, 40, 40], "pos": [0, 0, 200]}')
    resting = _scene('{"id": "a", "kind": "box", "size": [40, 40, 40], "pos": [0, 0, 20]}')
    key = LIGHTING.key_direction(-view_direction("iso")[0])
    up, down = table_shadows(held, key), table_shadows(resting, key)
    assert np.all(up[:, 2] == 0.0) and np.all(down[:, 2] == 0.0)
    offset = np.linalg.norm(up.mean(axis=0)[:2] - down.mean(axis=0)[:2])
    assert offset == pytest.approx(0.18 * np.hypot(key[0], key[1]) / key[2], rel=1e-9)  # 180 mm higher
    for name in CAMERAS:
        cam = scene_camera(held, (200, 150), name)
        px = cam.project(table_shadows(held, LIGHTING.key_direction(cam.basis[2])))
        assert px.min() >= 0.0 and px[:, 0].max() <= 200 and px[:, 1].max() <= 150, name
    board = _scene('{"id": "t", "kind": "talo.block", "length": 2, "cell": [0, 0], "layer": 3, "axis": "x"}',
                   game="talo")
    assert len(framed_points(board)) == 8  # on a board the framing is as before: no shadows added
    cam = scene_camera(board, (200, 150), "iso")
    np.testing.assert_allclose(cam.eye, fit_camera(framed_points(board), view_direction("iso")[0],
                                                   view_direction("iso")[1], (200, 150)).eye)
