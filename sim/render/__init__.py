"""Pictures of scenes: a Panda3D scene graph and an offscreen renderer (no display needed).

``render_scene`` and ``save_png`` are the layer's contract (docs/contracts.md);
:class:`~sim.render.renderer.Renderer` draws batches and serves the viewer.
Panda3D is imported only when a picture is drawn, so ``import sim.render``
stays light.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from sim.render.camera import CAMERAS, Camera, CameraError, scene_camera
from sim.render.image import load_png, save_png

ANTIALIAS = ("msaa", "fxaa")

__all__ = ["ANTIALIAS", "CAMERAS", "Camera", "CameraError", "default_renderer", "load_png", "render_scene", "save_png",
           "scene_camera"]


@cache
def default_renderer(antialias: str = "msaa"):
    """The process's shared :class:`~sim.render.renderer.Renderer` for an anti-aliasing mode (made on first use).

    Args:
        antialias: ``msaa`` (4x multisampling, the default) or ``fxaa`` (faster).
    """
    from sim.render.backend import offscreen_backend
    from sim.render.renderer import Renderer

    return Renderer(offscreen_backend(), antialias=antialias)


def render_scene(scene, size=(1024, 1024), camera: str = "iso", eye=None, look_at=None,
                 transparent: bool = False) -> np.ndarray:
    """Draw a scene offscreen.

    Args:
        scene: the :class:`~sim.scene.Scene`.
        size: (width, height) pixels.
        camera: ``iso`` (default), ``front``, ``side`` or ``top``: a view framing every piece
            (and the board, when it is not much larger than what stands on it).
        eye, look_at: (3,) metres, world: an explicit view instead (both or neither).
        transparent: an alpha background; the pieces' shadows on the floor stay, as coverage.

    Returns:
        (h, w, 4) uint8 RGBA, straight alpha, top row first.

    Raises:
        CameraError: unknown camera, or only one of eye and look_at.
    """
    w, h = (int(s) for s in size)
    return default_renderer().render(scene, (w, h), camera, eye, look_at, transparent)
