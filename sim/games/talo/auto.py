"""A simple automatic Talo player: legal placements enumerated, greedy for height, seeded.

It climbs: each block goes where it makes the highest new step next to the
ground its pawn can already reach (trying first where a lying block's middle
rests between its supports), and the pawn then moves to the highest spot in
reach. It never lets go of a block the physics says would fall, so its
games end at level 10 or when the blocks run out, not by a collapse. Ties are
broken by the injected random generator, so a seed gives a game. Good for
demonstrations, benchmarks and for checking that the rules hold over whole
games; no match for a thoughtful player.
"""

from __future__ import annotations

import numpy as np

from sim.games.contract import Judge, Verdict
from sim.games.talo import game
from sim.games.talo.board import MAX_LEVEL, NEIGHBOURS, PAWN_ROOM
from sim.games.talo.layout import GridBlock, Layout
from sim.games.talo.movement import free_starts, reachable
from sim.games.talo.turns import OVER, TAKE, IllegalMoveError

MAX_TRIES = 6
"""Placements tried per block when the physics refuses them, before the block goes back."""


def candidate_puts(layout: Layout, length: int) -> list[game.Put]:
    """Every spot for one block of ``length`` the building rules allow, balance aside.

    The block rests on a free surface (land at level 0, a block's top above),
    fills no block's or pawn's space, and stays under level 10; at level 0 it
    lies wholly on land. In a fixed order (by layer, field, axis).
    """
    occ = layout.occupancy
    held = {(p.cell[0], p.cell[1], p.level + a) for p in layout.pawns for a in range(PAWN_ROOM)}
    board = layout.board
    surfaces = {(i, j, 0) for i, j in board.land if (i, j, 0) not in occ}
    surfaces |= {(i, j, k + 1) for i, j, k in occ if (i, j, k + 1) not in occ}
    axes = ("z",) if length == 1 else ("x", "y", "z")
    seen, out = set(), []
    for i, j, k in sorted(surfaces, key=lambda s: (s[2], s[0], s[1])):
        for axis in axes:
            shifts = range(1) if axis == "z" else range(length)
            for a in shifts:
                cell = (i - a, j) if axis == "x" else (i, j - a) if axis == "y" else (i, j)
                key = (cell, k, axis)
                if key in seen:
                    continue
                seen.add(key)
                block = GridBlock("new", length, cell, k, axis)
                if block.top > MAX_LEVEL or any(v in occ or v in held for v in block.voxels()):
                    continue
                if k == 0 and not all(board.is_land(c) for c in block.footprint()):
                    continue
                out.append(game.Put(length, cell, k, axis))
    return out


def _climb_value(state: game.TaloState, put: game.Put, reach_levels: dict) -> int:
    """The highest new surface ``put`` makes that the pawn could step onto from where it can get now (0: none)."""
    block = GridBlock("new", put.length, put.cell, put.layer, put.axis)
    tops: dict = {}
    for i, j, k in block.voxels():
        tops[(i, j)] = max(tops.get((i, j), 0), k + 1)
    best = 0
    for (i, j), h in tops.items():
        if not state.board.on_grid((i, j)):
            continue
        for di, dj in NEIGHBOURS:
            near = reach_levels.get((i + di, j + dj), ())
            if any(abs(h - lv) <= 1 for lv in near):
                best = max(best, h)
    return best


def looks_balanced(put: game.Put, occupancy) -> bool:
    """Whether a lying block's middle is strictly between the ends of what it rests on (a guess, not the rule).

    Only the block itself is considered, not what carries it; the physics
    verdict decides. The player tries such placements first.
    """
    if put.layer == 0:
        return True
    block = GridBlock("new", put.length, put.cell, put.layer, put.axis)
    below = [c for c in block.footprint() if (*c, put.layer - 1) in occupancy]
    if put.axis == "z" or not below:
        return bool(below)
    along = 0 if put.axis == "x" else 1
    middle = put.cell[along] + put.length / 2
    return min(c[along] for c in below) < middle < max(c[along] for c in below) + 1


def _best_puts(state: game.TaloState, length: int, rng: np.random.Generator) -> list[game.Put]:
    reach = reachable(state.terrain, state.player)
    levels: dict = {}
    for i, j, k in reach.routes:
        levels.setdefault((i, j), []).append(k)
    puts = candidate_puts(state.layout, length)
    values = np.array([_climb_value(state, p, levels) for p in puts], dtype=float)
    balanced = np.array([looks_balanced(p, state.layout.occupancy) for p in puts], dtype=float)
    order = np.lexsort((rng.random(len(puts)), -values, -balanced))
    return [puts[k] for k in order]


def _climb(state: game.TaloState) -> game.TaloState:
    reach = reachable(state.terrain, state.player)
    here = reach.pawn.spot
    best = max(reach.routes, key=lambda s: (s[2], -len(reach.routes[s]), s))
    if best[2] > here[2]:
        return game.move(state, best[:2], best[2])
    return state


def auto_turn(state: game.TaloState, rng: np.random.Generator,
              judge: Judge | None = None) -> game.TaloState:
    """Play the current player's whole turn.

    Args:
        state: at the start of a turn.
        rng: the die and the tie-breaks.
        judge: the physics verdict on a building without pawns; None trusts every placement.

    Returns:
        The state at the start of the next turn, or the game over.
    """
    if game.blocked(state):
        starts = free_starts(state.terrain)
        if starts:
            state = game.restart(state, starts[int(rng.integers(len(starts)))])
    state = game.throw(state, rng)
    if state.phase != TAKE:
        return state
    state = game.take(state, state.options[int(rng.integers(len(state.options)))])
    state = _climb(state)
    for length in list(state.hand):
        if state.phase == OVER:
            return state
        for put in _best_puts(state, length, rng)[:MAX_TRIES]:
            verdict = Verdict.standing() if judge is None else judge(game.building_after(state, [put]))
            if not verdict.stable:
                continue  # a careful player: it feels the wobble and does not let go
            try:
                state = game.place(state, [put], verdict)
            except IllegalMoveError:
                continue
            break
        if state.phase != OVER:
            state = _climb(state)
    return state if state.phase == OVER else game.end_turn(state)


def auto_game(starts, rng: np.random.Generator, judge: Judge | None = None, board: str = "talo-green",
              max_turns: int = 200) -> game.TaloState:
    """A whole game between automatic players.

    Args:
        starts: colour -> start field, in turn order.
        rng: the game's randomness.
        judge: the physics verdict; None trusts every placement.
        board: ``talo-green`` or ``talo-island``.
        max_turns: stop after this many turns even if nobody has won.
    """
    state = game.new_game(starts, board)
    while state.phase != OVER and state.turn <= max_turns:
        state = auto_turn(state, rng, judge)
    return state

