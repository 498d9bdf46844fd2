"""The id pass: every piece drawn in a flat colour of its own, offscreen, to tell which piece each pixel shows.

Its uses are visibility questions — is every piece a card counts visible in its
illustration, which piece is under the mouse — answered with the same geometry,
camera and depth test as the picture. A pixel's colour is its piece's row in
the scene graph plus one, in 24 bits (red lowest); the board, the floor and the
background are 0.
"""

from __future__ import annotations

import numpy as np
from panda3d.core import (
    Camera,
    ColorAttrib,
    FrameBufferProperties,
    GraphicsOutput,
    LightAttrib,
    LVecBase4f,
    NodePath,
    PerspectiveLens,
    RenderState,
    ShaderAttrib,
    Texture,
    TextureAttrib,
)

from sim.render.backend import Backend
from sim.render.camera import Camera as ViewCamera
from sim.render.graph import ID_MASK, SceneGraph

ID_TAG = "towerlab-id"
NONE = -1  # what ids() gives where no piece is seen
_OVERRIDE = 1000  # above every attribute the scene sets on its nodes (their shaders, inputs, colours)
MAX_PIECES = 2 ** 24 - 1

_VERTEX = """#version 330
uniform mat4 p3d_ModelViewProjectionMatrix;
in vec4 p3d_Vertex;

void main() {
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
}
"""

_FRAGMENT = """#version 330
uniform vec4 u_id;
out vec4 frag_color;

void main() {
    frag_color = u_id;
}
"""


def id_colour(row: int) -> tuple[float, float, float, float]:
    """The flat RGBA colour (0..1, exact in 8 bits) of the piece in pose row ``row``."""
    v = row + 1
    return ((v & 255) / 255.0, ((v >> 8) & 255) / 255.0, ((v >> 16) & 255) / 255.0, 1.0)


def decode(image: np.ndarray) -> np.ndarray:
    """(h, w, 4) uint8 id picture -> (h, w) int32 pose rows, :data:`NONE` where no piece is seen."""
    rgb = image[..., :3].astype(np.int32)
    return (rgb[..., 0] | (rgb[..., 1] << 8) | (rgb[..., 2] << 16)) - 1


class IdPass:
    """Draws id pictures, several views in one frame (a search over views costs one frame, not one each).

    Args:
        backend: the backend whose pipe the buffers are made on.
        root: the renderer's root node: the id cameras are attached under it.
    """

    def __init__(self, backend: Backend, root: NodePath):
        self.backend = backend
        self._root = root
        self._shader = None
        if backend.shaders:
            from sim.render.buffers import shader

            self._shader = shader(_VERTEX, _FRAGMENT)
        self._background = self._state(NONE)  # the board: no piece
        self._states: list[RenderState] = []  # per pose row
        self._cameras: list[tuple[NodePath, PerspectiveLens]] = []
        self._buffers: dict[tuple[tuple[int, int], int], tuple[object, Texture]] = {}

    def _state(self, row: int) -> RenderState:
        colour = id_colour(row) if row >= 0 else (0.0, 0.0, 0.0, 1.0)
        flat = (ColorAttrib.make_flat(colour), LightAttrib.make_all_off(), TextureAttrib.make_all_off())
        if self._shader is None:
            return RenderState.make(*flat, ShaderAttrib.make_off(), _OVERRIDE)
        attrib = ShaderAttrib.make(self._shader).set_shader_input("u_id", LVecBase4f(*colour))
        return RenderState.make(*flat, attrib, _OVERRIDE)

    def _camera(self, slot: int) -> tuple[NodePath, PerspectiveLens]:
        while len(self._cameras) <= slot:
            lens = PerspectiveLens()
            camera = Camera(f"towerlab-ids-{len(self._cameras)}", lens)
            camera.set_camera_mask(ID_MASK)
            camera.set_tag_state_key(ID_TAG)
            camera.set_initial_state(self._background)
            for row, state in enumerate(self._states):
                camera.set_tag_state(str(row), state)
            self._cameras.append((self._root.attach_new_node(camera), lens))
        return self._cameras[slot]

    def _number(self, rows: int) -> None:
        """Make the tag states of pose rows up to ``rows`` on every camera."""
        for row in range(len(self._states), rows):
            state = self._state(row)
            self._states.append(state)
            for camera, _ in self._cameras:
                camera.node().set_tag_state(str(row), state)

    def _buffer(self, size: tuple[int, int], slot: int):
        key = (size, slot)
        if key not in self._buffers:
            from sim.render.buffers import make_buffer

            fb = FrameBufferProperties()
            fb.set_rgba_bits(8, 8, 8, 8)
            fb.set_depth_bits(24)
            w, h = size
            buffer = make_buffer(self.backend, f"towerlab-ids-{w}x{h}-{slot}", 0, size, fb)
            texture = Texture(f"towerlab-ids-{w}x{h}-{slot}")
            buffer.add_render_texture(texture, GraphicsOutput.RTM_copy_ram)
            buffer.set_clear_color_active(True)
            buffer.set_clear_color((0.0, 0.0, 0.0, 1.0))
            buffer.set_clear_depth_active(True)
            buffer.make_display_region().set_camera(self._camera(slot)[0])
            buffer.set_active(False)
            self.backend.engine.open_windows()
            self._buffers[key] = (buffer, texture)
        return self._buffers[key]

    def draw(self, graph: SceneGraph, views: list[ViewCamera]) -> list[np.ndarray]:
        """The id pictures of an attached graph from each of ``views``, drawn in one frame.

        Returns:
            Per view, (h, w) int32 pose rows of :attr:`SceneGraph.ids`, :data:`NONE` where no
            piece is seen; top row first.

        Raises:
            ValueError: more pieces than 24 bits can number.
        """
        n = len(graph.nodes)
        if n > MAX_PIECES:
            raise ValueError(f"the id pass numbers at most {MAX_PIECES} pieces, got {n}")
        self._number(n)
        for row, node in enumerate(graph.nodes.values()):
            node.set_tag(ID_TAG, str(row))
        from sim.render.buffers import place_camera

        used = []
        for slot, view in enumerate(views):
            size = (int(view.size[0]), int(view.size[1]))
            buffer, texture = self._buffer(size, slot)
            place_camera(*self._camera(slot), view)
            used.append((buffer, texture, size))
        try:
            for buffer, _, _ in used:
                buffer.set_active(True)
            self.backend.engine.render_frame()
        finally:
            for buffer, _, _ in used:
                buffer.set_active(False)
        out = []
        for _, texture, (w, h) in used:
            data = np.frombuffer(bytes(texture.get_ram_image_as("RGBA")), dtype=np.uint8).reshape(h, w, 4)
            out.append(decode(data[::-1]))
        return out

    def outputs(self) -> list:
        """The Panda3D buffers made so far."""
        return [b for b, _ in self._buffers.values()]
