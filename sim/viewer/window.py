"""The viewer's Panda3D window: it turns mouse and keys into actions and draws what the controller holds.

Nothing here decides anything: every change goes through
:meth:`sim.viewer.controller.Controller.apply` as an
:class:`~sim.viewer.actions.Action`. The modes are a ``direct.fsm.FSM``
mirroring the controller's mode machine (a click picks in *Build*, sets down in
*Carry*, resumes in *History*); the work of a frame is one task: advance the
physics within a budget, follow the mouse, copy poses to the scene graph,
update the marks and panels, and switch between the live quality and the
full-quality still (:mod:`sim.viewer.look`).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from direct.fsm.FSM import FSM
from direct.showbase.ShowBase import ShowBase
from panda3d.core import KeyboardButton, loadPrcFileData

from sim.render.image import save_image
from sim.viewer.actions import SPEEDS, action
from sim.viewer.controller import Controller, Request
from sim.viewer.inspect import describe_text
from sim.viewer.keys import CONTROLS
from sim.viewer.look import LiveLook
from sim.viewer.marks import Marks
from sim.viewer.overlay import Overlay

PHYSICS_BUDGET = 0.012
"""Wall seconds a frame may spend on physics: beyond it the simulation slows down (the real-time
factor shows it) rather than the window."""
STILL_AFTER = 0.5
"""Seconds without any change before the full-quality picture is drawn."""
DRAG_PIXELS = 5
ORBIT_DEG_PER_PIXEL = 0.3
ZOOM_STEP = 0.85
STATUS_PERIOD = 0.25  # s between updates of the text panels


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


def configure(size, title: str, visible: bool = True) -> None:
    """The Panda3D settings of a viewer window (before ShowBase starts)."""
    w, h = size
    loadPrcFileData("towerlab-viewer", "\n".join([
        f"win-size {w} {h}", f"window-title {title}", "audio-library-name null", "sync-video false",
        "framebuffer-multisample false", "textures-power-2 none", "show-frame-rate-meter false",
        "window-type " + ("onscreen" if visible else "offscreen"),
    ]))


class ViewerWindow(ShowBase):
    """A window on a controller.

    Args:
        controller: the session.
        title: the window's title.
        runner: a :class:`~sim.viewer.script.ScriptRunner` to run, one step a frame, or None.
        screenshot: a picture to save once the script (or the first drawn frame) is done, or None.
        exit_after: close once the script and the screenshot are done.
        recovery: a pending recovery to offer (a :class:`~sim.viewer.recovery.Recovered`), or None.
    """

    def __init__(self, controller: Controller, title: str = "towerlab", runner=None, screenshot: str | None = None,
                 exit_after: bool = False, recovery=None):
        configure(controller.camera.size, title)
        ShowBase.__init__(self)
        self.disableMouse()
        self.controller = controller
        self.look = LiveLook(self)
        self.marks = Marks(self.render)
        self.overlay = Overlay(self)
        self.modes = Modes(self)
        self.modes.request(controller.mode.capitalize())
        controller.modes.listen(lambda old, new: self.modes.request(new.capitalize()))
        self.runner = runner
        self.screenshot_path = screenshot
        self.exit_after = exit_after
        self.exit_code = 0
        self.error: str | None = None
        self.frames = 0
        self.frame_times: list[float] = []  # seconds between frames
        self.work_times: list[float] = []  # seconds of each frame's task (physics, input, marks)
        self._graph_ids: list[str] = []
        self._scene_key = None
        self._last_poses = None
        self._last_view = None
        self._shadow_frames = 0
        self._changed_at = time.monotonic()
        self._press = None
        self._drag = None
        self._last_mouse = None
        self._status_at = 0.0
        self._messages: list[tuple[str, float]] = []
        self._seen = 0
        self._show_messages = True
        self._bind()
        self.accept("window-event", self._window_event)
        self.taskMgr.add(self._frame, "towerlab-frame", sort=-10)
        self._sync(force=True)
        if recovery is not None:
            when = time.strftime("%H:%M", time.localtime(recovery.saved_at))
            self.overlay.ask(f"A session did not end cleanly (autosaved at {when}"
                             + (f", {recovery.source}" if recovery.source else "") + "). Recover it?",
                             [("Recover (Y)", self._recover), ("Start afresh (N)", lambda: None)])
            self.accept("y", self._recover_key)
            self.accept("n", self.overlay.close_dialog)

    # --- input ---------------------------------------------------------------------------------

    def _bind(self) -> None:
        for control in CONTROLS:
            if control.method is not None:
                for event in control.events:
                    self.accept(event, getattr(self, control.method))
        self.accept("r", self._act, ["rotate", {"degrees": 90.0}])
        self.accept("shift-r", self._act, ["rotate", {"degrees": -90.0}])
        self.accept("[", self._act, ["rotate", {"degrees": 5.0}])
        self.accept("]", self._act, ["rotate", {"degrees": -5.0}])
        self.accept("page_up", self._act, ["lift", {"mm": 10.0}])
        self.accept("page_down", self._act, ["lower", {"mm": 10.0}])
        self.accept("comma", self._act, ["step-back", {"seconds": 0.1}])
        self.accept("shift-comma", self._act, ["step-back", {"seconds": 1.0}])
        self.accept("-", self._speed, [-1])
        self.accept("=", self._speed, [1])
        for key, name in zip("1234", ("iso", "front", "side", "top")):
            self.accept(key, self._act, ["camera", {"preset": name}])
        self.accept("mouse1", self._press_left)
        self.accept("control-mouse1", self._press_left)
        self.accept("mouse1-up", self._release_left)
        self.accept("control-mouse1-up", self._release_left)
        self.accept("shift-mouse1-up", lambda: None)
        self.accept("mouse3", self._start_drag, ["pan"])
        self.accept("mouse3-up", self._end_drag)
        self.accept("mouse2", self._start_drag, ["orbit"])
        self.accept("mouse2-up", self._end_drag)
        self.accept("wheel_up", self._wheel, [ZOOM_STEP])
        self.accept("wheel_down", self._wheel, [1.0 / ZOOM_STEP])

    def _act(self, name: str, fields: dict | None = None) -> bool:
        """Apply one action; a refusal is said in the window. Whether it was done."""
        if self.overlay.dialog is not None:
            return False
        try:
            self.controller.apply(action(name, **(fields or {})))
        except Exception as e:  # noqa: BLE001 - any refusal is said in the window, never a crash
            from sim.errors import TowerlabError

            if not isinstance(e, TowerlabError):
                raise
            reason = getattr(e, "reason", None) or str(e)
            self.controller.say(reason, "error")
            return False
        self._changed_at = time.monotonic()
        return True

    def _mouse_pixel(self):
        if not self.mouseWatcherNode.has_mouse():
            return None
        m = self.mouseWatcherNode.get_mouse()
        w, h = self.controller.camera.size
        return (float(m.x) + 1.0) * w / 2.0, (1.0 - float(m.y)) * h / 2.0

    def _ctrl(self) -> bool:
        return self.mouseWatcherNode.is_button_down(KeyboardButton.control())

    def _press_left(self) -> None:
        px = self._mouse_pixel()
        if px is None or self.overlay.dialog is not None:
            return
        self._press = (px, self.controller.piece_at(*px))

    def _release_left(self) -> None:
        press, self._press = self._press, None
        if self._drag is not None:
            self._drag = None
            return
        if press is None:
            return
        px, piece = press
        click = self.modes.click
        if click == "drop":
            self._act("drop", {"free": self._ctrl(), "hand": self.controller.active_hand})
            if not self.controller.hands:
                return
            # the active hand was empty: a click on a piece takes it with that hand
            if piece is not None and self.controller.active_hand not in self.controller.hands:
                self._act("pick", {"piece": piece, "hand": self.controller.active_hand})
        elif click == "resume":
            self._act("resume")
        elif piece is not None:
            self._act("pick", {"piece": piece, "hand": self.controller.active_hand})

    def _start_drag(self, kind: str) -> None:
        px = self._mouse_pixel()
        if px is not None:
            self._drag = (kind, px)

    def _end_drag(self) -> None:
        self._drag = None

    def _wheel(self, factor: float) -> None:
        px = self._mouse_pixel()
        self._act("zoom", {"factor": factor, "at": list(px) if px is not None else None})

    def _follow_mouse(self) -> None:
        px = self._mouse_pixel()
        if px is None:
            return
        c = self.controller
        if self._press is not None and self._drag is None:
            (x0, y0), _ = self._press
            if abs(px[0] - x0) + abs(px[1] - y0) > DRAG_PIXELS:
                self._drag = ("orbit", (x0, y0))
        if self._drag is not None:
            kind, (x0, y0) = self._drag
            dx, dy = px[0] - x0, px[1] - y0
            if dx or dy:
                w, h = c.camera.size
                if kind == "orbit":
                    self._act("orbit", {"degrees": [-dx * ORBIT_DEG_PER_PIXEL, dy * ORBIT_DEG_PER_PIXEL]})
                else:
                    self._act("pan", {"fraction": [-dx / w, dy / h]})
                self._drag = (kind, px)
            return
        if px == self._last_mouse:
            return
        self._last_mouse = px
        hand = c.active_hand
        if hand in c.hands and c.hands[hand].lowering is None:
            at = c.surface_at(*px)  # the carried piece goes over the point under the cursor
            if at is not None:
                self._act("move-to", {"at": [at[0] * 1000.0, at[1] * 1000.0], "hand": hand, "free": self._ctrl()})
        piece = c.piece_at(*px)
        if piece != c.hovered and piece not in {s.piece for s in c.hands.values()}:
            self._act("hover", {"piece": piece})

    # --- the controls' methods (keys.CONTROLS) ------------------------------------------------

    def tip(self):
        self._act("tip", {"hand": self.controller.active_hand})

    def escape(self):
        if self.overlay.close_dialog():
            return
        if not self.overlay.help.is_hidden():
            self.overlay.toggle_help(False)
            self.controller.toggles.help = False
            return
        if self.controller.active_hand in self.controller.hands:
            self._act("cancel", {"hand": self.controller.active_hand})

    def switch_hand(self):
        names = self.controller.hand_names
        if len(names) < 2:
            self.controller.say(f"{self.controller.game} is built with one hand at a time")
            return
        other = names[(names.index(self.controller.active_hand) + 1) % len(names)]
        if self._act("hand", {"name": other}):
            self.controller.say(f"the {other} hand")

    def poke(self):
        px = self._mouse_pixel()
        if px is None:
            return
        c = self.controller
        origin, d = c.camera.ray(*px)
        hit = c.world.ray_test(origin, origin + d * 50.0)
        if hit is None or hit.piece not in c.world.ids:
            return
        push = np.array([d[0], d[1], 0.0])
        if np.linalg.norm(push) < 1e-6:
            push = np.array([1.0, 0.0, 0.0])
        self._act("poke", {"piece": hit.piece, "at": list(np.asarray(hit.point) * 1000.0),
                           "direction": list(push / np.linalg.norm(push))})

    def add_like_hovered(self):
        c = self.controller
        pid = c.hovered
        if pid is None:
            c.say("hover over a piece to take another like it")
            return
        p = c.world.piece(pid)
        self._act("add", {"kind": p.kind, "params": dict(p.params), "hand": c.active_hand})

    def remove_hovered(self):
        if self.controller.hovered is not None:
            self._act("remove", {"piece": self.controller.hovered})

    def undo(self):
        self._act("undo")

    def redo(self):
        self._act("redo")

    def toggle_pause(self):
        self._act("resume" if self.controller.paused else "pause")

    def step(self):
        self._act("step")

    def reset(self):
        self._act("reset")

    def _speed(self, direction: int):
        k = SPEEDS.index(self.controller.speed) if self.controller.speed in SPEEDS else 0
        k = min(max(k - direction, 0), len(SPEEDS) - 1)
        self._act("speed", {"factor": SPEEDS[k]})

    def frame_all(self):
        self._act("camera", {"preset": "frame"})

    def camera_reset(self):
        self._act("camera", {"preset": "reset"})

    def save(self):
        self._act("save", {"path": self.controller.source or "towerlab-scene.json"})

    def save_as(self):
        self.overlay.prompt("Save the scene as:", self.controller.source or "towerlab-scene.json",
                            lambda path: path and self._act("save", {"path": path}))

    def open(self):
        self.overlay.prompt("Open the scene file:", self.controller.source or "",
                            lambda path: path and self._act("load", {"path": path}))

    def screenshot(self):
        self._act("screenshot", {"path": time.strftime("towerlab-shot-%Y%m%d-%H%M%S.png")})

    def toggle_help(self):
        self._act("toggle", {"what": "help"})

    def toggle_contacts(self):
        self._act("toggle", {"what": "contacts"})
        if self.controller.toggles.contacts != self.controller.toggles.forces:
            self._act("toggle", {"what": "forces"})

    def toggle_centres(self):
        self._act("toggle", {"what": "centres"})

    def toggle_stability(self):
        self._act("toggle", {"what": "stability"})

    def quit(self):
        self.userExit()

    def _recover(self):
        self._act("recover")

    def _recover_key(self):
        if self.overlay.dialog is not None:
            self.overlay.close_dialog()
            self._recover()

    def _window_event(self, win):
        if win is not self.win:
            return
        props = win.get_properties()
        if not props.get_open():
            self.userExit()
            return
        size = (props.get_x_size(), props.get_y_size())
        if size != self.controller.camera.size and min(size) > 0:
            self.controller.camera.resize(size)
            self.look.resize()
            self._changed_at = time.monotonic()

    # --- the frame ------------------------------------------------------------------------------

    def _frame(self, task):
        start = time.perf_counter()
        dt = min(self.clock.get_dt(), 0.1)
        c = self.controller
        try:
            if self.runner is not None and not self.runner.done:
                self.runner.step()
                c.camera.tick(dt)
            else:
                c.tick(dt, PHYSICS_BUDGET)
                if self.runner is not None or self.screenshot_path is not None:
                    self._finish_script()
        except Exception as e:
            from sim.errors import TowerlabError

            if not isinstance(e, TowerlabError):
                raise
            self.error, self.exit_code = str(e), 2
            self.userExit()
            return task.done
        self._follow_mouse()
        self._serve_requests()
        self._sync()
        self.frames += 1
        self.frame_times.append(dt)
        self.work_times.append(time.perf_counter() - start)
        return task.cont

    def _finish_script(self) -> None:
        if self.frames < 2:
            return  # a drawn frame first
        if self.screenshot_path is not None:
            self.shoot(Request("screenshot", {"path": self.screenshot_path, "size": None}))
            self.screenshot_path = None
        self.runner = None
        if self.exit_after:
            self.userExit()

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
        try:
            save_image(image, path)
        except (OSError, ValueError) as e:
            c.say(f"could not save the screenshot {path}: {getattr(e, 'strerror', None) or e}", "error")
            if self.runner is not None or self.exit_after:
                self.error, self.exit_code = f"{path}: cannot be written ({e})", 2
            return
        c.say(f"screenshot saved: {path}")
        self.look.go_live()
        self._changed_at = time.monotonic()

    def _sync(self, force: bool = False) -> None:
        """Copy the controller's state to the scene graph, the marks and the panels."""
        c = self.controller
        world = c.world
        ids = world.ids
        key = (id(world), c.scene0.board)
        scene = None
        if force or key != self._scene_key or ids != self._graph_ids:
            scene = world.scene()
            self.look.show(scene)
            self._scene_key, self._graph_ids = key, list(ids)
            self._last_poses = None
        poses = world.poses()
        view = c.camera.view()
        moved = self._last_poses is None or poses.shape != self._last_poses.shape or not np.array_equal(
            poses, self._last_poses)
        looked = view != self._last_view
        if moved or looked or force:
            self._shadow_frames = 2  # this frame's drawing, and the next (a change made before any drawing)
        self.look.shadows(self._shadow_frames > 0)
        self._shadow_frames = max(self._shadow_frames - 1, 0)
        if moved or looked or c.dirty or force:
            if moved:
                self.look.set_poses(poses)
            self.look.place(view, c.scene0 if scene is None else scene, poses)
            self._marks(poses)
            self._changed_at = time.monotonic()
            c.dirty = False
            self._last_poses, self._last_view = poses, view
            self.look.go_live()
        now = time.monotonic()
        if now - self._status_at > STATUS_PERIOD or force:
            self._status_at = now
            self._panels()
        if not self.look.showing_still and now - self._changed_at > STILL_AFTER and not c.hands \
                and self.overlay.dialog is None and not world.moving():
            self.look.draw_still(view)

    def _marks(self, poses) -> None:
        c = self.controller
        v = c.verdict()
        t = c.toggles
        tints = {}
        if t.stability and v is not None:
            color = (0.95, 0.25, 0.15, 0.45) if not v.feasible else (1.0, 0.6, 0.1, 0.35)
            for pid in v.mode:
                tints[pid] = color
        if c.hovered is not None:
            tints[c.hovered] = (0.3, 0.6, 1.0, 0.35)
        self.look.tint(tints)
        bad = set(v.unheld) if v is not None else set()
        self.marks.carries(self.look.graph, list(c.carries.values()), bad)
        size = self._scene_size(poses)
        centre, reach = self._mode_centre(c.world.ids, poses, v)
        self.marks.weakest(v, centre, 0.0, max(reach, 0.04), t.stability)  # on the board's top (z = 0)
        forces = c.describer.forces(v) if t.forces else None
        self.marks.contacts(v, forces, t.contacts, 0.25 * size)
        self.marks.centres(c.world, t.centres, 0.006)

    @staticmethod
    def _scene_size(poses) -> float:
        if not len(poses):
            return 0.1
        return float(max(np.ptp(poses[:, 0]), np.ptp(poses[:, 1]), 0.05))

    @staticmethod
    def _mode_centre(ids, poses, verdict) -> tuple[np.ndarray, float]:
        """Where the weakest-direction arrow starts (under the pieces of the weakest mode) and how
        long it is (the size of what the mode moves)."""
        mode = set(verdict.mode) if verdict is not None and verdict.mode else set(ids)
        pts = np.array([p[:3] for i, p in zip(ids, poses) if i in mode]).reshape(-1, 3)
        if not len(pts):
            return np.zeros(2), 0.0
        return pts[:, :2].mean(axis=0), 0.8 * float(max(np.ptp(pts[:, 0]), np.ptp(pts[:, 1]), np.ptp(pts[:, 2])))

    def _panels(self) -> None:
        c = self.controller
        fps = self._fps()
        hands = ", ".join(f"{h}: {s.piece}" for h, s in c.hands.items()) or "empty"
        speed = {1.0: "1", 0.5: "1/2", 0.25: "1/4", 0.125: "1/8"}.get(c.speed, f"{c.speed:g}")
        state = "PAUSED" if c.paused else f"speed {speed}"
        status = (f"{c.game} | {c.mode} | {c.active_hand} hand ({hands}) | t {c.world.time:6.2f} s | {state}"
                  f" | real-time factor {c.real_time_factor:.2f} | {fps:4.0f} fps"
                  + (" | full quality" if self.look.showing_still else "") + "   F1: help")
        self.overlay.show_status(status)
        self.overlay.show_stability(c.verdict(), getattr(c.world, "verdict_pending", False), c.toggles.stability)
        hover = describe_text(c.describe(c.hovered)) if c.hovered in c.world.ids else None
        self.overlay.show_hover(hover)
        now = time.monotonic()
        while self._seen < len(c.messages):
            self._messages.append((c.messages[self._seen].text, now))
            self._seen += 1
        self.overlay.show_messages(self._messages, now)
        self.overlay.toggle_help(c.toggles.help)

    def _fps(self) -> float:
        recent = self.frame_times[-30:]
        return len(recent) / max(sum(recent), 1e-6) if recent else 0.0

    def finalizeExit(self):  # noqa: N802 - ShowBase's name; stop the loop instead of exiting the process
        self.taskMgr.stop()

    def close(self) -> None:
        """End: the controller's last autosave, the renderer's buffers, the window."""
        self.controller.close()
        self.look.close()
        self.destroy()

