"""Offscreen buffers of the renderer: the picture's two passes, and the depth maps seen from the lights.

Why two passes for a picture: llvmpipe (EGL without a GPU) runs the fragment
shader once per sample wherever a triangle edge crosses a block of pixels in
a multisampled buffer, and tests depth only after shading there, which about
doubles the cost of the expensive material shader. So the full shading runs
once per pixel in a plain buffer (with early depth tests), and a cheap second
pass over the same geometry in a 4x multisampled buffer gives every sample
the shaded colour of its own surface: the colour of the pixel, or of the
neighbouring pixel nearest in depth where another surface covers the pixel's
centre. Edges get true multisample coverage at a fraction of the cost.
"""

from __future__ import annotations

import numpy as np
from panda3d.core import (
    Camera,
    CardMaker,
    ColorWriteAttrib,
    FrameBufferProperties,
    GraphicsOutput,
    GraphicsPipe,
    LVecBase3f,
    NodePath,
    OrthographicLens,
    RenderState,
    SamplerState,
    Shader,
    ShaderAttrib,
    Texture,
    WindowProperties,
)

from sim.render import shaders
from sim.render.backend import Backend, RendererUnavailableError
from sim.render.graph import SHADOW_MASK
from sim.render.lightview import LightView

NOISE_SEED = 20240601  # the noise is the same in every picture


def shader(vertex: str, fragment: str) -> Shader:
    """A GLSL shader program."""
    return Shader.make(Shader.SL_GLSL, vertex, fragment)


def depth_only_state() -> RenderState:
    """A camera state that draws depth only, overriding the scene's shaders."""
    return RenderState.make(ShaderAttrib.make(shader(shaders.DEPTH_VERTEX, shaders.DEPTH_FRAGMENT)),
                            ColorWriteAttrib.make(ColorWriteAttrib.C_off), 1)


def make_buffer(b: Backend, name: str, sort: int, size: tuple[int, int], fb: FrameBufferProperties):
    """An offscreen buffer of ``size`` (w, h) pixels on the backend's pipe, sharing its host's context.

    Raises:
        RendererUnavailableError: the pipe could not make it.
    """
    gsg = b.host.get_gsg() if b.host is not None else None
    out = b.engine.make_output(b.pipe, name, sort, fb, WindowProperties.size(*size),
                               GraphicsPipe.BF_refuse_window, gsg, b.host)
    if out is None:
        raise RendererUnavailableError(f"could not make the offscreen buffer {name} ({size[0]} x {size[1]})")
    return out


def place_camera(node: NodePath, lens, view) -> None:
    """Put a Panda3D camera node and its perspective lens where a :class:`~sim.render.camera.Camera` says."""
    lens.set_fov(view.fov_x, view.fov_y)
    lens.set_near_far(view.near, view.far)
    node.set_pos(*view.eye)
    node.look_at(LVecBase3f(*view.target), LVecBase3f(*view.up))


def _nearest(tex: Texture) -> Texture:
    tex.set_minfilter(SamplerState.FT_nearest)
    tex.set_magfilter(SamplerState.FT_nearest)
    return tex


def post_scene() -> tuple[NodePath, NodePath, NodePath]:
    """A full-screen card seen by an orthographic camera: the stage of a post-process.

    Returns:
        The stage's root, its camera and the card.
    """
    root = NodePath("towerlab-post")
    lens = OrthographicLens()
    lens.set_film_size(2.0, 2.0)
    lens.set_near_far(-1.0, 1.0)
    camera = root.attach_new_node(Camera("towerlab-post", lens))
    card = CardMaker("post")
    card.set_frame(-1.0, 1.0, -1.0, 1.0)
    return root, camera, root.attach_new_node(card.generate())


class Frame:
    """The buffers of one picture size.

    ``shade`` (shaders only) draws the full materials once per pixel into a
    colour and a depth texture; ``buffer`` draws the picture that is read
    back: the scene again through the resolve shader (multisampled), or a
    full-screen post-process of the shaded colours (FXAA), or, without
    shaders, the scene itself.

    Args:
        b: the backend.
        size: (width, height) pixels.
        camera: the camera of the picture (the scene's or the post-process's).
        shade_camera: the camera of the shading pass (same lens and place), or None.
        multisample: whether ``buffer`` is multisampled.
    """

    def __init__(self, b: Backend, size: tuple[int, int], camera: NodePath, shade_camera: NodePath | None,
                 multisample: bool):
        w, h = size
        self.size = (w, h)
        self.shade = self.colour = self.depth = None
        if shade_camera is not None:
            fb = FrameBufferProperties()
            fb.set_rgba_bits(8, 8, 8, 8)
            fb.set_depth_bits(24)
            self.shade = make_buffer(b, f"towerlab-shade-{w}x{h}", -5, size, fb)
            self.colour = Texture(f"towerlab-shade-{w}x{h}")  # filtered: FXAA samples between pixels
            self.colour.set_minfilter(SamplerState.FT_linear)
            self.colour.set_magfilter(SamplerState.FT_linear)
            self.colour.set_wrap_u(SamplerState.WM_clamp)
            self.colour.set_wrap_v(SamplerState.WM_clamp)
            self.depth = _nearest(Texture(f"towerlab-shade-depth-{w}x{h}"))
            self.shade.add_render_texture(self.colour, GraphicsOutput.RTM_bind_or_copy, GraphicsOutput.RTP_color)
            self.shade.add_render_texture(self.depth, GraphicsOutput.RTM_bind_or_copy, GraphicsOutput.RTP_depth)
            self.shade.set_clear_color_active(True)
            self.shade.set_clear_depth_active(True)
            self.shade.make_display_region().set_camera(shade_camera)
        fb = FrameBufferProperties()
        fb.set_rgba_bits(8, 8, 8, 8)
        fb.set_depth_bits(24)
        if multisample and b.multisamples:
            fb.set_multisamples(b.multisamples)
        self.buffer = make_buffer(b, f"towerlab-{w}x{h}", 0, size, fb)
        self.texture = Texture(f"towerlab-{w}x{h}")
        self.buffer.add_render_texture(self.texture, GraphicsOutput.RTM_copy_ram)
        self.buffer.set_clear_color_active(True)
        self.buffer.set_clear_depth_active(True)
        self.buffer.make_display_region().set_camera(camera)
        b.engine.open_windows()

    @property
    def outputs(self) -> list:
        """The Panda3D buffers of this size."""
        return [o for o in (self.shade, self.buffer) if o is not None]

    def prepare(self, active: bool, clear_color) -> None:
        """Draw (or skip) this size's buffers in the next frame, clearing to ``clear_color``."""
        for o in self.outputs:
            o.set_active(active)
            o.set_clear_color(clear_color)

    def read(self) -> np.ndarray:
        """(h, w, 4) uint8 of the last frame, top row first."""
        w, h = self.size
        data = self.texture.get_ram_image_as("RGBA")
        return np.frombuffer(bytes(data), dtype=np.uint8).reshape(h, w, 4)[::-1].copy()


class DepthPass:
    """A depth map seen along a light (the key light's shadows, or straight down for contact
    occlusion), drawn before the picture in the same frame.

    Attributes:
        depth: the depth texture, set up for filtered comparisons (``sampler2DShadow``).
        resolution: texels per side.
    """

    def __init__(self, b: Backend, root: NodePath, name: str, resolution: int):
        fb = FrameBufferProperties()
        fb.set_rgba_bits(8, 8, 8, 0)
        fb.set_depth_bits(24)
        self.buffer = make_buffer(b, f"towerlab-{name}", -10, (resolution, resolution), fb)
        self.depth = Texture(f"towerlab-{name}-depth")
        self.depth.set_minfilter(SamplerState.FT_shadow)
        self.depth.set_magfilter(SamplerState.FT_shadow)
        self.depth.set_wrap_u(SamplerState.WM_border_color)
        self.depth.set_wrap_v(SamplerState.WM_border_color)
        self.depth.set_border_color((1, 1, 1, 1))
        self.buffer.add_render_texture(self.depth, GraphicsOutput.RTM_bind_or_copy, GraphicsOutput.RTP_depth)
        self.buffer.set_clear_depth_active(True)
        self.lens = OrthographicLens()
        cam = Camera(f"towerlab-{name}", self.lens)
        cam.set_camera_mask(SHADOW_MASK)
        cam.set_initial_state(depth_only_state())
        self.camera = root.attach_new_node(cam)
        self.buffer.make_display_region().set_camera(self.camera)
        self.resolution = resolution
        b.engine.open_windows()

    def place(self, view: LightView) -> None:
        """Point the light camera as ``view`` says."""
        r, u, f = view.basis
        self.lens.set_film_size(view.width, view.height)
        self.lens.set_near_far(view.near, view.far)
        self.camera.set_pos(*view.origin)
        self.camera.look_at(LVecBase3f(*(view.origin + f)), LVecBase3f(*u))


def noise_texture() -> Texture:
    """A repeating texture of random values (bilinear): the grain and fibre patterns' source."""
    n = shaders.NOISE_SIZE
    values = np.random.default_rng(NOISE_SEED).integers(0, 256, size=(n, n), dtype=np.uint8)
    tex = Texture("towerlab-noise")
    tex.setup_2d_texture(n, n, Texture.T_unsigned_byte, Texture.F_luminance)
    tex.set_ram_image(values.tobytes())
    for wrap in (tex.set_wrap_u, tex.set_wrap_v):
        wrap(SamplerState.WM_repeat)
    tex.set_minfilter(SamplerState.FT_linear)
    tex.set_magfilter(SamplerState.FT_linear)
    return tex
