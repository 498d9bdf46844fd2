"""The replay window: keys and the mouse into replay actions, the recorded poses drawn, the panels.

Nothing here decides anything: every change goes through
:meth:`~sim.viewer.replay.controller.ReplayController.apply` as an action (or
:meth:`~sim.viewer.replay.controller.ReplayController.seek_fraction` for the
timeline). The 3D is the viewer's own drawing (:class:`sim.viewer.window.look.LiveLook`:
the live quality while anything changes, the renderer's full quality once
nothing has for half a second) of the frame at the cursor, poses exactly as
recorded; side by side, the main view takes the right pane and the left pane
shows the fixed frame (before the collapse) as the renderer's picture, drawn
again when the camera moves. "Re-simulate from here" ends the replay window
and opens the viewer's window (:class:`sim.viewer.window.build.ViewerWindow`) in
its build mode on the live world restored at that frame
(:func:`sim.viewer.replay.run.resume`).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from panda3d.core import Texture

from sim.errors import TowerlabError
from sim.viewer.replay.actions import COMPARE, replay_action
from sim.viewer.replay.controller import ReplayController, Request
from sim.viewer.replay.keys import BOUND, CONTROLS
from sim.viewer.replay.picture import PaneGraphs, replay_picture
from sim.viewer.replay.timeline import bar_fraction, on_bar
from sim.viewer.window.keycam import toggle_follow
from sim.viewer.window.look import picture_card
from sim.viewer.window.mouse import mouse_pixel
from sim.viewer.window.replay.panels import ReplayPanels
from sim.viewer.window.shell import DRAG_PIXELS, WindowShell

STILL_AFTER = 0.5
"""Seconds without any change before the full-quality picture is drawn."""
PANE_REDRAW = 0.15
"""Seconds between redraws of the fixed pane while the camera moves."""
ZOOM_STEP = 0.85
PANEL_PERIOD = 0.1


class ReplayWindow(WindowShell):
    """A window on a replay controller.

    Args:
        controller: the session.
        title: the window's title.
        script: a :class:`~sim.viewer.replay.script.ReplayScript` to run, one step a frame, or None.
        screenshot: a picture to save once the script (or the first drawn frame) is done, or None.
        exit_after: close once the script and the screenshot are done.

    Attributes:
        outcome: ``resimulate`` when the window closed to go on in the live world, else None.
    """

    def __init__(self, controller: ReplayController, title: str = "towerlab replay", script=None,
                 screenshot: str | None = None, exit_after: bool = False):
        WindowShell.__init__(self, controller, controller.size, title, script, screenshot, exit_after,
                             task="towerlab-replay-frame")
        self.graphs = PaneGraphs(controller.recording, self.look.renderer)
        self.panels = ReplayPanels(self, controller)
        self.outcome: str | None = None
        self._ids: tuple | None = None
        self._shown = None  # (frame, view, panes) last drawn
        self._panel_at = 0.0
        self._press = None
        self._scrubbing = False
        self._pane = None  # the panes' picture: [region, card, texture, what is drawn, when, root]
        self._bind()
        self._sync(force=True)
        self.start()

    # --- input ---------------------------------------------------------------------------------

    def _bind(self) -> None:
        for control in CONTROLS:
            if control.method is not None:
                for event in control.events:
                    self.accept(event, getattr(self, control.method))
        for event, (name, fields) in BOUND.items():
            self.accept(event, self._act, [name, fields])
        self.accept("mouse1", self._press_left)
        self.accept("mouse1-up", self._release_left)
        self.accept("mouse3", self._start_drag, ["pan"])
        self.accept("mouse3-up", self._end_drag)
        self.accept("wheel_up", self._act, ["zoom", {"factor": ZOOM_STEP}])
        self.accept("wheel_down", self._act, ["zoom", {"factor": 1.0 / ZOOM_STEP}])

    def _act(self, name: str, fields: dict | None = None) -> bool:
        """Apply one action; a refusal is said in the window. Whether it was done."""
        try:
            self.controller.apply(replay_action(name, **(fields or {})))
        except TowerlabError as e:
            self.controller.say(getattr(e, "reason", None) or str(e), "error")
            return False
        self._changed_at = time.monotonic()
        return True

    def _mouse_pixel(self):
        return mouse_pixel(self.mouseWatcherNode, self.controller.size)

    def _press_left(self) -> None:
        px = self._mouse_pixel()
        if px is None:
            return
        if on_bar(*px, self.controller.size):
            self._scrubbing = True
            self._scrub(px)
            return
        self._press = px

    def _release_left(self) -> None:
        self._scrubbing = False
        self._press = None
        self._drag = None

    def _scrub(self, px) -> None:
        self.controller.seek_fraction(bar_fraction(px[0], self.controller.size[0]))
        self._changed_at = time.monotonic()

    def _follow_mouse(self) -> None:
        px = self._mouse_pixel()
        if px is None:
            return
        if self._scrubbing:
            self._scrub(px)
            return
        if self._press is not None and self._drag is None:
            x0, y0 = self._press
            if abs(px[0] - x0) + abs(px[1] - y0) > DRAG_PIXELS:
                self._drag = ("orbit", (x0, y0))
        self._drag_camera(px)

    def piece_at(self, px: float, py: float) -> str | None:
        """The piece the live pane shows at window pixel (px, py), from the renderer's id pass."""
        c = self.controller
        pane = c.panes()[-1]
        w, h = c.pane_size()
        left = c.size[0] - w if len(c.panes()) > 1 else 0
        x, y = int(px - left), int(py)
        if not (0 <= x < w and 0 <= y < h):
            return None
        graph = self.graphs.posed(pane.frame)
        rows = self.look.renderer.ids(graph, c.view())
        row = int(rows[y, x])
        return graph.ids[row] if row >= 0 else None

    # --- the controls' methods (keys.CONTROLS) ------------------------------------------------

    def toggle_play(self):
        self._act("toggle")

    def jump_knockdown(self):
        self._act("jump", {"to": "first-knockdown"})

    def follow_hovered(self):
        c = self.controller
        px = self._mouse_pixel()
        following = c.player.following
        toggle_follow(self._act, c.say, following, None if px is None or following else self.piece_at(*px))

    def cycle_compare(self):
        c = self.controller
        mode = COMPARE[(COMPARE.index(c.compare) + 1) % len(COMPARE)]
        self._act("compare", {"mode": mode})

    def resimulate(self):
        self._act("resimulate")

    def frame_all(self):
        self._act("camera", {"preset": "frame"})

    def camera_reset(self):
        self._act("camera", {"preset": "reset"})

    def screenshot(self):
        self._act("screenshot", {"path": time.strftime("towerlab-replay-%Y%m%d-%H%M%S.png")})

    def toggle_help(self):
        self.panels.toggle_help()

    def escape(self):
        if not self.panels.help.is_hidden():
            self.panels.toggle_help()
        elif self.controller.player.following is not None:
            self._act("follow", {"piece": None})

    def quit(self):
        self.userExit()

    def resized(self, size: tuple[int, int]) -> None:
        if size != self.controller.size:
            self.controller.resize(size)
            self._changed_at = time.monotonic()

    # --- the frame ------------------------------------------------------------------------------

    def live_frame(self, dt: float) -> None:
        if self.controller.tick(dt):
            self._changed_at = time.monotonic()

    def after_frame(self, dt: float) -> None:
        self._serve()
        self._follow_mouse()
        for name, fields in self.keycam.actions(self.mouseWatcherNode, dt):
            self._act(name, fields)
        self._sync()

    def final_picture(self, path: Path) -> bool:
        self.shoot(Request("screenshot", {"path": str(path), "size": None}))
        return True

    def _serve(self) -> None:
        c = self.controller
        while c.requests:
            request = c.requests.pop(0)
            if request.kind == "screenshot":
                self.shoot(request)
            elif request.kind == "resimulate":
                self.outcome = "resimulate"
                self.userExit()

    def serve(self, request: Request) -> None:
        """What a script's requests need (:class:`~sim.viewer.replay.script.ReplayScript`'s ``serve``)."""
        self.controller.requests.append(request)
        self._serve()

    def shoot(self, request: Request) -> None:
        """Save the replay's picture (:func:`~sim.viewer.replay.picture.replay_picture`, the window's renderer)."""

        c = self.controller
        path = Path(request.args["path"])
        image = replay_picture(c, self.graphs, request.args.get("size"))
        if not self.save_picture(image, path, self.script is not None or self.exit_after):
            return
        self._shown = None  # drawn again: the renderer's graph was another one meanwhile
        self.look.go_live()
        self._changed_at = time.monotonic()

    def _sync(self, force: bool = False) -> None:
        """Draw the frame at the cursor (and the fixed pane) from the controller's camera."""
        c = self.controller
        panes = c.panes()
        live = panes[-1]
        view = c.view()
        key = (live.frame, view, tuple(p.frame for p in panes))
        now = time.monotonic()
        self.look.shadows()
        if force or key != self._shown:
            ids, poses = c.recording.frame(live.frame)
            if tuple(ids) != self._ids:
                self.look.show(c.recording.scene_of_frame(live.frame))
                self._ids = tuple(ids)
            self.look.set_poses(poses)
            self.look.place(view, self.look.board_scene, poses)
            self._regions(panes)
            self._shown = key
            self._changed_at = now
            self.look.go_live()
        else:
            self.look.idle()
            if self.look.shadows_stale:  # pieces came to rest: the shadow map is drawn again with them
                self.look.place(view, self.look.board_scene, c.recording.frame(live.frame)[1])
        if len(panes) > 1:
            self._panes_picture(panes, view, now, now - self._changed_at > STILL_AFTER and not c.player.playing)
        if now - self._panel_at > PANEL_PERIOD or force:
            self._panel_at = now
            self.panels.update(now, self._fps())
        if not self.look.showing_still and len(panes) == 1 and now - self._changed_at > STILL_AFTER \
                and not c.player.playing:
            self.look.draw_still(view)

    def _regions(self, panes) -> None:
        """The main view over the whole window, or over the right pane when two are side by side (the left one
        a picture in a region of its own)."""
        region = self.cam.node().get_display_region(0)
        w = self.controller.size[0]
        if len(panes) == 1:
            region.set_dimensions(0.0, 1.0, 0.0, 1.0)
            if self._pane is not None:
                self._pane[0].set_active(False)
            return
        pane_w, _ = self.controller.pane_size()
        region.set_dimensions((w - pane_w) / w, 1.0, 0.0, 1.0)
        if self._pane is None:
            self._pane = self._make_pane()
        self._pane[0].set_dimensions(0.0, pane_w / w, 0.0, 1.0)
        self._pane[0].set_active(True)
        self._pane[3] = None

    def _make_pane(self):
        region, root, node = picture_card(self.win, 5, "towerlab-fixed-pane")
        node.set_depth_write(False)
        texture = Texture("towerlab-fixed-pane")
        return [region, node, texture, None, 0.0, root]

    def _panes_picture(self, panes, view, now: float, idle: bool) -> None:
        """The picture region: the left pane's frame (drawn when it or the camera changed, at most every
        PANE_REDRAW s) beside the live right pane; once nothing has changed for a while, both panes in full
        quality over the whole window."""
        state = self._pane
        if state is None:
            return
        w = self.controller.size[0]
        pane_w, _ = self.controller.pane_size()
        if idle:
            key = ("both", panes[0].frame, panes[1].frame, view)
            if state[3] == key:
                return
            from sim.viewer.replay.picture import GAP_COLOR

            left, right = (self.graphs.draw(p.frame, view) for p in panes)
            gap = np.empty((left.shape[0], w - 2 * pane_w, 3), np.uint8)
            gap[:] = GAP_COLOR
            self._show_picture(state, np.concatenate([left, gap, right], axis=1))
            state[0].set_dimensions(0.0, 1.0, 0.0, 1.0)
        else:
            key = ("left", panes[0].frame, view)
            if state[3] == key or now - state[4] < PANE_REDRAW:
                return
            self._show_picture(state, self.graphs.draw(panes[0].frame, view))
            state[0].set_dimensions(0.0, pane_w / w, 0.0, 1.0)
        state[3], state[4] = key, now

    @staticmethod
    def _show_picture(state, image: np.ndarray) -> None:
        h, w = image.shape[:2]
        rgba = np.concatenate([image, np.full((h, w, 1), 255, np.uint8)], axis=2)
        state[2].setup_2d_texture(w, h, Texture.T_unsigned_byte, Texture.F_rgba8)
        state[2].set_ram_image_as(np.ascontiguousarray(rgba[::-1]).tobytes(), "RGBA")
        state[1].set_texture(state[2], 1)

    # --- what a test sees (sim.viewer.window.probe) -------------------------------------------------------

    def id_view(self, on: bool) -> None:
        """The probe's id view of the live pane: its pieces in their id colours, nothing else drawn."""
        self.look.show_ids(on)
        (self.render2d.hide if on else self.render2d.show)()
        if self._pane is not None:
            self._pane[0].set_active(not on and len(self.controller.panes()) > 1)
        self._changed_at = time.monotonic()

    def probe_state(self) -> dict:
        """What the window shows now, for :class:`sim.viewer.window.probe.WindowProbe`: the camera, the frame at the
        cursor and its poses, the panes and the splits between them (pixel columns), what it says."""
        c = self.controller
        view = c.view()
        panes = c.panes()
        ids, poses = c.recording.frame(panes[-1].frame)
        if len(panes) > 1:
            quality = "still" if self._pane is not None and (self._pane[3] or ("",))[0] == "both" else "live"
        else:
            quality = "still" if self.look.showing_still else "live"
        w, _ = c.size
        pane_w, _ = c.pane_size()
        splits = [[pane_w, w - pane_w]] if len(panes) > 1 else []
        gliding = c.camera.current != c.camera.goal
        busy = gliding or c.player.playing or (quality == "live" and not self.look.ids_shown)
        px = self._mouse_pixel()
        picture = [view.eye, view.target, view.size, quality, [p.frame for p in panes], self.look.ids_shown,
                   not self.panels.help.is_hidden()]
        return {"kind": "replay", "picture": picture, "busy": busy, "quality": quality,
                "view": {"eye": view.eye, "target": view.target, "up": view.up, "size": list(view.size),
                         "fov_y": view.fov_y, "near": view.near, "far": view.far},
                "ids": list(ids), "poses": poses, "hands": {}, "frame_at": panes[-1].frame,
                "panes": [{"frame": p.frame, "label": p.label, "time": p.time} for p in panes], "splits": splits,
                "frames": [p.frame for p in panes], "time": c.time, "compare": c.compare,
                "playing": c.player.playing, "following": c.player.following,
                "mouse": None if px is None else [round(px[0], 1), round(px[1], 1)],
                "messages": [m.text for m in c.messages], "status": c.status(), "caption": c.caption()}

    def _fps(self) -> float:
        recent = self.frame_times[-30:]
        return len(recent) / max(sum(recent), 1e-6) if recent else 0.0

    def close_parts(self) -> None:
        """The panels."""
        self.panels.destroy()
