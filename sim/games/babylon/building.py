"""Babylon buildings read from poses: parts as 25 mm cells, nobles and their levels, connected buildings.

A *connected building* is a set of pieces joined by support: two pieces are
attached when one stands on the other (a contact that carries weight, as the
support graph reports it). Side contacts attach nothing, because a push along
the table separates pieces that merely touch, and neither does the table. The
connected buildings are the groups of pieces joined this way; a building is
connected when it is one such group, so no part of it could be pushed away on
its own.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType

import numpy as np
import shapely
from shapely.geometry import MultiPoint, Polygon

from sim.contact import BOARD
from sim.games.babylon.supply import BRIDGE, NOBLE, TOWER
from sim.geometry.transforms import quat_to_matrix, transform_points
from sim.graphs import components
from sim.pieces import MM
from sim.pieces import dimensions as dim
from sim.tol import tol

LEVEL = dim.BABYLON_LEVEL * MM  # one level (m)
CELL = dim.BABYLON_TOWER["size"][0] * MM  # side of a tower, and of each third of a bridge (m)
PART_CELLS = {TOWER: (0.0,), BRIDGE: (-CELL, 0.0, CELL)}  # local x of each cell's centre
BRIDGE_CELL_NAMES = ("left end", "centre", "right end")


@dataclass(frozen=True, eq=False)
class Part:
    """A tower or bridge as it stands.

    Attributes:
        id: the piece id.
        kind: ``babylon.tower`` or ``babylon.bridge``.
        owner: who placed it (None when the scene does not say).
        cells: (k, 2) world xy (m) of its cells' centres: one for a tower; a
            bridge's left end, centre and right end.
        yaw: direction of the piece's x axis, degrees in [0, 360).
        upright: stands on its open bottom, within ``tol.babylon_upright``.
        bottom, top: lowest and highest point (m above the table).
        footprint: its outline seen from above (m).
    """

    id: str
    kind: str
    owner: str | None
    cells: np.ndarray
    yaw: float
    upright: bool
    bottom: float
    top: float
    footprint: Polygon

    @property
    def is_tower(self) -> bool:
        """Whether it is a tower."""
        return self.kind == TOWER

    @property
    def level(self) -> int:
        """The number of levels beneath it."""
        return max(0, round(self.bottom / LEVEL))

    @property
    def top_level(self) -> int:
        """The number of levels up to its top."""
        return max(0, round(self.top / LEVEL))

    @property
    def centre(self) -> np.ndarray:
        """(2,) centre seen from above (m)."""
        return self.cells.mean(axis=0)

    @property
    def orientation(self) -> int:
        """Which of the four orientations (0, 90, 180, 270): where a tower's opening faces."""
        return int(round(self.yaw / 90.0)) % 4 * 90

    def cell_square(self, i: int) -> Polygon:
        """The 25 × 25 mm square of cell ``i``, seen from above (m)."""
        c = np.radians(self.yaw)
        u = np.array([np.cos(c), np.sin(c)]) * CELL / 2
        v = np.array([-u[1], u[0]])
        o = self.cells[i]
        return Polygon([o - u - v, o + u - v, o + u + v, o - u + v])


@dataclass(frozen=True, eq=False)
class Noble:
    """A noble as it stands.

    Attributes:
        id: the piece id.
        size: ``small`` or ``large``.
        color: its colour, which is its player.
        xy: (2,) centre of its base (m).
        bottom: lowest point (m above the table).
        upright: stands on its base, within ``tol.babylon_upright``.
    """

    id: str
    size: str
    color: str
    xy: np.ndarray
    bottom: float
    upright: bool

    @property
    def level(self) -> int:
        """The number of 20 mm levels beneath it."""
        return max(0, round(self.bottom / LEVEL))


def _lean(quat) -> float:
    """Angle (rad) between a piece's z axis and the vertical."""
    return float(np.arccos(np.clip(quat_to_matrix(quat)[2, 2], -1.0, 1.0)))


def read_part(piece) -> Part:
    """A tower or bridge piece as a :class:`Part`."""
    rot = quat_to_matrix(piece.quat)
    pos = np.asarray(piece.pos, dtype=float)
    world = transform_points(piece.shape.vertices, pos, piece.quat)
    local = np.array([(x, 0.0, 0.0) for x in PART_CELLS[piece.kind]])
    cells = (local @ rot.T + pos)[:, :2]
    yaw = float(np.degrees(np.arctan2(rot[1, 0], rot[0, 0]))) % 360.0
    return Part(piece.id, piece.kind, piece.owner, cells, yaw, _lean(piece.quat) <= tol.babylon_upright,
                float(world[:, 2].min()), float(world[:, 2].max()), MultiPoint(world[:, :2]).convex_hull)


def read_noble(piece) -> Noble:
    """A noble piece as a :class:`Noble`."""
    world = transform_points(piece.shape.vertices, piece.pos, piece.quat)
    base = transform_points([(0.0, 0.0, float(piece.shape.bounds[0, 2]))], piece.pos, piece.quat)[0]
    return Noble(piece.id, piece.params["size"], piece.params["color"], base[:2], float(world[:, 2].min()),
                 _lean(piece.quat) <= tol.babylon_upright)


@dataclass(frozen=True, eq=False)
class Layout:
    """A Babylon scene read as buildings: parts, nobles, what stands on what.

    Attributes:
        scene: the scene it was read from.
        parts: towers and bridges by id.
        nobles: nobles by id.
        rests_on: for every piece, the pieces it stands on (the table left out).
        buildings: the connected buildings (see the module docstring): groups
            of Babylon piece ids, largest first.
    """

    scene: object
    parts: Mapping[str, Part]
    nobles: Mapping[str, Noble]
    rests_on: Mapping[str, frozenset]
    buildings: tuple[frozenset, ...]

    @cached_property
    def _carries(self) -> dict[str, set]:
        out: dict[str, set] = {i: set() for i in self.rests_on}
        for upper, lowers in self.rests_on.items():
            for lower in lowers:
                out.setdefault(lower, set()).add(upper)
        return out

    @cached_property
    def _building_index(self) -> dict[str, int]:
        return {i: k for k, b in enumerate(self.buildings) for i in b}

    def carries(self, piece_id: str) -> frozenset:
        """The pieces standing on ``piece_id``."""
        return frozenset(self._carries.get(piece_id, ()))

    def building_of(self, piece_id: str) -> frozenset | None:
        """The connected building a Babylon piece belongs to (None for other pieces)."""
        k = self._building_index.get(piece_id)
        return None if k is None else self.buildings[k]

    def tower_of(self, noble_id: str) -> str | None:
        """The tower a noble stands on upright, or None (also for a piece that is no noble here).

        A noble stands on a tower when it is upright and everything it stands
        on is one upright tower.
        """
        noble = self.nobles.get(noble_id)
        under = self.rests_on.get(noble_id, frozenset())
        if noble is None or not noble.upright or len(under) != 1:
            return None
        (tower,) = under
        part = self.parts.get(tower)
        return tower if part is not None and part.is_tower and part.upright else None

    def on_building(self, noble_id: str) -> bool:
        """Whether a noble stands upright on the buildings: on towers or bridges and nothing else."""
        noble = self.nobles.get(noble_id)
        under = self.rests_on.get(noble_id, frozenset())
        return noble is not None and noble.upright and bool(under) and all(i in self.parts for i in under)

    def nobles_on(self, tower_id: str) -> tuple[Noble, ...]:
        """The nobles standing on a tower, in id order."""
        return tuple(self.nobles[i] for i in sorted(self.carries(tower_id))
                     if i in self.nobles and self.tower_of(i) == tower_id)

    def outline(self, piece_id: str) -> Polygon:
        """Any piece's outline seen from above (m)."""
        if piece_id in self.parts:
            return self.parts[piece_id].footprint
        piece = self.scene.piece(piece_id)
        return MultiPoint(transform_points(piece.shape.vertices, piece.pos, piece.quat)[:, :2]).convex_hull

    def without(self, ids: Iterable[str]) -> Layout:
        """This layout with some pieces gone (set aside): they support nothing and belong to no building."""
        gone = set(ids)
        if not gone:
            return self
        rests = {i: frozenset(r - gone) for i, r in self.rests_on.items() if i not in gone}
        parts = {i: p for i, p in self.parts.items() if i not in gone}
        nobles = {i: n for i, n in self.nobles.items() if i not in gone}
        babylon = [p.id for p in self.scene.pieces if p.id in parts or p.id in nobles]
        return Layout(self.scene, MappingProxyType(parts), MappingProxyType(nobles), MappingProxyType(rests),
                      connected_buildings(babylon, rests))

    def base(self, ids: Iterable[str] | None = None):
        """The area the parts (all, or ``ids``) cover seen from above, as a shapely geometry (m)."""
        chosen = self.parts.values() if ids is None else (self.parts[i] for i in ids if i in self.parts)
        shapes = [p.footprint for p in chosen]
        return shapely.union_all(shapes) if shapes else Polygon()


def connected_buildings(ids: Iterable[str], rests_on: Mapping[str, Iterable[str]]) -> tuple[frozenset, ...]:
    """The connected buildings: groups of ``ids`` joined by standing on one another, largest first.

    Args:
        ids: the Babylon pieces, in scene order (which breaks ties of size).
        rests_on: id -> the pieces it stands on.
    """
    ids = list(ids)
    order = {i: k for k, i in enumerate(ids)}
    groups = components(ids, rests_on)
    return tuple(sorted(groups, key=lambda g: (-len(g), min(order[i] for i in g))))


READ_KEPT = 32
"""Scenes whose layouts :func:`read_layout` keeps (the referee and the players read the same building again and
again: every listed placement, every turn's end; a 140-piece building costs a third of a second to read)."""
_READ: OrderedDict = OrderedDict()


def _content(scene) -> tuple:
    """What a layout is read from: the board and every piece's kind, parameters, pose and owner."""
    return scene.board, tuple((p.id, p.kind, tuple(sorted(p.params.items())), p.pos, p.quat, p.owner, p.fixed)
                              for p in scene.pieces)


def read_layout(scene, graph=None) -> Layout:
    """Read a Babylon scene's buildings from its poses and its support graph.

    Without a graph, a scene read before (the same board, and pieces of the same ids, kinds, parameters, poses
    and owners) is not read again: its parts, nobles and buildings are kept (the last :data:`READ_KEPT`).

    Args:
        scene: a :class:`~sim.scene.Scene` (settled, for a physical verdict).
        graph: its :class:`~sim.analysis.SupportGraph`; computed when None.

    Returns:
        The :class:`Layout`.
    """
    if graph is None:
        key = _content(scene)
        try:
            known = _READ.get(key)
        except TypeError:  # a parameter that is no hashable value (a custom piece's list): read as it comes
            key, known = None, None
        if key is None:
            from sim.analysis import support_graph

            return read_layout(scene, support_graph(scene))
        if known is not None:
            _READ.move_to_end(key)
            return Layout(scene, known.parts, known.nobles, known.rests_on, known.buildings)
        from sim.analysis import support_graph

        layout = read_layout(scene, support_graph(scene))
        _READ[key] = layout
        if len(_READ) > READ_KEPT:
            _READ.popitem(last=False)
        return layout
    ids = {p.id for p in scene.pieces}
    rests = {p.id: frozenset(i for i in graph.rests_on(p.id) if i != BOARD and i in ids) for p in scene.pieces}
    parts = {p.id: read_part(p) for p in scene.pieces if p.kind in (TOWER, BRIDGE)}
    nobles = {p.id: read_noble(p) for p in scene.pieces if p.kind == NOBLE}
    babylon = [p.id for p in scene.pieces if p.id in parts or p.id in nobles]
    return Layout(scene, MappingProxyType(parts), MappingProxyType(nobles), MappingProxyType(rests),
                  connected_buildings(babylon, rests))
