"""The replay window's actions as plain data, validated at the boundary (like the viewer's, same errors).

An action is a JSON object with an ``action`` name and its fields:
``{"action": "seek", "t": 1.25}``, ``{"action": "jump", "to": "first-knockdown"}``,
``{"action": "follow", "piece": "t3"}``. A file is a JSON list of them; every error
names the file, the line, the action's index and the field
(``bug.json:3: actions[2].to: expected one of ...``). Times are recording seconds,
except ``wait``, which is seconds of the window's clock (``speed`` of them make a
recording second). :data:`SPECS` lists every action; docs/recording-format.md too.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

from sim.replay.player import SPEEDS
from sim.viewer.actions import REQUIRED, Action, ActionError, Field

JUMPS = ("first-knockdown", "next", "previous", "start", "end")
COMPARE = ("off", "before", "before-after")
"""Side by side: nothing; the frame before the collapse beside the current one; before beside after."""
CAMERA_PRESETS = ("iso", "front", "side", "top", "frame", "reset")


def _got(v) -> str:
    return json.dumps(v) if isinstance(v, (str, int, float, bool, type(None), list, dict)) else repr(v)


def _seconds(lo: float, hi: float):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not lo <= v <= hi:
            raise ValueError(f"expected a time {lo:g}..{hi:g} (s), got {_got(v)}")
        return float(v)
    return check


def _frames(v):
    if isinstance(v, bool) or not isinstance(v, int) or v == 0 or abs(v) > 1_000_000:
        raise ValueError(f"expected a whole number of frames, not 0 (negative: back), got {_got(v)}")
    return v


def _frame_number(v):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"expected a frame number 0, 1, 2, ..., got {_got(v)}")
    return v


def _optional_time(v):
    return None if v is None else _seconds(-1e9, 1e9)(v)


def _one_of(*choices):
    def check(v):
        if v not in choices:
            raise ValueError(f"expected one of {', '.join(_got(c) for c in choices)}, got {_got(v)}")
        return v
    return check


def _piece_or_none(v):
    if v is not None and (not isinstance(v, str) or not v):
        raise ValueError(f"expected a piece id or null, got {_got(v)}")
    return v


def _text(v):
    if not isinstance(v, str) or not v:
        raise ValueError(f"expected a non-empty string, got {_got(v)}")
    return v


def _kind_or_none(v):
    return None if v is None else _text(v)


def _numbers(n: int, what: str, lo: float = -math.inf, hi: float = math.inf):
    def check(v):
        ok = isinstance(v, list) and len(v) == n and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and lo <= x <= hi
            for x in v)
        if not ok:
            raise ValueError(f"expected {what}, got {_got(v)}")
        return tuple(float(x) for x in v)
    return check


def _factor(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0.01 <= v <= 100:
        raise ValueError(f"expected a factor 0.01..100, got {_got(v)}")
    return float(v)


SPECS: dict[str, dict[str, Field]] = {
    "play": {}, "pause": {}, "toggle": {}, "slower": {}, "faster": {},
    "seek": {"t": Field(_optional_time, None, "recording time (s), kept within the recording"),
             "frame": Field(_frame_number, None, "or a frame number")},
    "step": {"frames": Field(_frames, 1, "frames on (negative: back); pauses")},
    "speed": {"factor": Field(_one_of(*SPEEDS), REQUIRED, "recording seconds per second")},
    "jump": {"to": Field(_one_of(*JUMPS), REQUIRED, "the first knocked-down event, the next or previous marked "
                                                    "event, the start or the end"),
             "kind": Field(_kind_or_none, None, "next/previous: only events of this kind (knocked_down, ...)")},
    "follow": {"piece": Field(_piece_or_none, None, "the piece the camera follows, or null to stop")},
    "compare": {"mode": Field(_one_of(*COMPARE), REQUIRED, "side by side: off, before (the frame before the "
                                                           "collapse, and now), before-after")},
    "camera": {"preset": Field(_one_of(*CAMERA_PRESETS), REQUIRED, "the view")},
    "orbit": {"degrees": Field(_numbers(2, "2 numbers (degrees)"), REQUIRED, "around and up")},
    "pan": {"fraction": Field(_numbers(2, "2 numbers"), REQUIRED, "of the view's width and height")},
    "zoom": {"factor": Field(_factor, REQUIRED, "below 1 comes closer")},
    "wait": {"seconds": Field(_seconds(0.0, 3600.0), REQUIRED, "seconds of the window's clock (time plays on "
                                                                "at the speed when playing)")},
    "screenshot": {"path": Field(_text, REQUIRED, "a .png or .jpg file"),
                   "size": Field(_numbers(2, "[width, height] pixels", 16, 8192), None, "default: the window's")},
    "resimulate": {},
}
"""Every replay action: field -> how it is checked, its default and what it means."""


def replay_action(data, where: str = "", **fields) -> Action:
    """Validate one replay action: a mapping with ``action`` and fields, or a name and keyword fields.

    Raises:
        ActionError: an unknown action, an unknown field, a missing or malformed one.
    """
    raw = {"action": data, **fields} if isinstance(data, str) else dict(data) if isinstance(data, Mapping) else data
    if not isinstance(raw, dict):
        raise ActionError(where, f"expected an object like {{\"action\": \"play\"}}, got {_got(raw)}")

    def at(key: str) -> str:
        return f"{where}.{key}" if where else key

    name = raw.get("action")
    if name not in SPECS:
        if "action" not in raw:
            raise ActionError(at("action"), "missing (the action's name)")
        raise ActionError(at("action"), f"unknown action {_got(name)}; expected one of {', '.join(SPECS)}")
    spec = SPECS[name]
    args = {}
    for key, value in raw.items():
        if key == "action":
            continue
        if key not in spec:
            raise ActionError(at(key), f"unknown field of {name!r} (its fields: {', '.join(spec) or 'none'})")
        try:
            args[key] = spec[key].check(value)
        except ValueError as e:
            raise ActionError(at(key), str(e)) from None
    for key, f in spec.items():
        if key not in args:
            if f.default is REQUIRED:
                raise ActionError(at(key), f"required for {name!r} ({f.help})")
            args[key] = f.default
    if name == "seek" and (args["t"] is None) == (args["frame"] is None):
        raise ActionError(at("t"), "give a time t (s) or a frame, one of the two")
    return Action(name, args, where)


def parse_replay_actions(text: str, source: str = "<actions>") -> list[Action]:
    """Validate an action file's text: a JSON list of replay actions; after a ``resimulate``, the viewer's
    actions (:data:`sim.viewer.actions.SPECS`: the session goes on in the viewer's build mode).

    Raises:
        ActionError: not JSON (with the line and column), not a list, or a bad action
            (``source:line: actions[i].field: reason``).
    """
    from sim.viewer.actions import action
    try:
        items = json.loads(text)
    except json.JSONDecodeError as e:
        raise ActionError(f"{source}:{e.lineno}", f"not JSON: {e.msg} (column {e.colno})") from None
    if not isinstance(items, list):
        raise ActionError(f"{source}:1", "expected a JSON list of actions, like [{\"action\": \"play\"}, ...]")
    out: list[Action] = []
    for k, (item, line) in enumerate(zip(items, _item_lines(text, len(items)))):
        live = any(a.name == "resimulate" for a in out)
        out.append((action if live else replay_action)(item, f"{source}:{line}: actions[{k}]"))
    return out


def split_script(actions: list[Action]) -> tuple[list[Action], list[Action]]:
    """(replay actions up to and with the first ``resimulate``, the viewer's actions after it)."""
    for k, a in enumerate(actions):
        if a.name == "resimulate":
            return actions[:k + 1], actions[k + 1:]
    return list(actions), []


def load_replay_actions(path) -> list[Action]:
    """Read and validate a replay action file.

    Raises:
        ActionError: the file cannot be read, or its content is not a valid action list.
    """
    from pathlib import Path

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ActionError(str(path), "no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ActionError(str(path), f"cannot be read ({e.__class__.__name__}: {e})") from None
    return parse_replay_actions(text, str(path))


def _item_lines(text: str, n: int) -> list[int]:
    """The line each of the list's ``n`` items begins on (the text is known to be a JSON list)."""
    decoder = json.JSONDecoder()
    i = text.index("[") + 1
    out = []
    for _ in range(n):
        while text[i] in " \t\r\n,":
            i += 1
        out.append(text.count("\n", 0, i) + 1)
        _, i = decoder.raw_decode(text, i)
    return out
