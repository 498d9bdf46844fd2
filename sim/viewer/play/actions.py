"""The play actions of each game as plain data, checked at the boundary like the viewer's own actions.

``{"action": "throw"}``, ``{"action": "take", "blocks": [1, 4]}``,
``{"action": "move-pawn", "cell": [2, 0], "level": 2}``, ``{"action": "swap"}``,
``{"action": "swap-nobles", "nobles": ["red-small-1", "blue-small-2"]}`` ... An
action file mixes them with the viewer's (``pick``, ``move-to``, ``drop``,
``wait``); every error names the field: ``actions[3].cell: expected two field
numbers 0..9, got [12, 0]``. A rule's refusal (a throw out of turn) is no
error: the referee says it and the script goes on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any


def _got(v: Any) -> str:
    try:
        return json.dumps(v)
    except (TypeError, ValueError):
        return repr(v)


def _int_list(n_min: int, n_max: int, lo: int, hi: int, what: str) -> Callable[[Any], list[int]]:
    def check(v):
        ok = (isinstance(v, list) and n_min <= len(v) <= n_max
              and all(isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi for x in v))
        if not ok:
            raise ValueError(f"expected {what}, got {_got(v)}")
        return [int(x) for x in v]
    return check


def _whole(lo: int, hi: int) -> Callable[[Any], int]:
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"expected a whole number {lo}..{hi}, got {_got(v)}")
        return v
    return check


def _name(v):
    if not isinstance(v, str) or not v:
        raise ValueError(f"expected a name, got {_got(v)}")
    return v


def _two_names(v):
    if not isinstance(v, list) or len(v) != 2 or not all(isinstance(x, str) and x for x in v):
        raise ValueError(f"expected two piece ids, got {_got(v)}")
    return list(v)


REQUIRED = object()
_CELL = (_int_list(2, 2, 0, 9, "two field numbers 0..9, like [2, 0]"), REQUIRED)
_PLAYER = (_name, None)

SPECS: dict[str, dict[str, dict[str, tuple]]] = {
    "talo": {
        "start": {"cell": _CELL},
        "throw": {},
        "take": {"blocks": (_int_list(1, 2, 1, 10, "one or two block lengths 1..10, like [1, 4]"), REQUIRED)},
        "together": {},
        "select-pawn": {"player": _PLAYER},
        "move-pawn": {"cell": _CELL, "level": (_whole(0, 10), REQUIRED)},
        "restart": {"cell": _CELL},
        "end-turn": {},
    },
    "tohuwabohu": {
        "swap": {},
        "stop": {"player": _PLAYER},
        "continue": {},
        "punish": {"card": (_name, None)},
        "seat": {"player": (_name, REQUIRED)},
    },
    "babylon": {
        "end-turn": {},
        "swap-nobles": {"nobles": (_two_names, REQUIRED)},
        "turn-tower": {"piece": (_name, REQUIRED)},
        "take-back": {},
    },
}
"""game -> play action -> field -> (check, default; ``REQUIRED`` when it must be given)."""


class PlayActionError(ValueError):
    """A play action that is malformed: ``where`` names the field."""

    def __init__(self, where: str, reason: str):
        self.where, self.reason = where, reason
        super().__init__(f"{where}: {reason}")


def names(game: str) -> tuple[str, ...]:
    """The play actions of ``game``."""
    return tuple(SPECS.get(game, {}))


def check(game: str, data: Mapping, where: str = "") -> tuple[str, dict]:
    """Validate one play action of ``game``: its name and fields, defaults filled in.

    Raises:
        PlayActionError: not an action of the game, an unknown field, a missing or malformed one.
    """
    at = (lambda key: f"{where}.{key}" if where else key)
    name = data.get("action")
    spec = SPECS.get(game, {})
    if name not in spec:
        raise PlayActionError(at("action"), f"{_got(name)} is not an action of {game} (its actions: "
                                            f"{', '.join(spec)})")
    fields = spec[name]
    out = {}
    for key, value in data.items():
        if key == "action":
            continue
        if key not in fields:
            raise PlayActionError(at(key), f"unknown field of {name!r} (its fields: {', '.join(fields) or 'none'})")
        try:
            out[key] = fields[key][0](value)
        except ValueError as e:
            raise PlayActionError(at(key), str(e)) from None
    for key, (_, default) in fields.items():
        if key not in out:
            if default is REQUIRED:
                raise PlayActionError(at(key), f"required for {name!r}")
            if default is not None:
                out[key] = default
    return name, out
