"""The offscreen renderer: lights, soft shadows, backdrop and anti-aliasing around a scene graph.

One :class:`Renderer` serves any number of pictures of any sizes (an
offscreen buffer is kept per size), for batches, card illustrations and the
viewer. Panda3D is imported here, never at ``import sim``.
"""

from __future__ import annotations

import numpy as np
from panda3d.core import (
    AmbientLight,
    AntialiasAttrib,
    Camera,
    CardMaker,
    CullBinEnums,
    CullBinManager,
    DirectionalLight,
    LMatrix4f,
    LVecBase2f,
    LVecBase3f,
    LVecBase4f,
    NodePath,
    PerspectiveLens,
    RenderState,
    SamplerState,
    ShaderAttrib,
    ShaderInput,
)

from sim.render import ANTIALIAS, shaders
from sim.render.backend import Backend
from sim.render.buffers import DepthPass, Frame, noise_texture, place_camera, post_scene, shader
from sim.render.camera import Camera as ViewCamera
from sim.render.camera import board_corners, piece_corners, scene_camera
from sim.render.graph import ID_MASK, MAIN_MASK, SHADOW_MASK, GeomLibrary, SceneGraph, geom_node
from sim.render.lightview import fit_light, top_view
from sim.render.looks import BACKDROP, LIGHTING, TABLE, Backdrop, Lighting, TableLook

SHADOW_MAP = 2048  # texels per side of the shadow map
SHADOW_BOARD_LIMIT = 0.5  # m: boards up to this size cast shadows (game boards, not big tables)
NORMAL_OFFSET_TEXELS = 1.5  # shadow look-ups start this far off the surface (no self-shadowing acne)
DEPTH_BIAS_TEXELS = 1.0
FLOOR_EXTENT = 60.0  # the floor's half-size, in multiples of the scene's size: it reaches the horizon
FLOOR_GAP = 1e-4  # m between the board's bottom and the floor
BACKDROP_DEPTH = 0.9  # the backdrop card's distance, as a fraction of the far plane's
PIECES_BIN = "towerlab-pieces"  # a front-to-back bin drawn before the board, the floor and the backdrop
SOFTWARE_DECAL_LIFT = 5e-4  # m per decal layer: the software renderer ignores depth offsets
OCCLUSION_MAP = 256  # texels per side of the top-down map of contact occlusion
OCCLUSION_GAP = 3e-4  # m: an occluder's top must be this much above a surface to shade it
OCCLUSION_HEIGHT = 0.045  # m: ... and no more than this (a plate high above is not in contact)

_RAW_DEPTH = SamplerState()  # the shadow map read as depths, not compared
_RAW_DEPTH.set_minfilter(SamplerState.FT_nearest)
_RAW_DEPTH.set_magfilter(SamplerState.FT_nearest)
_RAW_DEPTH.set_wrap_u(SamplerState.WM_clamp)
_RAW_DEPTH.set_wrap_v(SamplerState.WM_clamp)


def _quad(name: str, half: float, z: float) -> NodePath:
    """A square facing +z, centred on the origin (m)."""
    p = np.array([[-half, -half, z], [half, -half, z], [half, half, z],
                  [-half, -half, z], [half, half, z], [-half, half, z]])
    n = np.tile([0.0, 0.0, 1.0], (6, 1))
    c = np.ones((6, 4))
    return NodePath(geom_node(name, p, n, c))


class Renderer:
    """Draws scenes offscreen; reusable for any number of pictures and sizes.

    A picture is three steps, which a viewer drives per frame: :meth:`update` (the graph at its
    current poses and a camera: lights and shadow boxes follow), :meth:`draw` (one frame,
    offscreen) and :meth:`read` (the pixels, only when wanted); :meth:`render_graph` does all
    three, :meth:`render` a whole scene. :meth:`ids` tells which piece each pixel shows.

    Args:
        backend: what to draw with: :func:`~sim.render.backend.offscreen_backend` (headless),
            or :func:`~sim.render.backend.hosted_backend` on a viewer's window.
        lighting: lights and shadow settings.
        backdrop: background of opaque pictures.
        shadow_map: texels per side of the shadow map.
        antialias: ``msaa`` (4x multisampling: the smoothest edges) or ``fxaa``
            (a post-process on the shaded pixels: about 1.7 times as fast on llvmpipe).
        table: the look of the endless table under scenes without a board.

    Raises:
        ValueError: unknown antialias.
    """

    def __init__(self, backend: Backend, lighting: Lighting = LIGHTING, backdrop: Backdrop = BACKDROP,
                 shadow_map: int = SHADOW_MAP, antialias: str = "msaa", table: TableLook = TABLE):
        if antialias not in ANTIALIAS:
            raise ValueError(f"antialias must be one of {', '.join(ANTIALIAS)}, got {antialias!r}")
        self.antialias = antialias
        self.backend = backend
        self._graph = self._view = self._drawn = self._id_pass = None
        self._transparent = False
        self.lighting = lighting
        self.backdrop = backdrop
        self.table = table
        self.library = GeomLibrary()
        self.root = NodePath("towerlab-render")
        lens = PerspectiveLens()
        cam = Camera("towerlab-camera", lens)
        cam.set_camera_mask(MAIN_MASK)
        self.lens = lens
        self.camera = self.root.attach_new_node(cam)
        self._shade_camera = None
        self._frames: dict[tuple[int, int], Frame] = {}
        card = CardMaker("backdrop")
        card.set_frame(-1.0, 1.0, -1.0, 1.0)
        self._backdrop = self.camera.attach_new_node(card.generate())  # a card filling the view, far away
        # Drawing order saves shading work: pieces front to back, then the floor where they leave
        # it visible, then the backdrop where nothing was drawn.
        self._backdrop.set_bin("fixed", 20)
        self._backdrop.set_depth_write(False)
        self._backdrop.hide(SHADOW_MASK | ID_MASK)
        self._floor = _quad("floor", 1.0, 0.0)
        self._floor.reparent_to(self.root)
        self._floor.set_bin("fixed", 10)
        self._floor.hide(SHADOW_MASK | ID_MASK)
        self._shadow = self._occlusion = None
        self._piece_shaders: dict[tuple[str, bool], object] = {}
        bins = CullBinManager.get_global_ptr()
        if bins.find_bin(PIECES_BIN) < 0:
            bins.add_bin(PIECES_BIN, CullBinEnums.BT_front_to_back, 15)
        if self.backend.shaders:
            self._setup_shaded(shadow_map)
        else:
            self._setup_flat()

    @property
    def shaded(self) -> bool:
        """Whether pictures get materials and shadows (False on the software renderer)."""
        return self.backend.shaders

    def _setup_shaded(self, shadow_map: int) -> None:
        self.root.set_shader(self._piece_shader("plain", False))
        self.root.set_antialias(AntialiasAttrib.M_multisample)
        self._backdrop.set_shader(shader(shaders.BACKDROP_VERTEX, shaders.BACKDROP_FRAGMENT))
        self._floor_shader = shader(shaders.FLOOR_VERTEX, shaders.FLOOR_FRAGMENT)
        self._table_shader = shader(shaders.FLOOR_VERTEX, shaders.TABLE_FRAGMENT)
        self._floor.set_shader(self._floor_shader)
        shade = Camera("towerlab-shade", self.lens)
        shade.set_camera_mask(MAIN_MASK)
        self._shade_camera = self.camera.attach_new_node(shade)
        self._resolve = shader(shaders.RESOLVE_VERTEX, shaders.RESOLVE_FRAGMENT)
        self._post_root, self._post_camera, self._post_card = post_scene()
        self._post_card.set_shader(shader(shaders.RESOLVE_VERTEX, shaders.FXAA_FRAGMENT))
        self._shadow = DepthPass(self.backend, self.root, "shadow", shadow_map)
        self._occlusion = DepthPass(self.backend, self.root, "occlusion", OCCLUSION_MAP)
        self._set_depth_passes(False)  # drawn only in draw(): a window's own frames must not pay for them
        light, bd = self.lighting, self.backdrop
        inputs = {
            "u_shadow_map": self._shadow.depth,
            "u_noise": noise_texture(),
            "u_occlusion_map": self._occlusion.depth,
            "u_occlusion_strength": light.occlusion_strength,
            "u_key_color": LVecBase3f(*light.key_color),
            "u_fill_color": LVecBase3f(*light.fill_color),
            "u_sky": LVecBase3f(*light.sky),
            "u_ground": LVecBase3f(*light.ground),
            "u_shadow_strength": light.shadow_strength,
            "u_bg_top": LVecBase3f(*bd.top),
            "u_bg_bottom": LVecBase3f(*bd.bottom),
            "u_vignette": bd.vignette,
            "u_finish": (0.0, 1.0, 0.0, 0.0),
            "u_grain": (0.0, 0.0, 0.0, 0.0),
        }
        table = self.table
        inputs["u_table_color"] = LVecBase3f(*table.color)
        inputs["u_table_grid"] = LVecBase4f(table.minor, table.major, table.minor_strength, table.major_strength)
        inputs["u_table_fade"] = LVecBase4f(0.0, 0.0, 1.0, 2.0)
        for name, value in inputs.items():
            self.root.set_shader_input(name, value)
        self.root.set_shader_input(ShaderInput("u_shadow_depth", self._shadow.depth, _RAW_DEPTH))

    def _setup_flat(self) -> None:
        self._backdrop.hide()
        self._floor.hide()
        ambient = AmbientLight("ambient")
        ambient.set_color((0.45, 0.45, 0.47, 1.0))
        self._key = DirectionalLight("key")
        self._key.set_color((0.75, 0.73, 0.70, 1.0))
        self._key_np = self.root.attach_new_node(self._key)
        self.root.set_light(self.root.attach_new_node(ambient))
        self.root.set_light(self._key_np)

    def graph(self, scene) -> SceneGraph:
        """A scene graph of ``scene`` built with this renderer's geometry cache and shaders."""
        return SceneGraph(scene, self.library, 0.0 if self.shaded else SOFTWARE_DECAL_LIFT,
                          shade=self._shade_surface if self.shaded else None)

    def _shade_surface(self, node: NodePath, pattern: str, support: bool) -> None:
        node.set_shader(self._piece_shader(pattern, support))

    def _piece_shader(self, pattern: str, support: bool):
        key = (pattern, support)
        if key not in self._piece_shaders:
            self._piece_shaders[key] = shader(shaders.PIECE_VERTEX, shaders.piece_fragment(pattern, support))
        return self._piece_shaders[key]

    def render(self, scene, size=(1024, 1024), camera: str = "iso", eye=None, look_at=None,
               transparent: bool = False) -> np.ndarray:
        """Draw a scene.

        Args:
            scene: the :class:`~sim.scene.Scene`.
            size: (width, height) pixels.
            camera: ``iso``, ``front``, ``side`` or ``top``, framed automatically.
            eye, look_at: (3,) metres, world: an explicit view instead of ``camera``.
            transparent: an alpha background (the floor's shadows stay, as coverage).

        Returns:
            (h, w, 4) uint8 RGBA, straight alpha, top row first.
        """
        graph = self.graph(scene)
        view = scene_camera(scene, size, camera, eye, look_at, self.lighting)
        return self.render_graph(graph, view, transparent)

    def render_graph(self, graph: SceneGraph, view: ViewCamera, transparent: bool = False) -> np.ndarray:
        """Draw a scene graph (at its current poses) from ``view`` and read the picture back; see :meth:`render`.

        The same as :meth:`update`, :meth:`draw` and :meth:`read`, after which the graph is let go.
        """
        try:
            self.update(graph, view, transparent)
            self.draw()
            return self.read()
        finally:
            self.release()

    def update(self, graph: SceneGraph, view: ViewCamera, transparent: bool = False) -> None:
        """Make ``graph``, at its current poses, and ``view`` what the next :meth:`draw` shows.

        Call it again after moving pieces (``graph.set_poses``): the camera, the key light's
        shadow box and the floor follow the new poses. The graph stays attached to this
        renderer until :meth:`release` or an update with another graph.

        Args:
            graph: a graph made by :meth:`graph`.
            view: the camera.
            transparent: an alpha background (the floor's shadows stay, as coverage).
        """
        if self._graph is not None and self._graph is not graph:
            self.release()
        self._graph, self._view, self._transparent = graph, view, transparent
        graph.root.reparent_to(self.root)
        graph.root.set_bin(PIECES_BIN, 0)
        if graph.board is not None:  # the board after the pieces: what stands on it hides much of it
            graph.board.set_bin("fixed", 0)
        self._aim(view)
        if self.shaded:
            self._light_shaded(graph.current_scene(), view, transparent)
        else:
            self._light_flat(view)

    def draw(self) -> None:
        """Draw one picture of what :meth:`update` set up, offscreen; :meth:`read` returns it.

        Raises:
            RuntimeError: nothing to draw (no :meth:`update` since the last :meth:`release`).
        """
        if self._graph is None:
            raise RuntimeError("nothing to draw: call update(graph, view) first")
        view, transparent = self._view, self._transparent
        frame = self._frame(view.size)
        clear = (0.0, 0.0, 0.0, 0.0) if transparent else (*self.backdrop.bottom, 1.0)
        try:
            frame.prepare(True, clear)
            self._set_depth_passes(True)
            if frame.shade is not None and self.antialias == "fxaa":
                self._post_card.set_shader_input("u_shaded", frame.colour)
            elif frame.shade is not None:
                resolve = ShaderAttrib.make(self._resolve)
                resolve = resolve.set_shader_input(ShaderInput("u_shaded", frame.colour))
                resolve = resolve.set_shader_input(ShaderInput("u_shaded_depth", frame.depth))
                self.camera.node().set_initial_state(RenderState.make(resolve, 1))
            self.backend.engine.render_frame()
        finally:
            # the engine draws every active buffer of the process: leave none active, so that other
            # renderers (and other sizes, and a viewer's window) do not pay for this one
            frame.prepare(False, clear)
            self._set_depth_passes(False)
        self._drawn = (frame, transparent)

    def read(self) -> np.ndarray:
        """The last picture :meth:`draw` made: (h, w, 4) uint8 RGBA, straight alpha, top row first.

        Raises:
            RuntimeError: nothing was drawn yet.
        """
        if self._drawn is None:
            raise RuntimeError("nothing drawn yet: call draw() first")
        frame, transparent = self._drawn
        image = frame.read()
        return unpremultiply(image) if transparent else image

    def release(self) -> None:
        """Let the attached graph go (it can be attached again, here or to another renderer)."""
        if self._graph is not None:
            self._graph.root.detach_node()
        self._graph = self._view = None

    def ids(self, graph: SceneGraph, view: ViewCamera) -> np.ndarray:
        """Which piece every pixel of ``view`` shows: the id pass (see :mod:`sim.render.ids`).

        Args:
            graph: a graph made by :meth:`graph`, at its current poses.
            view: the camera (its size is the picture's).

        Returns:
            (h, w) int32: the pose row (index into ``graph.ids``) of the piece each pixel shows,
            -1 for the board, the floor and the background. Top row first.
        """
        return self.ids_many(graph, [view])[0]

    def ids_many(self, graph: SceneGraph, views: list[ViewCamera]) -> list[np.ndarray]:
        """:meth:`ids` from several views, drawn in one frame (a search over views)."""
        from sim.render.ids import IdPass

        if self._id_pass is None:
            self._id_pass = IdPass(self.backend, self.root)
        other = self._graph if self._graph is not None and self._graph is not graph else None
        if other is not None:  # the graph update() attached stays out of this picture
            other.root.detach_node()
        attached = graph.root.get_parent() == self.root
        graph.root.reparent_to(self.root)
        try:
            return self._id_pass.draw(graph, list(views))
        finally:
            if not attached:
                graph.root.detach_node()
            if other is not None:
                other.root.reparent_to(self.root)

    def _set_depth_passes(self, active: bool) -> None:
        for depth_pass in (self._shadow, self._occlusion):
            if depth_pass is not None:
                depth_pass.buffer.set_active(active)

    def _frame(self, size) -> Frame:
        key = (int(size[0]), int(size[1]))
        if key not in self._frames:
            post = self.shaded and self.antialias == "fxaa"
            camera = self._post_camera if post else self.camera
            self._frames[key] = Frame(self.backend, key, camera, self._shade_camera, multisample=not post)
        return self._frames[key]

    def _aim(self, view: ViewCamera) -> None:
        place_camera(self.camera, self.lens, view)
        # the backdrop card fills the view just inside the far plane (the camera looks along +y)
        d = BACKDROP_DEPTH * view.far
        tx, ty = np.tan(np.radians(view.fov_x) / 2.0), np.tan(np.radians(view.fov_y) / 2.0)
        self._backdrop.set_pos(0.0, d, 0.0)
        self._backdrop.set_scale(1.05 * d * tx, 1.0, 1.05 * d * ty)

    def _light_shaded(self, scene, view: ViewCamera, transparent: bool) -> None:
        forward = view.basis[2]
        key = self.lighting.key_direction(forward)
        floor_z = -scene.board_info.thickness
        casters = piece_corners(scene)
        board = board_corners(scene)
        if len(board) and (len(casters) == 0 or np.ptp(board[:, 0]) <= SHADOW_BOARD_LIMIT):
            casters = np.vstack([casters, board])
        if len(casters) == 0:
            casters = np.zeros((1, 3))
        light_view = fit_light(casters, key, floor_z)
        self._shadow.place(light_view)
        texel = light_view.texel(self._shadow.resolution)
        light = self.lighting
        depth_range = light_view.far - light_view.near
        r = self.root
        r.set_shader_input("u_shadow_matrix", _matrix(light_view.texture_matrix()))
        r.set_shader_input("u_shadow_params", LVecBase4f(
            light.shadow_softness / light_view.width, light.penumbra_limit / light_view.width,
            DEPTH_BIAS_TEXELS * texel / depth_range,
            np.tan(np.radians(light.key_size_deg) / 2.0) * depth_range / light_view.width))
        r.set_shader_input("u_shadow_slope", light_view.width / depth_range)
        r.set_shader_input("u_normal_offset", NORMAL_OFFSET_TEXELS * texel)
        reach = self.lighting.occlusion_radius
        top = top_view(casters, floor_z, reach, OCCLUSION_MAP)
        self._occlusion.place(top)
        radius = max(reach, 2.5 * top.texel(OCCLUSION_MAP))
        depth = top.far - top.near
        r.set_shader_input("u_occlusion_matrix", _matrix(top.texture_matrix()))
        r.set_shader_input("u_occlusion_params", LVecBase4f(radius / top.width, radius / top.height,
                                                            OCCLUSION_GAP / depth, OCCLUSION_HEIGHT / depth))
        r.set_shader_input("u_eye", LVecBase3f(*view.eye))
        r.set_shader_input("u_key_dir", LVecBase3f(*key))
        r.set_shader_input("u_fill_dir", LVecBase3f(*self.lighting.fill_direction(forward)))
        r.set_shader_input("u_resolution", LVecBase2f(*view.size))
        r.set_shader_input("u_transparent", 1.0 if transparent else 0.0)
        extent = float(np.max(np.ptp(casters, axis=0))) if len(casters) > 1 else 0.1
        centre = casters.mean(axis=0)
        self._floor.set_pos(centre[0], centre[1], floor_z - FLOOR_GAP)
        self._floor.set_scale(FLOOR_EXTENT * max(extent, 0.05))
        # the endless table shows itself (a board's scene keeps an invisible floor catching shadows)
        table = scene.board_info.shape is None and not transparent
        self._floor.set_shader(self._table_shader if table else self._floor_shader)
        size = max(extent, 0.05)
        r.set_shader_input("u_table_fade", LVecBase4f(centre[0], centre[1], self.table.fade_start * size,
                                                      self.table.fade_end * size))
        if transparent:
            self._backdrop.hide(MAIN_MASK)
        else:
            self._backdrop.show(MAIN_MASK)

    def _light_flat(self, view: ViewCamera) -> None:
        key = self.lighting.key_direction(view.basis[2])
        self._key_np.look_at(LVecBase3f(*(-key)))

    def close(self) -> None:
        """Release the offscreen buffers (the renderer cannot draw afterwards)."""
        self.release()
        engine = self.backend.engine
        for f in self._frames.values():
            for o in f.outputs:
                engine.remove_window(o)
        self._frames.clear()
        if self._id_pass is not None:
            for o in self._id_pass.outputs():
                engine.remove_window(o)
            self._id_pass = None
        for depth_pass in (self._shadow, self._occlusion):
            if depth_pass is not None:
                engine.remove_window(depth_pass.buffer)
        self._shadow = self._occlusion = None


def _matrix(m: np.ndarray) -> LMatrix4f:
    """A (4, 4) column-vector matrix as Panda3D's row-vector LMatrix4f (GLSL's ``m * v`` is then ``m @ v``)."""
    return LMatrix4f(*np.asarray(m, dtype=float).T.ravel())


def unpremultiply(image: np.ndarray) -> np.ndarray:
    """Straight alpha from a premultiplied (h, w, 4) uint8 image (anti-aliased edges over transparency)."""
    rgb = image[..., :3].astype(np.float32)
    a = image[..., 3:4].astype(np.float32)
    out = image.copy()
    out[..., :3] = np.where(a > 0, np.clip(np.round(rgb * 255.0 / np.maximum(a, 1.0)), 0, 255), 0)
    return out
