"""Actions as plain data: what a person (or a script) does in the viewer, validated at the boundary.

An action is a JSON object with an ``action`` name and its fields, e.g.
``{"action": "pick", "piece": "b3-1"}`` or ``{"action": "move-to", "at": [40, 0]}``
(lengths in millimetres, angles in degrees, as in scene files). An action file
is a JSON list of them, one per line by convention; every error names the file,
the line, the action's index and the field:
``moves.json:4: actions[3].at: expected 2 or 3 numbers (mm), got "left"``.

:data:`SPECS` lists every action and its fields; docs/viewer.md lists them too.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sim.errors import TowerlabError

HANDS = ("right", "left")
SPEEDS = (1.0, 0.5, 0.25, 0.125)
CAMERA_PRESETS = ("iso", "front", "side", "top", "frame", "reset")
TOGGLES = ("contacts", "forces", "centres", "help", "stability")


class ActionError(TowerlabError):
    """An action that is malformed or cannot be done now.

    Args:
        where: e.g. ``actions[3].piece`` (with the file and line in front when known).
        reason: what was expected and what came.
    """

    def __init__(self, where: str, reason: str):
        self.where = where
        self.reason = reason
        super().__init__(f"{where}: {reason}" if where else reason)


def _got(v: Any) -> str:
    return json.dumps(v) if isinstance(v, (str, int, float, bool, type(None), list, dict)) else repr(v)


def _text(v):
    if not isinstance(v, str) or not v:
        raise ValueError(f"expected a non-empty string, got {_got(v)}")
    return v


def _number(lo: float = -math.inf, hi: float = math.inf, what: str = "a number"):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not lo <= v <= hi:
            raise ValueError(f"expected {what}, got {_got(v)}")
        return float(v)
    return check


def _count(v):
    if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 100000:
        raise ValueError(f"expected a whole number 1..100000, got {_got(v)}")
    return v


def _flag(v):
    if not isinstance(v, bool):
        raise ValueError(f"expected true or false, got {_got(v)}")
    return v


def _one_of(*choices):
    def check(v):
        if v not in choices:
            raise ValueError(f"expected one of {', '.join(_got(c) for c in choices)}, got {_got(v)}")
        return v
    return check


def _vector(sizes: tuple[int, ...], what: str):
    def check(v):
        ok = isinstance(v, list) and len(v) in sizes and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in v)
        if not ok:
            raise ValueError(f"expected {what}, got {_got(v)}")
        return tuple(float(x) for x in v)
    return check


def _params(v):
    if not isinstance(v, dict):
        raise ValueError(f"expected an object of the kind's parameters, got {_got(v)}")
    return dict(v)


def _piece_or_none(v):
    return None if v is None else _text(v)


@dataclass(frozen=True)
class Field:
    """One field of an action: how it is checked, and its default (``REQUIRED`` when it must be given)."""

    check: Callable[[Any], Any]
    default: Any = None
    help: str = ""


REQUIRED = object()
_HAND = Field(_one_of(*HANDS), None, "which hand (default: the active one)")
_MM = Field(_number(0.0, 1000.0, "a length 0..1000 (mm)"), 10.0, "how far (mm)")

SPECS: dict[str, dict[str, Field]] = {
    "pick": {"piece": Field(_text, REQUIRED, "the piece"), "hand": _HAND},
    "move-to": {"at": Field(_vector((2, 3), "2 or 3 numbers (mm)"), REQUIRED, "x, y (and the height of its bottom) mm"),
                "hand": _HAND, "free": Field(_flag, False, "place freely (no snapping)")},
    "lift": {"mm": _MM, "hand": _HAND},
    "lower": {"mm": _MM, "hand": _HAND},
    "rotate": {"degrees": Field(_number(-360.0, 360.0, "an angle -360..360 (degrees)"), 90.0,
                                "about the vertical, anticlockwise seen from above"), "hand": _HAND},
    "tip": {"axis": Field(_one_of("across", "x", "y"), "across",
                          "the world axis to tip it over about (across: the one across its heading)"),
            "hand": _HAND},
    "drop": {"hand": _HAND, "free": Field(_flag, False, "place freely (no snapping)")},
    "cancel": {"hand": _HAND},
    "poke": {"piece": Field(_text, REQUIRED, "the piece"),
             "at": Field(_vector((3,), "3 numbers (mm)"), None, "the point pushed (default: its centre)"),
             "direction": Field(_vector((3,), "3 numbers"), (1.0, 0.0, 0.0), "the push's direction"),
             "speed": Field(_number(0.0, 5.0, "a speed 0..5 (m/s)"), 0.3, "the speed it gives the piece (m/s)")},
    "add": {"kind": Field(_text, REQUIRED, "a catalogue kind"), "params": Field(_params, {}, "its parameters"),
            "at": Field(_vector((2, 3), "2 or 3 numbers (mm)"), None, "where (default: beside the board)"),
            "hand": _HAND},
    "remove": {"piece": Field(_text, REQUIRED, "the piece")},
    "undo": {}, "redo": {}, "pause": {}, "resume": {}, "reset": {}, "recover": {},
    "step": {"frames": Field(_count, 1, "frames of 1/60 s")},
    "speed": {"factor": Field(_one_of(*SPEEDS), REQUIRED, "simulated seconds per second")},
    "step-back": {"seconds": Field(_number(0.0, 3600.0, "seconds 0..3600"), 0.1, "how far back")},
    "save": {"path": Field(_text, REQUIRED, "the scene file")},
    "load": {"path": Field(_text, REQUIRED, "the scene file")},
    "camera": {"preset": Field(_one_of(*CAMERA_PRESETS), REQUIRED, "the view")},
    "orbit": {"degrees": Field(_vector((2,), "2 numbers (degrees)"), REQUIRED, "around and up")},
    "pan": {"fraction": Field(_vector((2,), "2 numbers"), REQUIRED, "of the view's width and height")},
    "zoom": {"factor": Field(_number(0.01, 100.0, "a factor 0.01..100"), REQUIRED, "below 1 comes closer"),
             "at": Field(_vector((2,), "2 numbers (pixels)"), None, "the pixel that stays put")},
    "toggle": {"what": Field(_one_of(*TOGGLES), REQUIRED, "what to show or hide")},
    "hover": {"piece": Field(_piece_or_none, None, "the piece under the cursor, or null")},
    "hand": {"name": Field(_one_of(*HANDS), REQUIRED, "the hand the mouse works with")},
    "wait": {"seconds": Field(_number(0.0, 3600.0, "seconds 0..3600"), REQUIRED, "simulated seconds")},
    "screenshot": {"path": Field(_text, REQUIRED, "a .png or .jpg file"),
                   "size": Field(_vector((2,), "[width, height] pixels"), None, "default: the window's")},
}
"""Every action: field -> how it is checked, its default and what it means."""

UNDOABLE = ("pick", "rotate", "tip", "lift", "lower", "drop", "cancel", "poke", "add", "remove", "reset")
"""Actions the undo stack records (a pick and everything until its drop are undone as one)."""


@dataclass(frozen=True)
class Action:
    """One validated action.

    Attributes:
        name: the action (a key of :data:`SPECS`).
        args: every field, defaults filled in (lengths still in mm, as given).
        where: where it came from (``moves.json:4: actions[3]``), for messages.
    """

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    where: str = ""

    def __post_init__(self):
        object.__setattr__(self, "args", MappingProxyType(dict(self.args)))

    def __getitem__(self, key: str):
        return self.args[key]

    def fail(self, key: str | None, reason: str) -> ActionError:
        """An error about one of this action's fields (or the whole action)."""
        where = self.where or f"action {self.name!r}"
        return ActionError(f"{where}.{key}" if key else where, reason)

    def to_json(self) -> dict:
        """The file form (defaults included, unset optional fields left out)."""
        out = {"action": self.name}
        for k, v in self.args.items():
            if v is not None:
                out[k] = list(v) if isinstance(v, tuple) else v
        return out


def specs_with(plugins) -> dict[str, dict[str, Field]]:
    """:data:`SPECS` and the plug-ins' own actions (:attr:`SessionPlugin.actions`): what an action file of a
    session with those plug-ins may hold.

    Raises:
        ValueError: a plug-in's action takes the name of another action.
    """
    out = dict(SPECS)
    for p in plugins:
        for name, spec in p.actions.items():
            if name in out:
                raise ValueError(f"{p.name}: the action {name!r} is taken")
            out[name] = dict(spec)
    return out


def action(data: Mapping | str, where: str = "", specs: Mapping[str, Mapping[str, Field]] | None = None,
           **fields) -> Action:
    """Validate one action: a mapping with ``action`` and fields, or a name and keyword fields; ``specs``
    are the actions known (default :data:`SPECS`; a session with plug-ins: :func:`specs_with`).

    Raises:
        ActionError: an unknown action, an unknown field, a missing or malformed one.
    """
    raw = {"action": data, **fields} if isinstance(data, str) else dict(data) if isinstance(data, Mapping) else data
    if not isinstance(raw, dict):
        raise ActionError(where, f"expected an object like {{\"action\": \"pick\", ...}}, got {_got(raw)}")
    specs = SPECS if specs is None else specs
    name = raw.get("action")
    if name not in specs:
        if "action" not in raw:
            raise ActionError(f"{where}.action" if where else "action", "missing (the action's name)")
        raise ActionError(f"{where}.action" if where else "action",
                          f"unknown action {_got(name)}; expected one of {', '.join(specs)}")
    spec = specs[name]
    args = {}
    for key, value in raw.items():
        if key == "action":
            continue
        if key not in spec:
            allowed = ", ".join(spec) or "none"
            raise ActionError(f"{where}.{key}" if where else key, f"unknown field of {name!r} (its fields: {allowed})")
        try:
            args[key] = spec[key].check(value)
        except ValueError as e:
            raise ActionError(f"{where}.{key}" if where else key, str(e)) from None
    for key, f in spec.items():
        if key not in args:
            if f.default is REQUIRED:
                raise ActionError(f"{where}.{key}" if where else key, f"required for {name!r} ({f.help})")
            args[key] = f.default
    return Action(name, args, where)


def parse_actions(text: str, source: str = "<actions>", specs=None) -> list[Action]:
    """Validate an action file's text: a JSON list of actions (of ``specs``, default :data:`SPECS`).

    Raises:
        ActionError: not JSON (with the line and column), not a list, or a bad action
            (``source:line: actions[i].field: reason``).
    """
    decoder = json.JSONDecoder()
    i = _skip(text, 0)
    if i >= len(text) or text[i] != "[":
        raise ActionError(f"{source}:{_line(text, i)}",
                          "expected a JSON list of actions, like [{\"action\": ...}, ...]")
    out, i = [], _skip(text, i + 1)
    while True:
        if i < len(text) and text[i] == "]" and not out:
            i += 1
            break
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError as e:
            raise ActionError(f"{source}:{e.lineno}", f"not JSON: {e.msg} (column {e.colno})") from None
        out.append(action(value, f"{source}:{_line(text, i)}: actions[{len(out)}]", specs))
        i = _skip(text, end)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
            continue
        if i < len(text) and text[i] == "]":
            i += 1
            break
        raise ActionError(f"{source}:{_line(text, i)}", "expected ',' or ']' after an action")
    if _skip(text, i) < len(text):
        raise ActionError(f"{source}:{_line(text, _skip(text, i))}", "text after the list of actions")
    return out


def load_actions(path, specs=None) -> list[Action]:
    """Read and validate an action file (of ``specs``, default :data:`SPECS`).

    Raises:
        ActionError: the file cannot be read, or its content is not a valid action list.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ActionError(str(path), "no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ActionError(str(path), f"cannot be read ({e.__class__.__name__}: {e})") from None
    return parse_actions(text, str(path), specs)


def dumps_actions(actions) -> str:
    """An action list as file text, one action per line."""
    rows = [json.dumps(a.to_json(), ensure_ascii=False) for a in actions]
    return "[\n" + ",\n".join(f"  {r}" for r in rows) + ("\n" if rows else "") + "]\n"


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _line(text: str, i: int) -> int:
    return text.count("\n", 0, i) + 1
