"""Babylon's fast game (and fast-expert) for computer players: nobles high in both construction areas, "stop"
while ahead, and (planning) the neighbours' nobles on the free tower tops (pure).

Everyone builds at once (the game driver's clocks, :mod:`sim.bots.match`:
each player's hands are free again when their last move's seconds have
passed, and the first free moves next). A player's round score is the
smaller of its two construction areas' totals (each noble that meets the
four conditions scores the levels beneath it), less a point per part it
knocked down; a round won is worth :data:`ROUND`.

A position is worth to a player

    ROUND · (its rounds won − the best rival's)
    + its live round score − the best rival's     (the referee's score of the buildings at rest)
    + what its nobles promise and its towers (where nobles will score), both areas alike

(a player out of the round counts its score as :data:`OUT`).

- **Greedy** weighs its supply pieces at every listed place by a quick score
  (a noble: what its level adds to the *smaller* area's total, the area it
  stands in read off the table's seats; a tower: its height, more in the
  weaker area; a noble on a bridge scores nothing), tries the best few with
  the referee and keeps the one whose position is worth most; it always
  tries ``stop`` once it may be called (all nobles placed, :data:`STOP`) and
  calls it when the referee's score of the round then is worth most, and says
  ``done`` only when it has nothing left to place.
- **Planning** then lets each neighbour set :data:`REPLY_NOBLES` nobles on
  the free tower tops of the area it shares with the player (the tops the
  player's own small noble may take, as listed), where they raise the
  neighbour's smaller total most, and weighs each placement by its risk of
  collapse (a part knocked down is a minus point; another player's noble
  knocked down puts the player out of the round).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sim.bots.babylon import HEIGHT, kind_of, level_of
from sim.bots.position import Position
from sim.bots.tactic import Option, Tactic, terminal_value
from sim.games.play.state import PlayState

ROUND = 40.0
"""What a round won is worth (more than any round's score in play)."""
OUT = -20.0
"""The round score of a player out of the round (it scores nothing; a rival's counts for more than that)."""
REPLY_NOBLES = 1
"""Nobles each neighbour sets in the planning player's model of the replies."""
PENDING = 0.5
"""The share of its level a noble that lacks only another colour's noble on its building counts for (another
player may well set one there: they need one too)."""
PROGRESS = 0.1
"""What a point in either area is worth besides the smaller total (a tie-break: the other area's turn comes)."""
BALANCE = 0.1
"""What a level of tower in the area with fewer is worth besides :data:`~sim.bots.babylon.HEIGHT` (the round
scores the smaller area: both need towers for nobles)."""
READY = 0.5
"""The share of what a noble set there would score that a free tower top where it would score at once counts for
(a tower set on a building with another colour's noble on it: a top to score on; a rival may take it first)."""
ON_BRIDGE = -1.0
"""A noble on a bridge: it scores nothing there (the rules allow it)."""
STOP = ROUND
"""The quick score of "stop" (once all the player's nobles are placed): above every placement's, so that it is
always among the moves tried, and the referee's score of the round then decides it (ranked at 0 it was never
tried: every placement ranked higher, and in 14 games level 2 never called it)."""


class FastTactic(Tactic):
    """Babylon's fast and fast-expert games (see the module docstring)."""

    greedy_width = 3
    plan_width = 3
    risk_weight = 4.0  # a collapse costs the parts knocked down, and another's noble knocked puts one out
    local_risk = True  # the buildings hold up to a hundred pieces: the moved piece on what it touches

    def options(self, pos: Position) -> list[Option]:
        me = pos.player
        out = [Option(a, STOP, "stop: the round is scored now") for a in pos.actions if a["action"] == "stop"]
        out += self._placements(pos, me)
        if not out:
            out += [Option(a, OUT, "done: nothing left to build") for a in pos.actions if a["action"] == "done"]
        return sorted(out, key=lambda o: -o.quick)

    def _placements(self, pos: Position, me: str) -> list[Option]:
        areas = _my_areas(pos, me)
        now = _player(pos.view, me).get("areas") or {side: 0 for _, side in areas}
        towers = pos.memo(f"fast-towers-{me}", lambda: _towers(pos.state, me, areas))
        layout = pos.memo("fast-layout", lambda: _layout(pos.state))
        out = []
        for piece in pos.kinds([p for p in pos.pieces if p in pos.supply]):
            probe = pos.scene.piece(piece)
            kind = kind_of(probe)
            for spot in pos.placements(piece):
                level = level_of(probe, spot.pose)
                side = _side(areas, spot.pose)
                if kind in ("small", "large") and spot.rule != "noble-on-tower":
                    w = ON_BRIDGE
                elif kind in ("small", "large") and scores_on(layout, spot.on[0], me, kind):
                    w = _gain(now, side, level) + level  # it scores now: made before building higher
                elif kind in ("small", "large"):
                    w = PENDING * (_gain(now, side, level) + PROGRESS * level)
                elif kind == "towers":
                    w = _height({**towers, side: towers.get(side, 0) + level + 1}) - _height(towers)
                    if spot.on and mixed(layout, spot.on[0], me):
                        w += READY * PENDING * (_gain(now, side, level + 1) + PROGRESS * (level + 1))
                else:
                    w = HEIGHT * level
                out.append(Option(spot.action(), w, f"{piece} ({spot.rule}) at level {level}"
                                                    f"{'' if side is None else f' beside {side}'}",
                                  {"level": level, "rule": spot.rule, "area": side}))
        return out

    def value(self, state: PlayState, player: str, pos: Position) -> float:
        if state.is_terminal:
            return terminal_value(state, player)
        view = state.view()
        if view.get("stopped"):
            return self._worth(view, player)
        areas = _my_areas(pos, player)
        return self._worth(view, player) + _promise(state, player, areas, view) + \
            _height(_towers(state, player, areas))

    def _worth(self, view: Mapping, player: str, scores: Mapping[str, float] | None = None) -> float:
        wins = {p["color"]: p["wins"] for p in view["players"]}
        scores = _scores(view) if scores is None else scores
        rivals = [c for c in wins if c != player]
        best_wins = max(wins[c] for c in rivals) if rivals else 0
        best = max(scores[c] for c in rivals) if rivals else 0.0
        live = 0.0 if view.get("stopped") else scores[player] - best
        return ROUND * (wins[player] - best_wins) + live

    def lookahead(self, pos: Position, state: PlayState, player: str, rng: np.random.Generator) -> float:
        base = self.value(state, player, pos)
        if state.is_terminal:
            return base
        view = state.view()
        if view.get("stopped"):
            return base
        scores = _scores(view)
        areas = _my_areas(pos, player)
        tops = free_tops(pos, areas)
        for rival in (p["color"] for p in view["players"] if p["color"] != player):
            mine = dict(_player(view, rival).get("areas") or {})
            if player not in mine or _player(view, rival)["out"]:
                continue  # not a neighbour, or out of the round
            free = sorted(tops.get(rival, []), reverse=True)
            for level in free[:REPLY_NOBLES]:
                gained = _gain(mine, player, level)
                if gained <= 0:
                    break
                mine[player] += level
                scores[rival] += gained
        return base - self._worth(view, player) + self._worth(view, player, scores)


def _promise(state: PlayState, player: str, areas, view: Mapping) -> float:
    """What ``player``'s nobles promise beyond the live score: each standing on a tower in one of its areas and
    failing only the fourth condition (no noble of another colour on its building yet) counts :data:`PENDING`
    of its level in its area's total; the smaller total gains what it gains, and every area's total
    :data:`PROGRESS` a point (the other area's turn will come)."""
    from sim.games.babylon.fast import noble_reasons

    now = dict(_player(view, player).get("areas") or {side: 0 for _, side in areas})
    if not now:
        return 0.0
    layout = _layout(state)
    hoped = dict(now)
    for nid, noble in layout.nobles.items():
        if noble.color != player or layout.tower_of(nid) is None:
            continue
        side = _side(areas, noble.xy)
        reasons = noble_reasons(layout, nid)
        if side in hoped and len(reasons) == 1 and reasons[0].startswith("no noble of another colour"):
            hoped[side] += PENDING * noble.level
    if any(p.owner == player and p.kind == "babylon.noble" for p in _in_hand(state)):
        for side, level in ready_tops(layout, player, areas).items():
            if side in hoped:
                hoped[side] += READY * PENDING * level
    return min(hoped.values()) - min(now.values()) + PROGRESS * sum(hoped.values())


def _layout(state: PlayState):
    """The buildings on the table now (the supply left out)."""
    from dataclasses import replace

    from sim.games.babylon.building import read_layout

    scene = state.scene()
    built = scene.with_pieces(p for p in scene.pieces if p.id not in state.supply)
    return read_layout(replace(built, players=state.players))


def _in_hand(state: PlayState) -> list:
    scene = state.scene()
    return [p for p in scene.pieces if p.id in state.supply]


def scores_on(layout, tower: str, player: str, size: str) -> bool:
    """Whether a noble of ``player`` (``small`` or ``large``) set on ``tower`` would score at once: it is a tower,
    no noble of ``player``'s colour and no large one stands on it, and a noble of another colour stands on its
    connected building (the rulebook's four conditions, the fourth the one the nobles placed so far must meet)."""
    part = layout.parts.get(tower)
    if part is None or not part.is_tower:
        return False
    if any(n.color == player or n.size == "large" for n in layout.nobles_on(tower)):
        return False
    return mixed(layout, tower, player)


def mixed(layout, piece: str, player: str) -> bool:
    """Whether a noble of another colour than ``player``'s stands upright on ``piece``'s connected building."""
    building = layout.building_of(piece) or frozenset()
    return any(layout.nobles[i].upright and layout.nobles[i].color != player for i in building if i in layout.nobles)


def ready_tops(layout, player: str, areas) -> dict[str, int]:
    """Neighbour -> the highest level of a free tower top in the area shared with it where ``player``'s small noble
    would score at once (:func:`scores_on`; a top with no part on it)."""
    out: dict[str, int] = {}
    for tid, part in layout.parts.items():
        if not part.is_tower or any(i in layout.parts for i in layout.carries(tid)):
            continue
        side = _side(areas, part.centre)
        if side is not None and scores_on(layout, tid, player, "small"):
            out[side] = max(out.get(side, 0), part.top_level)
    return out


def _player(view: Mapping, color: str) -> Mapping:
    return next(p for p in view["players"] if p["color"] == color)


def _scores(view: Mapping) -> dict[str, float]:
    """Each player's live round score (:data:`OUT` when out of the round, 0 before anything scored)."""
    return {p["color"]: OUT if p["out"] else float(p["score"] or 0) for p in view["players"]}


def _gain(areas: Mapping[str, float], side: str | None, level: int) -> float:
    """What a noble of ``level`` set in the area shared with ``side`` adds to the smaller of ``areas``' totals."""
    if side is None or side not in areas:
        return 0.0
    after = dict(areas)
    after[side] += level
    return min(after.values()) - min(areas.values())


def _my_areas(pos: Position, me: str) -> list:
    """``me``'s construction areas, with the neighbour each is shared with: [(area, neighbour)]."""
    from sim.games.babylon.fast import construction_areas, neighbour

    def make():
        return [(a, neighbour(a, me)) for a in construction_areas(pos.scene, pos.state.players) if me in a.players]

    return pos.memo(f"fast-areas-{me}", make)


def _side(areas, pose) -> str | None:
    """The neighbour whose area ``pose`` stands in (None: in neither of the player's)."""
    return next((side for a, side in areas if a.contains(pose[:2])), None)


def _towers(state: PlayState, player: str, areas) -> dict[str | None, int]:
    """Neighbour -> the levels of ``player``'s towers in the area shared with it (a tower on the table counts 1;
    None: outside both areas)."""
    scene = state.scene()
    out: dict[str | None, int] = {side: 0 for _, side in areas}
    for p in scene.pieces:
        if p.id not in state.supply and p.owner == player and kind_of(p) == "towers":
            side = _side(areas, p.pos)
            out[side] = out.get(side, 0) + level_of(p, (*p.pos, *p.quat)) + 1
    return out


def _height(towers: Mapping[str | None, int]) -> float:
    """What the towers are worth: :data:`HEIGHT` a level, and :data:`BALANCE` a level of the area with fewer (the
    round scores the smaller area)."""
    sides = [v for k, v in towers.items() if k is not None]
    return HEIGHT * sum(towers.values()) + BALANCE * (min(sides) if sides else 0)


def free_tops(pos: Position, areas) -> dict[str, list[int]]:
    """Neighbour -> the levels of the free tower tops in the area shared with it, as the listed placements of the
    player's small noble show them now."""
    small = [p for p in pos.pieces if p in pos.supply and kind_of(pos.scene.piece(p)) == "small"]
    if not small:
        return {}
    probe = pos.scene.piece(small[0])
    tops: dict[tuple, tuple[str, int]] = {}
    for spot in pos.placements(small[0]):
        side = _side(areas, spot.pose)
        if spot.rule == "noble-on-tower" and side is not None:
            tops[tuple(spot.on)] = (side, level_of(probe, spot.pose))
    out: dict[str, list[int]] = {}
    for side, level in tops.values():
        out.setdefault(side, []).append(level)
    return out


__all__ = ["FastTactic", "free_tops", "mixed", "ready_tops", "scores_on"]
