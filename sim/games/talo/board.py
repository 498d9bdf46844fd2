"""What the Talo rules need to know about a board: its grid, its land, its starting fields."""

from __future__ import annotations

from dataclasses import dataclass

from sim.errors import TowerlabError
from sim.pieces import Grid
from sim.pieces import board as catalogue_board
from sim.pieces import dimensions as dim

MAX_LEVEL = dim.TALO_MAX_LEVEL
"""The goal and the ceiling: no block may reach above it; a pawn standing on it wins."""

PAWN_ROOM = 2
"""Free levels a pawn needs above the surface it stands on (the rulebook's crossbeam rule)."""

NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))
"""The four grid directions a pawn may step in, in the order routes try them (never diagonal)."""


class TaloError(TowerlabError):
    """A request the Talo rules cannot serve: an unknown pawn, a board without a grid, an illegal action."""


@dataclass(frozen=True)
class TaloBoard:
    """A Talo building site as the rules see it.

    Attributes:
        name: the catalogue board (``talo-green`` or ``talo-island``).
        grid: its 10 × 10 grid of fields.
        land: fields on which a block may rest at level 0 (all on the green
            board, the 40 island fields on the island board).
        starts: fields on which a pawn may start or restart.
    """

    name: str
    grid: Grid
    land: frozenset[tuple[int, int]]
    starts: frozenset[tuple[int, int]]

    @property
    def n(self) -> int:
        """Fields per side."""
        return self.grid.n

    def fields(self) -> list[tuple[int, int]]:
        """Every field (i, j) of the grid, i major."""
        return [(i, j) for i in range(self.n) for j in range(self.n)]

    def on_grid(self, cell) -> bool:
        """Whether ``cell`` (i, j) is one of the board's fields."""
        return self.grid.contains(int(cell[0]), int(cell[1]))

    def is_land(self, cell) -> bool:
        """Whether a block may rest on ``cell`` at level 0 (and a pawn stand there)."""
        return tuple(cell) in self.land

    def is_water(self, cell) -> bool:
        """Whether ``cell`` is a field of the grid on which nothing may stand at level 0."""
        return self.on_grid(cell) and not self.is_land(cell)


def talo_board(name: str) -> TaloBoard:
    """The rules' view of a catalogue board.

    Raises:
        TaloError: the board has no Talo grid.
    """
    b = catalogue_board(name)
    if b.grid is None:
        raise TaloError(f"board \"{name}\" has no Talo grid; Talo is played on talo-green or talo-island")
    everything = frozenset((i, j) for i in range(b.grid.n) for j in range(b.grid.n))
    land = everything if b.buildable is None else frozenset(b.buildable)
    starts = land if b.starts is None else frozenset(b.starts)
    return TaloBoard(name, b.grid, land, starts)
