"""The keyboard's camera, shared by the viewer's and the replay window: keys held down (W A S D, the arrows,
Q, E) turned into the camera actions of the frame, as in Tabletop Simulator; L's following of a piece.

W and S move forward and back over the table (along the view, the target's height kept), A and D left and
right, the arrows the same; Q and E turn about the point looked at; Shift makes them :data:`FASTER`. Ctrl or
Alt held stops them (Ctrl+S saves, it does not also move the camera back).
"""

from __future__ import annotations

import numpy as np
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


def camera_keys(watcher, dt: float) -> list[tuple[str, dict]]:
    """The camera actions (name, fields) of the keys ``watcher`` (a MouseWatcher) sees held during a frame of
    ``dt`` seconds: a ``pan`` over the table and an ``orbit``, either or both, or none."""
    if dt <= 0.0 or watcher.is_button_down(KeyboardButton.control()) or watcher.is_button_down(KeyboardButton.alt()):
        return []
    held = [k for k in (*PAN_KEYS, *TURN_KEYS) if watcher.is_button_down(button(k))]
    right = float(np.clip(sum(PAN_KEYS[k][0] for k in held if k in PAN_KEYS), -1.0, 1.0))
    forward = float(np.clip(sum(PAN_KEYS[k][1] for k in held if k in PAN_KEYS), -1.0, 1.0))
    turn = float(np.clip(sum(TURN_KEYS[k] for k in held if k in TURN_KEYS), -1.0, 1.0))
    rate = dt * (FASTER if watcher.is_button_down(KeyboardButton.shift()) else 1.0)
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
