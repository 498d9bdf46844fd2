"""The building rules: where blocks may go, each refusal with its reason, and the balance verdict."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace

from sim.games.contract import Verdict, Violation
from sim.games.talo.board import MAX_LEVEL, PAWN_ROOM
from sim.games.talo.layout import GridBlock, Layout
from sim.games.talo.surfaces import Terrain
from sim.pieces import dimensions as dim

# Protrusion and water. The rulebook forbids blocks "put directly on the board"
# to stick out beyond the grid, then allows it "from level 2 on"; its island
# section lets blocks overbuild the water and stick out "from level 1 on". Both
# agree if the first counts block layers from 1 (the layer on the board being
# the first) and the second counts heights from 0 (the board being level 0).
# So: a block whose bottom is on the board (layer 0) must lie wholly on the
# grid, and on the island board wholly on land; a block whose bottom is at
# level 1 or higher may stick out and may span water.
FREE_FROM_LAYER = 1


def block_violations(layout: Layout) -> list[Violation]:
    """The building rules every block on the grid must keep (balance aside)."""
    out = _stock(layout)
    board = layout.board
    for b in layout.blocks:
        if b.layer < FREE_FROM_LAYER:
            off = [c for c in b.footprint() if not board.on_grid(c)]
            wet = [c for c in b.footprint() if board.is_water(c)]
            if off:
                out.append(Violation("protrusion", (b.id,), f"sticks out beyond the grid at level 0 "
                                                            f"(fields {_fields(off)}); only blocks from level "
                                                            f"{FREE_FROM_LAYER} up may"))
            if wet:
                out.append(Violation("water", (b.id,), f"stands on water at level 0 (fields {_fields(wet)})"))
        if b.top > MAX_LEVEL:
            out.append(Violation("height", (b.id,), f"reaches level {b.top}; the building may not outgrow "
                                                    f"level {MAX_LEVEL}"))
    out += _overlaps(layout)
    out += _unsupported(layout)
    return out


def _fields(cells) -> str:
    return ", ".join(f"[{i}, {j}]" for i, j in cells)


def _stock(layout: Layout) -> list[Violation]:
    by_length: dict[int, list[str]] = defaultdict(list)
    for b in layout.blocks:
        by_length[b.length].append(b.id)
    return [Violation("stock", tuple(ids), f"{len(ids)} blocks of length {n}; the set has only {dim.TALO_COUNT[n]}")
            for n, ids in sorted(by_length.items()) if len(ids) > dim.TALO_COUNT[n]]


def _overlaps(layout: Layout) -> list[Violation]:
    pairs: Counter = Counter()
    owner: dict = {}
    for b in layout.blocks:
        for v in b.voxels():
            if v in owner:
                pairs[(owner[v], b.id)] += 1
            else:
                owner[v] = b.id
    return [Violation("overlap", pair, f"{pair[0]} and {pair[1]} fill the same {count} field(s)")
            for pair, count in pairs.items()]


def _unsupported(layout: Layout) -> list[Violation]:
    occ = layout.occupancy
    out = []
    for b in layout.blocks:
        if b.layer == 0:
            continue
        below = [occ.get((i, j, b.layer - 1)) for i, j in b.footprint()]
        if not any(x is not None and x != b.id for x in below):
            out.append(Violation("support", (b.id,), f"rests on nothing at level {b.layer}"))
    return out


def _pawn_room(layout: Layout) -> list[Violation]:
    occ = layout.occupancy
    out = []
    for p in layout.pawns:
        i, j, k = p.spot
        hit = sorted({occ[(i, j, k + a)] for a in range(PAWN_ROOM) if (i, j, k + a) in occ})
        if hit:
            out.append(Violation("pawn", (*hit, p.id), f"{', '.join(hit)} fills the room of the {p.color} pawn"))
    return out


def pawn_violations(terrain: Terrain) -> list[Violation]:
    """Where pawns stand wrongly: off any surface, without room, on water, two on one spot."""
    board = terrain.layout.board
    out = []
    seen: dict = {}
    for p in terrain.layout.pawns:
        stand = terrain.stand(p.cell, p.level)
        if p.level == 0 and board.is_water(p.cell):
            out.append(Violation("pawn", (p.id,), f"the {p.color} pawn stands on water"))
        elif stand is None:
            out.append(Violation("pawn", (p.id,), f"the {p.color} pawn stands on no surface at level {p.level}"))
        elif not stand.usable:
            out.append(Violation("pawn", (p.id,), f"the {p.color} pawn has {stand.headroom} level(s) of room; "
                                                  f"it needs {PAWN_ROOM}"))
        if p.spot in seen:
            out.append(Violation("pawn", (seen[p.spot], p.id), "two pawns on one spot"))
        seen.setdefault(p.spot, p.id)
    return out


def balance_violation(verdict: Verdict, blamed: Sequence[str]) -> Violation | None:
    """The balance rule: the building must stand on its own, without help from a pawn.

    Args:
        verdict: the physics verdict on the building without pawns.
        blamed: the ids to name if nothing in particular fell (the new blocks, or all).
    """
    if verdict.stable:
        return None
    fallen = sorted(verdict.knocked_down)
    margin = "" if verdict.margin_g is None else f" (margin {verdict.margin_g:.2f} g)"
    what = f"{', '.join(fallen)} would fall" if fallen else "it balances on a knife edge at best"
    return Violation("balance", tuple(fallen or blamed), f"the building does not stand on its own{margin}: {what}")


def check_layout(layout: Layout, verdict: Verdict | None = None) -> list[Violation]:
    """Every rule a Talo scene breaks: grid, building, pawns and, given a verdict, balance."""
    out = list(layout.problems) + block_violations(layout) + pawn_violations(Terrain(layout))
    if verdict is not None:
        v = balance_violation(verdict, [b.id for b in layout.blocks])
        if v is not None:
            out.append(v)
    return out


def with_blocks(layout: Layout, blocks: Sequence[GridBlock]) -> Layout:
    """The layout with ``blocks`` added."""
    return replace(layout, blocks=layout.blocks + tuple(blocks))


def placement_violations(layout: Layout, blocks: Sequence[GridBlock], verdict: Verdict | None) -> list[Violation]:
    """Why ``blocks``, placed together, may not join ``layout`` (empty: they may).

    Only rules the new blocks break are reported, not older faults. Blocks
    placed together are judged together: a 4 that would tip on a 1 may go on
    with a 1 as its counterweight.

    Args:
        layout: the building (and pawns) before.
        blocks: the new blocks.
        verdict: the physics verdict on the building after, without pawns; None
            to leave balance unjudged.
    """
    new = {b.id for b in blocks}
    clash = new & {b.id for b in layout.blocks}
    if clash:
        return [Violation("id", tuple(sorted(clash)), "a piece with this id is already placed")]
    after = with_blocks(layout, blocks)
    out = [v for v in block_violations(after) + _pawn_room(after) if new & set(v.pieces)]
    if verdict is not None:
        v = balance_violation(verdict, sorted(new))
        if v is not None:
            out.append(v)
    return out
