"""Every control of the viewer window, as data: the window binds them, the help overlay (F1) and
docs/viewer.md list them, and a test checks that the two agree.

Each control maps Panda3D event names to one of the window's small named methods.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Control:
    """One control.

    Attributes:
        keys: how it is shown in the help (``Ctrl+Z``).
        events: the Panda3D events that trigger it (``control-z``); empty for mouse gestures
            the window follows itself (dragging, hovering).
        method: the name of the window's method it calls, or None for those gestures; a plug-in's control
            (:meth:`~sim.viewer.control.plugins.WindowPlugin.controls`) gives the callable itself.
        help: what it does.
        group: its heading in the help.
    """

    keys: str
    events: tuple[str, ...]
    method: str | Callable[[], object] | None
    help: str
    group: str


def _c(keys, events, method, help, group):
    return Control(keys, tuple(events), method, help, group)


CONTROLS: tuple[Control, ...] = (
    _c("Left click", (), None, "pick up the piece under the cursor / set down the one in hand", "Hands"),
    _c("Left drag on a piece", (), None, "carry it while the button is held; let go: set it down", "Hands"),
    _c("Move the mouse", (), None, "carry the piece in hand (it rises over what is below, snaps)", "Hands"),
    _c("Ctrl (held)", (), None, "place freely: no snapping to grid, tops, spots or points", "Hands"),
    _c("Shift+drag on the table", (), None, "a box: take every piece in it as one group", "Hands"),
    _c("R / Shift+R", ("r", "shift-r"), None, "turn the piece in hand 90° anticlockwise / clockwise", "Hands"),
    _c("[ / ]", ("[", "]"), None, "turn the piece in hand by 5° (fine rotation)", "Hands"),
    _c("T", ("t",), "tip", "tip the piece in hand over: lying flat / standing on end", "Hands"),
    _c("F", ("f",), "flip", "flip the piece in hand upside down", "Hands"),
    _c("Page Up / Page Down", ("page_up", "page_down"), None, "lift / lower the piece in hand by 10 mm", "Hands"),
    _c("Esc", ("escape",), "escape_key", "put what is in hand back (or close a panel, or stop following)", "Hands"),
    _c("H", ("h",), "switch_hand", "switch hands (Tohuwabohu: two hands, one piece each)", "Hands"),
    _c("Shift+click", ("shift-mouse1",), "shift_press", "poke the piece under the cursor (a push away from you)",
       "Hands"),
    _c("Ctrl+drag on a piece", ("control-mouse1",), None,
       "pull it with a spring to the cursor (empty hands; let go: it stops)", "Hands"),
    _c("N", ("n",), "add_like_hovered", "take a piece like the one under the cursor (from the supply)",
       "Pieces"),
    _c("Delete", ("delete",), "remove_hovered", "take the piece under the cursor off the table", "Pieces"),
    _c("Ctrl+Z", ("control-z",), "undo", "undo (unlimited)", "Pieces"),
    _c("Ctrl+Y / Ctrl+Shift+Z", ("control-y", "shift-control-z", "control-shift-z"), "redo", "redo", "Pieces"),
    _c("Space", ("space",), "toggle_pause", "pause / resume the physics", "Time"),
    _c(". (period)", (".",), "step", "one step of 1/60 s (pauses)", "Time"),
    _c(", (comma) / Shift+,", (",", "shift-,"), None, "step back 0.1 s / 1 s (through the last 15 s)",
       "Time"),
    _c("- / =", ("-", "="), None, "slower / faster: 1, 1/2, 1/4, 1/8 of real time", "Time"),
    _c("Backspace", ("backspace",), "reset", "back to the start (undoable)", "Time"),
    _c("Left drag on the table", (), None, "orbit the camera", "Camera"),
    _c("Right drag / Middle drag", (), None, "pan / orbit", "Camera"),
    _c("Wheel", ("wheel_up", "wheel_down"), None, "zoom to the point under the cursor", "Camera"),
    _c("W A S D / arrow keys", ("w", "a", "s", "d", "arrow_up", "arrow_left", "arrow_down", "arrow_right"), None,
       "move over the table (held; with Shift faster)", "Camera"),
    _c("Q / E", ("q", "e"), None, "turn about the point looked at (held)", "Camera"),
    _c("L", ("l",), "follow_hovered", "follow the piece under the cursor (again or Esc: stop)", "Camera"),
    _c("1 2 3 4", ("1", "2", "3", "4"), None, "views: iso, front, side, top", "Camera"),
    _c("Z", ("z",), "frame_all", "frame every piece", "Camera"),
    _c("Home", ("home",), "camera_reset", "the opening view", "Camera"),
    _c("Ctrl+S", ("control-s",), "save", "save the scene (its file, else towerlab-scene.json)", "Files"),
    _c("Ctrl+Shift+S", ("shift-control-s", "control-shift-s"), "save_as",
       "save the scene as ... (a file list; a path may be typed)", "Files"),
    _c("Ctrl+O", ("control-o",), "open", "open a scene file (a file list with the recent files)", "Files"),
    _c("F12 / P", ("f12", "p"), "screenshot", "full-quality screenshot (towerlab-shot-<time>.png)", "Files"),
    _c("F1", ("f1",), "toggle_help", "this help", "Show"),
    _c("F2", ("f2",), "toggle_contacts", "contact points and forces that hold the structure", "Show"),
    _c("F3", ("f3",), "toggle_centres", "centres of mass", "Show"),
    _c("F4", ("f4",), "toggle_stability", "the stability panel and the weakest direction", "Show"),
    _c("Ctrl+Q", ("control-q",), "quit", "quit (the session is autosaved)", "Show"),
)
"""Every control, in the order the help lists them."""


def help_text(columns: int = 2, controls: tuple[Control, ...] | None = None) -> list[tuple[str, str]]:
    """The help overlay's text: per column, the keys' lines and the descriptions' lines (groups whole,
    a heading line each, the two texts line for line) of ``controls`` (default :data:`CONTROLS`)."""
    groups: dict[str, list[Control]] = {}
    for c in CONTROLS if controls is None else controls:
        groups.setdefault(c.group, []).append(c)
    out = []
    for part in _balanced(list(groups), [len(groups[n]) + 2 for n in groups], columns):
        keys, helps = [], []
        for name in part:
            keys += [name.upper()] + [c.keys for c in groups[name]] + [""]
            helps += [""] + [c.help for c in groups[name]] + [""]
        out.append(("\n".join(keys), "\n".join(helps)))
    return out


def _balanced(names: list[str], lines: list[int], columns: int) -> list[list[str]]:
    """The groups ``names`` (of ``lines`` lines each) in order, cut into at most ``columns`` runs whose longest is
    as short as can be (the help's columns end near the same height)."""
    best = None
    for cuts in itertools.combinations(range(1, len(names)), min(columns, len(names)) - 1):
        edges = (0, *cuts, len(names))
        height = max(sum(lines[a:b]) for a, b in zip(edges, edges[1:]))
        if best is None or height < best[0]:
            best = (height, edges)
    if best is None:
        return [names] if names else []
    edges = best[1]
    return [names[a:b] for a, b in zip(edges, edges[1:])]
