"""The in-memory scene: plain frozen data, SI units, poses as position + quaternion (xyzw)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType

import numpy as np

from sim.pieces import Board, PieceShape
from sim.pieces import board as catalogue_board
from sim.pieces import shape as catalogue_shape


@dataclass(frozen=True)
class GridPlacement:
    """A Talo piece given by the grid shorthand, kept so that saving writes it back.

    Attributes:
        cell: (i, j) field, 0-based, i along x.
        layer: bottom at 20 · layer mm.
        axis: ``x``/``y`` (lying, extending in +x/+y), ``z`` (standing), None for pawns.
    """

    cell: tuple[int, int]
    layer: int
    axis: str | None = None


@dataclass(frozen=True)
class Piece:
    """One piece of a scene.

    Attributes:
        id: unique within the scene.
        kind: catalogue kind.
        params: the kind's parameters (``length``, ``size``, ``color``, ...).
        pos: (x, y, z) of the bounding-box centre (m).
        quat: orientation (x, y, z, w).
        owner: player who placed it.
        fixed: never moves.
        friction: Coulomb coefficient overriding the material's.
        density: kg/m³ overriding the material's.
        grid: the Talo shorthand it was given by, if any.
        rot: Euler angles (degrees, fixed X then Y then Z) it was given by, if any.
    """

    id: str
    kind: str
    params: Mapping = field(default_factory=dict)
    pos: tuple[float, float, float] = (0.0, 0.0, 0.0)
    quat: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)
    owner: str | None = None
    fixed: bool = False
    friction: float | None = None
    density: float | None = None
    grid: GridPlacement | None = None
    rot: tuple[float, float, float] | None = None

    def __post_init__(self):
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def __hash__(self):  # params is a read-only mapping, which does not hash
        return hash((self.id, self.kind, self.pos, self.quat))

    def __reduce__(self):
        """Pickle as the constructor's arguments: the read-only mapping does not pickle, and the
        cached shape is rebuilt (from the catalogue's cache) rather than copied to another process."""
        return Piece, (self.id, self.kind, dict(self.params), self.pos, self.quat, self.owner, self.fixed,
                       self.friction, self.density, self.grid, self.rot)

    @cached_property
    def shape(self) -> PieceShape:
        """The catalogue piece this is an instance of (looked up once per piece: the piece is frozen)."""
        return catalogue_shape(self.kind, **self.params)

    @property
    def friction_coefficient(self) -> float:
        """Coulomb friction against its own material (the override, else the material's)."""
        return self.shape.material.friction if self.friction is None else self.friction

    @property
    def mass(self) -> float:
        """Mass (kg), with the density override applied."""
        s = self.shape
        return s.mass if self.density is None else s.mass * self.density / s.material.density

    def moved(self, pos, quat) -> Piece:
        """This piece at another pose; the grid shorthand and Euler angles no longer apply.

        A copy of its fields (the catalogue shape it looked up too), not a new construction: a live world
        reads a Babylon city's 140 poses into pieces ten times a second."""
        out = object.__new__(Piece)
        out.__dict__.update(self.__dict__)
        out.__dict__.update(pos=tuple(float(x) for x in pos), quat=tuple(float(x) for x in quat), grid=None, rot=None)
        return out


@dataclass(frozen=True)
class Scene:
    """A scene: a game, a board and pieces.

    Attributes:
        game: ``tohuwabohu``, ``talo``, ``babylon`` or ``free``.
        board: board name (resolved: never empty).
        pieces: the pieces, ids unique.
        title, notes: free text.
        players: player colours or names in turn order.
        source: where it was loaded from (not part of equality).
    """

    game: str
    board: str
    pieces: tuple[Piece, ...] = ()
    title: str | None = None
    notes: str | None = None
    players: tuple[str, ...] | None = None
    source: str | None = field(default=None, compare=False)

    @property
    def board_info(self) -> Board:
        """The catalogue board."""
        return catalogue_board(self.board)

    @property
    def ids(self) -> list[str]:
        """Piece ids in file order."""
        return [p.id for p in self.pieces]

    def piece(self, piece_id: str) -> Piece:
        """The piece with this id.

        Raises:
            KeyError: no such piece.
        """
        for p in self.pieces:
            if p.id == piece_id:
                return p
        raise KeyError(piece_id)

    def poses(self) -> np.ndarray:
        """(n, 7) float: xyz (m) + quaternion xyzw per piece, in file order."""
        if not self.pieces:
            return np.zeros((0, 7))
        return np.array([(*p.pos, *p.quat) for p in self.pieces], dtype=float)

    def with_poses(self, poses) -> Scene:
        """This scene with new poses; ``poses`` maps id -> (7,) or is an (n, 7) array in file order."""
        if isinstance(poses, Mapping):
            pieces = tuple(p.moved(poses[p.id][:3], poses[p.id][3:]) if p.id in poses else p
                           for p in self.pieces)
        else:
            arr = np.asarray(poses, dtype=float)
            pieces = tuple(p.moved(row[:3], row[3:]) for p, row in zip(self.pieces, arr))
        return replace(self, pieces=pieces)

    def with_pieces(self, pieces) -> Scene:
        """This scene with another list of pieces."""
        return replace(self, pieces=tuple(pieces))
