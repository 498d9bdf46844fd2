"""The keyboard's camera, shared by the viewer's and the replay window: keys held down (W A S D, the arrows,
Q, E) turned into the camera actions of the frame, as in Tabletop Simulator; L's following of a piece.

W and S move forward and back over the table (along the view, the target's height kept), A and D left and
right, the arrows the same; Q and E turn about the point looked at; Shift makes them :data:`FASTER`. A key moves
the camera only when it was pressed on its own (or with Shift) and for as long as it stays down: Ctrl+S saves and
does not also move the camera back, whether Ctrl or S is let go first, and Ctrl or Alt held stops every key.
"""

from __future__ import annotations

import numpy as np
from direct.showbase.DirectObject import DirectObject
from panda3d.core import KeyboardButton

PAN_PER_SECOND = 0.5
"""How far the keyboard moves the camera over the table in a second: a half of the view's height."""
TURN_PER_SECOND = 90.0
"""How fast Q and E turn the camera about the point it looks at (degrees a second)."""
FASTER = 3.0
"""Shift held: the keyboard's camera this many times faster."""
PAN_KEYS = {"w": (0.0, 1.0), "arrow_up": (0.0, 1.0), "s": (0.0, -1.0), "arrow_down": (0.0, -1.0),
            "a": (-1.0, 0.0), "arrow_left": (-1.0, 0.0), "d": (1.0, 0.0), "arrow_right": (1.0, 0.0)}
"""Keys held that move the camera over the table: (right, forward)."""
TURN_KEYS = {"q": 1.0, "e": -1.0}
"""Keys held that turn the camera: Q as a drag to the left turns the table, E the other way."""

_BUTTONS: dict = {}


def button(name: str):
    """Panda3D's button of a key name (``w``, ``arrow_up``), looked up once."""
    found = _BUTTONS.get(name)
    if found is None:
        found = _BUTTONS[name] = (KeyboardButton.ascii_key(name) if len(name) == 1
                                  else getattr(KeyboardButton, name.replace("arrow_", ""))())
    return found


class KeyCamera:
    """The keyboard's camera of one window: which camera keys were pressed on their own (Panda3D's plain ``s`` or
    ``shift-s`` event, not ``control-s``) and are still down, turned into the camera actions of a frame.

    Polling the keys alone is not enough: ``ctrl+s`` let go in the order Ctrl, S leaves S down for a frame with
    no Ctrl, and a slow frame (a still picture being drawn) then moved the camera back by a visible step.
    """

    def __init__(self):
        self._events = DirectObject()
        self._pressed: set[str] = set()
        for key in (*PAN_KEYS, *TURN_KEYS):
            for prefix in ("", "shift-"):
                self._events.accept(prefix + key, self._pressed.add, [key])

    def close(self) -> None:
        self._events.ignore_all()
        self._pressed.clear()

    def actions(self, watcher, dt: float) -> list[tuple[str, dict]]:
        """The camera actions (name, fields) of the keys ``watcher`` (a MouseWatcher) sees held during a frame of
        ``dt`` seconds: a ``pan`` over the table and an ``orbit``, either or both, or none."""
        self._pressed.intersection_update({k for k in self._pressed if watcher.is_button_down(button(k))})
        down = watcher.is_button_down
        if dt <= 0.0 or down(KeyboardButton.control()) or down(KeyboardButton.alt()):
            return []
        return camera_actions(self._pressed, dt, faster=watcher.is_button_down(KeyboardButton.shift()))


def camera_actions(held, dt: float, faster: bool = False) -> list[tuple[str, dict]]:
    """The camera actions of the camera keys ``held`` for ``dt`` seconds (``faster``: Shift held)."""
    right = float(np.clip(sum(PAN_KEYS[k][0] for k in held if k in PAN_KEYS), -1.0, 1.0))
    forward = float(np.clip(sum(PAN_KEYS[k][1] for k in held if k in PAN_KEYS), -1.0, 1.0))
    turn = float(np.clip(sum(TURN_KEYS[k] for k in held if k in TURN_KEYS), -1.0, 1.0))
    rate = dt * (FASTER if faster else 1.0)
    out = []
    if right or forward:
        out.append(("pan", {"fraction": [right * PAN_PER_SECOND * rate, forward * PAN_PER_SECOND * rate],
                            "plane": "table"}))
    if turn:
        out.append(("orbit", {"degrees": [turn * TURN_PER_SECOND * rate, 0.0]}))
    return out


def toggle_follow(act, say, following: str | None, hovered: str | None) -> None:
    """L: follow the piece under the cursor (``hovered``), or stop following (``following``), through a window's
    ``act(name, fields) -> bool`` (its ``follow`` action) and ``say(text)``."""
    if following is not None:
        if act("follow", {"piece": None}):
            say("the camera stays where it is")
    elif hovered is None:
        say("point at a piece to follow it")
    elif act("follow", {"piece": hovered}):
        say(f"following {hovered} (L again or Esc: stop)")
