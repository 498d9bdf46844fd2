"""A small construction language for exact Tohuwabohu scenes: bricks, arches, levels and figures.

Each piece is placed on the board or on the top of a piece already placed, so
heights follow from the pieces; positions are given in millimetres as the
centre of the piece's footprint (a level's centre is the centre of its plate,
for the triangle its centroid). Figures go exactly onto the point of their
colour. The result is a :class:`~sim.scene.Scene`, ready to save::

    c = Construction("Tower")
    l1 = c.storey("quad", [pillar("large", "red", "y", -35, 0), pillar("large", "red", "y", 35, 0)])
    c.figures(l1, "red", "blue")
    scene = c.scene()
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely.geometry as sg

from sim.errors import TowerlabError
from sim.pieces import MM, shape
from sim.pieces import dimensions as dim
from sim.pieces.tohuwabohu import level_outline
from sim.scene import Scene
from sim.scene.io import from_dict
from sim.scene.schema import FORMAT

POSES = ("x", "y", "up")  # a brick lying along x, lying along y, or standing on end


class ConstructionError(TowerlabError):
    """A construction that cannot be placed as asked (a pillar off its level, uneven pillars …)."""


@dataclass(frozen=True)
class PillarSpec:
    """A brick or arch to stand under a level, relative to the level's centre.

    Attributes:
        part: ``brick`` or ``arch``.
        size: brick size (``small``/``large``); None for an arch.
        color: brick colour; None for an arch.
        pose: ``x``/``y`` (lying along that axis) or ``up`` (on end); an arch uses ``x``/``y``
            for the direction of its span.
        dx, dy: offset of its centre from the level's centre (mm).
    """

    part: str
    size: str | None
    color: str | None
    pose: str
    dx: float
    dy: float


def pillar(size: str, color: str, pose: str, dx: float = 0.0, dy: float = 0.0) -> PillarSpec:
    """A brick pillar: ``pillar("small", "red", "up", -30, 0)``."""
    if pose not in POSES:
        raise ConstructionError(f"brick pose: expected one of {', '.join(POSES)}, got {pose!r}")
    return PillarSpec("brick", size, color, pose, float(dx), float(dy))


def arch_pillar(axis: str = "x", dx: float = 0.0, dy: float = 0.0) -> PillarSpec:
    """An arch pillar spanning along ``axis`` (``x`` or ``y``)."""
    if axis not in ("x", "y"):
        raise ConstructionError(f"arch axis: expected x or y, got {axis!r}")
    return PillarSpec("arch", None, None, axis, float(dx), float(dy))


class Construction:
    """A Tohuwabohu scene built piece by piece from the board up.

    Args:
        title: the scene's title.
        notes: free text stored in the scene.
    """

    def __init__(self, title: str | None = None, notes: str | None = None):
        self.title = title
        self.notes = notes
        self._pieces: list[dict] = []
        self._top: dict[str, float] = {}  # id -> height of its top above the board (mm)
        self._footprint: dict[str, sg.Polygon] = {}  # level id -> its plate outline (mm, world)
        self._levels: dict[str, tuple[str, tuple[float, float], float]] = {}  # id -> shape, centre, turn
        self._count: dict[str, int] = {}

    # --- placing pieces -------------------------------------------------------

    def brick(self, size: str, color: str, pose: str, at, on=None, turn: float = 0.0,
              id: str | None = None) -> str:
        """Place a brick with its footprint centred at ``at`` (mm) on the board or on ``on``.

        Args:
            size: ``small`` or ``large``.
            color: ``neutral``, ``red``, ``blue`` or ``green``.
            pose: ``x``/``y`` (lying along that axis) or ``up`` (standing on end).
            at: (x, y) mm.
            on: id of the piece it stands on, or ids of several at one height; None for the board.
            turn: extra turn about the vertical (degrees).
            id: piece id (default ``b1``, ``b2`` …).

        Returns:
            The piece id.
        """
        length, width, thick = dim.TOHU_BRICK[size]
        if pose not in POSES:
            raise ConstructionError(f"brick pose: expected one of {', '.join(POSES)}, got {pose!r}")
        height = length if pose == "up" else thick
        rot = {"x": [0.0, 0.0, turn], "y": [0.0, 0.0, 90.0 + turn], "up": [0.0, 90.0, turn]}[pose]
        return self._add(id or self._next("b"), {"kind": "tohuwabohu.brick", "size": size, "color": color},
                         at, on, height, rot, self._box_footprint(at, length if pose != "up" else width, width,
                                                                  rot[2]))

    def arch(self, at, on=None, axis: str = "x", id: str | None = None) -> str:
        """Place an arch spanning along ``axis`` with its footprint centred at ``at`` (mm) on ``on``.

        ``on`` is as for :meth:`brick`: an arch joining two levels names both.
        """
        a = dim.TOHU_ARCH
        turn = 0.0 if axis == "x" else 90.0
        return self._add(id or self._next("a"), {"kind": "tohuwabohu.arch"}, at, on, a["height"],
                         [0.0, 0.0, turn], self._box_footprint(at, a["length"], a["depth"], turn))

    def level(self, shape_name: str, at, on: list[str], turn: float = 0.0, id: str | None = None) -> str:
        """Lay a level plate centred at ``at`` (mm) on the pillars ``on`` (their tops must be level).

        Raises:
            ConstructionError: no pillars, or pillars of different heights.
        """
        if not on:
            raise ConstructionError("a level needs at least one pillar")
        tops = {round(self._top[p], 6) for p in on}
        if len(tops) != 1:
            raise ConstructionError(f"pillars {', '.join(on)} have tops at different heights {sorted(tops)} mm")
        base = tops.pop()
        thick = dim.TOHU_LEVEL_THICKNESS
        piece = shape("tohuwabohu.level", shape=shape_name)
        centre = np.array(piece.anchor("top").position[:2]) / MM  # the plate's centre in the piece frame
        c, s = np.cos(np.radians(turn)), np.sin(np.radians(turn))
        offset = np.array([[c, -s], [s, c]]) @ centre
        pos = [at[0] - offset[0], at[1] - offset[1], base + thick / 2]
        lid = id or self._next("L")
        self._place(lid, {"kind": "tohuwabohu.level", "shape": shape_name}, pos, [0.0, 0.0, turn], base + thick)
        outline = level_outline(shape_name) @ np.array([[c, -s], [s, c]]).T + np.asarray(at, dtype=float)
        self._footprint[lid] = sg.Polygon(outline)
        self._levels[lid] = (shape_name, (float(at[0]), float(at[1])), float(turn))
        return lid

    def figure(self, color: str, on: str, point: str | None = None, id: str | None = None) -> str:
        """Stand a figure of ``color`` exactly on the ``point`` (default: its own colour's) of level ``on``."""
        shape_name, at, turn = self._levels[on]
        piece = shape("tohuwabohu.level", shape=shape_name)
        centre = np.array(piece.anchor("top").position[:2])
        point = np.array(piece.anchor(f"point-{point or color}").position[:2]) - centre
        c, s = np.cos(np.radians(turn)), np.sin(np.radians(turn))
        xy = np.asarray(at) + np.array([[c, -s], [s, c]]) @ (point / MM)
        h = dim.TOHU_FIGURE["height"]
        base = self._top[on]
        return self._place(id or self._next(f"f-{color}-"), {"kind": "tohuwabohu.figure", "color": color},
                           [xy[0], xy[1], base + h / 2], [0.0, 0.0, 0.0], base + h)

    def figures(self, on: str, *colors: str) -> list[str]:
        """Stand one figure of each colour on level ``on`` (all three when none are named)."""
        return [self.figure(c, on) for c in (colors or dim.TOHU_FIGURE_COLORS)]

    def storey(self, shape_name: str, pillars: list[PillarSpec], on: str | None = None, at=(0.0, 0.0),
               turn: float = 0.0, id: str | None = None) -> str:
        """Stand ``pillars`` (offsets from ``at``) on level ``on`` (or the board) and lay a level on them.

        Returns:
            The new level's id.
        """
        ids = []
        for p in pillars:
            xy = (at[0] + p.dx, at[1] + p.dy)
            if p.part == "arch":
                ids.append(self.arch(xy, on=on, axis=p.pose))
            else:
                ids.append(self.brick(p.size, p.color, p.pose, xy, on=on))
        return self.level(shape_name, at, ids, turn=turn, id=id)

    # --- the result -----------------------------------------------------------

    def to_dict(self) -> dict:
        """The scene file as JSON data."""
        d: dict = {"format": FORMAT, "game": "tohuwabohu", "board": "tohuwabohu-area"}
        if self.title:
            d["title"] = self.title
        if self.notes:
            d["notes"] = self.notes
        d["pieces"] = [dict(p) for p in self._pieces]
        return d

    def scene(self) -> Scene:
        """The validated :class:`~sim.scene.Scene`."""
        return from_dict(self.to_dict(), f"<construction {self.title or ''}>".replace(" >", ">"))

    def top(self, piece_id: str) -> float:
        """Height (mm) of a placed piece's top above the board."""
        return self._top[piece_id]

    # --- internals ------------------------------------------------------------

    def _next(self, prefix: str) -> str:
        self._count[prefix] = self._count.get(prefix, 0) + 1
        return f"{prefix}{self._count[prefix]}"

    @staticmethod
    def _box_footprint(at, length: float, width: float, turn: float) -> sg.Polygon:
        c, s = np.cos(np.radians(turn)), np.sin(np.radians(turn))
        corners = np.array([[-length, -width], [length, -width], [length, width], [-length, width]]) / 2
        return sg.Polygon(corners @ np.array([[c, -s], [s, c]]).T + np.asarray(at, dtype=float))

    def _add(self, pid: str, params: dict, at, on, height: float, rot, footprint) -> str:
        under = [] if on is None else [on] if isinstance(on, str) else list(on)
        tops = {round(self._top[u], 6) for u in under}
        if len(tops) > 1:
            raise ConstructionError(f"{pid} would rest on {', '.join(under)} at different heights {sorted(tops)} mm")
        levels = [self._footprint[u] for u in under if u in self._footprint]
        # on one level a piece must fit within it; across several it must reach onto each
        fits = (not levels or levels[0].buffer(1e-6).contains(footprint) if len(under) == 1
                else all(lv.intersection(footprint).area > 0 for lv in levels))
        if not fits:
            raise ConstructionError(f"{pid} at {tuple(at)} does not fit on level {', '.join(under)}")
        base = tops.pop() if tops else 0.0
        return self._place(pid, params, [at[0], at[1], base + height / 2], rot, base + height)

    def _place(self, pid: str, params: dict, pos, rot, top: float) -> str:
        if pid in self._top:
            raise ConstructionError(f"duplicate piece id {pid!r}")
        entry = {"id": pid, **params, "pos": [round(float(x), 4) for x in pos]}
        if any(abs(r) > 0 for r in rot):
            entry["rot"] = [round(float(r), 6) for r in rot]
        self._pieces.append(entry)
        self._top[pid] = float(top)
        return pid
