"""Every control of the replay window, as data: the window binds them, its help (F1) and
docs/recording-format.md list them, and a test checks that the three agree.

Each control maps Panda3D event names to one replay action (or a small named
method of the window for what needs the mouse or the window itself). Panda3D
names the period and comma keys ``.`` and ``,`` (``shift-.`` with Shift).
"""

from __future__ import annotations

from sim.viewer.control.keys import Control


def _c(keys, events, method, help, group):
    return Control(keys, tuple(events), method, help, group)


CONTROLS: tuple[Control, ...] = (
    _c("Space", ("space",), "toggle_play", "play / pause", "Time"),
    _c(". (period) / , (comma)", (".", ","), None, "one frame on / back (pauses)", "Time"),
    _c("Shift+. / Shift+,", ("shift-.", "shift-,"), None, "one second on / back (pauses)", "Time"),
    _c("- / =", ("-", "="), None, "slower / faster: 1/8, 1/4, 1/2, 1, 2, 4 times real time", "Time"),
    _c("Home / End", ("home", "end"), None, "the recording's start / end", "Time"),
    _c("Click or drag the timeline", (), None, "scrub (knocked down marked in red)", "Time"),
    _c("K", ("k",), "jump_knockdown", "jump to the first knocked-down event", "Events"),
    _c("] / [", ("]", "["), None, "the next / previous marked event", "Events"),
    _c("L", ("l",), "follow_hovered", "follow the piece under the cursor (again: stop)", "Events"),
    _c("B", ("b",), "cycle_compare", "side by side: before the collapse and now, before and after, off", "Events"),
    _c("Enter", ("enter",), "resimulate", "re-simulate from here: build on in the live world", "Events"),
    _c("Left drag / Right drag", (), None, "orbit / pan the camera", "Camera"),
    _c("Wheel", ("wheel_up", "wheel_down"), None, "zoom", "Camera"),
    _c("W A S D / arrow keys", ("w", "a", "s", "d", "arrow_up", "arrow_left", "arrow_down", "arrow_right"), None,
       "move over the table (held; with Shift faster)", "Camera"),
    _c("Q / E", ("q", "e"), None, "turn about the point looked at (held)", "Camera"),
    _c("1 2 3 4", ("1", "2", "3", "4"), None, "views: iso, front, side, top", "Camera"),
    _c("Z", ("z",), "frame_all", "frame the pieces of this frame", "Camera"),
    _c("C", ("c",), "camera_reset", "the opening view", "Camera"),
    _c("F12 / P", ("f12", "p"), "screenshot", "screenshot (towerlab-replay-<time>.png)", "Files"),
    _c("F1", ("f1",), "toggle_help", "this help", "Show"),
    _c("Esc", ("escape",), "escape", "close the help, stop following", "Show"),
    _c("Ctrl+Q", ("control-q",), "quit", "quit", "Show"),
)
"""Every control of the replay window, in the order its help lists them."""

BOUND = {
    ".": ("step", {"frames": 1}), ",": ("step", {"frames": -1}),
    "shift-.": ("step", {"frames": 60}), "shift-,": ("step", {"frames": -60}),
    "-": ("slower", {}), "=": ("faster", {}),
    "home": ("jump", {"to": "start"}), "end": ("jump", {"to": "end"}),
    "]": ("jump", {"to": "next"}), "[": ("jump", {"to": "previous"}),
    "1": ("camera", {"preset": "iso"}), "2": ("camera", {"preset": "front"}), "3": ("camera", {"preset": "side"}),
    "4": ("camera", {"preset": "top"}),
}
"""Events bound straight to a replay action (name, fields) rather than to a method."""


def help_lines() -> list[tuple[str, str]]:
    """The help's two columns: per column, the keys' lines and the descriptions' lines (a heading a group)."""
    groups: dict[str, list] = {}
    for c in CONTROLS:
        groups.setdefault(c.group, []).append(c)
    names = list(groups)
    half = -(-len(names) // 2)
    out = []
    for part in (names[:half], names[half:]):
        keys, helps = [], []
        for name in part:
            keys += [name.upper()] + [c.keys for c in groups[name]] + [""]
            helps += [""] + [c.help for c in groups[name]] + [""]
        out.append(("\n".join(keys), "\n".join(helps)))
    return out
