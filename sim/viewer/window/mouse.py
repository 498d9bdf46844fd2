"""The window's input: keys bound to the controls, the mouse turned into actions (pick, carry, set down,
box-select a group, pull with a spring, orbit, pan, zoom, hover), the keyboard's camera
(:mod:`sim.viewer.window.keycam`).

A mixin of :class:`sim.viewer.window.build.ViewerWindow`: every change goes through its controller as an action.

What a left press becomes is decided once it has moved :data:`DRAG_PIXELS` (a press let go before is a
click: pick, set down or resume, as the mode says):

- on a piece, the active hand empty: the piece is picked up and carried while the button is held, and set
  down where it is let go (Ctrl held: placed freely);
- on a piece with Ctrl held and every hand empty: a spring pulls the point pressed towards the cursor's point
  in the plane through it facing the camera (:mod:`sim.viewer.control.pulling`), until the button is let go;
- anywhere else: the camera orbits.

Shift and a press on the table draws a box on the screen; let go, every piece whose middle lies in it is
picked up as one group (a single piece as itself). Shift and a press on a piece pokes it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from panda3d.core import KeyboardButton

from sim.errors import TowerlabError
from sim.viewer.control.actions import action
from sim.viewer.window.shell import DRAG_PIXELS

ZOOM_STEP = 0.85
"""What one notch of the wheel zooms by."""


@dataclass
class Press:
    """A left press: where (pixels), on which piece, and what it became once it moved (``None``: still a
    click; ``orbit``, ``carry``, ``pull`` or ``nothing`` (a refused pick)).

    Attributes:
        px: (x, y) pixel pressed.
        piece: the piece under it, or None.
        ctrl: Ctrl was held.
        kind: what the drag is.
        grab: (3,) the world point pressed on the piece (a pull's), or None.
        plane: (point (3,), normal (3,)) a pull's plane facing the camera, or None.
    """

    px: tuple[float, float]
    piece: str | None
    ctrl: bool = False
    kind: str | None = None
    grab: np.ndarray | None = None
    plane: tuple | None = None


class MouseInput:
    """Bindings, the mouse and the keyboard's camera (see the module)."""

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
        self.accept("mouse1", self._press_left, [False])
        self.accept("control-mouse1", self._press_left, [True])
        self.accept("mouse1-up", self._release_left)
        self.accept("control-mouse1-up", self._release_left)
        self.accept("shift-mouse1-up", self._release_left)
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

    # --- the left button ------------------------------------------------------------------------

    def _press_left(self, ctrl: bool = False) -> None:
        px = self._mouse_pixel()
        if px is None or self.overlay.dialog is not None:
            return
        self._press = Press(px, self.controller.piece_at(*px), ctrl)

    def _release_left(self) -> None:
        if self._box is not None:
            self._end_box()
            return
        press, self._press = self._press, None
        if self._drag is not None:
            self._drag = None
            return
        if press is None:
            return
        c = self.controller
        if press.kind == "carry":
            if c.active_hand in c.hands:
                self._act("drop", {"free": self._ctrl(), "hand": c.active_hand})
            return
        if press.kind == "pull":
            if press.piece in c.world.pulls():
                self._act("release-pull", {"piece": press.piece})
            return
        if press.kind is not None:
            return
        piece = press.piece
        click = self.modes.click
        if click == "drop":
            self._act("drop", {"free": self._ctrl(), "hand": c.active_hand})
            if not c.hands:
                return
            # the active hand was empty: a click on a piece takes it with that hand
            if piece is not None and c.active_hand not in c.hands:
                self._act("pick", {"piece": piece, "hand": c.active_hand})
        elif click == "resume":
            self._act("resume")
        elif piece is not None:
            self._act("pick", {"piece": piece, "hand": c.active_hand})

    def _begin_drag(self, press: Press) -> None:
        """The press moved: it becomes a carry, a pull or an orbit (see the module)."""
        c = self.controller
        piece = press.piece
        if piece is None or self.modes.click == "resume":
            press.kind = "orbit"
        elif press.ctrl:
            press.kind = "pull" if not c.hands and self._start_pull(press) else "orbit"
        elif c.active_hand not in c.hands:
            done = self._act("pick", {"piece": piece, "hand": c.active_hand})
            press.kind = "carry" if done else "nothing"
        else:
            press.kind = "orbit"
        if press.kind == "orbit":
            self._drag = ("orbit", press.px)

    def _start_pull(self, press: Press) -> bool:
        """Start pulling the piece pressed, by the point pressed; whether it was done."""
        c = self.controller
        origin, d = c.camera.ray(*press.px)
        hit = c.world.ray_test(origin, origin + d * 50.0)
        if hit is None or hit.piece != press.piece:
            return False
        grab = np.asarray(hit.point, dtype=float)
        press.grab, press.plane = grab, (grab, -np.asarray(c.camera.view().basis[2], dtype=float))
        at = list(grab * 1000.0)
        return self._act("pull", {"piece": press.piece, "at": at, "to": at})

    def _pull_to(self, press: Press, px) -> None:
        """The spring's far end: where the ray through the cursor meets the pull's plane."""
        c = self.controller
        if press.piece not in c.world.pulls():
            return  # undone meanwhile, or the piece is gone
        point, normal = press.plane
        origin, d = c.camera.ray(*px)
        facing = float(d @ normal)
        if abs(facing) < 1e-6:
            return
        t = float((point - origin) @ normal) / facing
        if t <= 0:
            return
        self._act("pull", {"piece": press.piece, "to": list((origin + d * t) * 1000.0)})

    # --- Shift: poke, or a box ------------------------------------------------------------------

    def shift_press(self) -> None:
        """Shift and the left button: a poke of the piece under the cursor, else the start of a box."""
        px = self._mouse_pixel()
        if px is None or self.overlay.dialog is not None:
            return
        c = self.controller
        if c.piece_at(*px) is not None:
            self.poke()
        elif c.active_hand not in c.hands and self.modes.click != "resume":
            self._box = (px, px)
            self._show_box()

    def _show_box(self) -> None:
        """The box under way, and a frame round each piece it would take."""
        c = self.controller
        rects = [r for r in (c.piece_rect(pid) for pid in c.pieces_in_box(*self._box)) if r is not None]
        self.gestures.box(*self._box, rects)

    def _end_box(self) -> None:
        (x0, y0), (x1, y1) = self._box
        self._box = None
        self.gestures.box(None)
        c = self.controller
        pieces = c.pieces_in_box((x0, y0), (x1, y1))
        if not pieces:
            c.say("no piece in the box")
        elif len(pieces) == 1:
            self._act("pick", {"piece": pieces[0], "hand": c.active_hand})
        else:
            at = c.surface_at(x1, y1, skip=pieces)
            fields = {"pieces": pieces, "hand": c.active_hand}
            if at is not None:
                fields["at"] = [float(at[0] * 1000.0), float(at[1] * 1000.0)]
            if self._act("pick-group", fields):
                c.say(f"{len(pieces)} pieces in hand: R turns them, a click sets them down, Esc puts them back")

    # --- right and middle buttons, the wheel ----------------------------------------------------

    def _wheel(self, factor: float) -> None:
        px = self._mouse_pixel()
        self._act("zoom", {"factor": factor, "at": list(px) if px is not None else None})

    # --- every frame ----------------------------------------------------------------------------

    def _follow_mouse(self) -> None:
        px = self._mouse_pixel()
        if px is None:
            return
        c = self.controller
        if self._box is not None:
            self._box = (self._box[0], px)
            self._show_box()
            return
        press = self._press
        if press is not None and press.kind is None and self._drag is None:
            x0, y0 = press.px
            if abs(px[0] - x0) + abs(px[1] - y0) > DRAG_PIXELS:
                self._begin_drag(press)
        if press is not None and press.kind == "pull":
            self._pull_to(press, px)
        if self._drag_camera(px):
            return
        if px == self._last_mouse:
            return
        self._last_mouse = px
        hand = c.active_hand
        if hand in c.hands and c.hands[hand].lowering is None:
            skip = c.in_hand()
            at = c.surface_at(*px, skip=skip)  # the carried piece goes over the point under the cursor
            if at is not None:
                self._act("move-to", {"at": [at[0] * 1000.0, at[1] * 1000.0], "hand": hand, "free": self._ctrl()})
        piece = c.piece_at(*px)
        if piece != c.hovered and piece not in c.in_hand():
            self._act("hover", {"piece": piece})

    def _keyboard_camera(self, dt: float) -> None:
        """The camera's keys held down move and turn the camera at once, by this frame's share (none while a
        dialog is open; see :mod:`sim.viewer.window.keycam`)."""
        if self.overlay.dialog is not None:
            return
        for name, fields in self.keycam.actions(self.mouseWatcherNode, dt):
            self._act(name, fields)


def mouse_pixel(watcher, size) -> tuple[float, float] | None:
    """Where the mouse is, in pixels of a window of ``size`` from its top left; None outside the window."""
    if not watcher.has_mouse():
        return None
    m = watcher.get_mouse()
    w, h = size
    return (float(m.x) + 1.0) * w / 2.0, (1.0 - float(m.y)) * h / 2.0
