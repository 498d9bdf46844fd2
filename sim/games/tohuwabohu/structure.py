"""Tohuwabohu structure analysis: structures, numbered levels, their pillars and figures.

Built on the support graph (what rests on what): a *structure* is a group of
pieces joined by resting on one another, except across a piece that rests on
two or more level plates (an arch joining two structures keeps them two). Level
plates are numbered from the bottom of their structure: a plate whose pillars
stand on the board is level 1; a plate whose pillars stand on level k is level
k + 1 (the highest such k when they stand on several). The *pillars* of a level
are the bricks and arches it rests on directly. Pure: no engine imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

import numpy as np

from sim.geometry.transforms import quat_to_matrix, transform_points
from sim.graphs import component_labels
from sim.names import TABLE
from sim.pieces import MM
from sim.pieces import dimensions as dim
from sim.scene import Scene
from sim.tol import tol

BRICK, ARCH, LEVEL, FIGURE, OTHER = "brick", "arch", "level", "figure", "other"
_PARTS = {"tohuwabohu.brick": BRICK, "tohuwabohu.arch": ARCH, "tohuwabohu.level": LEVEL,
          "tohuwabohu.figure": FIGURE}
BUILDING_BLOCKS = (BRICK, ARCH)  # what levels may rest on ("arches may be used as bricks")


class SupportLike(Protocol):
    """What the analysis needs of :class:`sim.analysis.SupportGraph`."""

    def rests_on(self, piece_id: str) -> Iterable[str]: ...

    def bottom(self, piece_id: str) -> float: ...

    def top(self, piece_id: str) -> float: ...

    def touching(self, piece_id: str) -> Iterable[str]: ...


@dataclass(frozen=True)
class PieceInfo:
    """One piece as the rules see it.

    Attributes:
        id: scene id.
        part: ``brick``, ``arch``, ``level``, ``figure`` or ``other`` (not a Tohuwabohu piece).
        color: brick or figure colour, else None.
        size: brick size (``small``/``large``), else None.
        shape: level shape (``quad``/``tri``), else None.
        center: (3,) bounding-box centre, world (mm).
        axis: (3,) unit vector of the piece's own x axis (its longest side), world.
        bottom: height of its lowest point above the board (mm).
        top: height of its highest point above the board (mm).
        tilt_deg: angle between its own up axis and the vertical (degrees).
        on_end: a brick standing on one of its small ends (long side vertical).
        on_area: its footprint lies within the playing area.
        rests_on: ids it rests on (``"board"`` for the board, ``"table"`` for the table around it).
        carries: ids resting on it.
        supply: it lies loose beside the playing area, in the supply (see :func:`supply`).
    """

    id: str
    part: str
    color: str | None
    size: str | None
    shape: str | None
    center: tuple[float, float, float]
    axis: tuple[float, float, float]
    bottom: float
    top: float
    tilt_deg: float
    on_end: bool
    on_area: bool
    rests_on: tuple[str, ...]
    carries: tuple[str, ...] = ()
    supply: bool = False

    @property
    def height(self) -> float:
        """Vertical extent (mm): a brick is 20 lying, 40 or 80 on end."""
        return self.top - self.bottom

    @property
    def upright(self) -> bool:
        """Its own up axis is vertical (within ``tol.tohu_upright``)."""
        return np.radians(self.tilt_deg) <= tol.tohu_upright


@dataclass(frozen=True)
class Pillar:
    """A brick or arch a level rests on directly.

    Attributes:
        id: piece id.
        part: ``brick`` or ``arch``.
        color: brick colour (None for an arch).
        size: brick size (None for an arch).
        height: its own vertical extent (mm).
        top: height of its top above the board (mm).
    """

    id: str
    part: str
    color: str | None
    size: str | None
    height: float
    top: float


@dataclass(frozen=True)
class PlacedFigure:
    """A figure standing on a level.

    Attributes:
        id: piece id.
        color: the figure's colour.
        point: colour of the figure point its base touches, None when it touches none.
        upright: it stands on its base.
    """

    id: str
    color: str
    point: str | None
    upright: bool


@dataclass(frozen=True)
class Level:
    """A level plate within its structure.

    Attributes:
        id: piece id.
        shape: ``quad`` or ``tri``.
        number: 1 for the lowest level of the structure, counting up.
        top: height of its upper face above the board (mm).
        tilt_deg: tilt from horizontal (degrees).
        pillars: the bricks and arches it rests on directly.
        below: ids of the levels its pillars stand on (through stacked bricks).
        figures: the figures standing on it.
    """

    id: str
    shape: str
    number: int
    top: float
    tilt_deg: float
    pillars: tuple[Pillar, ...]
    below: tuple[str, ...]
    figures: tuple[PlacedFigure, ...]

    def placed(self, color: str | None = None) -> list[PlacedFigure]:
        """Its figures (of ``color`` only, when given)."""
        return [f for f in self.figures if color is None or f.color == color]


@dataclass(frozen=True)
class Structure:
    """A connected group of pieces standing together.

    Attributes:
        index: position in :attr:`Analysis.structures`.
        pieces: ids of its pieces, in scene order.
        levels: its level plates ordered by number, then height, then id.
    """

    index: int
    pieces: tuple[str, ...]
    levels: tuple[Level, ...]

    def numbered(self, number: int) -> list[Level]:
        """Its levels with this number (usually one)."""
        return [lv for lv in self.levels if lv.number == number]

    @property
    def figures(self) -> list[PlacedFigure]:
        """Every figure standing on one of its levels."""
        return [f for lv in self.levels for f in lv.figures]


@dataclass(frozen=True)
class Join:
    """A piece resting on two or more level plates (an arch joining structures, when legal).

    Attributes:
        piece: id of the joining piece.
        levels: ids of the levels it rests on, lowest first.
        structures: indices of the structures those levels belong to, in the same order.
    """

    piece: str
    levels: tuple[str, ...]
    structures: tuple[int, ...]


@dataclass(frozen=True)
class Analysis:
    """The structures on the playing area and everything the rules need about each piece.

    Attributes:
        pieces: id -> :class:`PieceInfo`, in scene order (the supply's pieces too).
        structures: the structures, ordered by their first piece in the scene.
        joins: pieces resting on two or more levels.
        supply: ids of the pieces lying loose beside the area, in scene order: in no structure.
    """

    pieces: Mapping[str, PieceInfo]
    structures: tuple[Structure, ...]
    joins: tuple[Join, ...] = ()
    supply: tuple[str, ...] = ()
    _owner: Mapping[str, int] = field(default_factory=dict, repr=False, compare=False)

    def structure_of(self, piece_id: str) -> int | None:
        """Index of the structure holding this piece (None for none)."""
        return self._owner.get(piece_id)

    def level(self, level_id: str) -> Level:
        """The level plate with this id.

        Raises:
            KeyError: no such level.
        """
        for s in self.structures:
            for lv in s.levels:
                if lv.id == level_id:
                    return lv
        raise KeyError(level_id)

    def to_json(self) -> list[dict]:
        """The structures as JSON data: ``[{pieces, levels: [{number, shape, pillars, figures}]}]``."""
        return [{
            "pieces": list(s.pieces),
            "levels": [{
                "id": lv.id, "number": lv.number, "shape": lv.shape, "top_mm": round(lv.top, 2),
                "pillars": [{"id": p.id, "part": p.part, "color": p.color, "size": p.size,
                             "height_mm": round(p.height, 2)} for p in lv.pillars],
                "figures": [{"id": f.id, "color": f.color, "point": f.point} for f in lv.figures],
            } for lv in s.levels],
        } for s in self.structures]


def analyze(scene: Scene, graph: SupportLike | None = None) -> Analysis:
    """Find the structures of a Tohuwabohu scene, number their levels, name pillars and figures.

    Args:
        scene: the scene (its poses are the ones the support graph describes).
        graph: its support graph; computed with :func:`sim.analysis.support_graph` when None.

    Returns:
        The analysis; rules and cards read only this.
    """
    if graph is None:
        from sim.analysis import support_graph

        graph = support_graph(scene)
    pieces = _piece_infos(scene, graph)
    loose = supply(pieces, graph)
    pieces = {pid: _with(info, supply=pid in loose) for pid, info in pieces.items()}
    numbers, below = _number_levels(pieces)
    figures = _figures_by_level(scene, pieces)
    levels = {lid: Level(lid, pieces[lid].shape, numbers[lid], pieces[lid].top, pieces[lid].tilt_deg,
                         _pillars(pieces, lid), below[lid], figures.get(lid, ()))
              for lid in numbers}
    groups, joining = _group({pid: info for pid, info in pieces.items() if not info.supply}, levels)
    structures, owner = [], {}
    for index, members in enumerate(groups):
        for pid in members:
            owner[pid] = index
        lvls = sorted((levels[p] for p in members if p in levels), key=lambda lv: (lv.number, lv.top, lv.id))
        structures.append(Structure(index, tuple(members), tuple(lvls)))
    joins = []
    for pid, lids in joining.items():
        lids = sorted(lids, key=lambda lid: (levels[lid].top, lid))
        joins.append(Join(pid, tuple(lids), tuple(owner[lid] for lid in lids)))
    return Analysis(MappingProxyType(pieces), tuple(structures), tuple(joins),
                    tuple(pid for pid in pieces if pid in loose), MappingProxyType(owner))


def supply(pieces: Mapping[str, PieceInfo], graph: SupportLike) -> frozenset[str]:
    """The pieces lying loose on the table beside the playing area: the supply, not part of the play.

    The rulebook lays every piece out around the playing area before the game;
    a piece there is no structure. A piece off the area is in play only when it
    stands on something other than the table, carries something, or touches a
    piece in play; otherwise it is supply (a heap of loose pieces beside the
    area, touching one another, is supply too).

    Args:
        pieces: every piece, as :func:`analyze` reads it.
        graph: the support graph (for the side contacts).
    """
    loose = {pid for pid, info in pieces.items()
             if not info.on_area and info.rests_on and set(info.rests_on) <= {TABLE} and not info.carries}
    changed = True
    while changed:
        in_play = [pid for pid in loose if any(t in pieces and t not in loose for t in graph.touching(pid))]
        loose -= set(in_play)
        changed = bool(in_play)
    return frozenset(loose)


def _piece_infos(scene: Scene, graph: SupportLike) -> dict[str, PieceInfo]:
    """Per piece: what it is, where, how it is turned, what it rests on and carries."""
    half = None
    if scene.board_info.size is not None:
        half = np.asarray(scene.board_info.size) / 2 + tol.tohu_area_overhang
    infos: dict[str, PieceInfo] = {}
    carried: dict[str, list[str]] = {p.id: [] for p in scene.pieces}
    for p in scene.pieces:
        rot = quat_to_matrix(p.quat)
        world = transform_points(p.shape.vertices, p.pos, p.quat)
        on_area = half is not None and bool(np.all(np.abs(world[:, :2]) <= half))
        part = _PARTS.get(p.kind, OTHER)
        tilt = float(np.degrees(np.arccos(np.clip(rot[2, 2], -1.0, 1.0))))
        on_end = part == BRICK and abs(rot[2, 0]) >= np.cos(tol.tohu_upright)
        rests = tuple(dict.fromkeys(graph.rests_on(p.id)))
        for s in rests:
            if s in carried:
                carried[s].append(p.id)
        infos[p.id] = PieceInfo(
            p.id, part, p.params.get("color") if part in (BRICK, FIGURE) else None,
            p.params.get("size") if part == BRICK else None,
            p.params.get("shape") if part == LEVEL else None,
            tuple(float(x) / MM for x in p.pos), tuple(float(x) for x in rot[:, 0]),
            graph.bottom(p.id) / MM, graph.top(p.id) / MM, tilt, on_end, on_area, rests)
    return {pid: _with(info, carries=tuple(carried[pid])) for pid, info in infos.items()}


def _with(info: PieceInfo, **changes) -> PieceInfo:
    return PieceInfo(**{**info.__dict__, **changes})


def _pillars(pieces: Mapping[str, PieceInfo], level_id: str) -> tuple[Pillar, ...]:
    out = []
    for s in pieces[level_id].rests_on:
        info = pieces.get(s)
        if info is not None and info.part in BUILDING_BLOCKS:
            out.append(Pillar(s, info.part, info.color, info.size, info.height, info.top))
    return tuple(out)


def _levels_under(pieces: Mapping[str, PieceInfo], piece_id: str) -> set[str]:
    """The level plates reached going down from a piece through what is not a level."""
    found: set[str] = set()
    stack, seen = list(pieces[piece_id].rests_on), {piece_id}
    while stack:
        s = stack.pop()
        if s in seen or s not in pieces:
            continue
        seen.add(s)
        if pieces[s].part == LEVEL:
            found.add(s)
        else:
            stack.extend(pieces[s].rests_on)
    return found


def _number_levels(pieces: Mapping[str, PieceInfo]) -> tuple[dict[str, int], dict[str, tuple[str, ...]]]:
    """Each level's number and the levels directly below it."""
    below = {lid: tuple(sorted(_levels_under(pieces, lid)))
             for lid, info in pieces.items() if info.part == LEVEL}
    numbers: dict[str, int] = {}

    def number(lid: str, path: frozenset) -> int:
        if lid not in numbers:
            under = [number(b, path | {lid}) for b in below[lid] if b not in path]
            numbers[lid] = 1 + max(under, default=0)
        return numbers[lid]

    for lid in below:
        number(lid, frozenset())
    return numbers, below


def _figures_by_level(scene: Scene, pieces: Mapping[str, PieceInfo]) -> dict[str, tuple[PlacedFigure, ...]]:
    """The figures resting on each level and the coloured point each touches."""
    reach = (dim.TOHU_FIGURE["base_radius"]) * MM + tol.tohu_point_touch
    out: dict[str, list[PlacedFigure]] = {}
    for p in scene.pieces:
        info = pieces[p.id]
        if info.part != FIGURE:
            continue
        base = transform_points([[0.0, 0.0, p.shape.bounds[0][2]]], p.pos, p.quat)[0]
        for s in info.rests_on:
            if s not in pieces or pieces[s].part != LEVEL:
                continue
            out.setdefault(s, []).append(
                PlacedFigure(p.id, info.color, _touched_point(scene.piece(s), base, reach), info.upright))
    return {lid: tuple(figs) for lid, figs in out.items()}


def _touched_point(level, base: np.ndarray, reach: float) -> str | None:
    """Colour of the figure point of ``level`` that a figure base centred at ``base`` touches.

    Args:
        level: the level :class:`~sim.scene.Piece`.
        base: (3,) centre of the figure's base, world (m).
        reach: base radius plus slack (m).
    """
    rot = quat_to_matrix(level.quat)
    local = rot.T @ (np.asarray(base) - np.asarray(level.pos))
    best, best_d = None, np.inf
    for a in level.shape.anchors:
        if a.kind != "figure_point":
            continue
        d = float(np.hypot(local[0] - a.position[0], local[1] - a.position[1]))
        if d <= reach + a.radius and d < best_d:
            best, best_d = a.color, d
    return best


def _group(pieces: Mapping[str, PieceInfo], levels: Mapping[str, Level]):
    """Split the pieces into structures; pieces resting on two or more levels do not merge them.

    A joining piece (with whatever stands only on it) belongs to the structure
    of the lowest level it rests on, unless it reaches the ground some other way.

    Returns:
        (groups, joining): groups of ids in scene order, ordered by their first
        piece; joining maps each piece resting on several levels to those levels.
    """
    ids = list(pieces)
    index = {pid: i for i, pid in enumerate(ids)}
    joining = {pid: [s for s in info.rests_on if s in levels] for pid, info in pieces.items()}
    joining = {pid: lids for pid, lids in joining.items() if len(lids) >= 2}
    edges = [(index[pid], index[s]) for pid, info in pieces.items() if pid not in joining
             for s in info.rests_on if s in index]
    grounded = [index[pid] for pid, info in pieces.items() if any(s not in pieces for s in info.rests_on)]
    labels = _labels(len(ids), edges)
    for pid, lids in joining.items():
        if labels[index[pid]] not in {labels[g] for g in grounded}:
            lowest = min(lids, key=lambda lid: (levels[lid].top, lid))
            edges.append((index[pid], index[lowest]))
            labels = _labels(len(ids), edges)
    groups: dict[int, list[str]] = {}
    for pid in ids:
        groups.setdefault(int(labels[index[pid]]), []).append(pid)
    ordered = sorted(groups.values(), key=lambda g: index[g[0]])
    return ordered, joining


def _labels(n: int, edges: list[tuple[int, int]]) -> np.ndarray:
    """(n,) component label of each piece, joined by ``edges`` (index pairs)."""
    return component_labels(n, [a for a, _ in edges], [b for _, b in edges])
