"""Where a pawn can stand: the top of every field at every height, with the room above it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from sim.games.talo.board import PAWN_ROOM
from sim.games.talo.layout import Layout


@dataclass(frozen=True)
class Stand:
    """A surface a pawn could stand on.

    Attributes:
        cell: (i, j) field.
        level: its height in levels (0: the board).
        headroom: free levels above it up to the next block, None under the open sky.
    """

    cell: tuple[int, int]
    level: int
    headroom: int | None

    @property
    def usable(self) -> bool:
        """Whether a pawn fits: open sky or at least :data:`PAWN_ROOM` free levels."""
        return self.headroom is None or self.headroom >= PAWN_ROOM

    @property
    def spot(self) -> tuple[int, int, int]:
        """(i, j, level)."""
        return (*self.cell, self.level)


@dataclass(frozen=True)
class Terrain:
    """The surfaces of a layout, field by field.

    Attributes:
        layout: the scene on the grid.
    """

    layout: Layout

    @cached_property
    def columns(self) -> dict[tuple[int, int], tuple[int, ...]]:
        """Field -> the levels filled by blocks there, ascending (fields of the grid only)."""
        cols: dict[tuple[int, int], list[int]] = {c: [] for c in self.layout.board.fields()}
        for i, j, k in self.layout.occupancy:
            if (i, j) in cols:
                cols[(i, j)].append(k)
        return {c: tuple(sorted(ks)) for c, ks in cols.items()}

    @cached_property
    def stands(self) -> dict[tuple[int, int], tuple[Stand, ...]]:
        """Field -> its surfaces from the bottom up.

        The board counts at level 0 where it is free and land (never on water);
        above, every filled level with a free one on top gives a surface.
        """
        return {cell: self._stands_of(cell, filled) for cell, filled in self.columns.items()}

    def _stands_of(self, cell, filled: tuple[int, ...]) -> tuple[Stand, ...]:
        taken = set(filled)
        tops = [k + 1 for k in filled if k + 1 not in taken]
        if 0 not in taken and self.layout.board.is_land(cell):
            tops.insert(0, 0)
        return tuple(Stand(cell, k, _room(k, filled)) for k in tops)

    def changed(self, layout: Layout, cells=()) -> Terrain:
        """The terrain of ``layout``, whose blocks differ from this one's only on the fields ``cells`` (blocks
        added there, or only pawns moved: no cells): those columns are read again, the others kept. The same
        terrain as ``Terrain(layout)``, at the cost of the fields changed (a search adds blocks one by one).
        """
        out = Terrain(layout)
        cols, stands = dict(self.columns), dict(self.stands)
        fresh: dict[tuple[int, int], list[int]] = {c: [] for c in cells if c in cols}
        for i, j, k in layout.occupancy:
            if (i, j) in fresh:
                fresh[(i, j)].append(k)
        for cell, ks in fresh.items():
            cols[cell] = tuple(sorted(ks))
            stands[cell] = out._stands_of(cell, cols[cell])
        out.__dict__.update(columns=cols, stands=stands)  # the cached properties, filled in
        return out

    def stand(self, cell, level: int) -> Stand | None:
        """The surface of ``cell`` at ``level``, None if there is none."""
        return next((s for s in self.stands.get(tuple(cell), ()) if s.level == level), None)

    @cached_property
    def heights(self) -> np.ndarray:
        """(n, n) int: the top of the highest block on each field in levels, 0 for none; [i, j] is field (i, j)."""
        n = self.layout.board.n
        h = np.zeros((n, n), dtype=int)
        for (i, j), filled in self.columns.items():
            if filled:
                h[i, j] = filled[-1] + 1
        return h


def _room(level: int, filled: tuple[int, ...]) -> int | None:
    above = [k for k in filled if k >= level]
    return None if not above else above[0] - level
