"""Scripted Talo games (``towerlab-talo-game/1``): a game written down turn by turn, replayed under the rules.

A script names the board, the players' start fields in turn order, an optional
seed for turns whose rolls are not written down, and the turns::

    {"format": "towerlab-talo-game/1", "board": "talo-green",
     "starts": {"red": [2, 2], "blue": [7, 7]}, "seed": 1,
     "turns": [{"rolls": [5], "take": [1, 4], "actions": [
                  {"place": [{"length": 1, "cell": [3, 2], "layer": 0, "axis": "z"}]},
                  {"move": {"cell": [3, 2], "level": 1}},
                  {"place": [{"length": 4, "cell": [4, 2], "layer": 0, "axis": "y"}]}]}]}

A turn may begin with ``"restart": [i, j]`` (a blockaded pawn); ``take`` is
left out when no throw matched. Blocks listed in one ``place`` go on together.
"""

from __future__ import annotations

import numpy as np

from sim.games.contract import Judge, Verdict
from sim.games.talo import game
from sim.games.talo.board import TaloError
from sim.games.talo.turns import OVER, IllegalMoveError
from sim.jsontext import dumps_one_per_line

GAME_FORMAT = "towerlab-talo-game/1"


class ScriptError(TaloError):
    """A script that is malformed or whose actions the rules refuse.

    Args:
        source: the script file.
        where: the path of the offending entry, e.g. ``turns[2].actions[0]``.
        reason: what was wrong.
    """

    def __init__(self, source: str, where: str, reason: str):
        self.where = where
        super().__init__(f"{source}: {where}: {reason}" if where else f"{source}: {reason}")


def _get(d, key: str, where: str, source: str, kind=None, default=...):
    if not isinstance(d, dict):
        raise ScriptError(source, where, "expected an object")
    if key not in d:
        if default is ...:
            raise ScriptError(source, f"{where}.{key}" if where else key, "required field is missing")
        return default
    value = d[key]
    if kind is not None and not isinstance(value, kind):
        raise ScriptError(source, f"{where}.{key}" if where else key, f"expected {kind.__name__}, got {value!r}")
    return value


def _cell(value, where: str, source: str) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in value)):
        raise ScriptError(source, where, f"expected a field [i, j], got {value!r}")
    return (value[0], value[1])


def _int(value, where: str, source: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ScriptError(source, where, f"expected an integer, got {value!r}")
    return value


def _put(d, where: str, source: str) -> game.Put:
    extra = set(d) - {"length", "cell", "layer", "axis"} if isinstance(d, dict) else set()
    if extra:
        raise ScriptError(source, f"{where}.{sorted(extra)[0]}", "unknown field")
    axis = _get(d, "axis", where, source, str)
    if axis not in ("x", "y", "z"):
        raise ScriptError(source, f"{where}.axis", f"expected x, y or z, got {axis!r}")
    return game.Put(_int(_get(d, "length", where, source), f"{where}.length", source),
                    _cell(_get(d, "cell", where, source), f"{where}.cell", source),
                    _int(_get(d, "layer", where, source), f"{where}.layer", source), axis)


def play_script(data, judge: Judge | None = None, source: str = "<script>") -> game.TaloState:
    """Replay a scripted game.

    Args:
        data: the parsed script.
        judge: the physics verdict on a building; None trusts every placement to stand.
        source: the script's name, for errors.

    Returns:
        The game after the last turn (over, if it ended).

    Raises:
        ScriptError: the script is malformed, or an action is refused (naming the rule).
    """
    if _get(data, "format", "", source, str) != GAME_FORMAT:
        raise ScriptError(source, "format", f"expected \"{GAME_FORMAT}\", got {data['format']!r}")
    extra = set(data) - {"format", "board", "starts", "seed", "turns", "title", "notes"}
    if extra:
        raise ScriptError(source, sorted(extra)[0], "unknown field")
    starts = _get(data, "starts", "", source, dict)
    starts = {c: _cell(v, f"starts.{c}", source) for c, v in starts.items()}
    try:
        state = game.new_game(starts, _get(data, "board", "", source, str, "talo-green"))
    except TaloError as e:
        raise ScriptError(source, "starts", str(e)) from None
    seed = _get(data, "seed", "", source, int, None)
    rng = None if seed is None else np.random.default_rng(seed)
    for t, turn in enumerate(_get(data, "turns", "", source, list)):
        where = f"turns[{t}]"
        if state.phase == OVER:
            raise ScriptError(source, where, f"the game is already over ({state.outcome.reason})")
        state = _turn(state, turn, where, rng, judge, source)
    return state


def _turn(state, turn, where, rng, judge, source):
    extra = set(turn) - {"restart", "rolls", "take", "actions"} if isinstance(turn, dict) else set()
    if extra:
        raise ScriptError(source, f"{where}.{sorted(extra)[0]}", "unknown field")
    try:
        if "restart" in turn:
            state = game.restart(state, _cell(turn["restart"], f"{where}.restart", source))
        rolls = _get(turn, "rolls", where, source, list, None)
        if rolls is None and rng is None:
            raise ScriptError(source, f"{where}.rolls", "required without a seed")
        player = state.player
        state = game.throw(state, rng=None if rolls is not None else rng, rolls=rolls)
        if state.player != player or state.phase == OVER:  # nothing matched: the turn passed
            if "take" in turn or turn.get("actions"):
                raise ScriptError(source, f"{where}.take", "no blocks matched the throws; the turn passes")
            return state
        take = _get(turn, "take", where, source, list)
        state = game.take(state, take)
    except IllegalMoveError as e:
        raise ScriptError(source, where, str(e)) from None
    except ScriptError:
        raise
    except TaloError as e:
        raise ScriptError(source, where, str(e)) from None
    for a, action in enumerate(_get(turn, "actions", where, source, list, [])):
        state = _action(state, action, f"{where}.actions[{a}]", judge, source)
        if state.phase == OVER:
            return state
    return game.end_turn(state)


def _action(state, action, where, judge, source):
    if not isinstance(action, dict) or len(action) != 1 or next(iter(action)) not in ("place", "move"):
        raise ScriptError(source, where, "expected {\"place\": [...]} or {\"move\": {\"cell\", \"level\"}}")
    try:
        if "move" in action:
            m = action["move"]
            return game.move(state, _cell(_get(m, "cell", f"{where}.move", source), f"{where}.move.cell", source),
                             _int(_get(m, "level", f"{where}.move", source), f"{where}.move.level", source))
        puts = [_put(p, f"{where}.place[{k}]", source) for k, p in enumerate(_get(action, "place", "", source, list))]
        game.precheck(state, puts)
        verdict = Verdict.standing() if judge is None else judge(game.building_after(state, puts))
        return game.place(state, puts, verdict)
    except IllegalMoveError as e:
        raise ScriptError(source, where, str(e)) from None


def script_of(state: game.TaloState, title: str | None = None) -> dict:
    """A game's log as a script that replays it (rolls written down, so no seed is needed).

    A placement that brought the building down is written as played: replayed
    with the physics, it brings it down again.
    """
    starts = {e.player: e.data["cell"] for e in state.log if e.action == "start"}
    played: list[dict] = []
    turn_no = None
    for e in state.log:
        if e.turn == 0:
            continue
        if e.turn != turn_no:
            played.append({})
            turn_no = e.turn
        current = played[-1]
        if e.action == "restart":
            current["restart"] = e.data["cell"]
        elif e.action == "throw":
            current["rolls"] = e.data["rolls"]
        elif e.action == "take":
            current["take"] = e.data["blocks"]
        elif e.action in ("place", "collapse") and "blocks" in e.data:
            puts = [{k: b[k] for k in ("length", "cell", "layer", "axis")} for b in e.data["blocks"]]
            current.setdefault("actions", []).append({"place": puts})
        elif e.action == "move":
            i, j, level = e.data["route"][-1]
            current.setdefault("actions", []).append({"move": {"cell": [i, j], "level": level}})
    out = {"format": GAME_FORMAT}
    if title:
        out["title"] = title
    return {**out, "board": state.scene.board, "starts": starts, "turns": played}


def dumps_script(script: dict) -> str:
    """A script as JSON text, one turn per line (diff-friendly)."""
    return dumps_one_per_line(script, "turns")
