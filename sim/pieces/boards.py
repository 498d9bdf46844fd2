"""The boards scenes stand on: Talo's green and island boards, Tohuwabohu's playing area, tables.

A board's top is at z = 0 of the scene. Talo boards carry the 10 × 10 grid of
20 mm fields and which fields may be built on at level 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.geometry import solids
from sim.pieces import dimensions as dim
from sim.pieces.model import G_CM3, MM, Decal, Material, PieceShape, assemble
from sim.tol import tol

BOARD_MATERIAL = Material("cardboard", dim.BOARD_DENSITY * G_CM3, dim.BOARD_FRICTION)
TABLE_MATERIAL = Material("wood", dim.TABLE_DENSITY * G_CM3, dim.TABLE_FRICTION)


@dataclass(frozen=True)
class Grid:
    """A square grid of fields on a board.

    Attributes:
        n: fields per side.
        cell: field size (m).
        origin: (x, y) of the corner of field (0, 0) (m).
    """

    n: int
    cell: float
    origin: tuple[float, float]

    def centre(self, i: int, j: int) -> np.ndarray:
        """(2,) centre of field (i, j) (m)."""
        return np.array(self.origin) + (np.array([i, j], dtype=float) + 0.5) * self.cell

    def field_of(self, xy) -> tuple[int, int]:
        """The field (i, j) containing the point ``xy`` (m); may lie outside 0..n-1."""
        ij = np.floor((np.asarray(xy, dtype=float) - np.array(self.origin)) / self.cell)
        return int(ij[0]), int(ij[1])

    def contains(self, i: int, j: int) -> bool:
        """Whether (i, j) is a field of the grid."""
        return 0 <= i < self.n and 0 <= j < self.n


@dataclass(frozen=True, eq=False)
class ConstructionArea:
    """The part of a table where two neighbouring players build together.

    Attributes:
        players: ``(p, q)``: q sits next to p clockwise; the area lies at p's
            left hand and at q's right hand.
        polygon: (k, 2) convex outline on the table top (m), counter-clockwise.
    """

    players: tuple[str, str]
    polygon: np.ndarray

    def contains(self, xy) -> bool:
        """Whether the point ``xy`` (m) lies in the area (its edges included)."""
        p = self.polygon
        edges = np.roll(p, -1, axis=0) - p
        rel = np.asarray(xy, dtype=float)[:2] - p
        return bool(np.all(edges[:, 0] * rel[:, 1] - edges[:, 1] * rel[:, 0] >= -tol.polygon_edge))


@dataclass(frozen=True)
class Seating:
    """Players seated evenly around a square table, clockwise seen from above.

    Seat k of n faces the centre from the direction ``first_seat_deg - k · 360/n``
    (degrees counter-clockwise from +x). The table is cut into n wedges from its
    centre along the seat directions; the wedge between two neighbours' seats is
    their construction area.

    Attributes:
        half_size: half the table's side (m).
        first_seat_deg: direction of the first player's seat from the centre:
            -90°, the edge at -y.
    """

    half_size: float
    first_seat_deg: float = -90.0

    def seat_angle(self, k: int, n: int) -> float:
        """Direction (degrees, counter-clockwise from +x) of seat k of n."""
        return self.first_seat_deg - 360.0 * k / n

    def areas(self, players) -> tuple[ConstructionArea, ...]:
        """The construction areas of ``players`` seated in this (clockwise) order.

        Area k lies between seat k and seat k + 1 (the last shares one with the
        first); every player has two, one on each side. Fewer than two players
        have none.
        """
        players = tuple(players)
        n = len(players)
        if n < 2:
            return ()
        return tuple(ConstructionArea((players[k], players[(k + 1) % n]),
                                      self._wedge(self.seat_angle(k + 1, n), self.seat_angle(k, n)))
                     for k in range(n))

    def _wedge(self, lo_deg: float, hi_deg: float) -> np.ndarray:
        """(k, 2) the table cut between the directions lo..hi (counter-clockwise, < 180° apart)."""
        h = self.half_size

        def rim(deg: float) -> tuple[float, float]:
            c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
            r = h / max(abs(c), abs(s))
            return r * c, r * s

        corners = [45.0 + 90.0 * i for i in range(-8, 8)]
        inside = sorted(a for a in corners if lo_deg < a < hi_deg)
        return np.array([(0.0, 0.0), rim(lo_deg), *(rim(a) for a in inside), rim(hi_deg)])


@dataclass(frozen=True)
class Board:
    """A board: its slab, its grid and the fields that matter to the rules.

    Attributes:
        name: the scene file's ``board``.
        shape: the slab as a piece (its top at z = 0 when placed at ``pos``);
            None for the endless table.
        grid: the field grid, for Talo boards.
        buildable: fields on which blocks may rest at level 0 (None: all).
        starts: fields where pawns may start (None: all buildable fields).
        seating: where players sit around it and the construction areas
            between neighbours (Babylon's table), else None.
    """

    name: str
    shape: PieceShape | None
    grid: Grid | None = None
    buildable: frozenset | None = None
    starts: frozenset | None = None
    seating: Seating | None = None

    @property
    def thickness(self) -> float:
        """Slab thickness (m); 0 for the endless table."""
        return 0.0 if self.shape is None else float(self.shape.extent[2])

    @property
    def pos(self) -> np.ndarray:
        """(3,) where the slab's frame goes so that its top is at z = 0 (m)."""
        return np.array([0.0, 0.0, -self.thickness / 2])

    @property
    def size(self) -> np.ndarray | None:
        """(2,) width and depth of the slab (m), None for the endless table."""
        return None if self.shape is None else self.shape.extent[:2]


def _slab(name: str, sx: float, sy: float, t: float, color, material, decals) -> PieceShape:
    """A board slab (mm) whose top is z = 0 in its drawing frame."""
    parts = [("slab", solids.box((-sx / 2, -sy / 2, -t), (sx / 2, sy / 2, 0.0)))]
    return assemble("board", name, {"name": name}, parts, material, color, (), decals)


def _rect(x0, y0, x1, y1) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)


def _grid_lines(n: int, cell: float, width: float, heavy_every: int) -> list[np.ndarray]:
    """Thin rectangles drawing the lines of an n × n grid centred on the origin (mm)."""
    half = n * cell / 2
    lines = []
    for k in range(n + 1):
        w = width * (2.0 if k % heavy_every == 0 else 1.0)
        c = -half + k * cell
        lines.append(_rect(c - w / 2, -half, c + w / 2, half))
        lines.append(_rect(-half, c - w / 2, half, c + w / 2))
    return lines


def _talo_grid() -> Grid:
    u = dim.TALO_UNIT * MM
    return Grid(dim.TALO_GRID, u, (-dim.TALO_GRID * u / 2, -dim.TALO_GRID * u / 2))


def island_fields() -> frozenset:
    """The 40 fields of the island board: four 3 × 3 corner islands and the 2 × 2 middle one."""
    n = dim.TALO_GRID
    corners = {(i, j) for i in (*range(3), *range(n - 3, n)) for j in (*range(3), *range(n - 3, n))}
    middle = {(i, j) for i in (n // 2 - 1, n // 2) for j in (n // 2 - 1, n // 2)}
    return frozenset(corners | middle)


def talo_green() -> Board:
    """The green board: 10 × 10 fields, all buildable; four 5 × 5 quadrants with their centres marked."""
    n, u = dim.TALO_GRID, dim.TALO_UNIT
    half = n * u / 2
    line = dim.COLORS["board-line"]
    marks = [solids.circle(dim.TALO_START_MARK_RADIUS, dim.ROUND_SEGMENTS,
                           (-half + (q * 5 + 2.5) * u, -half + (r * 5 + 2.5) * u)) for q in (0, 1) for r in (0, 1)]
    decals = [Decal("grid", tuple(_grid_lines(n, u, dim.TALO_GRID_LINE, 5)), 0.0, line),
              Decal("start-marks", tuple(marks), 0.0, dim.COLORS["board-start"])]
    shape = _slab("talo-green", n * u, n * u, dim.TALO_BOARD_THICKNESS, dim.COLORS["board-green"],
                  BOARD_MATERIAL, decals)
    return Board("talo-green", shape, _talo_grid())


def talo_island() -> Board:
    """The blue island board: water everywhere but on the 40 island fields."""
    n, u = dim.TALO_GRID, dim.TALO_UNIT
    half = n * u / 2
    fields = island_fields()
    grid = _talo_grid()
    islands = [_rect(-half + i * u, -half + j * u, -half + (i + 1) * u, -half + (j + 1) * u)
               for i, j in sorted(fields)]
    decals = [Decal("islands", tuple(islands), 0.0, dim.COLORS["board-green"]),
              Decal("grid", tuple(_grid_lines(n, u, dim.TALO_GRID_LINE, 5)), 0.0, dim.COLORS["board-line"])]
    shape = _slab("talo-island", n * u, n * u, dim.TALO_BOARD_THICKNESS, dim.COLORS["board-water"],
                  BOARD_MATERIAL, decals)
    middle = {(i, j) for i, j in fields if 3 <= i <= n - 4 and 3 <= j <= n - 4}
    return Board("talo-island", shape, grid, fields, frozenset(fields - middle))


def tohuwabohu_area() -> Board:
    """Tohuwabohu's 280 × 280 playing area with a printed border."""
    s = dim.TOHU_AREA_SIZE
    h, b = s / 2, dim.TOHU_AREA_BORDER
    border = [_rect(-h, -h, h, -h + b), _rect(-h, h - b, h, h), _rect(-h, -h, -h + b, h), _rect(h - b, -h, h, h)]
    decals = [Decal("border", tuple(border), 0.0, dim.COLORS["red"])]
    shape = _slab("tohuwabohu-area", s, s, dim.TOHU_AREA_THICKNESS, dim.COLORS["tohu-area"],
                  BOARD_MATERIAL, decals)
    return Board("tohuwabohu-area", shape)


def babylon_table() -> Board:
    """The table Babylon is played on: a square tabletop with seats around it.

    The seats (the scene's ``players``, clockwise from the edge at -y) cut the
    top into the fast game's construction areas (:meth:`Seating.areas`).
    """
    s = dim.BABYLON_TABLE_SIZE
    shape = _slab("babylon-table", s, s, dim.BABYLON_TABLE_THICKNESS, dim.COLORS["table"],
                  TABLE_MATERIAL, ())
    return Board("babylon-table", shape, seating=Seating(s * MM / 2))


def table() -> Board:
    """An endless table: a plane at z = 0."""
    return Board("table", None)


BOARDS = {
    "talo-green": talo_green,
    "talo-island": talo_island,
    "tohuwabohu-area": tohuwabohu_area,
    "babylon-table": babylon_table,
    "table": table,
}

DEFAULT_BOARD = {"tohuwabohu": "tohuwabohu-area", "talo": "talo-green", "babylon": "babylon-table",
                 "free": "table"}
