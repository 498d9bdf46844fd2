"""What is legal now in the two Talo games: the die, the stock and the hand (both), the start fields, the pawn's
routes and the restart (Talo), the goal reached (Talo-Fantasy), and where a block may be set down.

Talo's placements are every grid placement of the block (field, level, lying
along x or y or standing) that keeps every building rule but balance, asked
of the session's own drop check: its fields free, on the board or on a block,
no pawn's room filled; and clear of what lies in the supply beside the board
(a block sticking out at level 1 over the pawns waiting in front of it would
be inside them), so free on the table.
Talo-Fantasy's are the block resting on the table's free middle or on a
block's top (what stands there cut away: :func:`~sim.games.play.spots.free_tops`),
lying or standing, turned square or at 45 degrees, each free on the table
(:func:`~sim.games.play.spots.table_refusal`).
"""

from __future__ import annotations

from sim.games.play.spots import Placement, free_tops, on_tops, piece_tops, turned
from sim.games.talo.board import MAX_LEVEL
from sim.games.talo.layout import GridBlock, block_piece
from sim.games.talo.turns import BUILD, TAKE, THROW
from sim.scene.overlap import Obstacles

SITE_RADIUS = 0.16
"""Talo-Fantasy: how far (m) from the table's centre the free middle where the construction goes reaches."""


def stock_actions(session) -> list[dict]:
    """The die, the take, two blocks together and the turn's end, as the session would accept them now."""
    s = session.state
    out: list[dict] = []
    if s.phase == THROW:
        out.append({"action": "throw"})
    if s.phase == TAKE:
        out += [{"action": "take", "blocks": list(o)} for o in s.options]
    if session.pending is not None or session.together or (s.phase == BUILD and len(s.hand) >= 2):
        out.append({"action": "together"})
    if session.pending is None and s.phase in (TAKE, BUILD):
        out.append({"action": "end-turn"})
    return out


def talo_actions(session) -> list[dict]:
    """Talo's: a start field each before the first throw; then the stock's, the pawn's routes, the restart."""
    from sim.games.talo import free_starts, reachable
    from sim.games.talo import game as talo

    if session.state is None:
        taken = set(session.starts.values())
        return [{"action": "start", "cell": list(c)} for c in sorted(session.board.starts) if c not in taken]
    s = session.state
    out = stock_actions(session)
    if s.phase == BUILD and session.pending is None:
        reach = reachable(s.terrain, s.player)
        out += [{"action": "move-pawn", "cell": [i, j], "level": k} for i, j, k in sorted(reach.destinations())]
    if s.phase == THROW and talo.blocked(s):
        out += [{"action": "restart", "cell": list(c)} for c in free_starts(s.terrain)]
    return out


def fantasy_actions(session) -> list[dict]:
    """Talo-Fantasy's: the stock's, and the goal reached while no block waits for the one placed with it."""
    out = stock_actions(session)
    if session.pending is None:
        out.append({"action": "finish"})
    return out


def grid_placements(session, piece: str, table) -> list[Placement]:
    """Every grid placement of the block ``piece`` (in hand) the Talo session accepts now, balance aside."""
    s = session.state
    if s is None or s.phase != BUILD:
        return []
    n = int(table.scene().piece(piece).params["length"])
    occ = dict(s.layout.occupancy)
    if session.pending is not None:  # the first of two placed together stands where it was set down
        first = session.pending[1]
        for v in GridBlock("pending", first.length, first.cell, first.layer, first.axis).voxels():
            occ.setdefault(v, "pending")
    live = {**session.live_of, "pending": session.pending[0] if session.pending else None}
    scene = table.scene()
    loose = Obstacles(scene.with_pieces(p for p in scene.pieces if p.id in table.supply and p.id != piece))
    probe = scene.piece(piece)
    out = []
    for block in grid_candidates(session.board, n, occ):
        p = block_piece(block, session.board)
        pose = (*p.pos, *p.quat)
        if session.drop_refusal(probe.moved(p.pos, p.quat), table) is not None or loose.overlap(probe, pose):
            continue
        under = sorted({live.get(occ[(i, j, block.layer - 1)]) for i, j in block.footprint()
                        if (i, j, block.layer - 1) in occ} - {None}) if block.layer else ["board"]
        out.append(Placement(piece, pose, "field", tuple(under)))
    return out


def grid_candidates(board, n: int, occ, cells=None) -> list[GridBlock]:
    """Blocks of length ``n`` whose fields are free and that lie on the board or on a filled field (the rest of
    the rules are the session's to check), in a fixed order.

    Args:
        board: the board.
        n: the blocks' length.
        occ: the filled fields, (i, j, level) -> block id.
        cells: only the blocks whose bottom face covers one of these fields (i, j) (None: all); the same blocks
            in the same order as the whole list filtered so, at the cost of the fields given.
    """
    columns: dict[tuple[int, int], set[int]] = {}
    for i, j, k in occ:
        columns.setdefault((i, j), set()).add(k)
    lo = min([0, *(i for i, _ in columns), *(j for _, j in columns)]) - n
    hi = max([board.n - 1, *(i for i, _ in columns), *(j for _, j in columns)]) + 1
    out = []
    for axis in (("x", "y", "z") if n > 1 else ("z",)):
        for i, j in _origins(lo, hi, n, axis, cells):
            first = GridBlock("probe", n, (i, j), 0, axis)
            feet = first.footprint()
            layers = {k + 1 for c in feet for k in columns.get(c, ())}
            if all(board.on_grid(c) for c in feet):
                layers.add(0)
            for layer in sorted(k for k in layers if k + first.height <= MAX_LEVEL):
                block = GridBlock("probe", n, (i, j), layer, axis)
                if not any(v in occ for v in block.voxels()):
                    out.append(block)
    return out


def _origins(lo: int, hi: int, n: int, axis: str, cells) -> list[tuple[int, int]]:
    """The first fields (i, j) of the blocks along ``axis`` within [lo, hi] whose bottom face covers one of
    ``cells`` (every one for None), in the order i, then j."""
    if cells is None:
        return [(i, j) for i in range(lo, hi + 1) for j in range(lo, hi + 1)]
    back = {"x": [(a, 0) for a in range(n)], "y": [(0, a) for a in range(n)], "z": [(0, 0)]}[axis]
    return sorted({(i - di, j - dj) for i, j in cells for di, dj in back
                   if lo <= i - di <= hi and lo <= j - dj <= hi})


def free_placements(session, piece: str, table) -> list[Placement]:
    """Talo-Fantasy: the block ``piece`` (in hand) resting on the table's free middle or on a block's top, lying
    along x or y or standing, square or at 45 degrees, where the session accepts it now (balance aside)."""
    from shapely.geometry import Point

    from sim.games.play.spots import Top, lying

    s = session.state
    if s.phase != BUILD:
        return []
    probe = table.scene().piece(piece)
    built = [p for p in table.scene().pieces if p.id not in table.supply and p.id != piece]
    obstacles = Obstacles(table.scene(), ignore=(piece,))
    n = int(probe.params["length"])
    flat = turned(lying(), (0.0, 45.0, 90.0, 135.0)) if n > 1 else [lying()]
    standing = turned(lying((0.0, 90.0, 0.0)), (0.0, 45.0)) if n > 1 else []
    unit = probe.shape.extent[1]
    free = free_tops([Top("table", 0.0, Point(0.0, 0.0).buffer(SITE_RADIUS, 16)),
                      *(t for p in built for t in piece_tops(p))], built, unit / 2)
    site = [t for t in free if t.on == "table"]
    tops = [t for t in free if t.on != "table"]
    out = on_tops(probe, flat + standing, site, obstacles, lambda t: "table", 2 * unit, 5)
    out += on_tops(probe, flat + standing, tops, obstacles, lambda t: "on-piece", unit, 3)
    return [p for p in out if session.drop_refusal(probe.moved(p.pose[:3], p.pose[3:]), table) is None]


__all__ = ["fantasy_actions", "free_placements", "grid_candidates", "grid_placements", "stock_actions", "talo_actions"]
