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

from sim.replay.player import SPEEDS
from sim.viewer.control.actions import (
    CAMERA_PRESETS,
    ORBIT,
    PAN,
    PAN_PLANE,
    SCREENSHOT,
    Action,
    action,
    action_items,
    check_script_time,
    read_action_file,
)
from sim.viewer.control.fields import REQUIRED, Field, got, number, one_of, text, text_or_none

JUMPS = ("first-knockdown", "next", "previous", "start", "end")
COMPARE = ("off", "before", "before-after")
"""Side by side: nothing; the frame before the collapse beside the current one; before beside after."""


def _frames(v):
    if isinstance(v, bool) or not isinstance(v, int) or v == 0 or abs(v) > 1_000_000:
        raise ValueError(f"expected a whole number of frames, not 0 (negative: back), got {got(v)}")
    return v


def _frame_number(v):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"expected a frame number 0, 1, 2, ..., got {got(v)}")
    return v


def _seconds(lo: float, hi: float):
    return number(lo, hi, f"a time {lo:g}..{hi:g} (s)")


def _optional_time(v):
    return None if v is None else _seconds(-1e9, 1e9)(v)


SPECS: dict[str, dict[str, Field]] = {
    "play": {}, "pause": {}, "toggle": {}, "slower": {}, "faster": {},
    "seek": {"t": Field(_optional_time, None, "recording time (s), kept within the recording"),
             "frame": Field(_frame_number, None, "or a frame number")},
    "step": {"frames": Field(_frames, 1, "frames on (negative: back); pauses")},
    "speed": {"factor": Field(one_of(*SPEEDS), REQUIRED, "recording seconds per second")},
    "jump": {"to": Field(one_of(*JUMPS), REQUIRED, "the first knocked-down event, the next or previous marked "
                                                    "event, the start or the end"),
             "kind": Field(text_or_none, None, "next/previous: only events of this kind (knocked_down, ...)")},
    "follow": {"piece": Field(text_or_none, None, "the piece the camera follows, or null to stop")},
    "compare": {"mode": Field(one_of(*COMPARE), REQUIRED, "side by side: off, before (the frame before the "
                                                           "collapse, and now), before-after")},
    "camera": {"preset": Field(one_of(*CAMERA_PRESETS), REQUIRED, "the view")},
    "orbit": {"degrees": ORBIT},
    "pan": {"fraction": PAN, "plane": PAN_PLANE},
    "zoom": {"factor": Field(number(0.01, 100.0, "a factor 0.01..100"), REQUIRED, "below 1 comes closer")},
    "wait": {"seconds": Field(_seconds(0.0, 3600.0), REQUIRED, "seconds of the window's clock (time plays on "
                                                                "at the speed when playing)")},
    "screenshot": {"path": Field(text, REQUIRED, "a .png or .jpg file"), "size": SCREENSHOT},
    "resimulate": {},
}
"""Every replay action: field -> how it is checked, its default and what it means."""


def replay_action(data, where: str = "", **fields) -> Action:
    """Validate one replay action: a mapping with ``action`` and fields, or a name and keyword fields.

    Raises:
        ActionError: an unknown action, an unknown field, a missing or malformed one.
    """
    a = action(data, where, SPECS, **fields)
    if a.name == "seek" and (a["t"] is None) == (a["frame"] is None):
        raise a.fail("t", "give a time t (s) or a frame, one of the two")
    return a


def parse_replay_actions(text: str, source: str = "<actions>") -> list[Action]:
    """Validate an action file's text: a JSON list of replay actions; after a ``resimulate``, the viewer's
    actions (:data:`sim.viewer.control.actions.SPECS`: the session goes on in the viewer's build mode). Linear in the
    text's length; the limits of :func:`sim.viewer.control.actions.action_items` hold.

    Raises:
        ActionError: not JSON (with the line and column), not a list, or a bad action
            (``source:line: actions[i].field: reason``).
    """
    out: list[Action] = []
    live = False
    for item, where in action_items(text, source):
        out.append((action if live else replay_action)(item, where))
        live = live or out[-1].name == "resimulate"
    replay, viewer = split_script(out)
    check_script_time(replay, "the window's", steps=False)
    check_script_time(viewer, "simulated")
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
    return parse_replay_actions(read_action_file(path), str(path))
