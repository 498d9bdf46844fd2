"""The renderer's seams for the viewer: backends it is given, update / draw / read, a scene graph that
changes, the id pass, and a process that can still open a window after drawing offscreen."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from sim.render import default_renderer, scene_camera
from sim.render.camera import piece_corners
from sim.scene.io import from_dict
from tests.helpers import ROOT


def _scene(*pieces) -> object:
    return from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": list(pieces)})


def _brick(name: str, color: str, pos, **extra) -> dict:
    return {"id": name, "kind": "tohuwabohu.brick", "size": "large", "color": color, "pos": list(pos), **extra}


RED = _brick("r", "red", (0, 0, 10))
BLUE = _brick("b", "blue", (0, 60, 10))


def _red(image: np.ndarray) -> np.ndarray:
    rgb = image[..., :3].astype(int)
    return (rgb[..., 0] > 50) & (rgb[..., 0] > 1.6 * rgb[..., 1:].max(axis=2))


def _blue(image: np.ndarray) -> np.ndarray:
    rgb = image[..., :3].astype(int)
    return (rgb[..., 2] > 50) & (rgb[..., 2] > 1.4 * rgb[..., :2].max(axis=2))


@pytest.fixture(scope="module")
def renderer():
    return default_renderer()


def test_update_draw_read_is_the_same_picture_as_render_graph(renderer):
    scene = _scene(RED, BLUE)
    view = scene_camera(scene, (96, 72))
    graph = renderer.graph(scene)
    whole = renderer.render_graph(graph, view)
    renderer.update(graph, view)
    renderer.draw()
    np.testing.assert_array_equal(renderer.read(), whole)
    renderer.release()


def test_per_frame_updates_follow_the_moved_piece_and_read_back_only_when_asked(renderer):
    scene = _scene(RED)
    view = scene_camera(scene, (96, 72), eye=(0.0, -0.4, 0.1), look_at=(0.0, 0.0, 0.01))
    graph = renderer.graph(scene)
    try:
        for x in (-0.03, 0.0, 0.03):  # three frames: move, update, draw; read each
            graph.set_pose("r", [x, 0.0, 0.01, 0.0, 0.0, 0.0, 1.0])
            renderer.update(graph, view)
            renderer.draw()
            cols = np.flatnonzero(_red(renderer.read()).any(axis=0))
            expected = view.project([[x, -0.01, 0.01]])[0, 0]  # the middle of the brick's front face
            assert abs((cols.min() + cols.max() + 1) / 2 - expected) < 1.5
    finally:
        renderer.release()


def test_draw_and_read_need_something_to_draw():
    from sim.render.backend import offscreen_backend
    from sim.render.renderer import Renderer

    fresh = Renderer(offscreen_backend())
    with pytest.raises(RuntimeError, match="update"):
        fresh.draw()
    with pytest.raises(RuntimeError, match="draw"):
        fresh.read()
    fresh.close()


def test_a_scene_graph_adds_and_removes_pieces_and_keeps_its_rows(renderer):
    scene = _scene(RED)
    view = scene_camera(_scene(RED, BLUE), (120, 90))
    graph = renderer.graph(scene)
    assert not _blue(renderer.render_graph(graph, view)).any()
    blue = _scene(BLUE).pieces[0]
    graph.add_piece(blue)
    assert graph.ids == ["r", "b"] and graph.poses().shape == (2, 7)
    image = renderer.render_graph(graph, view)
    assert _blue(image).sum() > 100 and _red(image).sum() > 100
    with pytest.raises(ValueError, match="already"):
        graph.add_piece(blue)
    assert [p.id for p in graph.current_scene().pieces] == ["r", "b"]
    graph.remove_piece("r")
    assert graph.ids == ["b"]
    graph.set_pose("b", [0.0, 0.06, 0.05, 0.0, 0.0, 0.0, 1.0])  # the row of b moved up with r gone
    np.testing.assert_allclose(graph.poses(), [[0.0, 0.06, 0.05, 0.0, 0.0, 0.0, 1.0]])
    assert [p.id for p in graph.current_scene().pieces] == ["b"]
    image = renderer.render_graph(graph, view)
    assert not _red(image).any() and _blue(image).sum() > 100
    with pytest.raises(KeyError):
        graph.remove_piece("r")
    with pytest.raises(ValueError, match="7 numbers"):
        graph.set_pose("b", [0.0, 0.0, 0.0])


def test_the_id_pass_names_the_piece_each_pixel_shows(renderer):
    # the blue brick straight behind the red one, seen along +y from a little above: the red hides most of it
    scene = _scene(RED, BLUE)
    view = scene_camera(scene, (120, 90), eye=(0.0, -0.3, 0.05), look_at=(0.0, 0.03, 0.01))
    graph = renderer.graph(scene)
    ids = renderer.ids(graph, view)
    assert ids.shape == (90, 120) and ids.dtype == np.int32
    picture = renderer.render_graph(graph, view)
    red_core = _red(picture)
    assert red_core.sum() > 300
    assert (ids[red_core] == 0).mean() > 0.97  # red pixels are the red brick's id
    assert (ids[_blue(picture)] == 1).mean() > 0.97
    assert (ids == -1).sum() > 0.5 * ids.size  # the table and the background are no piece
    seen = np.bincount(ids.ravel() + 1, minlength=3)
    alone = np.bincount(renderer.ids(renderer.graph(_scene(BLUE)), view).ravel() + 1, minlength=2)
    assert 0 < seen[2] < 0.5 * alone[1]  # mostly hidden behind the red brick
    renderer.update(renderer.graph(_scene(_brick("x", "green", (0, -30, 10)))), view)  # another graph attached
    np.testing.assert_array_equal(renderer.ids(graph, view), ids)  # ... is not in this id picture
    renderer.release()
    many = renderer.ids_many(graph, [view, scene_camera(scene, (40, 30), "top")])
    np.testing.assert_array_equal(many[0], ids)
    assert many[1].shape == (30, 40) and set(np.unique(many[1])) == {-1, 0, 1}  # from above both show


def test_visible_fractions_say_how_much_of_each_piece_shows(renderer):
    from sim.render.views import hull_areas, visible_fractions

    scene = _scene(RED, BLUE)
    view = scene_camera(scene, (160, 120), eye=(0.0, -0.3, 0.05), look_at=(0.0, 0.03, 0.01))
    fractions = visible_fractions(renderer, renderer.graph(scene), view)
    assert 0.85 < fractions[0] <= 1.0  # the red brick in front: all of it (the hull is a little larger)
    assert fractions[1] < 0.5 * fractions[0]
    areas = hull_areas(scene.pieces, view)
    corners = view.project(piece_corners(scene.with_pieces([scene.pieces[0]])))
    box = np.ptp(corners[:, 0]) * np.ptp(corners[:, 1])
    assert 0.8 * box < areas[0] <= box * 1.001  # a brick seen end-on: its hull fills its box


_WINDOW_LATER = """
import numpy as np
from panda3d.core import ConfigVariableString
from sim.render import default_renderer, scene_camera
from sim.render.backend import hosted_backend, start_backend
from sim.render.renderer import Renderer
from sim.scene import loads

scene = loads('{"format": "towerlab-scene/1", "game": "free", "pieces": [{"id": "r", '
              '"kind": "tohuwabohu.brick", "size": "large", "color": "red", "pos": [0, 0, 10]}]}')
view = scene_camera(scene, (64, 48))
first = default_renderer().render_graph(default_renderer().graph(scene), view)
# nothing process-wide was configured: ShowBase would open the window the configuration asks for
assert ConfigVariableString("window-type").get_value() in ("", "onscreen"), "window-type was changed"
second = start_backend("egl")  # a second pipe and context of its own
assert second.pipe is not default_renderer().backend.pipe
other = Renderer(second)
assert np.array_equal(other.render_graph(other.graph(scene), view), first)
from direct.showbase.ShowBase import ShowBase
base = ShowBase(windowType="offscreen")  # what a viewer does (onscreen needs a display server)
assert base.win is not None
base.graphicsEngine.render_frame()
shots = Renderer(hosted_backend(base.win, "viewer"))  # screenshots on the viewer's own context
assert np.array_equal(shots.render_graph(shots.graph(scene), view), first)
assert np.array_equal(default_renderer().render_graph(default_renderer().graph(scene), view), first)
print("ok")
"""


def test_after_an_offscreen_picture_a_window_and_more_backends_can_still_open():
    env = dict(os.environ, TOWERLAB_RENDERER="egl")
    out = subprocess.run([sys.executable, "-c", _WINDOW_LATER], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=180)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_a_backend_needs_an_open_output():
    from sim.render.backend import RendererUnavailableError, hosted_backend, start_backend

    with pytest.raises(RendererUnavailableError, match="expected one of"):
        start_backend("vulkan")

    class Closed:
        def get_gsg(self):
            return None

        def is_valid(self):
            return False

        def get_name(self):
            return "window"

    with pytest.raises(RendererUnavailableError, match="not open"):
        hosted_backend(Closed())
