"""The shell the build and the replay windows share: the Panda3D window, its frame task, scripted stepping,
the screenshots, resizing, the probe and the end.

A :class:`WindowShell` opens the window (:func:`configure`), keeps the look (:class:`~sim.viewer.window.look.LiveLook`)
and the keyboard's camera, and runs one frame task: while a script (a :class:`~sim.viewer.control.script.Script`)
has steps left it does one a frame (:meth:`WindowShell.scripted_frame`), else the window's own frame
(:meth:`WindowShell.live_frame`); once the script is done the final picture is taken (:meth:`WindowShell.final_picture`)
and, if asked, the window closes. An error of a script ends the window with its one line (exit code 2).
What each window draws and does with its input is its own (:class:`sim.viewer.window.build.ViewerWindow`,
:class:`sim.viewer.window.replay.window.ReplayWindow`).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
from direct.showbase.ShowBase import ShowBase
from panda3d.core import loadPrcFileData

from sim.errors import TowerlabError
from sim.render.image import save_image
from sim.viewer.window.keycam import KeyCamera
from sim.viewer.window.look import LiveLook

FRAME_SORT = 10
"""Where the frame's task runs among Panda3D's: after the event manager (0), which hands the keys and buttons
to their controls, and before the scene is drawn (50): the frame that sees an input draws what it did (a
camera moved by the wheel or a key is drawn in that frame, not the next)."""
DRAG_PIXELS = 5
"""Pixels a pressed mouse moves before the press is a drag (a press let go before is a click)."""
ORBIT_DEG_PER_PIXEL = 0.3
"""Degrees the camera orbits for each pixel a drag moves."""


def configure(size, title: str, visible: bool = True) -> None:
    """The Panda3D settings of a towerlab window (before ShowBase starts)."""
    w, h = size
    loadPrcFileData("towerlab-viewer", "\n".join([
        f"win-size {w} {h}", f"window-title {title}", "audio-library-name null", "sync-video false",
        "framebuffer-multisample false", "textures-power-2 none", "show-frame-rate-meter false",
        "window-type " + ("onscreen" if visible else "offscreen"),
    ]))


class WindowShell(ShowBase):
    """A Panda3D window on a controller, with its frame task (see the module).

    Args:
        controller: the controller the window shows (it has ``say`` and ``requests``).
        size: the window's size (pixels).
        title: the window's title.
        script: steps to run one a frame (``done`` and ``step()``), or None.
        screenshot: a picture to save once the script (or the first drawn frame) is done, or None.
        exit_after: close once the script and the screenshot are done.
        visible: an onscreen window (False: offscreen, for benchmarks and tests).
        task: the frame task's name.

    Attributes:
        exit_code: 0, 2 after an error, 130 after Ctrl-C (:func:`run_shell`).
        error: the one line an error ended the window with, or None.
        frames: frames drawn so far.
        frame_times: seconds between frames.
        work_times: seconds of each frame's task.
    """

    def __init__(self, controller, size, title: str, script=None, screenshot: str | None = None,
                 exit_after: bool = False, visible: bool = True, task: str = "towerlab-frame"):
        configure(size, title, visible)
        ShowBase.__init__(self)
        self.disableMouse()
        self.controller = controller
        self.look = LiveLook(self)
        self.keycam = KeyCamera()
        self.script = script
        self.screenshot_path = screenshot
        self.exit_after = exit_after
        self.exit_code = 0
        self.error: str | None = None
        self.frames = 0
        self.frame_times: list[float] = []
        self.work_times: list[float] = []
        self.probe = None
        self._drag = None  # a drag of the camera under way: ("orbit" or "pan", the pixel it was last at)
        self._task = task
        self._changed_at = time.monotonic()

    def start(self) -> None:
        """Start the frame task, follow the window's events, and tell a test what it shows (the probe); the
        window's own parts are made first."""
        self.accept("window-event", self._window_event)
        self.taskMgr.add(self._frame, self._task, sort=FRAME_SORT)
        from sim.viewer.window.probe import WindowProbe, probe_path

        self.probe = None if probe_path() is None else WindowProbe(self, probe_path())

    # --- what each window does -------------------------------------------------------------------

    def scripted_frame(self, dt: float) -> None:
        """A frame while the script runs (after its step)."""

    def live_frame(self, dt: float) -> None:
        """A frame of the window's own (no script, or the script done)."""

    def after_frame(self, dt: float) -> None:
        """What every frame does after the step (input, drawing)."""

    def resized(self, size: tuple[int, int]) -> None:
        """The window took ``size`` (pixels)."""

    def final_picture(self, path: Path) -> bool:
        """Save the picture asked for once the script is done; False while it is not due yet."""
        return True

    def close_parts(self) -> None:
        """End the window's own parts (before the look and the window)."""

    # --- the camera dragged ---------------------------------------------------------------------

    def _start_drag(self, kind: str) -> None:
        px = self._mouse_pixel()
        if px is not None:
            self._drag = (kind, px)

    def _end_drag(self) -> None:
        self._drag = None

    def _drag_camera(self, px) -> bool:
        """A drag of the camera under way follows the mouse to ``px``: it orbits or pans by what the mouse moved
        (``orbit`` and ``pan`` actions, through the window's ``_act``). Whether a drag is under way."""
        if self._drag is None:
            return False
        kind, (x0, y0) = self._drag
        dx, dy = px[0] - x0, px[1] - y0
        if dx or dy:
            w, h = self.controller.camera.size
            if kind == "orbit":
                self._act("orbit", {"degrees": [-dx * ORBIT_DEG_PER_PIXEL, dy * ORBIT_DEG_PER_PIXEL]})
            else:
                self._act("pan", {"fraction": [-dx / w, dy / h]})
            self._drag = (kind, px)
        return True

    # --- the shell -------------------------------------------------------------------------------

    def _window_event(self, win):
        if win != self.win:  # (another wrapper of the same window is not `is` it: compare the windows)
            return
        props = win.get_properties()
        if not props.get_open():
            self.userExit()
            return
        ShowBase.windowEvent(self, win)  # the 2D layers follow the new aspect ratio
        size = (props.get_x_size(), props.get_y_size())
        if min(size) > 0:
            self.resized(size)

    def _frame(self, task):
        start = time.perf_counter()
        dt = min(self.clock.get_dt(), 0.1)
        try:
            if self.script is not None and not self.script.done:
                self.script.step()
                self.scripted_frame(dt)
            else:
                self.live_frame(dt)
                if self.script is not None or self.screenshot_path is not None:
                    self._finish_script()
        except TowerlabError as e:
            self.error, self.exit_code = str(e), 2
            self.userExit()
            return task.done
        self.after_frame(dt)
        self.frames += 1
        self.frame_times.append(dt)
        self.work_times.append(time.perf_counter() - start)
        return task.cont

    def _finish_script(self) -> None:
        if self.frames < 2:
            return  # a drawn frame first
        if self.screenshot_path is not None:
            if not self.final_picture(Path(self.screenshot_path)):
                return
            self.screenshot_path = None
        self.script = None
        if self.exit_after:
            self.userExit()

    def save_picture(self, image: np.ndarray, path: Path, fatal: bool) -> bool:
        """Save ``image`` to ``path``, said in the window; a file that cannot be written is said too and, when
        ``fatal`` (a script's or a closing window's picture), ends the window with the error. Whether saved."""
        c = self.controller
        try:
            save_image(image, path)
        except (OSError, ValueError) as e:
            c.say(f"could not save the screenshot {path}: {getattr(e, 'strerror', None) or e}", "error")
            if fatal:
                self.error, self.exit_code = f"{path}: cannot be written ({e})", 2
            return False
        c.say(f"screenshot saved: {path}")
        return True

    def window_image(self) -> np.ndarray:
        """The window's own picture as it was last drawn (panels, marks and all): (h, w, 4) uint8, top row
        first."""
        tex = self.win.get_screenshot()
        if tex is None:
            raise OSError("the window's picture cannot be read back")
        data = np.frombuffer(bytes(tex.get_ram_image_as("RGBA")), np.uint8)
        image = data.reshape(tex.get_y_size(), tex.get_x_size(), 4)[::-1].copy()
        image[..., 3] = 255  # the framebuffer's alpha is no transparency of the picture
        return image

    def finalizeExit(self):  # noqa: N802 - ShowBase's name; stop the loop instead of exiting the process
        self.taskMgr.stop()

    def close(self) -> None:
        """End: the probe, the window's parts, the frame task and the bindings (the task manager outlives the
        window: another window may open next in this process), the keyboard, the renderer's buffers, the
        window."""
        if self.probe is not None:
            self.probe.close()
        self.close_parts()
        self.taskMgr.remove(self._task)
        self.ignoreAll()
        self.keycam.close()
        self.look.close()
        self.destroy()


def open_shell(make):
    """``make()`` a window: ShowBase's "Could not open window" becomes one line naming the display.

    Raises:
        TowerlabError: no window could be opened.
    """
    try:
        return make()
    except Exception as e:
        if "open window" not in str(e):  # ShowBase's "Could not open window.": one line; anything else is a bug
            raise
        raise TowerlabError(f"could not open a window on {os.environ.get('DISPLAY')}: {e}") from None


def run_shell(window: WindowShell) -> None:
    """Run ``window`` until it closes; Ctrl-C ends it with exit code 130 (the caller closes it)."""
    try:
        window.run()
    except KeyboardInterrupt:
        window.exit_code = 130
