"""The viewer's Panda3D window: it turns mouse and keys into actions and draws what the controller holds.

Nothing here decides anything: every change goes through
:meth:`sim.viewer.control.controller.Controller.apply` as an
:class:`~sim.viewer.control.actions.Action`. The modes are a ``direct.fsm.FSM``
mirroring the controller's mode machine (a click picks in *Build*, sets down in
*Carry*, resumes in *History*); the work of a frame is one task: advance the
physics within a budget, follow the mouse, copy poses to the scene graph,
update the marks and panels, and switch between the live quality and the
full-quality still (:mod:`sim.viewer.window.look`).

By concept: :mod:`sim.viewer.window.mouse` (bindings, the mouse, the keyboard's camera),
:mod:`sim.viewer.window.commands` (what each control does), :mod:`sim.viewer.window.drawing` (the scene
graph, marks and panels), :mod:`sim.viewer.window.gestures` (a box selection's box, a pull's spring).
:class:`~sim.viewer.control.plugins.WindowPlugin` s add panels, keys (listed in the F1 help) and per-frame
drawing (docs/viewer.md, "Extending the viewer").
"""

from __future__ import annotations

import time
from pathlib import Path

from direct.fsm.FSM import FSM

from sim.errors import TowerlabError
from sim.viewer.control.browse import RecentFiles
from sim.viewer.control.controller import Controller, Request
from sim.viewer.control.keys import CONTROLS
from sim.viewer.control.plugins import WindowPlugin
from sim.viewer.window.commands import Commands
from sim.viewer.window.drawing import STILL_AFTER, Drawing
from sim.viewer.window.gestures import Gestures
from sim.viewer.window.marks import Marks
from sim.viewer.window.mouse import MouseInput
from sim.viewer.window.overlay import Overlay
from sim.viewer.window.shell import WindowShell, open_shell, run_shell

__all__ = ["PHYSICS_BUDGET", "PREPARE_AFTER", "PREPARE_BUDGET", "STILL_AFTER", "ViewerWindow", "run_window"]

PHYSICS_BUDGET = 0.012
"""Wall seconds a frame may spend on physics: beyond it the simulation slows down (the real-time
factor shows it) rather than the window."""
PREPARE_BUDGET = 0.008
"""Wall seconds a quiet frame may spend making the next undo and redo ahead
(:meth:`~sim.viewer.control.controller.Controller.prepare_undo`), three times that while the full-quality still
shows (nothing moves: the frame has nothing else to do); a Babylon city's undo is ready within a second or
two."""
PREPARE_AFTER = 10
"""Frames in a row with no piece in a hand and the camera still before the next undo is made ahead (a frame
of it costs up to :data:`PREPARE_BUDGET`, one step some 80 ms on a Babylon city). Pieces may be falling: the
undo of what knocked them down is the one most wanted at once."""


SHOT_SETTLE = 0.3
"""Wall seconds the window's picture must have been complete before a ``--screenshot`` of the window takes it
(the panels are written again four times a second)."""
SHOT_LIMIT = 15.0
"""Wall seconds at most that a ``--screenshot`` of the window waits for its picture to be complete (then it takes
what shows)."""


class Modes(FSM):
    """The window's side of the mode machine: what a click means in each mode."""

    def __init__(self, window):
        FSM.__init__(self, "towerlab-modes")
        self.window = window
        self.click = "pick"

    def enterBuild(self):
        self.click = "pick"

    def enterCarry(self):
        self.click = "drop"

    def enterHistory(self):
        self.click = "resume"


class ViewerWindow(MouseInput, Commands, Drawing, WindowShell):
    """A window on a controller.

    Args:
        controller: the session.
        title: the window's title.
        runner: a :class:`~sim.viewer.control.script.ScriptRunner` to run, one step a frame, or None.
        screenshot: a picture to save once the script (or the first drawn frame) is done, or None.
        exit_after: close once the script and the screenshot are done.
        recovery: a pending recovery to offer (a :class:`~sim.viewer.control.recovery.Recovered`), or None.
        plugins: :class:`~sim.viewer.control.plugins.WindowPlugin` s: their panels, keys and drawing.
        visible: an onscreen window (False: offscreen, for benchmarks and tests).
        window_picture: the ``screenshot`` is the window's own picture, panels, marks and all, once it is
            complete (:meth:`picture_complete`); else the renderer's full-quality picture of the pieces.

    Attributes:
        controls: every control bound: :data:`~sim.viewer.control.keys.CONTROLS` and the plug-ins' (the F1 help lists
            them all).
    """

    def __init__(self, controller: Controller, title: str = "towerlab", runner=None, screenshot: str | None = None,
                 exit_after: bool = False, recovery=None, plugins: tuple[WindowPlugin, ...] | list = (),
                 visible: bool = True, window_picture: bool = False):
        WindowShell.__init__(self, controller, controller.camera.size, title, runner, screenshot, exit_after, visible)
        self.plugins: list[WindowPlugin] = list(plugins)
        self.controls = CONTROLS + tuple(c for p in self.plugins for c in p.controls())
        self.marks = Marks(self.render)
        self.gestures = Gestures(self, self.marks.root)
        self.overlay = Overlay(self, self.controls, RecentFiles())
        self.modes = Modes(self)
        self.modes.request(controller.mode.capitalize())
        controller.modes.listen(lambda old, new: self.modes.request(new.capitalize()))
        self.window_picture = window_picture
        self._shot_wait: tuple[float, float | None] | None = None  # since when it waits, since when complete
        self._graph_ids: list[str] = []
        self._scene_key = None
        self._last_poses = None
        self._last_view = None
        self._marked_verdict = None  # the verdict the marks (tints, arrow, contacts) were drawn from
        self._marked_refusals: dict = {}  # the ghosts the plug-ins would reject, as the marks drew them
        self._arrow_key = None  # the verdict and poses the weakest-direction arrow was worked out for
        self.quiet_frames = 0  # frames in a row with no piece in a hand and the camera still
        self._press = None
        self._box = None  # a box selection under way: (corner pixel, other corner)
        self._last_mouse = None
        self._status_at = 0.0
        self._panel_news = None
        self._messages: list[tuple[str, float]] = []
        self._seen = 0
        self._offer = None
        self._bind()
        for p in self.plugins:
            p.attach(self)
        self._sync(force=True)
        self.start()
        if recovery is not None:
            when = time.strftime("%H:%M", time.localtime(recovery.saved_at))
            self.overlay.ask(f"A session did not end cleanly (autosaved at {when}"
                             + (f", {recovery.source}" if recovery.source else "") + "). Recover it?",
                             [("Recover (Y)", self._recover), ("Start afresh (N)", lambda: None)])
            self._offer = self.overlay.dialog  # Y and N answer it while it is open, and only it
            self.accept("y", self._recover_key)
            self.accept("n", self._decline_key)

    @property
    def runner(self):
        """The script being run (a :class:`~sim.viewer.control.script.ScriptRunner`), or None."""
        return self.script

    def resized(self, size: tuple[int, int]) -> None:
        if size != self.controller.camera.size:
            self.controller.camera.resize(size)
            self.look.resize()
            self._changed_at = time.monotonic()

    # --- the frame ------------------------------------------------------------------------------

    def scripted_frame(self, dt: float) -> None:
        self.controller.camera.tick(dt)

    def live_frame(self, dt: float) -> None:
        self.controller.tick(dt, PHYSICS_BUDGET)

    def after_frame(self, dt: float) -> None:
        c = self.controller
        self._follow_mouse()
        self._keyboard_camera(dt)
        self.gestures.springs(c.world.pulls())
        self._serve_requests()
        self._sync()
        if self.quiet_frames >= PREPARE_AFTER:  # no hand busy, the camera still: make the next undo ahead
            c.prepare_undo(PREPARE_BUDGET * (3 if self.look.showing_still else 1))  # still: frames are idle
        for p in self.plugins:
            p.frame(self, dt)

    def final_picture(self, path: Path) -> bool:
        if not self.window_picture:
            self.shoot(Request("screenshot", {"path": str(path), "size": None}))
        elif self._picture_due():
            self.shoot_window(path)
        else:
            return False
        return True

    def _serve_requests(self) -> None:
        c = self.controller
        while c.requests:
            self.shoot(c.requests.pop(0))

    def shoot(self, request: Request) -> None:
        c = self.controller
        size = request.args.get("size") or c.camera.size
        path = Path(request.args["path"])
        self._sync(force=True)
        image = self.look.screenshot(c.camera.view(size=size))
        if not self.save_picture(image, path, self.runner is not None or self.exit_after):
            return
        self.look.go_live()
        self._changed_at = time.monotonic()

    def picture_complete(self) -> bool:
        """Whether what the window shows is whole and final: the full-quality still (or, a piece held in a hand,
        the live picture with nothing else moving) and every plug-in's drawing done
        (:meth:`~sim.viewer.control.plugins.WindowPlugin.settled`)."""
        c = self.controller
        shown = self.look.showing_still or (bool(c.hands) and c.quiet())
        return shown and all(p.settled(self) for p in self.plugins)

    def _picture_due(self) -> bool:
        """Whether the window's picture is to be taken now: complete for :data:`SHOT_SETTLE` (the frame on
        screen shows it, panels and all), or waited for :data:`SHOT_LIMIT`."""
        now = time.monotonic()
        since, complete = self._shot_wait or (now, None)
        complete = (complete or now) if self.picture_complete() else None
        self._shot_wait = (since, complete)
        return (complete is not None and now - complete >= SHOT_SETTLE) or now - since >= SHOT_LIMIT

    def shoot_window(self, path: Path) -> None:
        """Save the window's own picture (:meth:`~sim.viewer.window.shell.WindowShell.window_image`) to ``path``."""
        self.save_picture(self.window_image(), path, True)

    def close_parts(self) -> None:
        """The plug-ins, and the controller's last autosave."""
        for p in self.plugins:
            p.close(self)
        self.controller.close()


def run_window(controller: Controller, title: str, script=None, screenshot=None, exit_after: bool = False,
               recovery=None, plugins=(), window_picture: bool = False) -> int:
    """Open a :class:`ViewerWindow` on ``controller``, run ``script`` (actions) in it a step a frame, and
    keep it open until it is closed; the controller is closed with it (or at once when no window opens).
    ``window_picture``: the ``screenshot`` is the window's own picture (see :class:`ViewerWindow`).

    Returns:
        The window's exit code (0, or 130 after Ctrl-C).

    Raises:
        TowerlabError: the window could not open (the display named), or the script failed (its one line).
    """
    from sim.viewer.control.script import ScriptRunner

    runner = None if script is None else ScriptRunner(controller, script, lambda request: None)
    shot = None if screenshot is None else str(screenshot)
    try:
        window = open_shell(lambda: ViewerWindow(controller, title, runner, shot, exit_after, recovery,
                                                 plugins=plugins, window_picture=window_picture))
    except BaseException:
        controller.close()
        raise
    if runner is not None:
        runner.shoot = window.shoot
    try:
        run_shell(window)
    finally:
        window.close()
    if window.error:
        raise TowerlabError(window.error)
    return window.exit_code
