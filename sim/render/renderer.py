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
    ColorWriteAttrib,
    DirectionalLight,
    FrameBufferProperties,
    GraphicsOutput,
    GraphicsPipe,
    LMatrix4f,
    LVecBase2f,
    LVecBase3f,
    LVecBase4f,
    NodePath,
    OmniBoundingVolume,
    OrthographicLens,
    PerspectiveLens,
    RenderState,
    SamplerState,
    Shader,
    ShaderAttrib,
    ShaderInput,
    Texture,
    WindowProperties,
)

from sim.render import shaders
from sim.render.backend import Backend, RendererUnavailableError, backend
from sim.render.camera import Camera as ViewCamera
from sim.render.camera import board_corners, piece_corners, scene_camera
from sim.render.graph import MAIN_MASK, SHADOW_MASK, GeomLibrary, SceneGraph, geom_node
from sim.render.lightview import LightView, fit_light, top_view
from sim.render.looks import BACKDROP, LIGHTING, Backdrop, Lighting

SHADOW_MAP = 2048  # texels per side of the shadow map
SHADOW_BOARD_LIMIT = 0.5  # m: boards up to this size cast shadows (game boards, not big tables)
NORMAL_OFFSET_TEXELS = 1.5  # shadow look-ups start this far off the surface (no self-shadowing acne)
DEPTH_BIAS_TEXELS = 1.0
FLOOR_EXTENT = 60.0  # the floor's half-size, in multiples of the scene's size: it reaches the horizon
FLOOR_GAP = 1e-4  # m between the board's bottom and the floor
SOFTWARE_DECAL_LIFT = 5e-4  # m per decal layer: the software renderer ignores depth offsets
OCCLUSION_MAP = 256  # texels per side of the top-down map of contact occlusion
OCCLUSION_GAP = 3e-4  # m: an occluder must be this much above a surface to shade it


_RAW_DEPTH = SamplerState()  # the shadow map read as depths, not compared
_RAW_DEPTH.set_minfilter(SamplerState.FT_nearest)
_RAW_DEPTH.set_magfilter(SamplerState.FT_nearest)
_RAW_DEPTH.set_wrap_u(SamplerState.WM_clamp)
_RAW_DEPTH.set_wrap_v(SamplerState.WM_clamp)


def _shader(vertex: str, fragment: str):
    return Shader.make(Shader.SL_GLSL, vertex, fragment)


def _quad(name: str, half: float, z: float) -> NodePath:
    """A square facing +z, centred on the origin (m)."""
    p = np.array([[-half, -half, z], [half, -half, z], [half, half, z],
                  [-half, -half, z], [half, half, z], [-half, half, z]])
    n = np.tile([0.0, 0.0, 1.0], (6, 1))
    c = np.ones((6, 4))
    return NodePath(geom_node(name, p, n, c))


class _Output:
    """An offscreen colour buffer of one size, read back to RAM after each frame."""

    def __init__(self, b: Backend, size: tuple[int, int], camera: NodePath):
        fb = FrameBufferProperties()
        fb.set_rgba_bits(8, 8, 8, 8)
        fb.set_depth_bits(24)
        if b.multisamples:
            fb.set_multisamples(b.multisamples)
        w, h = size
        gsg = b.host.get_gsg() if b.host is not None else None
        self.buffer = b.engine.make_output(b.pipe, f"towerlab-{w}x{h}", 0, fb, WindowProperties.size(w, h),
                                           GraphicsPipe.BF_refuse_window, gsg, b.host)
        if self.buffer is None:
            raise RendererUnavailableError(f"could not make a {w} x {h} offscreen buffer")
        self.texture = Texture(f"towerlab-{w}x{h}")
        self.buffer.add_render_texture(self.texture, GraphicsOutput.RTM_copy_ram)
        self.buffer.set_clear_color_active(True)
        self.buffer.set_clear_depth_active(True)
        self.region = self.buffer.make_display_region()
        self.region.set_camera(camera)
        self.size = (w, h)
        b.engine.open_windows()

    def read(self) -> np.ndarray:
        """(h, w, 4) uint8, top row first."""
        w, h = self.size
        data = self.texture.get_ram_image_as("RGBA")
        return np.frombuffer(bytes(data), dtype=np.uint8).reshape(h, w, 4)[::-1].copy()


class _DepthPass:
    """A depth map seen along a light (the key light's shadows, or straight down for contact
    occlusion), rendered before the picture in the same frame."""

    def __init__(self, b: Backend, root: NodePath, name: str, resolution: int):
        fb = FrameBufferProperties()
        fb.set_rgb_color(True)
        fb.set_rgba_bits(8, 8, 8, 0)
        fb.set_depth_bits(24)
        self.buffer = b.engine.make_output(b.pipe, f"towerlab-{name}", -10, fb,
                                           WindowProperties.size(resolution, resolution),
                                           GraphicsPipe.BF_refuse_window, b.host.get_gsg(), b.host)
        if self.buffer is None:
            raise RendererUnavailableError(f"could not make the {name} depth buffer")
        self.depth = Texture(f"towerlab-{name}-depth")
        self.depth.set_minfilter(SamplerState.FT_shadow)
        self.depth.set_magfilter(SamplerState.FT_shadow)
        self.depth.set_wrap_u(SamplerState.WM_border_color)
        self.depth.set_wrap_v(SamplerState.WM_border_color)
        self.depth.set_border_color((1, 1, 1, 1))
        self.buffer.add_render_texture(self.depth, GraphicsOutput.RTM_bind_or_copy,
                                       GraphicsOutput.RTP_depth)
        self.buffer.set_clear_depth_active(True)
        self.lens = OrthographicLens()
        cam = Camera(f"towerlab-{name}", self.lens)
        cam.set_camera_mask(SHADOW_MASK)
        depth_only = RenderState.make(
            ShaderAttrib.make(_shader(shaders.DEPTH_VERTEX, shaders.DEPTH_FRAGMENT)),
            ColorWriteAttrib.make(ColorWriteAttrib.C_off), 1)
        cam.set_initial_state(depth_only)
        self.camera = root.attach_new_node(cam)
        region = self.buffer.make_display_region()
        region.set_camera(self.camera)
        self.resolution = resolution
        b.engine.open_windows()

    def place(self, view: LightView) -> None:
        """Point the light camera as ``view`` says."""
        r, u, f = view.basis
        self.lens.set_film_size(view.width, view.height)
        self.lens.set_near_far(view.near, view.far)
        self.camera.set_pos(*view.origin)
        self.camera.look_at(LVecBase3f(*(view.origin + f)), LVecBase3f(*u))


class Renderer:
    """Draws scenes offscreen; reusable for any number of pictures and sizes.

    Args:
        lighting: lights and shadow settings.
        backdrop: background of opaque pictures.
        shadow_map: texels per side of the shadow map.
    """

    def __init__(self, lighting: Lighting = LIGHTING, backdrop: Backdrop = BACKDROP,
                 shadow_map: int = SHADOW_MAP):
        self.backend = backend()
        self.lighting = lighting
        self.backdrop = backdrop
        self.library = GeomLibrary()
        self.root = NodePath("towerlab-render")
        lens = PerspectiveLens()
        cam = Camera("towerlab-camera", lens)
        cam.set_camera_mask(MAIN_MASK)
        self.lens = lens
        self.camera = self.root.attach_new_node(cam)
        self._outputs: dict[tuple[int, int], _Output] = {}
        self._backdrop = _quad("backdrop", 1.0, 0.0)
        self._backdrop.reparent_to(self.root)
        self._backdrop.node().set_bounds(OmniBoundingVolume())
        self._backdrop.node().set_final(True)
        self._backdrop.set_bin("background", 0)
        self._backdrop.set_depth_write(False)
        self._backdrop.set_depth_test(False)
        self._backdrop.hide(SHADOW_MASK)
        self._floor = _quad("floor", 1.0, 0.0)
        self._floor.reparent_to(self.root)
        self._floor.hide(SHADOW_MASK)
        self._shadow = self._occlusion = None
        if self.backend.shaders:
            self._setup_shaded(shadow_map)
        else:
            self._setup_flat()

    @property
    def shaded(self) -> bool:
        """Whether pictures get materials and shadows (False on the software renderer)."""
        return self.backend.shaders

    def _setup_shaded(self, shadow_map: int) -> None:
        self.root.set_shader(_shader(shaders.PIECE_VERTEX, shaders.PIECE_FRAGMENT))
        self.root.set_antialias(AntialiasAttrib.M_multisample)
        self._backdrop.set_shader(_shader(shaders.BACKDROP_VERTEX, shaders.BACKDROP_FRAGMENT))
        self._floor.set_shader(_shader(shaders.FLOOR_VERTEX, shaders.FLOOR_FRAGMENT))
        self._shadow = _DepthPass(self.backend, self.root, "shadow", shadow_map)
        self._occlusion = _DepthPass(self.backend, self.root, "occlusion", OCCLUSION_MAP)
        light, bd = self.lighting, self.backdrop
        inputs = {
            "u_shadow_map": self._shadow.depth,
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
        """A scene graph of ``scene`` built with this renderer's geometry cache."""
        return SceneGraph(scene, self.library, 0.0 if self.shaded else SOFTWARE_DECAL_LIFT)

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
        view = scene_camera(scene, size, camera, eye, look_at)
        return self.render_graph(graph, view, transparent)

    def render_graph(self, graph: SceneGraph, view: ViewCamera, transparent: bool = False) -> np.ndarray:
        """Draw a scene graph (at its current poses) from ``view``; see :meth:`render`."""
        out = self._output(view.size)
        graph.root.reparent_to(self.root)
        try:
            self._aim(view)
            scene = graph.current_scene()
            if self.shaded:
                self._light_shaded(scene, view, transparent)
            else:
                self._light_flat(view)
            out.buffer.set_clear_color((0.0, 0.0, 0.0, 0.0) if transparent else (*self.backdrop.bottom, 1.0))
            for o in self._outputs.values():
                o.buffer.set_active(o is out)
            self.backend.engine.render_frame()
            image = out.read()
        finally:
            graph.root.detach_node()
        return unpremultiply(image) if transparent else image

    def _output(self, size) -> _Output:
        key = (int(size[0]), int(size[1]))
        if key not in self._outputs:
            self._outputs[key] = _Output(self.backend, key, self.camera)
        return self._outputs[key]

    def _aim(self, view: ViewCamera) -> None:
        self.lens.set_fov(view.fov_x, view.fov_y)
        self.lens.set_near_far(view.near, view.far)
        self.camera.set_pos(*view.eye)
        self.camera.look_at(LVecBase3f(*view.target), LVecBase3f(*view.up))

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
        r.set_shader_input("u_normal_offset", NORMAL_OFFSET_TEXELS * texel)
        reach = self.lighting.occlusion_radius
        top = top_view(casters, floor_z, reach, OCCLUSION_MAP)
        self._occlusion.place(top)
        radius = max(reach, 2.5 * top.texel(OCCLUSION_MAP))
        depth = top.far - top.near
        r.set_shader_input("u_occlusion_matrix", _matrix(top.texture_matrix()))
        r.set_shader_input("u_occlusion_params", LVecBase3f(radius / top.width, radius / top.height,
                                                            OCCLUSION_GAP / depth))
        r.set_shader_input("u_eye", LVecBase3f(*view.eye))
        r.set_shader_input("u_key_dir", LVecBase3f(*key))
        r.set_shader_input("u_fill_dir", LVecBase3f(*self.lighting.fill_direction(forward)))
        r.set_shader_input("u_resolution", LVecBase2f(*view.size))
        r.set_shader_input("u_transparent", 1.0 if transparent else 0.0)
        extent = float(np.max(np.ptp(casters, axis=0))) if len(casters) > 1 else 0.1
        centre = casters.mean(axis=0)
        self._floor.set_pos(centre[0], centre[1], floor_z - FLOOR_GAP)
        self._floor.set_scale(FLOOR_EXTENT * max(extent, 0.05))
        if transparent:
            self._backdrop.hide()
        else:
            self._backdrop.show()

    def _light_flat(self, view: ViewCamera) -> None:
        key = self.lighting.key_direction(view.basis[2])
        self._key_np.look_at(LVecBase3f(*(-key)))

    def close(self) -> None:
        """Release the offscreen buffers (the renderer cannot draw afterwards)."""
        engine = self.backend.engine
        for o in self._outputs.values():
            engine.remove_window(o.buffer)
        self._outputs.clear()
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
