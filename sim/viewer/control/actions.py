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
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from sim.errors import TowerlabError
from sim.jsontext import READ_ERRORS, unreadable
from sim.limits import (
    MAX_ACTIONS,
    MAX_SCRIPT_SECONDS,
    PICTURE_SIDES,
    FileRefusedError,
    check_depth,
    read_text,
    too_deep,
)
from sim.scene.schema import MAX_COORD_MM
from sim.viewer.control.fields import REQUIRED, Field, flag, got, number, one_of, pixels, text, text_or_none, vector

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


class RefusalError(ActionError):
    """An action the session's rules (a plug-in: a game's referee) do not allow now. It is said in the window
    and kept on the record; a script goes on with its next action (a refused pick is part of a game, not a
    mistake in the file)."""


def _count(v):
    if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 100000:
        raise ValueError(f"expected a whole number 1..100000, got {got(v)}")
    return v


def _pieces(v):
    if (not isinstance(v, list) or not 2 <= len(v) <= 1000 or not all(isinstance(x, str) and x for x in v)
            or len(set(v)) != len(v)):
        raise ValueError(f"expected a list of 2..1000 different piece ids, got {got(v)}")
    return tuple(v)


def _params(v):
    if not isinstance(v, dict):
        raise ValueError(f"expected an object of the kind's parameters, got {got(v)}")
    return dict(v)


_HAND = Field(one_of(*HANDS), None, "which hand (default: the active one)")
_MM = Field(number(0.0, 1000.0, "a length 0..1000 (mm)"), 10.0, "how far (mm)")
_WHERE = vector((2, 3), f"2 or 3 numbers (mm) within ±{MAX_COORD_MM:g}", -MAX_COORD_MM, MAX_COORD_MM)
"""A place in the scene (mm): as far out as a scene's pieces may be."""
_POINT = vector((3,), f"3 numbers (mm) within ±{MAX_COORD_MM:g}", -MAX_COORD_MM, MAX_COORD_MM)
"""A point in the scene (mm), as far out as :data:`_WHERE`."""
ORBIT_DEGREES, PAN_FRACTION = 360.0, 10.0
"""The most one orbit turns (degrees, each way) and one pan moves (view widths and heights)."""
SCREENSHOT = Field(pixels(*PICTURE_SIDES), None, "[width, height] pixels (default: the window's)")
"""A screenshot's size: whole numbers, as ``--size`` takes them."""
ORBIT = Field(vector((2,), f"2 numbers (degrees) within ±{ORBIT_DEGREES:g}", -ORBIT_DEGREES, ORBIT_DEGREES),
              REQUIRED, "around and up")
PAN = Field(vector((2,), f"2 numbers within ±{PAN_FRACTION:g}", -PAN_FRACTION, PAN_FRACTION), REQUIRED,
            "of the view's width and height")
PAN_PLANE = Field(one_of("view", "table"), "view",
                  "view: right and up in the picture; table: right and forward over the table")

SPECS: dict[str, dict[str, Field]] = {
    "pick": {"piece": Field(text, REQUIRED, "the piece"), "hand": _HAND},
    "move-to": {"at": Field(_WHERE, REQUIRED, "x, y (and the height of its bottom) mm"),
                "hand": _HAND, "free": Field(flag, False, "place freely (no snapping)")},
    "pick-group": {"pieces": Field(_pieces, REQUIRED, "the pieces, carried as one group"), "hand": _HAND,
                   "at": Field(vector((2,), f"2 numbers (mm) within ±{MAX_COORD_MM:g}", -MAX_COORD_MM,
                                      MAX_COORD_MM), None,
                               "the point the group is held by (default: its anchor's origin)")},
    "lift": {"mm": _MM, "hand": _HAND},
    "lower": {"mm": _MM, "hand": _HAND},
    "rotate": {"degrees": Field(number(-360.0, 360.0, "an angle -360..360 (degrees)"), 90.0,
                                "about the vertical, anticlockwise seen from above"), "hand": _HAND},
    "tip": {"axis": Field(one_of("across", "x", "y"), "across",
                          "the world axis to tip it over about (across: the one across its heading)"),
            "hand": _HAND},
    "flip": {"hand": _HAND},
    "orient": {"quat": Field(vector((4,), "4 numbers (x, y, z, w) within ±1", -1.0, 1.0), REQUIRED,
                             "the carried piece's orientation, a quaternion (normalised; a script's or a computer "
                             "player's hand turns it so)"), "hand": _HAND},
    "drop": {"hand": _HAND, "free": Field(flag, False, "place freely (no snapping)")},
    "cancel": {"hand": _HAND},
    "poke": {"piece": Field(text, REQUIRED, "the piece"),
             "at": Field(_POINT, None, "the point pushed (default: its centre)"),
             "direction": Field(vector((3,), "3 numbers within ±1e6", -1e6, 1e6), (1.0, 0.0, 0.0),
                               "the push's direction"),
             "speed": Field(number(0.0, 5.0, "a speed 0..5 (m/s)"), 0.3, "the speed it gives the piece (m/s)")},
    "pull": {"piece": Field(text, REQUIRED, "the piece"),
             "to": Field(_POINT, REQUIRED, "where the spring pulls the point to"),
             "at": Field(_POINT, None,
                     "the point of the piece pulled, where it is now (starts a pull; default: the pull under way)")},
    "release-pull": {"piece": Field(text_or_none, None, "the piece (default: every pull)")},
    "add": {"kind": Field(text, REQUIRED, "a catalogue kind"), "params": Field(_params, {}, "its parameters"),
            "at": Field(_WHERE, None, "where (default: beside the board)"),
            "hand": _HAND},
    "remove": {"piece": Field(text, REQUIRED, "the piece")},
    "undo": {}, "redo": {}, "pause": {}, "resume": {}, "reset": {}, "recover": {},
    "step": {"frames": Field(_count, 1, "frames of 1/60 s")},
    "speed": {"factor": Field(one_of(*SPEEDS), REQUIRED, "simulated seconds per second")},
    "step-back": {"seconds": Field(number(0.0, 3600.0, "seconds 0..3600"), 0.1, "how far back")},
    "save": {"path": Field(text, REQUIRED, "the scene file")},
    "load": {"path": Field(text, REQUIRED, "the scene file")},
    "camera": {"preset": Field(one_of(*CAMERA_PRESETS), REQUIRED, "the view")},
    "orbit": {"degrees": ORBIT},
    "pan": {"fraction": PAN, "plane": PAN_PLANE},
    "follow": {"piece": Field(text_or_none, None, "the piece the camera follows, or null to stop")},
    "zoom": {"factor": Field(number(0.01, 100.0, "a factor 0.01..100"), REQUIRED, "below 1 comes closer"),
             "at": Field(vector((2,), f"2 numbers (pixels) 0..{PICTURE_SIDES[1]}", 0, PICTURE_SIDES[1]), None,
                         "the pixel that stays put")},
    "toggle": {"what": Field(one_of(*TOGGLES), REQUIRED, "what to show or hide")},
    "hover": {"piece": Field(text_or_none, None, "the piece under the cursor, or null")},
    "hand": {"name": Field(one_of(*HANDS), REQUIRED, "the hand the mouse works with")},
    "wait": {"seconds": Field(number(0.0, 3600.0, "seconds 0..3600"), REQUIRED, "simulated seconds")},
    "screenshot": {"path": Field(text, REQUIRED, "a .png or .jpg file"), "size": SCREENSHOT},
}
"""Every action: field -> how it is checked, its default and what it means."""

UNDOABLE = ("pick", "pick-group", "rotate", "tip", "flip", "orient", "lift", "lower", "drop", "cancel", "poke",
            "pull", "add", "remove", "reset")
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

    def fail(self, key: str | None, reason: str, error: type[ActionError] = ActionError) -> ActionError:
        """An error about one of this action's fields (or the whole action)."""
        where = self.where or f"action {self.name!r}"
        return error(f"{where}.{key}" if key else where, reason)

    def refuse(self, key: str | None, reason: str) -> RefusalError:
        """The session's rules refuse it (see :class:`RefusalError`)."""
        return self.fail(key, reason, RefusalError)

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


def with_hands(specs: Mapping[str, Mapping[str, Field]], hands) -> dict[str, dict[str, Field]]:
    """``specs`` whose actions' ``hand`` fields take ``hands`` besides :data:`HANDS` (a table of hands per seat:
    each seat's, :meth:`~sim.viewer.control.controller.Controller.hand_names`); the ``hand`` action's own
    ``name`` stays the hot seat's."""
    names = tuple(dict.fromkeys((*HANDS, *hands)))
    if names == HANDS:
        return {k: dict(v) for k, v in specs.items()}
    hand = Field(one_of(*names), None, "which hand (default: the active one; at a table of hands per seat: the seat's)")
    return {k: {f: hand if f == "hand" else v for f, v in spec.items()} for k, spec in specs.items()}


def action(data: Mapping | str, where: str = "", specs: Mapping[str, Mapping[str, Field]] | None = None,
           **fields) -> Action:
    """Validate one action: a mapping with ``action`` and fields, or a name and keyword fields; ``specs``
    are the actions known (default :data:`SPECS`; a session with plug-ins: :func:`specs_with`).

    Raises:
        ActionError: an unknown action, an unknown field, a missing or malformed one.
    """
    specs = SPECS if specs is None else specs
    raw = {"action": data, **fields} if isinstance(data, str) else dict(data) if isinstance(data, Mapping) else data
    if not isinstance(raw, dict):
        example = next(iter(specs))
        raise ActionError(where, f"expected an object like {{\"action\": \"{example}\", ...}}, got {got(raw)}")
    name = raw.get("action")
    if not isinstance(name, str) or name not in specs:
        if "action" not in raw:
            raise ActionError(f"{where}.action" if where else "action", "missing (the action's name)")
        raise ActionError(f"{where}.action" if where else "action",
                          f"unknown action {got(name)}; expected one of {', '.join(specs)}")
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
    if name == "add" and spec is SPECS["add"]:
        args["params"] = piece_params(args["kind"], args["params"], f"{where}.params" if where else "params")
    return Action(name, args, where)


def piece_params(kind: str, params: Mapping, where: str) -> dict:
    """An ``add``'s parameters checked as a scene file's piece of that kind would be (the scene's schema and the
    catalogue's geometry), so that what is added can be saved and loaded back; returns them as a scene's piece
    holds them (a mesh's file as an absolute path).

    Raises:
        ActionError: an unknown kind (``where`` is then the kind's), or a parameter the scene format refuses.
    """
    from sim.errors import SceneError
    from sim.pieces import KINDS
    from sim.scene import from_dict

    kind_where = where.rsplit(".", 1)[0] + ".kind" if "." in where else "kind"
    if kind not in KINDS:
        raise ActionError(kind_where, f"not a piece of the catalogue: expected one of {', '.join(KINDS)}, "
                                      f"got {got(kind)}")
    known = {p.name for p in KINDS[kind].params}
    for key in params:
        if key not in known:
            raise ActionError(f"{where}.{key}", f"not a parameter of {kind} (its parameters: "
                                                f"{', '.join(sorted(known)) or 'none'})")
    try:
        piece = from_dict({"format": "towerlab-scene/1", "game": "free",
                           "pieces": [{"id": "new", "kind": kind, **params, "pos": [0, 0, 0]}]}, "").pieces[0]
    except SceneError as e:
        field = e.field.split(".", 1)[1] if "." in e.field else ""
        raise ActionError(f"{where}.{field}" if field else where, e.reason) from None
    return dict(piece.params)


def action_items(text: str, source: str = "<actions>", most: int | None = MAX_ACTIONS):
    """The items of an action file's JSON list, one at a time, in time linear in the text: ``(value, where)``
    with ``where`` naming the file, the line and the index (``moves.json:4: actions[3]``).

    Raises:
        ActionError: not a JSON list (with the line and column), an item nested more than
            :data:`~sim.limits.MAX_DEPTH` deep, or more than ``most`` items (None: any number).
    """
    decoder = json.JSONDecoder()
    lines = _Lines(text)
    i = _skip(text, 0)
    if i >= len(text) or text[i] != "[":
        raise ActionError(f"{source}:{lines.at(i)}", "expected a JSON list of actions, like [{\"action\": ...}, ...]")
    k, i = 0, _skip(text, i + 1)
    while True:
        if i < len(text) and text[i] == "]" and not k:
            i += 1
            break
        where = f"{source}:{lines.at(i)}: actions[{k}]"
        if most is not None and k >= most:
            raise ActionError(where, f"more than the {most} actions an action file may hold")
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError as e:
            raise ActionError(f"{source}:{e.lineno}", f"not JSON: {e.msg} (column {e.colno})") from None
        except READ_ERRORS as e:
            raise ActionError(where, unreadable(e)) from None
        if check_depth(value) is not None:
            raise ActionError(where, f"not valid here: {too_deep()}")
        yield value, where
        k += 1
        i = _skip(text, end)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
            continue
        if i < len(text) and text[i] == "]":
            i += 1
            break
        raise ActionError(f"{source}:{lines.at(i)}", "expected ',' or ']' after an action")
    if _skip(text, i) < len(text):
        raise ActionError(f"{source}:{lines.at(_skip(text, i))}", "text after the list of actions")


def parse_actions(text: str, source: str = "<actions>", specs=None) -> list[Action]:
    """Validate an action file's text: a JSON list of actions (of ``specs``, default :data:`SPECS`), in time
    linear in its length.

    Raises:
        ActionError: not JSON (with the line and column), not a list, a bad action
            (``source:line: actions[i].field: reason``), more than :data:`~sim.limits.MAX_ACTIONS` actions, or
            waits and steps of more than :data:`~sim.limits.MAX_SCRIPT_SECONDS` of simulated time.
    """
    out = [action(value, where, specs) for value, where in action_items(text, source)]
    check_script_time(out, "simulated")
    return out


def check_script_time(actions, clock: str, *, steps: bool = True) -> None:
    """Refuse a script whose ``wait`` seconds (and ``step`` frames of 1/60 s, with ``steps``) come to more than
    :data:`~sim.limits.MAX_SCRIPT_SECONDS` (``clock`` says which seconds: ``simulated``, ``the window's``).

    Raises:
        ActionError: at the action that passes it.
    """
    total = 0.0
    for a in actions:
        if a.name == "wait":
            total += a["seconds"]
            key = "seconds"
        elif steps and a.name == "step" and a.args.get("frames") is not None:
            total += abs(a["frames"]) / 60.0
            key = "frames"
        else:
            continue
        if total > MAX_SCRIPT_SECONDS + 1e-9:
            raise a.fail(key, f"the waits and steps so far come to {total:g} s of {clock} time; a scripted session "
                              f"may run at most {MAX_SCRIPT_SECONDS:g} s")


def load_actions(path, specs=None) -> list[Action]:
    """Read and validate an action file (of ``specs``, default :data:`SPECS`).

    Raises:
        ActionError: the file cannot be read, or its content is not a valid action list.
    """
    return parse_actions(read_action_file(path), str(path), specs)


def read_action_file(path) -> str:
    """An action file's text, read by the one policy for users' files (:func:`sim.limits.read_text`: a regular
    file of at most 16 MiB).

    Raises:
        ActionError: it does not exist, is not a regular file, is too large or is not UTF-8 text.
    """
    try:
        return read_text(path, "actions")
    except FileRefusedError as e:
        raise ActionError(str(path), e.reason) from None


def dumps_actions(actions) -> str:
    """An action list as file text, one action per line."""
    rows = [json.dumps(a.to_json(), ensure_ascii=False) for a in actions]
    return "[\n" + ",\n".join(f"  {r}" for r in rows) + ("\n" if rows else "") + "]\n"


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


class _Lines:
    """Line numbers of places in a text asked for in increasing order (as a parser goes), each found by counting
    only the newlines since the last: linear in the text however many are asked for."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.line = 1

    def at(self, i: int) -> int:
        if i < self.pos:  # backwards (an error's position before the last asked): count from the start
            self.pos, self.line = 0, 1
        self.line += self.text.count("\n", self.pos, i)
        self.pos = i
        return self.line
