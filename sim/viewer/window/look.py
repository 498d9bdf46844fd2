"""How the window draws: a live quality that holds the frame rate, and the renderer's full quality when
nothing has moved for half a second.

Both draw the very nodes of :class:`sim.render.graph.SceneGraph` (one upload of the
geometry): the renderer (through :func:`sim.render.backend.hosted_backend` on the
window's own context) attaches the graph under its root, the window instances it
under :attr:`LiveLook.root` and overrides its shaders there.

- **Live**: the renderer's lights, relative to the camera as in its pictures (key,
  fill, sky and ground), its tone curve and colours, the eased edges of blocks and
  one small shadow map from the key light with a single filtered look-up (hard-ish
  shadows), no wood grain or contact occlusion, no multisampling: one shadow look-up
  and a mix a pixel, the lights summed and tone-mapped per vertex. (A full-window
  textured quad alone costs about 15 ms here, which is why the live picture is not
  drawn smaller and stretched.) The floor reaches only as far as shadows fall (the
  window's clear colour is the backdrop). The shadow map is drawn from the pieces
  that stand still (a moving one casts none) and kept from frame to frame: drawn
  again only when a piece begins or ceases to move or the key light has turned
  :data:`LIGHT_STEP` with the camera. The live picture draws its own copy of the
  graph's nodes, with simpler bodies and indexed (:mod:`sim.viewer.window.livegeom`), in
  the renderer's order: pieces front to back, then the board, then the floor where
  they leave it seen; the pieces at rest are drawn as one flattened geometry
  (:mod:`sim.viewer.window.batch`).
- **Still**: the renderer's picture (soft shadows, grain, 4x multisampling) is
  drawn once into its offscreen buffer, read back and shown on a card behind the
  3D scene; the pieces are then drawn into the depth buffer only, so that the
  window's marks (ghost, arrows, highlights) stay hidden behind pieces as before.
"""

from __future__ import annotations

import numpy as np
from panda3d.core import (
    CardMaker,
    ColorWriteAttrib,
    LQuaternionf,
    LVecBase2f,
    LVecBase3f,
    LVecBase4f,
    NodePath,
    OrthographicLens,
    PTA_LMatrix4f,
    PTA_LVecBase2f,
    PTA_LVecBase3f,
    PTA_LVecBase4f,
    RenderState,
    Shader,
    ShaderAttrib,
    Texture,
    TransparencyAttrib,
)

from sim.geometry.transforms import rotation_matrices
from sim.names import BOARD
from sim.render.backend import hosted_backend
from sim.render.buffers import DepthPass, depth_only_state
from sim.render.camera import board_corners, piece_corners
from sim.render.graph import SHADOW_MASK
from sim.render.lightview import fit_light
from sim.render.looks import BACKDROP, LIGHTING, TABLE
from sim.render.renderer import PIECES_BIN, SHADOW_BOARD_LIMIT, Renderer
from sim.viewer.window.batch import RestingBatch
from sim.viewer.window.live_shaders import FLOOR_FRAGMENT, FLOOR_VERTEX, FRAGMENT, MASK_FRAGMENT, VERTEX
from sim.viewer.window.livegeom import LiveGeometry

LIVE_SHADOW_MAP = 512  # texels per side of the live shadow map
LIGHT_STEP = np.radians(3.0)
"""The live shadow map is drawn again when the key light (which turns with the camera) has turned this much
since it was drawn; in between, the light's shading follows the camera and its shadows lag by less."""
OVERRIDE = 100  # priority of the live shaders over the renderer's own

def _quad(half: float) -> NodePath:
    card = CardMaker("live-floor")
    card.set_frame(-half, half, -half, half)
    np_ = NodePath(card.generate())
    np_.set_p(-90.0)  # the card faces -y; turned to face +z
    return np_


class LiveLook:
    """The window's two qualities around one scene graph.

    Args:
        base: the ShowBase (its window, its render and render2d).
    """

    def __init__(self, base):
        self.base = base
        self.renderer = Renderer(hosted_backend(base.win, "window"), antialias="msaa")
        self.root = base.render.attach_new_node("towerlab-live")
        self.pieces = self.root.attach_new_node("pieces")
        self.graph = None
        self._live = Shader.make(Shader.SL_GLSL, VERTEX, FRAGMENT)
        self._mask = Shader.make(Shader.SL_GLSL, VERTEX, MASK_FRAGMENT)
        self.pieces.set_shader(self._live, OVERRIDE)
        self.pieces.set_shader_input("u_tint", LVecBase4f(0, 0, 0, 0))
        # its camera under render itself: under the pieces' node (its shaders, its bin) it draws nothing
        self.shadow = DepthPass(self.renderer.backend, base.render, "live-shadow", LIVE_SHADOW_MAP)
        # depth only, over the live shaders too: at the camera's default priority the pieces' live shader
        # (OVERRIDE) would shade every texel of the map, lights and shadow look-up included (on llvmpipe
        # that made the shadow pass cost more than the picture)
        depth = depth_only_state().get_attrib(ShaderAttrib.get_class_type())
        self.shadow.camera.node().set_initial_state(RenderState.make(
            depth, ColorWriteAttrib.make(ColorWriteAttrib.C_off), OVERRIDE + 1))
        self.root.set_shader_input("u_live_shadow", self.shadow.depth)
        light = LIGHTING
        for name, value in (("u_key_color", light.key_color), ("u_fill_color", light.fill_color),
                            ("u_sky", light.sky), ("u_ground", light.ground)):
            self.root.set_shader_input(name, LVecBase3f(*value))
        self.root.set_shader_input("u_shadow_strength", light.shadow_strength)
        # what changes from frame to frame is handed in as arrays whose values change in place: a new value
        # set as an input would be a new state of the root and of every node under it, some 400 a frame to
        # compose in the cull and to collect afterwards (1.1 ms a frame of Python's thread on a Babylon city)
        self._inputs = {name: kind.empty_array(1) for name, kind in (
            ("u_key_dir", PTA_LVecBase3f), ("u_fill_dir", PTA_LVecBase3f), ("u_eye", PTA_LVecBase3f),
            ("u_floor_fade", PTA_LVecBase4f), ("u_shadow_matrix", PTA_LMatrix4f), ("u_shadow_bias", PTA_LVecBase2f))}
        for name, array in self._inputs.items():
            self.root.set_shader_input(name, array)
        self.floor = _quad(1.0)
        self.floor.reparent_to(self.root)
        self.floor.hide(SHADOW_MASK)
        head, body = FLOOR_FRAGMENT.split("\n", 1)
        self._floor_shaders = {table: Shader.make(Shader.SL_GLSL, FLOOR_VERTEX, head + ("\n#define TABLE\n"
                                                                                         if table else "\n") + body)
                               for table in (False, True)}
        self.floor.set_bin("fixed", 10)  # after the pieces and the board: shaded only where they leave it seen
        self.floor.set_depth_write(False)
        self.base.win.set_clear_color((*BACKDROP.bottom, 1.0))
        self.root.set_shader_input("u_bg", LVecBase3f(*BACKDROP.bottom))
        self._still = None
        self._still_region = None
        self._still_texture = Texture("towerlab-still")
        self.geometry = LiveGeometry()
        self._posed = self._graph_posed = None
        self._aimed = None
        self._shadow_due = 0
        self.showing_still = False
        self.ids_shown = False


    # --- shadows --------------------------------------------------------------------------------

    def shadows(self) -> None:
        """At the start of a frame: the live shadow map is drawn in it only while a redraw is due
        (:meth:`place` asks for one for this frame and the next)."""
        self.shadow.buffer.set_active(self._shadow_due > 0)
        self._shadow_due = max(self._shadow_due - 1, 0)

    @property
    def shadows_stale(self) -> bool:
        """The shadow map no longer shows what stands still (a piece began or ceased to move): a
        :meth:`place` is due even in a frame where nothing else changed."""
        return self.graph is not None and (self._aimed is None or self._aimed[1] != self.batch.casters)

    # --- the scene -------------------------------------------------------------------------------

    def show(self, scene) -> None:
        """Build the scene graph of ``scene`` (a new board, or pieces in another order)."""
        if self.graph is not None:
            self.renderer.release()
            self.graph.root.remove_node()
            self.live_root.remove_node()
        self.graph = self.renderer.graph(scene)
        # The live picture draws its own copy of the graph's nodes (the same geometry, uploaded once)
        # without the renderer's shaders on them: composing the renderer's per-surface shader states
        # with the live override costs llvmpipe's host more than the drawing itself (26 against 2 ms
        # for a 140-piece city). Poses go to both (:meth:`set_poses`: the renderer's when it draws).
        self.live_root = self.graph.root.copy_to(self.pieces)
        self.live_root.set_bin(PIECES_BIN, 0)  # pieces front to back: each pixel shaded about once
        for node in self.live_root.find_all_matches("**"):
            node.clear_shader()
        self.live_nodes = {pid: self.live_root.find(pid.replace("*", "\\*")) for pid in self.graph.nodes}
        self._live_list = list(self.live_nodes.values())
        self._aimed = None  # (key direction, the batch's casters count) the shadow map was drawn for
        self._posed = self._graph_posed = None  # the poses last given, and those the renderer's graph has
        for piece in scene.pieces:  # simpler bodies, indexed (:mod:`sim.viewer.window.livegeom`)
            self.geometry.dress(self.live_nodes[piece.id], piece.shape)
        self.batch = RestingBatch(self.live_root, self.live_nodes)
        board = self.live_root.find(BOARD)
        if not board.is_empty():
            self.geometry.dress(board, scene.board_info.shape, simplify=False)
            board.set_bin("fixed", 0)  # after the pieces, which hide much of it
        self._local = np.array([p.shape.box_corners for p in scene.pieces]).reshape(-1, 8, 3)
        self._tints: dict = {}
        self.board_scene = scene
        table = scene.board_info.shape is None
        floor_z = -scene.board_info.thickness
        self.floor.set_z(floor_z - 1e-4)
        if self.ids_shown:
            self.show_ids(True)
        color = TABLE.color if table else BACKDROP.bottom  # a board's floor only catches the shadows
        self.root.set_shader_input("u_floor_color", LVecBase3f(*(c * c for c in color)))
        grid = (TABLE.minor, TABLE.major, TABLE.minor_strength, TABLE.major_strength) if table else (1, 1, 0, 0)
        self.root.set_shader_input("u_floor_grid", LVecBase4f(*grid))
        self.floor.set_shader(self._floor_shaders[table], OVERRIDE)

    def place(self, view, scene, poses=None) -> None:
        """Aim the window's camera and the live lights for ``view`` (a sim.render Camera) and ``scene``
        (its pieces at ``poses`` (n, 7) when given, in the graph's order)."""
        from sim.render.buffers import place_camera

        base = self.base
        place_camera(base.camera, base.camLens, view)
        forward = view.basis[2]
        key, fill = LIGHTING.key_direction(forward), LIGHTING.fill_direction(forward)
        self._inputs["u_key_dir"][0] = LVecBase3f(*key)
        self._inputs["u_fill_dir"][0] = LVecBase3f(*fill)
        self._inputs["u_eye"][0] = LVecBase3f(*view.eye)
        floor_z = -scene.board_info.thickness
        casters = self._corners(scene, poses)
        board = board_corners(scene)
        moving = np.array([pid in self.batch.moving for pid in self.live_nodes], dtype=bool)
        still = casters.reshape(-1, 8, 3)[~moving].reshape(-1, 3) if len(casters) == 8 * len(moving) else casters
        if len(board) and (len(casters) == 0 or np.ptp(board[:, 0]) <= SHADOW_BOARD_LIMIT):
            casters = np.vstack([casters, board]) if len(casters) else board  # as the renderer: small boards
            still = np.vstack([still, board]) if len(still) else board
        if len(casters) == 0:
            casters = np.zeros((1, 3))
        self._aim(key, still if len(still) else casters[:1], floor_z)
        extent = max(float(np.max(np.ptp(casters[:, :2], axis=0))) if len(casters) > 1 else 0.1, 0.05)
        centre = casters.mean(axis=0)
        if scene.board_info.shape is None:  # the endless table: far, fading into the backdrop
            self.floor.set_pos(centre[0], centre[1], floor_z - 1e-4)
            self.floor.set_scale(TABLE.fade_end * extent, 1.0, TABLE.fade_end * extent)
        else:  # a board's floor only where shadows fall (the backdrop's colour elsewhere)
            fallen = casters - np.outer((casters[:, 2] - floor_z) / max(key[2], 0.1), key)
            xy = np.vstack([casters[:, :2], fallen[:, :2]])
            lo, hi = xy.min(axis=0) - 0.01, xy.max(axis=0) + 0.01
            mid, half = (lo + hi) / 2, (hi - lo) / 2
            self.floor.set_pos(mid[0], mid[1], floor_z - 1e-4)
            self.floor.set_scale(half[0], 1.0, half[1])
        self._inputs["u_floor_fade"][0] = LVecBase4f(centre[0], centre[1], TABLE.fade_start * extent,
                                                     TABLE.fade_end * extent)

    def _aim(self, key, still, floor_z: float) -> None:
        """The key light's shadow map, of what stands still (``still``: (k, 3) corners): kept while that does
        not change and the light turned less than :data:`LIGHT_STEP`, else aimed afresh and drawn again."""
        aimed = self._aimed
        if aimed is not None and aimed[1] == self.batch.casters and float(key @ aimed[0]) >= np.cos(LIGHT_STEP):
            return
        light = fit_light(still, key, floor_z)
        self.shadow.place(light)
        self._inputs["u_shadow_matrix"][0] = _matrix(light.texture_matrix())
        texel = light.texel(LIVE_SHADOW_MAP)  # the renderer's offsets, in texels of the live map
        self._inputs["u_shadow_bias"][0] = LVecBase2f(1.5 * texel, texel / (light.far - light.near))
        self._aimed = (np.asarray(key, dtype=float).copy(), self.batch.casters)
        self._shadow_due = 1  # drawn in this frame, and again in the next (set_active takes this one)
        self.shadow.buffer.set_active(True)

    def set_poses(self, poses) -> None:
        """Move every piece: (n, 7) in the graph's order. The live copy's nodes of the pieces that moved
        follow at once; the renderer's graph when it next draws (:meth:`draw_still`, :meth:`screenshot`)."""
        poses = np.asarray(poses, dtype=float)
        last, self._posed = self._posed, poses.copy()
        rows = range(len(poses)) if last is None or last.shape != poses.shape else \
            np.flatnonzero(np.any(poses != last, axis=1)).tolist()
        for k in rows:
            x, y, z, qx, qy, qz, qw = (float(v) for v in poses[k])
            self._live_list[k].set_pos_quat(LVecBase3f(x, y, z), LQuaternionf(qw, qx, qy, qz))
        self.batch.update(poses)

    def _pose_graph(self) -> None:
        """The renderer's graph at the poses last given (before it draws)."""
        if self._posed is not None and self._posed is not self._graph_posed:
            self.graph.set_poses(self._posed)
            self._graph_posed = self._posed

    def hold(self, ids) -> None:
        """The pieces in a hand now: moving (no shadow) whatever their pose does (before :meth:`set_poses`
        or :meth:`idle` of the frame)."""
        if self.graph is not None:
            self.batch.held = frozenset(i for i in ids if i in self.live_nodes)

    def idle(self) -> None:
        """A frame in which no piece moved (resting pieces join the batch of :mod:`sim.viewer.window.batch`)."""
        if self.graph is not None:
            self.batch.update(None)

    def _corners(self, scene, poses) -> np.ndarray:
        """(8n, 3) the pieces' bounding-box corners at ``poses`` (the scene's own without), vectorised."""
        if poses is None or self.graph is None or len(poses) != len(self._local):
            return piece_corners(scene)
        if not len(poses):
            return np.zeros((0, 3))
        rot = rotation_matrices(np.ascontiguousarray(poses[:, 3:]))
        return (np.einsum("nij,nkj->nki", rot, self._local) + poses[:, None, :3]).reshape(-1, 3)

    # --- tints -----------------------------------------------------------------------------------

    def tint(self, tints: dict) -> None:
        """Colour pieces over: id -> (r, g, b, strength) sRGB; every other piece plain (in the id view, every
        piece its id colour whatever is asked)."""
        self._asked = dict(tints)
        if self.ids_shown:
            tints = self._id_tints()
        if self.graph is None or tints == self._tints:
            return
        for pid in set(tints) | (set(self._tints) if self._tints is not None else set(self.live_nodes)):
            node = self.live_nodes.get(pid)
            if node is not None:
                node.set_shader_input("u_tint", LVecBase4f(*tints.get(pid, (0.0, 0.0, 0.0, 0.0))))
        self._tints = dict(tints)
        self.batch.tint(tints)

    # --- the id view (a test's) ---------------------------------------------------------------------

    def _id_tints(self) -> dict:
        from sim.render.ids import id_colour

        return {pid: id_colour(k) for k, pid in enumerate(self.live_nodes)} if self.graph is not None else {}

    def show_ids(self, on: bool) -> None:
        """Draw every piece in the flat colour of its row (:func:`sim.render.ids.id_colour`), the board black,
        no floor, against black: the window's own picture as an id pass (:mod:`sim.viewer.window.probe`)."""
        self.ids_shown = bool(on)
        self.go_live()
        (self.floor.hide if on else self.floor.show)()
        self.base.win.set_clear_color((0.0, 0.0, 0.0, 1.0) if on else (*BACKDROP.bottom, 1.0))
        if self.graph is not None:
            board = self.live_root.find(BOARD)
            if not board.is_empty():
                if on:
                    board.set_shader_input("u_tint", LVecBase4f(0.0, 0.0, 0.0, 1.0))
                else:
                    board.clear_shader_input("u_tint")
        self._tints = None  # tinted afresh
        self.tint(getattr(self, "_asked", {}))

    # --- still ------------------------------------------------------------------------------------

    def draw_still(self, view) -> None:
        """Draw the full-quality picture of the graph from ``view`` and show it until :meth:`go_live`."""
        r = self.renderer
        self._pose_graph()
        r.update(self.graph, view)
        r.draw()
        image = r.read()
        h, w = image.shape[:2]
        tex = self._still_texture
        tex.setup_2d_texture(w, h, Texture.T_unsigned_byte, Texture.F_rgba8)
        tex.set_ram_image_as(np.ascontiguousarray(image[::-1]).tobytes(), "RGBA")
        if self._still is None:
            self._make_still_region()
        self._still.set_texture(tex, 1)
        self._still_region.set_active(True)
        self.floor.hide()
        self.pieces.set_shader(self._mask, OVERRIDE)
        self.pieces.set_transparency(TransparencyAttrib.M_alpha, OVERRIDE)
        self.pieces.set_attrib(ColorWriteAttrib.make(ColorWriteAttrib.C_all), OVERRIDE)
        self.showing_still = True

    def go_live(self) -> None:
        """Back to the live quality."""
        if not self.showing_still:
            return
        self._still_region.set_active(False)
        self.floor.show()
        self.pieces.set_shader(self._live, OVERRIDE)
        self.pieces.clear_transparency()
        self.showing_still = False

    def resize(self) -> None:
        """The window changed size: the still picture no longer fits; live until it is drawn again."""
        self.go_live()

    def _make_still_region(self) -> None:
        """A display region behind the 3D scene showing the still picture on a full-window card."""
        self._still_region, self._still_root, self._still = picture_card(self.base.win, -20, "towerlab-still")
        self._still.set_depth_write(False)

    def screenshot(self, view) -> np.ndarray:
        """The full-quality picture from ``view`` (its size): (h, w, 4) uint8."""
        r = self.renderer
        self._pose_graph()
        r.update(self.graph, view)
        r.draw()
        return r.read()

    def close(self) -> None:
        self.renderer.close()


def _matrix(m: np.ndarray):
    from panda3d.core import LMatrix4f

    return LMatrix4f(*np.asarray(m, dtype=float).T.ravel())


def picture_card(win, sort: int, name: str) -> tuple:
    """A display region of ``win`` (drawn in ``sort`` order) showing one card over all of it, to put a
    picture on (a texture); the card neither tests nor, unless asked, writes depth.

    Returns:
        (the region, its root node, the card's node).
    """
    from panda3d.core import Camera

    region = win.make_display_region()
    region.set_sort(sort)
    root = NodePath(name)
    lens = OrthographicLens()
    lens.set_film_size(2.0, 2.0)
    lens.set_near_far(-1.0, 1.0)
    region.set_camera(root.attach_new_node(Camera(f"{name}-camera", lens)))
    card = CardMaker(name)
    card.set_frame(-1.0, 1.0, -1.0, 1.0)
    card.set_uv_range((0.0, 0.0), (1.0, 1.0))
    node = root.attach_new_node(card.generate())
    node.set_y(0.5)
    node.set_depth_test(False)
    return region, root, node
