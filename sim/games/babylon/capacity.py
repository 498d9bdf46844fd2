"""How many pieces a tactical player can still place in one turn (the rule of four)."""

from __future__ import annotations

from shapely.geometry import Point

from sim.games.babylon.building import CELL, Layout
from sim.games.babylon.placement import max_small_per_tower
from sim.games.babylon.supply import Pieces
from sim.tol import tol

TURN_MIN, TURN_MAX = 4, 5


def free_towers(layout: Layout) -> list[str]:
    """Upright towers with no building part on them (they take a tower, a bridge end or nobles)."""
    return [t for t, p in layout.parts.items()
            if p.is_tower and p.upright and not any(i in layout.parts for i in layout.carries(t))]


def free_spots(layout: Layout) -> int:
    """Cells of upright bridges with nothing standing on them (each takes a tower)."""
    n = 0
    for b, part in layout.parts.items():
        if part.is_tower or not part.upright:
            continue
        over = [layout.outline(i) for i in layout.carries(b)]
        n += sum(1 for k in range(len(part.cells))
                 if all(part.cell_square(k).intersection(o).area <= tol.babylon_cover * CELL * CELL for o in over))
    return n


def bridge_pairs(layout: Layout, tops: list[str]) -> int:
    """Disjoint pairs of free tower tops a bridge could span: same height, two cells apart in line.

    The cell between them must be free at that height, or the bridge's arch
    would stand on it.
    """
    parts = layout.parts
    used: set[str] = set()
    pairs = 0
    for a in tops:
        for b in tops:
            if a >= b or a in used or b in used or abs(parts[a].top - parts[b].top) > tol.babylon_cell:
                continue
            d = parts[b].centre - parts[a].centre
            if abs(float((d ** 2).sum()) ** 0.5 - 2 * CELL) > tol.babylon_cell or min(abs(d)) > tol.babylon_cell:
                continue
            middle = (parts[a].centre + parts[b].centre) / 2
            if any(abs(p.top - parts[a].top) <= tol.babylon_cell and p.footprint.contains(Point(*map(float, middle)))
                   for p in parts.values()):
                continue
            used |= {a, b}
            pairs += 1
    return pairs


def noble_slots(layout: Layout, player: str, n_players: int, tops: list[str]) -> tuple[int, int]:
    """Towers that could take one more of ``player``'s nobles: (any size, empty ones for a large noble)."""
    small_max = max_small_per_tower(n_players)
    any_size = empty = 0
    for t in tops:
        nobles = layout.nobles_on(t)
        if any(n.color == player or n.size == "large" for n in nobles) or len(nobles) >= small_max:
            continue
        any_size += 1
        empty += not nobles
    return any_size, empty


def _nobles(hand: Pieces, any_size: int, empty: int) -> int:
    """Most nobles of ``hand`` placeable on ``any_size`` towers, of which ``empty`` take a large one."""
    return max(large + min(hand.small, any_size - large) for large in range(min(hand.large, empty, any_size) + 1))


def placeable(layout: Layout, player: str, hand: Pieces, n_players: int, first_round: bool) -> int:
    """An estimate, up to five, of how many pieces ``player`` can place in one turn.

    Two plans are tried and the better one counts. Either nobles go on the
    towers that have room for one more of the player's colour (a large one
    only on an empty tower) and bridges span pairs of free tower tops of equal
    height two cells apart; or the towers in hand are stacked on a free bridge
    spot or tower top, and nobles go on the top of that stack and on the
    other towers with room. The empty table takes a bridge with towers on its
    spots (two levels at most for the first player); in the first round every
    other player needs a tower and a bridge to widen the building, and nobody
    places nobles.

    Args:
        layout: the building before the turn.
        player: whose turn it is.
        hand: the pieces the player holds.
        n_players: 3, 4 or 5.
        first_round: whether the first round's restrictions apply.
    """
    parts = hand.towers + hand.bridges
    if not layout.parts:
        return min(parts, TURN_MAX) if hand.bridges else min(hand.towers, 2)
    if first_round:
        return min(parts, TURN_MAX) if hand.bridges and hand.towers else 0
    tops = free_towers(layout)
    any_size, empty = noble_slots(layout, player, n_players, tops)
    spots = free_spots(layout)
    plan_nobles = _nobles(hand, any_size, empty) + min(hand.bridges, bridge_pairs(layout, tops))
    plan_stack = 0
    if hand.towers and (spots or tops):
        base_used = 0 if spots else 1  # the stack may cover a tower that had room
        plan_stack = hand.towers + _nobles(hand, any_size - base_used + 1, max(empty - base_used, 0) + 1)
    return min(max(plan_nobles, plan_stack), TURN_MAX)
