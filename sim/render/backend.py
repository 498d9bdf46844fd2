"""The process's one Panda3D graphics engine: headless EGL, else the software rasteriser.

No display is needed. EGL (``p3headlessgl``, e.g. Mesa's llvmpipe on a machine
without a GPU) gives shaders, shadows and multisampling; when it cannot start,
Panda3D's software renderer (``p3tinydisplay``) draws flat-lit pictures and one
warning line says so. ``TOWERLAB_RENDERER=software`` (or ``egl``) forces a choice.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from functools import cache

from sim.errors import TowerlabError

log = logging.getLogger(__name__)

ENV_RENDERER = "TOWERLAB_RENDERER"
CHOICES = ("auto", "egl", "software")
MULTISAMPLES = 4  # llvmpipe's maximum; 4x MSAA smooths every edge

_PRC = """
audio-library-name null
window-type none
sync-video false
notify-level warning
notify-level-egldisplay error
notify-level-x11display fatal
notify-level-tinydisplay error
"""


class RendererUnavailableError(TowerlabError):
    """No offscreen renderer could be started (or the one asked for in TOWERLAB_RENDERER)."""


@dataclass(frozen=True)
class Backend:
    """The graphics engine and pipe every renderer of this process draws with.

    Attributes:
        name: ``egl`` or ``software``.
        engine: Panda3D's ``GraphicsEngine``.
        pipe: the ``GraphicsPipe`` buffers are made on.
        host: a 1 × 1 buffer whose GL context the framebuffer objects share (None for software).
        shaders: whether GLSL shaders (and so shadows and materials) are available.
        multisamples: samples per pixel of the anti-aliased buffers (0: none).
    """

    name: str
    engine: object
    pipe: object
    host: object
    shaders: bool
    multisamples: int


def _egl(engine) -> Backend:
    from panda3d.core import FrameBufferProperties, GraphicsPipe, GraphicsPipeSelection, WindowProperties

    pipe = GraphicsPipeSelection.get_global_ptr().make_module_pipe("p3headlessgl")
    if pipe is None or not pipe.is_valid():
        raise RendererUnavailableError("the EGL pipe (p3headlessgl) did not start")
    fb = FrameBufferProperties()
    fb.set_rgba_bits(8, 8, 8, 8)
    fb.set_depth_bits(24)
    host = engine.make_output(pipe, "towerlab-host", -100, fb, WindowProperties.size(1, 1),
                              GraphicsPipe.BF_refuse_window, None, None)
    if host is None:
        raise RendererUnavailableError("EGL gave no offscreen buffer")
    engine.open_windows()
    gsg = host.get_gsg()
    if gsg is None or not host.is_valid() or not gsg.get_supports_glsl():
        engine.remove_window(host)
        raise RendererUnavailableError("EGL has no GLSL support")
    return Backend("egl", engine, pipe, host, True, MULTISAMPLES)


def _software(engine) -> Backend:
    from panda3d.core import GraphicsPipeSelection

    pipe = GraphicsPipeSelection.get_global_ptr().make_module_pipe("p3tinydisplay")
    if pipe is None:
        raise RendererUnavailableError("neither EGL nor the software renderer (p3tinydisplay) could start")
    return Backend("software", engine, pipe, None, False, 0)


@cache
def backend() -> Backend:
    """Start (once per process) and return the graphics backend.

    Raises:
        RendererUnavailableError: nothing could start, or ``TOWERLAB_RENDERER`` asks
            for a renderer that cannot.
    """
    choice = os.environ.get(ENV_RENDERER, "auto").strip().lower() or "auto"
    if choice not in CHOICES:
        raise RendererUnavailableError(f"{ENV_RENDERER}={choice!r}: expected one of {', '.join(CHOICES)}")
    from panda3d.core import GraphicsEngine, loadPrcFileData

    loadPrcFileData("towerlab-render", _PRC)
    engine = GraphicsEngine.get_global_ptr()
    if choice in ("auto", "egl"):
        try:
            return _egl(engine)
        except RendererUnavailableError as e:
            if choice == "egl":
                raise
            log.warning("towerlab: %s; using the software renderer (no shadows, no anti-aliasing)", e)
    return _software(engine)
