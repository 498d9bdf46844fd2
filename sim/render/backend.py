"""Graphics backends: a Panda3D engine and pipe to draw on — headless EGL, the software rasteriser, or a window's.

No display is needed for pictures. EGL (``p3headlessgl``, e.g. Mesa's
llvmpipe on a machine without a GPU) gives shaders, shadows and
multisampling; when it cannot start, Panda3D's software renderer
(``p3tinydisplay``) draws flat-lit pictures and one warning line says so.
``TOWERLAB_RENDERER=software`` (or ``egl``) forces a choice.

Starting a backend changes nothing for the rest of the process: no
configuration page is loaded (no ``window-type none``), so a viewer can open a
real window afterwards (``ShowBase()``, which needs a display server and the
``pandagl`` pipe) and draw screenshots through :func:`hosted_backend` on its
window's graphics context, or keep drawing with the offscreen backend.
"""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache

from sim.errors import TowerlabError

log = logging.getLogger(__name__)

ENV_RENDERER = "TOWERLAB_RENDERER"
CHOICES = ("auto", "egl", "software")
MULTISAMPLES = 4  # llvmpipe's maximum; 4x MSAA smooths every edge
# Notify categories that report the displays a headless pipe tries before the one that works (EGL's
# default display; the X server the software renderer looks for first, an error although it then
# draws offscreen): raised to these levels while a pipe starts, and put back afterwards.
_STARTUP_LEVELS = {":display:egldisplay": "error", ":display:x11display": "fatal", ":display:tinydisplay": "error"}


class RendererUnavailableError(TowerlabError):
    """No offscreen renderer could be started (or the one asked for in TOWERLAB_RENDERER)."""


@dataclass(frozen=True)
class Backend:
    """A graphics engine and pipe that renderers draw with.

    Attributes:
        name: ``egl``, ``software`` or, for :func:`hosted_backend`, the host's own name.
        engine: Panda3D's ``GraphicsEngine`` (the process has one).
        pipe: the ``GraphicsPipe`` buffers are made on.
        host: a window or buffer whose GL context the framebuffer objects share (None for software).
        shaders: whether GLSL shaders (and so shadows and materials) are available.
        multisamples: samples per pixel of the anti-aliased buffers (0: none).
    """

    name: str
    engine: object
    pipe: object
    host: object
    shaders: bool
    multisamples: int


@contextmanager
def _quiet_startup():
    """Raise the notify levels of the display categories for a moment, then restore them."""
    from panda3d.core import Notify, NSError, NSFatal

    levels = {"error": NSError, "fatal": NSFatal}
    categories = [(Notify.ptr().get_category(name), levels[level]) for name, level in _STARTUP_LEVELS.items()]
    before = [c.get_severity() for c, _ in categories]
    for c, level in categories:
        c.set_severity(level)
    try:
        yield
    finally:
        for (c, _), severity in zip(categories, before):
            c.set_severity(severity)


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
    host.set_active(False)  # it only lends its context; drawing it every frame would cost every frame
    return Backend("egl", engine, pipe, host, True, MULTISAMPLES)


def _software(engine) -> Backend:
    from panda3d.core import GraphicsPipeSelection

    pipe = GraphicsPipeSelection.get_global_ptr().make_module_pipe("p3tinydisplay")
    if pipe is None:
        raise RendererUnavailableError("neither EGL nor the software renderer (p3tinydisplay) could start")
    return Backend("software", engine, pipe, None, False, 0)


def start_backend(choice: str | None = None) -> Backend:
    """Start a new offscreen backend: its own graphics pipe and context (each call makes another).

    Args:
        choice: ``auto`` (EGL, else the software renderer with one warning line), ``egl`` or
            ``software``; None reads ``TOWERLAB_RENDERER`` (default ``auto``).

    Raises:
        RendererUnavailableError: nothing could start, or the choice names a renderer that cannot,
            or an unknown choice.
    """
    if choice is None:
        choice = os.environ.get(ENV_RENDERER, "auto").strip().lower() or "auto"
        where = f"{ENV_RENDERER}={choice!r}"
    else:
        where = f"renderer {choice!r}"
    if choice not in CHOICES:
        raise RendererUnavailableError(f"{where}: expected one of {', '.join(CHOICES)}")
    from panda3d.core import GraphicsEngine

    engine = GraphicsEngine.get_global_ptr()
    with _quiet_startup():
        if choice in ("auto", "egl"):
            try:
                return _egl(engine)
            except RendererUnavailableError as e:
                if choice == "egl":
                    raise
                log.warning("towerlab: %s; using the software renderer (no shadows, no anti-aliasing)", e)
        return _software(engine)


@cache
def offscreen_backend() -> Backend:
    """The process's shared offscreen backend, started on first use (see :func:`start_backend`).

    Raises:
        RendererUnavailableError: nothing could start, or ``TOWERLAB_RENDERER`` asks
            for a renderer that cannot.
    """
    return start_backend()


def hosted_backend(output, name: str = "hosted", multisamples: int = MULTISAMPLES) -> Backend:
    """A backend drawing on the graphics context of an open window or buffer (e.g. a viewer's window).

    The renderer's buffers then share that context, so that a screenshot of the
    viewer's scene needs no second upload of its geometry.

    Args:
        output: an open Panda3D ``GraphicsOutput`` (``base.win``).
        name: what the backend is called in reports.
        multisamples: samples per pixel of the renderer's anti-aliased buffers (the window's own
            framebuffer may have none; its context still makes multisampled buffers).

    Raises:
        RendererUnavailableError: the output has no graphics context yet (open it first:
            ``engine.open_windows()``), or that context has no GLSL.
    """
    gsg = output.get_gsg()
    if gsg is None or not output.is_valid():
        raise RendererUnavailableError(f"{output.get_name()}: not open (no graphics context yet)")
    if not gsg.get_supports_glsl():
        raise RendererUnavailableError(f"{output.get_name()}: its graphics context has no GLSL")
    return Backend(name, output.get_engine(), output.get_pipe(), output, True, multisamples)
