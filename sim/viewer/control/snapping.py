"""Snapping a carried piece to the places each game has: Talo's grid, Babylon's tower tops and bridge
spots, Tohuwabohu's figure points.

Rulebook readings (../shared/rules):

- **Talo**: blocks lie on the fields of the 10 × 10 grid, along its lines or
  standing on one field, layer on layer: a carried block turns to the nearest
  of the three grid orientations and its outline covers whole fields; a pawn
  stands in the middle of a field. Heights need no snapping: every block is one
  level high or stands on end, so landing on what is below puts it on a layer.
- **Babylon**: building parts stand at right angles on one another; a tower or
  a noble stands on a tower's top or on one of a bridge's three spots, a
  bridge's end (or middle) on a tower or a spot: the nearest such place within
  :data:`SNAP_RADIUS` wins, and the piece turns in 90° steps to line up with
  the part it stands on.
- **Tohuwabohu**: a figure stands on a level plate's marked point of its colour
  or any other; it snaps to the nearest point within :data:`SNAP_RADIUS`.

Everything else is placed freely, and so is anything carried with the
free-placement modifier.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from sim.geometry.transforms import rotate, rotation_matrices
from sim.viewer.control.carry import footprint, heading, kept, snap_heading, square_up

SNAP_RADIUS = 0.015
"""How near (m, horizontally) a piece must be carried to a spot to snap onto it."""


@dataclass(frozen=True)
class Snap:
    """Where a carried piece goes.

    Attributes:
        xy: (2,) its frame's origin (m).
        quat: (4,) its orientation.
        label: what it snapped to (``field (3, 4)``, ``top of t12``), or None when placed freely.
    """

    xy: np.ndarray
    quat: np.ndarray
    label: str | None = None


def snap(scene, piece, xy, quat, skip=()) -> Snap:
    """Snap a carried piece in ``scene`` (the other pieces at their poses).

    Args:
        scene: the scene now (its game and board say what to snap to).
        piece: the carried :class:`~sim.scene.Piece`.
        xy: (2,) where it is carried (m).
        quat: (4,) its orientation.
        skip: pieces that offer no place (the carried ones).
    """
    xy, quat = np.asarray(xy, dtype=float), np.asarray(quat, dtype=float)
    board = scene.board_info
    if scene.game == "talo" and board.grid is not None:
        return _talo(board.grid, piece, xy, quat)
    if scene.game == "babylon":
        return _babylon(scene, piece, xy, quat, set(skip))
    if scene.game == "tohuwabohu" and piece.kind == "tohuwabohu.figure":
        return _figure_point(scene, xy, quat, set(skip))
    return Snap(xy, quat)


def _talo(grid, piece, xy, quat) -> Snap:
    q = snap_heading(square_up(quat))
    fp = footprint(piece.shape.vertices, q)
    c, s = np.cos(np.radians(fp.heading_deg)), np.sin(np.radians(fp.heading_deg))
    size = np.abs(np.array([[c, -s], [s, c]]) @ (2 * fp.half))  # outline along x and y
    cells = np.maximum(np.round(size / grid.cell), 1)
    origin = np.asarray(grid.origin)
    first = np.round((xy - origin) / grid.cell - cells / 2)  # the first field the outline covers
    centre = origin + (first + cells / 2) * grid.cell
    i, j = (int(v) for v in first)
    return Snap(centre, q, f"field ({i}, {j})")


PARTS = ("babylon.tower", "babylon.bridge")
"""The Babylon pieces that offer places to stand on."""


@dataclass(frozen=True)
class _Places:
    """Every place of some parts (:data:`PARTS`), looked up once for as long as the parts stand where they
    stood: the parts (the scene's records), their positions (n, 3), and each place: where it is (m, 3), the
    part it is on (m,), its label and the part's heading (deg)."""

    parts: list
    pos: np.ndarray
    where: np.ndarray
    owner: np.ndarray
    labels: list
    headings: list


_KEPT: list = [None]  # the places last looked up: a carried piece asks again every frame, the parts unchanged


def _table(parts: list) -> _Places:
    """The places of ``parts``, kept while the same records are asked again (a scene's records are new
    when a piece moves)."""
    kept = _KEPT[0]
    if kept is not None and len(kept.parts) == len(parts) and all(map(operator.is_, kept.parts, parts)):
        return kept
    pos = np.array([p.pos for p in parts], dtype=float).reshape(-1, 3)
    rot = rotation_matrices(np.array([p.quat for p in parts], dtype=float).reshape(-1, 4))
    where, owner, labels, headings = [], [], [], []
    for k, (p, turn) in enumerate(zip(parts, rot)):
        if abs(turn[2, 2]) < 0.99:  # lying on its side: not a place
            continue
        for a in p.shape.anchors:
            if a.kind == "spot" or (a.kind == "top" and p.kind == "babylon.tower"):
                where.append(pos[k] + turn @ np.asarray(a.position))
                owner.append(k)
                name = "top" if a.kind == "top" else a.name.replace("spot-", "") + " spot"
                labels.append(f"{name} of {p.id}")
                headings.append(heading(p.quat))
    table = _Places(list(parts), pos, np.array(where).reshape(-1, 3), np.array(owner, dtype=int), labels, headings)
    _KEPT[0] = table
    return table


def _places(scene, skip: set, near: np.ndarray, reach: float) -> list[tuple[np.ndarray, float, str]]:
    """Babylon's places to stand on within ``reach`` (m) of ``near`` (2,): (xy (2,), heading of the
    part (deg), label), by part and by anchor. A city has hundreds of places: they are looked up once
    (:func:`_table`), those near enough found at once, and only those measured one by one."""
    parts = [p for p in scene.pieces if p.id not in skip and p.kind in PARTS]
    if not parts:
        return []
    t = _table(parts)
    close = np.zeros(len(parts), dtype=bool)
    close[np.linalg.norm(t.pos[:, :2] - near, axis=1) <= reach + 0.05] = True
    offset = t.where[:, :2] - near
    # within reach give or take a rounding (the exact test follows, as each place was always measured)
    maybe = np.flatnonzero(close[t.owner] & (np.hypot(offset[:, 0], offset[:, 1]) <= reach + 1e-9))
    return [(t.where[j][:2], t.headings[j], t.labels[j]) for j in maybe
            if not np.linalg.norm(t.where[j][:2] - near) > reach]


def _babylon(scene, piece, xy, quat, skip: set) -> Snap:
    if piece.kind not in ("babylon.tower", "babylon.bridge", "babylon.noble"):
        return Snap(xy, quat)
    q = square_up(quat) if piece.kind != "babylon.noble" else quat
    # the carried piece's own points that stand on a place: its centre, and a bridge's end spots
    offsets = [np.zeros(3)]
    if piece.kind == "babylon.bridge":
        offsets = [np.asarray(a.position) * np.array([1.0, 1.0, 0.0]) for a in piece.shape.anchors if a.kind == "spot"]
    reach = SNAP_RADIUS + max(float(np.linalg.norm(o)) for o in offsets)
    places = _places(scene, skip | {piece.id}, xy, reach)
    if not places:
        return Snap(xy, q)
    best = None
    for where, h, label in places:
        qq = snap_heading(q, h) if piece.kind != "babylon.noble" else q
        for off in offsets:
            centre = where - _turned(qq, off.tobytes())[:2]
            d = float(np.linalg.norm(centre - xy))
            if d <= SNAP_RADIUS and (best is None or d < best[0]):
                best = (d, centre, qq, label)
    if best is None:
        return Snap(xy, q)
    return Snap(best[1], best[2], best[3])


@kept
def _turned(quat, offset: bytes) -> np.ndarray:
    """(3,) an offset (given as its bytes) turned by ``quat``."""
    return rotate(quat, np.frombuffer(offset))


def _figure_point(scene, xy, quat, skip: set) -> Snap:
    best = None
    for p in scene.pieces:
        if p.id in skip or p.kind != "tohuwabohu.level":
            continue
        if rotate(p.quat, [0.0, 0.0, 1.0])[2] < 0.9:
            continue
        for a in p.shape.anchors:
            if a.kind != "figure_point":
                continue
            where = (np.asarray(p.pos) + rotate(p.quat, a.position))[:2]
            d = float(np.linalg.norm(where - xy))
            if d <= SNAP_RADIUS and (best is None or d < best[0]):
                best = (d, where, f"{a.color} point of {p.id}")
    if best is None:
        return Snap(xy, quat)
    return Snap(best[1], square_up(quat), best[2])
