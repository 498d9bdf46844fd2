"""Whether Babylon pieces are placed correctly: upright and square, on tower tops and bridge spots, nobles on towers."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from sim.games.babylon.building import BRIDGE_CELL_NAMES, CELL, Layout, Part
from sim.games.contract import Violation
from sim.tol import tol


def connection_violations(layout: Layout) -> list[Violation]:
    """The building is connected: one group of pieces joined by standing on one another (see the appendix)."""
    if len(layout.buildings) <= 1:
        return []
    loose = sorted(i for b in layout.buildings[1:] for i in b)
    return [Violation("not-connected", tuple(loose),
                      f"the building is not connected: {', '.join(loose)} "
                      f"{'is' if len(loose) == 1 else 'are'} not attached to the rest")]


def max_small_per_tower(n_players: int) -> int:
    """How many small nobles may share a tower: two, three with five players."""
    return 3 if n_players >= 5 else 2


def _turn_off_square(a: float, b: float) -> float:
    """How far (degrees) the angle between two yaws is from a multiple of 90°."""
    d = (a - b) % 90.0
    return min(d, 90.0 - d)


def _matching_cell(part: Part, xy) -> int | None:
    """The cell of ``part`` whose centre is within ``tol.babylon_cell`` of ``xy``, if any."""
    d = np.linalg.norm(part.cells - np.asarray(xy), axis=1)
    k = int(np.argmin(d))
    return k if d[k] <= tol.babylon_cell else None


def _covered_cells(upper: Part, lower_outline) -> list[int]:
    """The cells of ``upper`` lying over ``lower_outline`` by more than ``tol.babylon_cover``."""
    return [i for i in range(len(upper.cells))
            if upper.cell_square(i).intersection(lower_outline).area > tol.babylon_cover * CELL * CELL]


def part_violations(layout: Layout, ids: Iterable[str]) -> list[Violation]:
    """The placement rules of the building parts among ``ids``.

    Every part stands upright and square (at right angles) to the parts it
    stands on; it stands on no noble; a tower stands exactly on a tower top; on
    a bridge, towers and bridge ends stand only on its centre or an end; a
    bridge's arch (its middle cell) is over no piece.
    """
    out: list[Violation] = []
    for pid in ids:
        part = layout.parts.get(pid)
        if part is None:
            continue
        if not part.upright:
            out.append(Violation("upright", (pid,), f"{pid} does not stand upright"))
            continue
        for lid in sorted(layout.rests_on.get(pid, ())):
            out += _on_piece(layout, part, lid)
    return out


def _on_piece(layout: Layout, part: Part, lid: str) -> list[Violation]:
    """What is wrong with ``part`` standing on the piece ``lid``."""
    pid = part.id
    if lid in layout.nobles:
        return [Violation("on-noble", (pid, lid), f"{pid} stands on the noble {lid}")]
    lower = layout.parts.get(lid)
    outline = layout.outline(lid)
    out = []
    middle = 1 if not part.is_tower else None
    cells = _covered_cells(part, outline)
    if middle in cells:
        out.append(Violation("arch-on-piece", (pid, lid), f"the arch of bridge {pid} is directly on {lid}"))
    if lower is None:
        return out
    if _turn_off_square(part.yaw, lower.yaw) > np.degrees(tol.babylon_square):
        out.append(Violation("square", (pid, lid), f"{pid} is not at right angles to {lid}"))
        return out
    what = "tower" if part.is_tower else "bridge end"
    for i in cells:
        if i == middle:
            continue
        k = _matching_cell(lower, part.cells[i])
        where = f"{pid}" if part.is_tower else f"the {BRIDGE_CELL_NAMES[i]} of {pid}"
        if lower.is_tower and k is None:
            out.append(Violation("tower-top", (pid, lid), f"{where} is not squarely on the top of tower {lid}"))
        elif not lower.is_tower and k is None:
            out.append(Violation("bridge-spot", (pid, lid),
                                 f"{where} stands on bridge {lid} neither at its centre nor at an "
                                 f"end (a {what} may stand only there)"))
    return out


def congruent_bridges(layout: Layout, ids: Iterable[str] | None = None) -> list[Violation]:
    """Bridges placed directly and congruently above another bridge.

    A bridge is congruently above another when both cover the same three cells
    seen from above (within ``tol.babylon_cell``) and it is the next bridge over
    that one: no bridge overlapping them lies between. Only pairs involving
    ``ids`` (all bridges when None) are reported.
    """
    return [Violation("congruent-bridges", (high.id, low.id),
                      f"bridge {high.id} lies directly and congruently above bridge {low.id}")
            for high, low in congruent_pairs(layout.parts.values(), ids)]


def congruent_pairs(parts: Iterable[Part], ids: Iterable[str] | None = None) -> list[tuple[Part, Part]]:
    """(upper, lower) pairs of bridges among ``parts``, the upper directly and congruently above the lower.

    See :func:`congruent_bridges`; only pairs involving ``ids`` (all when None).
    """
    bridges = sorted((p for p in parts if not p.is_tower and p.upright), key=lambda p: p.bottom)
    chosen = None if ids is None else set(ids)
    out = []
    for i, low in enumerate(bridges):
        for high in bridges[i + 1:]:
            overlap = high.footprint.intersection(low.footprint).area
            if high.bottom < low.top - tol.babylon_cell or overlap <= tol.babylon_cover * CELL * CELL:
                continue
            if not _congruent(low, high):
                break  # another bridge over this one lies between it and anything higher
            if chosen is None or low.id in chosen or high.id in chosen:
                out.append((high, low))
            break
    return out


def _congruent(a: Part, b: Part) -> bool:
    same = np.linalg.norm(a.cells - b.cells, axis=1).max()
    flipped = np.linalg.norm(a.cells - b.cells[::-1], axis=1).max()
    return min(same, flipped) <= tol.babylon_cell


def noble_violations(layout: Layout, ids: Iterable[str], n_players: int) -> list[Violation]:
    """The tactical game's noble rules for the nobles among ``ids``.

    A noble stands upright on a tower; a tower holds one large noble or up to
    two small ones (three with five players), never two of one colour.
    """
    out: list[Violation] = []
    towers = set()
    for nid in ids:
        if nid not in layout.nobles:
            continue
        tower = layout.tower_of(nid)
        if tower is None:
            out.append(Violation("noble-on-tower", (nid,), f"noble {nid} does not stand upright on a tower"))
        else:
            towers.add(tower)
    for tower in sorted(towers):
        out += tower_violations(layout, tower, n_players)
    return out


def tower_violations(layout: Layout, tower: str, n_players: int) -> list[Violation]:
    """What is wrong with the nobles on one tower (count, sizes, colours)."""
    nobles = layout.nobles_on(tower)
    ids = tuple(n.id for n in nobles)
    large = [n for n in nobles if n.size == "large"]
    small_max = max_small_per_tower(n_players)
    out = []
    if large and len(nobles) > 1:
        out.append(Violation("noble-count", ids,
                             f"tower {tower} holds a large noble and {len(nobles) - 1} other "
                             "noble(s); a large noble stands alone"))
    elif len(nobles) > small_max:
        out.append(Violation("noble-count", ids,
                             f"tower {tower} holds {len(nobles)} small nobles; at most "
                             f"{small_max} with {n_players} players"))
    colours = [n.color for n in nobles]
    for c in sorted({c for c in colours if colours.count(c) > 1}):
        out.append(Violation("noble-colour", tuple(n.id for n in nobles if n.color == c),
                             f"tower {tower} holds {colours.count(c)} {c} nobles; one of a "
                             "colour per tower"))
    return out
