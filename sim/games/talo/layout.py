"""A Talo scene read off the grid: each block as field, layer and axis, each pawn as field and level."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from sim.games.contract import Violation
from sim.games.talo.board import TaloBoard, talo_board
from sim.geometry.transforms import quat_to_matrix
from sim.pieces.talo import BLOCK, PAWN
from sim.scene import GridPlacement, Piece, Scene
from sim.scene.grid import grid_pose
from sim.tol import tol

AXES = ("x", "y", "z")

Voxel = tuple[int, int, int]
"""(i, j, k): field (i, j) at level k, the cube from 20·k to 20·(k+1) mm."""


@dataclass(frozen=True)
class GridBlock:
    """A block on the grid.

    Attributes:
        id: the scene id.
        length: 1..10 fields.
        cell: (i, j) of its first field (lowest i or j).
        layer: the level its bottom is at.
        axis: ``x``/``y`` lying along that axis from ``cell``, ``z`` standing.
        owner: who placed it.
    """

    id: str
    length: int
    cell: tuple[int, int]
    layer: int
    axis: str
    owner: str | None = None

    @property
    def height(self) -> int:
        """Levels it spans."""
        return self.length if self.axis == "z" else 1

    @property
    def top(self) -> int:
        """The level of its top face."""
        return self.layer + self.height

    def voxels(self) -> tuple[Voxel, ...]:
        """Every field and level it fills."""
        i, j = self.cell
        k = self.layer
        n = self.length
        if self.axis == "x":
            return tuple((i + a, j, k) for a in range(n))
        if self.axis == "y":
            return tuple((i, j + a, k) for a in range(n))
        return tuple((i, j, k + a) for a in range(n))

    def footprint(self) -> tuple[tuple[int, int], ...]:
        """The fields under its bottom face."""
        return tuple((i, j) for i, j, k in self.voxels() if k == self.layer)


@dataclass(frozen=True)
class GridPawn:
    """A pawn on the grid.

    Attributes:
        id: the scene id.
        color: the player's colour.
        cell: (i, j) field it stands on.
        level: the level it stands at (0: the board).
    """

    id: str
    color: str
    cell: tuple[int, int]
    level: int

    @property
    def spot(self) -> Voxel:
        """(i, j, level)."""
        return (*self.cell, self.level)


@dataclass(frozen=True)
class Layout:
    """A scene on the grid.

    Attributes:
        board: the building site.
        blocks: the blocks that sit on the grid.
        pawns: the pawns that stand upright.
        problems: why the other pieces could not be read off the grid.
    """

    board: TaloBoard
    blocks: tuple[GridBlock, ...] = ()
    pawns: tuple[GridPawn, ...] = ()
    problems: tuple[Violation, ...] = field(default=())

    @cached_property
    def occupancy(self) -> dict[Voxel, str]:
        """Voxel -> id of the block filling it (the first one, if blocks overlap)."""
        occ: dict[Voxel, str] = {}
        for b in self.blocks:
            for v in b.voxels():
                occ.setdefault(v, b.id)
        return occ

    def block(self, block_id: str) -> GridBlock:
        """The block with this id.

        Raises:
            KeyError: no such block on the grid.
        """
        for b in self.blocks:
            if b.id == block_id:
                return b
        raise KeyError(block_id)

    def pawn(self, color: str) -> GridPawn | None:
        """The pawn of this colour, None if there is none on the grid."""
        return next((p for p in self.pawns if p.color == color), None)


def layout_of(scene: Scene) -> Layout:
    """Read a Talo scene off its board's grid.

    Pieces given by the grid shorthand land exactly; settled or hand-posed
    pieces count as on the grid within :attr:`sim.tol.Tolerances.talo_snap`
    (position) and ``talo_snap_angle`` (rotation).

    Raises:
        TaloError: the scene's board has no grid.
    """
    board = talo_board(scene.board)
    blocks, pawns, problems = [], [], []
    for p in scene.pieces:
        if p.kind == BLOCK:
            got = _snap_block(p, board)
        elif p.kind == PAWN:
            got = _snap_pawn(p, board)
        else:
            got = Violation("kind", (p.id,), f"{p.kind} is not a Talo piece")
        if isinstance(got, Violation):
            problems.append(got)
        elif isinstance(got, GridBlock):
            blocks.append(got)
        else:
            pawns.append(got)
    return Layout(board, tuple(blocks), tuple(pawns), tuple(problems))


def _square(rot: np.ndarray) -> str | None:
    """Why a rotation is not a quarter-turn one: ``tilted``, ``diagonal``, or None if it is."""
    aligned = np.abs(rot).max(axis=0) >= np.cos(tol.talo_snap_angle)
    if aligned.all():
        return None
    upright = np.abs(rot[2]) >= np.cos(tol.talo_snap_angle)
    return "diagonal" if upright.any() else "tilted"


def _snap_block(p: Piece, board: TaloBoard) -> GridBlock | Violation:
    n = int(p.params["length"])
    rot = quat_to_matrix(p.quat)
    why = _square(rot)
    if why == "diagonal":
        return Violation("diagonal", (p.id,), "turned off the grid lines; blocks lie along the grid, never diagonally")
    if why == "tilted":
        return Violation("grid", (p.id,), "neither lies flat nor stands upright (tilted)")
    cell = board.grid.cell
    long_axis = 0 if n == 1 else int(np.argmax(np.abs(rot[:, 0])))
    axis = "z" if n == 1 else AXES[long_axis]
    extent = np.full(3, cell)
    extent[long_axis] = n * cell
    corner = np.asarray(p.pos) - extent / 2 - np.array([*board.grid.origin, 0.0])
    units = corner / cell
    snapped = np.round(units)
    off = np.abs(units - snapped) * cell
    if off[:2].max() > tol.talo_snap:
        return Violation("grid", (p.id,), f"sits {off[:2].max() * 1000:.1f} mm off the grid lines")
    if off[2] > tol.talo_snap:
        return Violation("grid", (p.id,), f"its bottom is {off[2] * 1000:.1f} mm from a level")
    i, j, k = (int(v) for v in snapped)
    if k < 0:
        return Violation("grid", (p.id,), "sinks below the board")
    return GridBlock(p.id, n, (i, j), k, axis, p.owner)


def _snap_pawn(p: Piece, board: TaloBoard) -> GridPawn | Violation:
    rot = quat_to_matrix(p.quat)
    if rot[2, 2] < np.cos(tol.talo_snap_angle):
        return Violation("pawn", (p.id,), "has fallen over")
    cell = board.grid.cell
    bottom = p.pos[2] - p.shape.extent[2] / 2
    level = round(bottom / cell)
    if abs(bottom - level * cell) > tol.talo_snap or level < 0:
        return Violation("pawn", (p.id,), f"floats {abs(bottom - level * cell) * 1000:.1f} mm off a level")
    ij = board.grid.field_of(p.pos[:2])
    if not board.on_grid(ij):
        return Violation("pawn", (p.id,), "stands off the board's fields")
    return GridPawn(p.id, p.params["color"], ij, int(level))


def block_piece(block: GridBlock, board: TaloBoard) -> Piece:
    """The scene piece of a block on the grid (given by the grid shorthand)."""
    params = {"length": block.length}
    placement = GridPlacement(block.cell, block.layer, block.axis)
    pos, quat = grid_pose(BLOCK, params, placement, board.grid)
    return Piece(block.id, BLOCK, params, pos, quat, owner=block.owner, grid=placement)


def pawn_piece(pawn: GridPawn, board: TaloBoard) -> Piece:
    """The scene piece of a pawn on the grid."""
    params = {"color": pawn.color}
    placement = GridPlacement(pawn.cell, pawn.level)
    pos, quat = grid_pose(PAWN, params, placement, board.grid)
    return Piece(pawn.id, PAWN, params, pos, quat, grid=placement)
