"""Pawn movement: legal steps, every field and level a pawn can reach this turn, shortest routes, blockades."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from sim.games.talo.board import MAX_LEVEL, NEIGHBOURS, PAWN_ROOM, TaloError
from sim.games.talo.layout import GridPawn, Voxel
from sim.games.talo.surfaces import Terrain

Spot = Voxel
"""(i, j, level): where a pawn stands."""


@dataclass(frozen=True)
class Reach:
    """Where a pawn can go this turn.

    Attributes:
        pawn: the pawn.
        routes: spot -> shortest route there, a tuple of spots from the pawn's
            own (first) to that one (last); includes the pawn's own spot.
    """

    pawn: GridPawn
    routes: dict[Spot, tuple[Spot, ...]]

    @property
    def max_level(self) -> int:
        """The highest level it can reach (at least its own)."""
        return max(level for _, _, level in self.routes)

    def route(self, cell, level: int) -> tuple[Spot, ...] | None:
        """The shortest route to ``cell`` at ``level``, None if out of reach."""
        return self.routes.get((*tuple(cell), level))

    def destinations(self) -> list[Spot]:
        """Every spot it can move to (not its own), nearest first, then by field and level."""
        own = self.pawn.spot
        return sorted((s for s in self.routes if s != own), key=lambda s: (len(self.routes[s]), s))


def _pawn(terrain: Terrain, color: str) -> GridPawn:
    pawn = terrain.layout.pawn(color)
    if pawn is None:
        have = ", ".join(p.color for p in terrain.layout.pawns) or "none"
        raise TaloError(f"no {color} pawn on the grid (pawns: {have})")
    return pawn


def steps(terrain: Terrain, spot: Spot, others: frozenset[Spot] = frozenset()) -> list[Spot]:
    """The spots one step away from ``spot``.

    A step goes to one of the four neighbouring fields (never diagonally), at
    most one level up or down, onto a surface with room for a pawn that no
    other pawn holds. It never ends on the board (level 0): a pawn leaves the
    board by climbing a block right next to it and does not walk on it.

    Args:
        terrain: the surfaces.
        spot: (i, j, level) the pawn stands on.
        others: the spots of the other pawns.
    """
    i, j, k = spot
    out = []
    for di, dj in NEIGHBOURS:
        cell = (i + di, j + dj)
        for s in terrain.stands.get(cell, ()):
            if s.level >= 1 and abs(s.level - k) <= 1 and s.usable and s.spot not in others:
                out.append(s.spot)
    return out


def reachable(terrain: Terrain, color: str) -> Reach:
    """Every spot the pawn of ``color`` can reach, step by step, with the shortest route to each.

    A pawn that stands wrongly (inside a block, in the air, without room)
    reaches nothing but its own spot.

    Raises:
        TaloError: no such pawn.
    """
    pawn = _pawn(terrain, color)
    others = frozenset(p.spot for p in terrain.layout.pawns if p.color != color)
    start = pawn.spot
    parent: dict[Spot, Spot | None] = {start: None}
    here = terrain.stand(pawn.cell, pawn.level)
    queue = deque([start] if here is not None and here.usable else [])
    while queue:
        here = queue.popleft()
        for nxt in steps(terrain, here, others):
            if nxt not in parent:
                parent[nxt] = here
                queue.append(nxt)
    routes = {}
    for spot in parent:
        route, at = [], spot
        while at is not None:
            route.append(at)
            at = parent[at]
        routes[spot] = tuple(reversed(route))
    return Reach(pawn, routes)


def is_blocked(terrain: Terrain, color: str) -> bool:
    """Whether the pawn of ``color`` is blockaded for good, so that its player may restart it.

    A pawn may start over when blocks, or the other pawns, shut it in for good,
    so that it could never climb to level 10 before the game ends. Building
    only fills space, so a pawn is blockaded for good when:

    - it is *sealed in*: the free space around it (its room, and every empty
      level joined to it through the faces of the fields) reaches neither the
      open sky above level 10 nor the edge of the grid, so no block can ever
      come near it (a closed tunnel: a floor at level 1, a ceiling and walls all
      round); or
    - it is *hemmed in*: no neighbouring field can ever give it a step. Every
      surface there one level below, level with or above it is ruled out: a
      block fills it or the room above it, or nothing could ever hold it up
      (water at level 0, or a pawn's space beneath), or a pawn holds it that is
      itself blockaded for good. A pawn that can move away (now, or once
      something is built beside it) is no wall: it may go.

    Raises:
        TaloError: no such pawn.
    """
    _pawn(terrain, color)
    return color in blockaded(terrain)


def blockaded(terrain: Terrain) -> frozenset[str]:
    """Colours of the pawns blockaded for good (see :func:`is_blocked`).

    Starts from every pawn that is sealed in or hemmed in with all other pawns
    as walls, then sets free, until none changes, each pawn that is not sealed
    in and would not be hemmed in by the still-blockaded pawns alone (so two
    pawns that hold each other in stay blockaded).
    """
    pawns = terrain.layout.pawns
    sealed = {p.color for p in pawns if _sealed(terrain, p)}
    stuck = sealed | {p.color for p in pawns if _hemmed(terrain, p, [q for q in pawns if q.color != p.color])}
    while True:
        keep = sealed | {p.color for p in pawns if p.color in stuck
                         and _hemmed(terrain, p, [q for q in pawns if q.color in stuck and q.color != p.color])}
        if keep == stuck:
            return frozenset(stuck)
        stuck = keep


def _hemmed(terrain: Terrain, pawn: GridPawn, walls) -> bool:
    """Whether no neighbouring field of ``pawn`` could ever give it a step, with ``walls`` (pawns) in place."""
    i, j, k = pawn.spot
    if k >= MAX_LEVEL:
        return False
    filled = terrain.layout.occupancy
    held = {(pi, pj, pk + a) for p in walls for pi, pj, pk in [p.spot] for a in range(PAWN_ROOM)}
    board = terrain.layout.board
    for di, dj in NEIGHBOURS:
        b = (i + di, j + dj)
        if not board.on_grid(b):
            continue
        for level in range(max(1, k - 1), min(MAX_LEVEL, k + 1) + 1):
            room = [(*b, level + a) for a in range(PAWN_ROOM)]
            if any(v in filled or v in held for v in room):
                continue
            below = (*b, level - 1)
            if below in filled or (below not in held and (level - 1 >= 1 or board.is_land(b))):
                return False
    return True


def _sealed(terrain: Terrain, pawn: GridPawn) -> bool:
    """Whether the free space around ``pawn`` is closed: it reaches neither the sky above level 10 nor the grid's edge.

    The other pawns take no space here: they may move away.
    """
    if pawn.level >= MAX_LEVEL:
        return False
    filled = terrain.layout.occupancy
    board = terrain.layout.board
    start = [(*pawn.cell, pawn.level + a) for a in range(PAWN_ROOM)]
    if any(v in filled for v in start):
        return False  # it stands wrongly; the rules report that, not a blockade
    seen, queue = set(start), deque(start)
    while queue:
        i, j, k = queue.popleft()
        for v in ((i + 1, j, k), (i - 1, j, k), (i, j + 1, k), (i, j - 1, k), (i, j, k + 1), (i, j, k - 1)):
            if v in seen or v in filled or v[2] < 0:
                continue
            if v[2] >= MAX_LEVEL or not board.on_grid(v[:2]):
                return False  # open to the sky, or to the space around the board
            seen.add(v)
            queue.append(v)
    return True


def free_starts(terrain: Terrain) -> list[tuple[int, int]]:
    """Start fields where a pawn may (re)start: free board, room above, no pawn."""
    held = {p.spot for p in terrain.layout.pawns}
    out = []
    for cell in sorted(terrain.layout.board.starts):
        s = terrain.stand(cell, 0)
        if s is not None and s.usable and s.spot not in held:
            out.append(cell)
    return out
