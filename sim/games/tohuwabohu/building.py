"""Tohuwabohu's building rules, checked on a structure analysis: one violation per broken rule.

Choices where the rulebook leaves room (each documented at its check):
- "bricks of the same height" is read literally: the pillars of a level must be
  equally tall themselves (all 20 mm lying, or all 40 mm on end …), and their
  tops must be level;
- "arches may connect levels" is read as *only* arches may: any other piece
  resting on two level plates breaks the rule;
- a figure counts as placed only standing upright on a level, touching the
  point of its own colour; anywhere else (the board, a brick) it breaks the rule;
- the pieces not in play lie loose on the table beside the playing area (the
  supply, :func:`~sim.games.tohuwabohu.structure.supply`); every other piece
  must lie within the playing area.
"""

from __future__ import annotations

import math
from collections import Counter

from sim.games.contract import Violation
from sim.games.tohuwabohu.structure import ARCH, BRICK, BUILDING_BLOCKS, FIGURE, LEVEL, Analysis
from sim.names import BOARD, TABLE
from sim.pieces import MM
from sim.pieces import dimensions as dim
from sim.tol import tol

RULES = {
    "box": "at most the pieces of one box",
    "on-area": "build only on the playing area",
    "level-on-bricks": "levels rest on bricks (or arches) only",
    "level-horizontal": "levels lie horizontally",
    "pillars-equal-height": "the bricks under a level are of equal height",
    "join-only-arches": "only arches may join levels",
    "join-equal-height": "arches join levels of equal height only",
    "figure-on-point": "a figure stands on the point of its own colour",
    "figure-one-per-colour": "at most one figure of each colour per level",
    "figure-not-brick": "figures are never used as bricks",
}


def check_rules(analysis: Analysis) -> list[Violation]:
    """Every building rule broken in the analysed scene, in the order of :data:`RULES`.

    Args:
        analysis: the scene's :class:`~sim.games.tohuwabohu.structure.Analysis`.

    Returns:
        The violations; empty when the scene is built by the rules.
    """
    out: list[Violation] = []
    for check in (_box, _on_area, _levels, _joins, _figures):
        out.extend(check(analysis))
    order = list(RULES)
    return sorted(out, key=lambda v: order.index(v.rule))


def box_key(info) -> tuple | None:
    """The piece's entry in ``dimensions.TOHU_BOX`` (None for a piece not in the game)."""
    if info.part == BRICK:
        return ("brick", info.size, info.color)
    if info.part == ARCH:
        return ("arch",)
    if info.part == LEVEL:
        return ("level", info.shape)
    if info.part == FIGURE:
        return ("figure", info.color)
    return None


def _box(a: Analysis):
    by_key: dict[tuple, list[str]] = {}
    for pid, info in a.pieces.items():
        key = box_key(info)
        if key is None:
            yield Violation("box", (pid,), f"{pid} is not a Tohuwabohu piece")
            continue
        by_key.setdefault(key, []).append(pid)
    for key, ids in by_key.items():
        have = dim.TOHU_BOX[key]
        if len(ids) > have:
            yield Violation("box", tuple(ids), f"{len(ids)} × {' '.join(key)}, the box holds {have}")


def _on_area(a: Analysis):
    off = tuple(pid for pid, info in a.pieces.items() if not info.on_area and not info.supply)
    if off:
        yield Violation("on-area", off, f"{_names(off)} not on the playing area")


def _levels(a: Analysis):
    for s in a.structures:
        for lv in s.levels:
            info = a.pieces[lv.id]
            others = [x for x in info.rests_on if x not in a.pieces or a.pieces[x].part not in BUILDING_BLOCKS]
            if others or not lv.pillars:
                what = _names(others) if others else "nothing"
                yield Violation("level-on-bricks", (lv.id, *[x for x in others if x in a.pieces]),
                                f"level {lv.id} rests on {what}, not only on bricks")
            if lv.tilt_deg > math.degrees(tol.tohu_level_tilt):
                yield Violation("level-horizontal", (lv.id,), f"level {lv.id} is tilted by {lv.tilt_deg:.1f}°")
            if len(lv.pillars) >= 2:
                heights = sorted({round(p.height) for p in lv.pillars})
                tops = [p.top for p in lv.pillars]
                own = max(p.height for p in lv.pillars) - min(p.height for p in lv.pillars)
                if own > tol.tohu_height / MM or max(tops) - min(tops) > tol.tohu_height / MM:
                    yield Violation("pillars-equal-height", (lv.id, *[p.id for p in lv.pillars]),
                                    f"level {lv.id} rests on bricks of heights "
                                    f"{', '.join(f'{h} mm' for h in heights)} with tops at "
                                    f"{', '.join(f'{t:.0f}' for t in tops)} mm")


def _joins(a: Analysis):
    for j in a.joins:
        info = a.pieces[j.piece]
        if info.part != ARCH:
            yield Violation("join-only-arches", (j.piece, *j.levels),
                            f"{j.piece} ({info.part}) rests on levels {_names(j.levels)}; only arches may")
            continue
        tops = [a.pieces[lid].top for lid in j.levels]
        if max(tops) - min(tops) > tol.tohu_height / MM:
            yield Violation("join-equal-height", (j.piece, *j.levels),
                            f"arch {j.piece} joins levels {_names(j.levels)} at heights "
                            f"{', '.join(f'{t:.0f}' for t in tops)} mm")


def _figures(a: Analysis):
    for pid, info in a.pieces.items():
        if info.part == FIGURE and not info.supply:
            yield from _figure_placement(a, pid)
            if info.carries:
                yield Violation("figure-not-brick", (pid, *info.carries),
                                f"{_names(info.carries)} rests on figure {pid}")
    for s in a.structures:
        for lv in s.levels:
            for color, n in Counter(f.color for f in lv.figures).items():
                if n > 1:
                    ids = tuple(f.id for f in lv.placed(color))
                    yield Violation("figure-one-per-colour", (lv.id, *ids),
                                    f"level {lv.id} holds {n} {color} figures")


def _figure_placement(a: Analysis, pid: str):
    info = a.pieces[pid]
    levels = [s for s in info.rests_on if s in a.pieces and a.pieces[s].part == LEVEL]
    others = [s for s in info.rests_on if s not in levels]
    if others or not levels:
        where = _names(others) if others else "nothing"
        yield Violation("figure-on-point", (pid, *[s for s in others if s in a.pieces]),
                        f"figure {pid} stands on {where}, not on a level's point")
        return
    if not info.upright:
        yield Violation("figure-on-point", (pid,), f"figure {pid} lies on its side ({info.tilt_deg:.0f}°)")
        return
    placed = [f for lid in levels for f in a.level(lid).figures if f.id == pid]
    for f in placed:
        if f.point is None:
            yield Violation("figure-on-point", (pid, *levels), f"{info.color} figure {pid} touches no point")
        elif f.point != f.color:
            yield Violation("figure-on-point", (pid, *levels),
                            f"{f.color} figure {pid} stands on the {f.point} point")


def _names(ids) -> str:
    ids = list(ids)
    return ", ".join("the board" if x == BOARD else "the table" if x == TABLE else x for x in ids)
