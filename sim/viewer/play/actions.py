"""The play actions of each game as plain data, checked at the boundary like the viewer's own actions.

``{"action": "throw"}``, ``{"action": "take", "blocks": [1, 4]}``,
``{"action": "move-pawn", "cell": [2, 0], "level": 2}``, ``{"action": "swap"}``,
``{"action": "swap-nobles", "nobles": ["red-small-1", "blue-small-2"]}`` ... An
action file mixes them with the viewer's (``pick``, ``move-to``, ``drop``,
``wait``); every error names the field: ``actions[3].cell: expected two field
numbers 0..9, got [12, 0]``. A rule's refusal (a throw out of turn) is no
error: the referee says it and the script goes on. The fields are
:class:`sim.viewer.control.actions.Field` s: the viewer checks them like its own
(``load_actions(path, specs_with(plugins))``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sim.viewer.control.actions import REQUIRED, Field


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


_CELL = Field(_int_list(2, 2, 0, 9, "two field numbers 0..9, like [2, 0]"), REQUIRED, "the field (i, j)")
_PLAYER = Field(_name, None, "the player (default: whose hands are at work)")
_TAKE = {"blocks": Field(_int_list(1, 2, 1, 10, "one or two block lengths 1..10, like [1, 4]"), REQUIRED,
                         "the lengths the throw allows")}

SPECS: dict[str, dict[str, dict[str, Field]]] = {
    "talo": {
        "start": {"cell": _CELL},
        "throw": {},
        "take": _TAKE,
        "together": {},
        "select-pawn": {"player": _PLAYER},
        "move-pawn": {"cell": _CELL, "level": Field(_whole(0, 10), REQUIRED, "the level it stands on there")},
        "restart": {"cell": _CELL},
        "end-turn": {},
        "finish": {},  # Talo-Fantasy's, from here
    },
    "tohuwabohu": {
        "swap": {},
        "stop": {"player": _PLAYER},
        "continue": {},
        "punish": {"card": Field(_name, None, "the fulfilled card given back (default: the last)")},
        "seat": {"player": Field(_name, REQUIRED, "whose hands work from now")},
    },
    "babylon": {
        "end-turn": {},
        "swap-nobles": {"nobles": Field(_two_names, REQUIRED, "the two nobles")},
        "turn-tower": {"piece": Field(_name, REQUIRED, "the tower")},
        "take-back": {},
        "seat": {"player": Field(_name, REQUIRED, "whose hands work from now")},  # the fast game's, from here
        "stop": {"player": _PLAYER},
        "done": {"player": _PLAYER},
        "next-round": {},
    },
}
"""game -> play action -> its fields (a session answers those of its :attr:`~sim.games.play.session.Session.ACTIONS`:
variants such as Talo-Fantasy and Babylon's fast game have actions of their own)."""



SAVE_GAME = "save-game"
"""The referee's own action in every game: the game saved to a file (``towerlab play --resume FILE``)."""
SAVE_SPEC = {"path": Field(lambda v: None if v is None else _name(v), None,
                           "the file (default: towerlab-<game>-<date>-<time>.json in the current folder)")}


def specs_of(session) -> dict[str, dict[str, Field]]:
    """The play actions ``session`` answers (its game's that are among its ``ACTIONS``), with their fields, and
    :data:`SAVE_GAME`."""
    return {**{k: v for k, v in SPECS[session.game].items() if k in session.ACTIONS}, SAVE_GAME: SAVE_SPEC}
