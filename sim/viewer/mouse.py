"""The window's input: keys bound to the controls, the mouse turned into actions (pick, carry, set down,
orbit, pan, zoom, hover).

A mixin of :class:`sim.viewer.window.ViewerWindow`: every change goes through its controller as an action.
"""

from __future__ import annotations

import time

from panda3d.core import KeyboardButton

from sim.errors import TowerlabError
from sim.viewer.actions import action

DRAG_PIXELS = 5
ORBIT_DEG_PER_PIXEL = 0.3
ZOOM_STEP = 0.85


class MouseInput:
    """Bindings and the mouse (see the module)."""

    def _bind(self) -> None:
        for control in self.controls:
            if control.method is not None:
                method = control.method if callable(control.method) else getattr(self, control.method)
                for event in control.events:
                    self.accept(event, method)
        self.accept("r", self._act, ["rotate", {"degrees": 90.0}])
        self.accept("shift-r", self._act, ["rotate", {"degrees": -90.0}])
        self.accept("[", self._act, ["rotate", {"degrees": 5.0}])
        self.accept("]", self._act, ["rotate", {"degrees": -5.0}])
        self.accept("page_up", self._act, ["lift", {"mm": 10.0}])
        self.accept("page_down", self._act, ["lower", {"mm": 10.0}])
        self.accept(",", self._act, ["step-back", {"seconds": 0.1}])
        self.accept("shift-,", self._act, ["step-back", {"seconds": 1.0}])
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
        except TowerlabError as e:  # any refusal is said in the window (once), never a crash
            self.controller.report(e)
            return False
        self._changed_at = time.monotonic()
        return True

    def _mouse_pixel(self):
        return mouse_pixel(self.mouseWatcherNode, self.controller.camera.size)

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


def mouse_pixel(watcher, size) -> tuple[float, float] | None:
    """Where the mouse is, in pixels of a window of ``size`` from its top left; None outside the window."""
    if not watcher.has_mouse():
        return None
    m = watcher.get_mouse()
    w, h = size
    return (float(m.x) + 1.0) * w / 2.0, (1.0 - float(m.y)) * h / 2.0
