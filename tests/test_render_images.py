"""Rendered pictures: where pieces land, decals, determinism, transparency, every example scene.

Offscreen and small (no display, no GPU): one renderer per test process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import shapely
from shapely.geometry import MultiPoint, Point, Polygon

from sim.geometry.transforms import transform_points
from sim.render import default_renderer, load_png, render_scene, save_png, scene_camera
from sim.render.camera import piece_corners
from sim.scene import load_scene, loads
from tests.helpers import scene_files

ROOT = Path(__file__).resolve().parents[1]
EDGE_PX = 1.5  # anti-aliased edges are neither inside nor outside: a band this wide is not judged


def _scene(pieces: str, game: str = "free") -> object:
    return loads(f'{{"format": "towerlab-scene/1", "game": "{game}", "pieces": [{pieces}]}}')


RED_BRICK = _scene('{"id": "r", "kind": "tohuwabohu.brick", "size": "large", "color": "red", '
                   '"pos": [10, -5, 40], "rot": [25, -15, 37]}')
PLATE = _scene('{"id": "p", "kind": "tohuwabohu.level", "shape": "quad", "pos": [0, 0, 1.5], "rot": [0, 0, 20]}')


def _red(image: np.ndarray) -> np.ndarray:
    """(h, w) bool: clearly red pixels (a red piece, lit or in shade)."""
    rgb = image[..., :3].astype(int)
    return (rgb[..., 0] > 50) & (rgb[..., 0] > 1.6 * rgb[..., 1:].max(axis=2))


def _pixel_centres(w: int, h: int):
    xs, ys = np.meshgrid(np.arange(w) + 0.5, np.arange(h) + 0.5)
    return xs, ys


def _silhouette(scene, camera) -> Polygon:
    """The projected outline of a scene's convex pieces (their boxes: bricks and plates are boxes)."""
    return MultiPoint(camera.project(piece_corners(scene))).convex_hull


def _inside(polygon, w: int, h: int) -> np.ndarray:
    xs, ys = _pixel_centres(w, h)
    return shapely.contains_xy(polygon, xs, ys)


@pytest.fixture(scope="module")
def renderer():
    return default_renderer()


def test_the_renderer_is_shaded_and_anti_aliased_here(renderer):
    # CI machines have Mesa's llvmpipe; the software fallback has its own test below
    assert renderer.backend.name == "egl" and renderer.shaded and renderer.backend.multisamples >= 4


@pytest.mark.parametrize("camera", ["iso", "front", "top"])
def test_a_red_brick_is_red_exactly_where_it_projects(camera):
    w, h = 160, 120
    image = render_scene(RED_BRICK, (w, h), camera=camera)
    assert image.shape == (h, w, 4) and image.dtype == np.uint8
    cam = scene_camera(RED_BRICK, (w, h), camera)
    outline = _silhouette(RED_BRICK, cam)
    red = _red(image)
    core = _inside(outline.buffer(-EDGE_PX), w, h)
    around = ~_inside(outline.buffer(EDGE_PX), w, h)
    assert core.sum() > 500
    assert red[core].all(), f"{(~red[core]).sum()} pixels of the brick are not red"
    assert not red[around].any(), f"{red[around].sum()} red pixels outside the brick"


def test_moving_a_piece_in_the_scene_graph_moves_its_pixels(renderer):
    w, h = 128, 96
    graph = renderer.graph(RED_BRICK)
    cam = scene_camera(RED_BRICK, (w, h), eye=(0.25, -0.35, 0.25), look_at=(0.0, 0.0, 0.03))
    pose = np.array([[-0.03, 0.02, 0.01, *np.roll([np.cos(0.4), 0, 0, np.sin(0.4)], -1)]])  # 46° about z
    graph.set_poses(pose)
    moved = RED_BRICK.with_poses(pose)
    red = _red(renderer.render_graph(graph, cam))
    outline = _silhouette(moved, cam)
    assert red[_inside(outline.buffer(-EDGE_PX), w, h)].all()
    assert not red[~_inside(outline.buffer(EDGE_PX), w, h)].any()
    graph.set_pose("r", [0.05, 0.0, 0.01, 0.0, 0.0, 0.0, 1.0])
    np.testing.assert_allclose(graph.poses()[0], [0.05, 0.0, 0.01, 0.0, 0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match=r"\(1, 7\)"):
        graph.set_poses(np.zeros((2, 7)))


def test_an_explicit_eye_looks_at_its_target():
    image = render_scene(RED_BRICK, (64, 64), eye=(0.01, -0.4, 0.04), look_at=(0.01, -0.005, 0.04))
    assert _red(image)[30:34, 30:34].all()


@pytest.mark.parametrize("camera", ["top", "iso"])
def test_level_plate_decals_show_their_colours_without_z_fighting(camera):
    w, h = 200, 200
    image = render_scene(PLATE, (w, h), camera=camera).astype(int)
    cam = scene_camera(PLATE, (w, h), camera)
    piece = PLATE.pieces[0]
    plate = piece.shape

    def outline(decal_name):
        decal = next(d for d in plate.decals if d.name == decal_name)
        poly = np.column_stack([decal.polygons[0], np.full(len(decal.polygons[0]), decal.z)])
        return Polygon(cam.project(transform_points(poly, piece.pos, piece.quat)))

    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    expect = {"red": (r > g + 40) & (r > b + 40), "green": (g > r + 30) & (g > b + 30), "blue": (b > r + 40)}
    for colour, test in expect.items():
        point = outline(f"point-{colour}")
        area = _inside(outline(f"area-{colour}").buffer(-2.0), w, h) & ~_inside(point.buffer(2.0), w, h)
        assert area.sum() > 200
        assert test[area].all(), f"{colour} area: {(~test[area]).sum()} pixels of another colour"
        dot = _inside(point.buffer(-EDGE_PX), w, h)
        assert dot.sum() > 5
        assert test[dot].all()
    # the printed point is more saturated than its area
    red_point = _inside(outline("point-red").buffer(-EDGE_PX), w, h)
    red_area = _inside(outline("area-red").buffer(-2.0), w, h) & ~_inside(outline("point-red").buffer(2.0), w, h)
    assert (r - g)[red_point].mean() > (r - g)[red_area].mean() + 40


def test_the_same_input_gives_the_same_picture(renderer):
    scene = load_scene(ROOT / "scenes/free/mixed-games.json")
    first = render_scene(scene, (96, 80))
    render_scene(RED_BRICK, (64, 64), camera="top")  # another picture in between changes nothing
    second = render_scene(scene, (96, 80))
    np.testing.assert_array_equal(first, second)  # pixel-identical, not merely close


def test_transparent_background_keeps_the_piece_opaque_and_the_shadow_as_coverage():
    w, h = 120, 90
    image = render_scene(RED_BRICK, (w, h), transparent=True)
    cam = scene_camera(RED_BRICK, (w, h), "iso")
    outline = _silhouette(RED_BRICK, cam)
    core = _inside(outline.buffer(-EDGE_PX), w, h)
    assert (image[core, 3] == 255).all() and _red(image)[core].all()
    assert image[0, 0, 3] == 0 and image[-1, -1, 3] == 0 and image[0, -1, 3] == 0
    shadow = (image[..., 3] > 20) & ~_inside(outline.buffer(EDGE_PX), w, h)
    assert shadow.sum() > 50  # the shadow on the (invisible) floor
    assert (image[shadow & (image[..., 3] < 255), :3] < 40).all()  # shadows are dark, whatever their alpha
    opaque = render_scene(RED_BRICK, (w, h))
    assert (opaque[..., 3] == 255).all()


def test_pictures_of_any_size_from_one_renderer():
    for size in [(64, 48), (31, 77), (64, 48)]:
        assert render_scene(RED_BRICK, size).shape == (size[1], size[0], 4)


def test_png_round_trip_is_atomic(tmp_path):
    image = render_scene(RED_BRICK, (40, 30), transparent=True)
    path = save_png(image, tmp_path / "sub" / "brick.png")
    np.testing.assert_array_equal(load_png(path), image)
    assert [p.name for p in path.parent.iterdir()] == ["brick.png"]


@pytest.mark.parametrize("path", scene_files(), ids=lambda p: p.relative_to(p.parents[1]).as_posix())
def test_every_example_scene_renders_and_shows_its_pieces(renderer, path):
    scene = load_scene(path)
    size = (96, 72)
    cam = scene_camera(scene, size, "iso")
    image = renderer.render_graph(renderer.graph(scene), cam)
    board_only = renderer.render_graph(renderer.graph(scene.with_pieces([])), cam)
    differs = np.abs(image.astype(int) - board_only.astype(int)).max(axis=2) > 12
    assert image[..., :3].std() > 5  # not a blank frame
    if scene.pieces:
        assert differs.mean() > 0.01, "the pieces hardly show"


def test_without_egl_the_software_renderer_draws_with_one_warning_line(tmp_path):
    code = """
import sys
import numpy as np
import sim.render.backend as backend
from sim.render.backend import RendererUnavailableError

def no_egl(engine):
    raise RendererUnavailableError("EGL is switched off for this test")

backend._egl = no_egl
from sim.render import render_scene, default_renderer
from sim.scene import loads
scene = loads('{"format": "towerlab-scene/1", "game": "free", "pieces": [{"id": "r", '
              '"kind": "tohuwabohu.brick", "size": "large", "color": "red", "pos": [0, 0, 10]}]}')
image = render_scene(scene, (64, 64))
assert not default_renderer().shaded
r, g = image[32, 32, 0], image[32, 32, 1]
print("centre", int(r), int(g), image.shape)
"""
    env = dict(os.environ, TOWERLAB_RENDERER="auto")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    warnings = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1 and "software renderer" in warnings[0] and "EGL is switched off" in warnings[0]
    _, r, g, shape = out.stdout.split(maxsplit=3)
    assert int(r) > 100 and int(r) > 2 * int(g) and shape.strip() == "(64, 64, 4)"


def test_a_renderer_that_cannot_start_is_a_clear_error(tmp_path):
    cli = "import sys; from sim.cli import main; sys.exit(main(sys.argv[1:]))"
    env = dict(os.environ, TOWERLAB_RENDERER="vulkan")
    out = subprocess.run([sys.executable, "-c", cli, "render", "scenes/free/cube-tower.json",
                          "-o", str(tmp_path / "x.png")], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=120)
    assert not (tmp_path / "x.png").exists()
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "towerlab: error: TOWERLAB_RENDERER='vulkan': expected one of auto, egl, software"]


def test_the_brick_centre_is_where_the_camera_says(renderer):
    # a one-pixel check of the whole chain: scene pose -> quaternion order -> lens -> image rows
    w, h = 101, 101
    cam = scene_camera(RED_BRICK, (w, h), "iso")
    centre = cam.project([RED_BRICK.pieces[0].pos])[0]
    col, row = int(centre[0]), int(centre[1])
    image = render_scene(RED_BRICK, (w, h))
    assert _red(image)[row, col]
    assert Point(centre).within(_silhouette(RED_BRICK, cam))


def _edge_blend(image: np.ndarray, outline, w: int, h: int) -> float:
    """Fraction of the pixels on the outline's edge band that are neither brick nor background."""
    band = _inside(outline.buffer(EDGE_PX), w, h) & ~_inside(outline.buffer(-EDGE_PX), w, h)
    rgb = image[..., :3].astype(int)
    pure_red = _red(image) & (rgb[..., 0] > 1.6 * rgb[..., 1:].max(axis=2) + 40)
    grey = np.abs(rgb - rgb.mean(axis=2, keepdims=True)).max(axis=2) < 6
    return float((~pure_red & ~grey)[band].mean())


@pytest.mark.parametrize("mode", ["msaa", "fxaa"])
def test_both_anti_aliasing_modes_soften_edges_and_keep_geometry(mode):
    w, h = 160, 120
    r = default_renderer(mode)
    cam = scene_camera(RED_BRICK, (w, h), eye=(0.1, -0.3, 0.2), look_at=(0.01, -0.005, 0.04))
    image = r.render_graph(r.graph(RED_BRICK), cam)
    outline = _silhouette(RED_BRICK, cam)
    assert _red(image)[_inside(outline.buffer(-EDGE_PX), w, h)].all()
    assert _edge_blend(image, outline, w, h) > 0.1  # without anti-aliasing: 0 (every pixel pure)


def test_unknown_anti_aliasing_is_refused():
    from sim.render.backend import offscreen_backend
    from sim.render.renderer import Renderer

    with pytest.raises(ValueError, match="antialias"):
        Renderer(offscreen_backend(), antialias="ssaa")


def _patch(image: np.ndarray, centre, half: int = 4) -> np.ndarray:
    col, row = (int(round(c)) for c in centre)
    return image[row - half:row + half + 1, col - half:col + half + 1, :3].astype(float)


def test_wood_shows_grain_where_plastic_is_smooth():
    scene = _scene('{"id": "w", "kind": "talo.block", "length": 10, "pos": [0, -30, 10]},'
                   '{"id": "p", "kind": "babylon.bridge", "pos": [0, 30, 10]}')
    w, h = 400, 400
    image = render_scene(scene, (w, h), camera="top")
    cam = scene_camera(scene, (w, h), "top")
    def texture(patch):  # pixel-to-pixel variation: grain, not the smooth fall-off of a highlight
        return np.abs(np.diff(patch, axis=0)).mean() + np.abs(np.diff(patch, axis=1)).mean()

    wood = _patch(image, cam.project([[0.0, -0.03, 0.02]])[0], 6)
    plastic = _patch(image, cam.project([[0.02, 0.03, 0.02]])[0], 6)
    assert texture(wood) > 2.0 * texture(plastic)


def test_touching_blocks_show_a_seam():
    scene = _scene('{"id": "a", "kind": "talo.block", "length": 3, "pos": [-30, 0, 10]},'
                   '{"id": "b", "kind": "talo.block", "length": 3, "pos": [30, 0, 10]}')
    w, h = 300, 200
    eye, target = (0.0, -0.2, 0.06), (0.0, 0.0, 0.01)
    image = render_scene(scene, (w, h), eye=eye, look_at=target).astype(float).sum(axis=2)
    cam = scene_camera(scene, (w, h), eye=eye, look_at=target)
    (x0, y), (x1, _) = cam.project([[-0.015, -0.01, 0.01], [0.015, -0.01, 0.01]])  # on the front faces
    row = image[int(y), int(x0):int(x1)]  # across the seam, from one block's middle to the other's
    middle = len(row) // 2
    assert row[middle - 3:middle + 4].min() < 0.95 * np.median(row)  # without the eased edges: equal


HELD_AND_RESTING = _scene('{"id": "rest", "kind": "box", "size": [40, 40, 40], "pos": [-60, 0, 20]},'
                          '{"id": "held", "kind": "box", "size": [40, 40, 40], "pos": [60, 0, 200]}')


def _luma(image: np.ndarray) -> np.ndarray:
    return image[..., :3].astype(float) @ [0.299, 0.587, 0.114]


@pytest.mark.parametrize("camera", ["iso", "top", "front"])
def test_on_the_table_each_piece_casts_its_shadow_where_its_height_puts_it(renderer, camera):
    from sim.render.camera import table_shadows
    from sim.render.looks import LIGHTING

    w, h = 320, 240
    scene = HELD_AND_RESTING
    cam = scene_camera(scene, (w, h), camera)
    image = renderer.render_graph(renderer.graph(scene), cam)
    pieces = renderer.ids(renderer.graph(scene), cam) >= 0
    luma = _luma(image)
    key = LIGHTING.key_direction(cam.basis[2])
    for piece in scene.pieces:
        shadow = MultiPoint(cam.project(table_shadows(scene.with_pieces([piece]), key))).convex_hull
        inside = _inside(shadow.buffer(-3.0), w, h) & ~pieces
        ring = _inside(shadow.buffer(12.0), w, h) & ~_inside(shadow.buffer(4.0), w, h) & ~pieces
        assert inside.sum() > 20, f"{piece.id}: its shadow is not in the {camera} picture"
        assert luma[inside].mean() < 0.8 * luma[ring].mean(), f"{piece.id}: no shadow where it falls ({camera})"


def test_the_table_is_drawn_with_a_millimetre_grid(renderer):
    w, h = 320, 240
    cam = scene_camera(RED_BRICK, (w, h), "top")
    luma = _luma(renderer.render_graph(renderer.graph(RED_BRICK), cam))
    centre = np.asarray(RED_BRICK.pieces[0].pos)

    def table(dx, dy):  # mean brightness along a short stretch of the table off the brick's side
        ys = centre[1] + 0.03 + dy + np.linspace(0.0, 0.01, 9)
        pts = np.column_stack([np.full(9, centre[0] + dx), ys, np.zeros(9)])
        return np.mean([luma[int(r), int(c)] for c, r in cam.project(pts)])

    x_line = np.round((centre[0] + 0.03) / 0.05) * 0.05 - centre[0]  # a 50 mm line beside the brick
    on_line, between = table(x_line, 0.0), table(x_line + 0.005, 0.0)
    assert on_line < between - 8, (on_line, between)  # lines darken the table: its size and place show
