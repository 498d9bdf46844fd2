"""Where a piece may be set down: a legal placement, the table's own rule (a solid is never inside another and
rests on something), and poses resting on the upward faces of a scene.

The games list their placements (:meth:`sim.games.play.session.Session.placements`)
from what their rules name (Talo's fields, Babylon's tower tops and bridge
spots, Tohuwabohu's figure points) and from the free areas of the table and
of the pieces' tops; every placement keeps the table's rule
(:func:`table_refusal`), as every placement the one game interface is asked
to make does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from shapely.geometry import MultiPoint, Polygon

from sim.games.play.session import Refused
from sim.geometry.transforms import euler_to_quat, transform_points
from sim.names import BOARD, TABLE
from sim.scene import Piece
from sim.scene.overlap import Obstacles

UP = 0.995
"""cos of the largest angle (about 5.7 degrees) between a face's normal and the vertical for it to be a top."""


@dataclass(frozen=True)
class Placement:
    """A place where a piece may be set down now.

    Attributes:
        piece: the piece.
        pose: (7,) position (m) + quaternion xyzw: the piece resting there.
        rule: the rule that allows it: ``field`` (Talo's grid), ``table``, ``board``, ``area``, ``on-piece``,
            ``tower-top``, ``bridge-spot``, ``bridge`` (a bridge's two ends on two tops), ``noble-on-tower``,
            ``noble-on-bridge``, ``level`` (on a level plate), ``figure-point``, ``supply`` (Tohuwabohu: a piece in
            play back where the set-up laid it, beside the area).
        on: what it rests on: piece ids, ``board`` or ``table``.
    """

    piece: str
    pose: tuple[float, ...]
    rule: str
    on: tuple[str, ...] = ()

    def action(self) -> dict:
        """The one game interface's action that makes it: ``{"action": "place", "piece", "pose"}``."""
        return {"action": "place", "piece": self.piece, "pose": list(self.pose)}


def table_refusal(obstacles: Obstacles, piece: Piece, pose) -> Refused | None:
    """Why ``piece`` cannot be set down at ``pose`` on the table, or None: it would be inside another solid
    (``overlap``) or rest on nothing (``support``: set down in the air, it would fall).

    Args:
        obstacles: the table's solids without the piece (:class:`sim.scene.overlap.Obstacles`).
        piece: the piece.
        pose: (7,) where it is set down.
    """
    clash, supported = obstacles.probe(piece, pose)
    if clash is not None:
        where = f"the {clash.a}" if clash.a in (BOARD, TABLE) else clash.a
        return Refused("overlap", f"{piece.id} would be {clash.depth * 1000:.1f} mm inside {where}")
    if not supported:
        return Refused("support", f"{piece.id} would rest on nothing there (set down in the air, it falls)")
    return None


def yawed(quat, yaw_deg: float) -> tuple[float, ...]:
    """``quat`` (xyzw) turned by ``yaw_deg`` about the vertical."""
    from scipy.spatial.transform import Rotation

    turned = Rotation.from_euler("z", yaw_deg, degrees=True) * Rotation.from_quat(quat)
    return tuple(float(q) for q in turned.as_quat())


def resting_pose(piece: Piece, quat, xy, z: float) -> tuple[float, ...]:
    """(7,) ``piece`` turned by ``quat``, the centre of its outline seen from above over ``xy``, its lowest point
    at height ``z`` (m)."""
    world = transform_points(piece.shape.vertices, (0.0, 0.0, 0.0), quat)
    centre = MultiPoint(world[:, :2]).convex_hull.centroid
    return (float(xy[0] - centre.x), float(xy[1] - centre.y), float(z - world[:, 2].min()), *map(float, quat))


def outline(piece: Piece, pose) -> Polygon:
    """``piece`` at ``pose`` seen from above (m)."""
    world = transform_points(piece.shape.vertices, pose[:3], pose[3:])
    return MultiPoint(world[:, :2]).convex_hull


@dataclass(frozen=True)
class Top:
    """An upward face free to build on: a piece's top, the board's, the table's.

    Attributes:
        on: what it belongs to: a piece id, ``board`` or ``table``.
        z: its height (m).
        shape: its outline seen from above, less what stands on it (m).
    """

    on: str
    z: float
    shape: Polygon


def piece_tops(piece: Piece) -> list[Top]:
    """The upward faces of ``piece``'s convex parts at their poses that nothing of the piece covers."""
    from sim.contact import part_faces
    from sim.geometry.transforms import quat_to_matrix

    rot = quat_to_matrix(piece.quat)
    pos = np.asarray(piece.pos, dtype=float)
    out = []
    for part in piece.shape.parts:
        faces = part_faces(part)
        for polygon, normal in zip(faces.polygons, faces.normals):
            n = rot @ np.asarray(normal, dtype=float)
            if n[2] < UP:
                continue
            world = np.asarray(polygon, dtype=float) @ rot.T + pos
            shape = Polygon(world[:, :2])
            if shape.area > 0:
                out.append(Top(piece.id, float(world[:, 2].mean()), shape))
    return out


def spread(shape: Polygon, step: float, most: int) -> list[tuple[float, float]]:
    """Up to ``most`` points spread over the whole of ``shape``: its centre first, then the points of a square
    lattice through the centre inside the shape, the nearest the centre first. The lattice's spacing is ``step``
    (m) or, where that gives more points, the coarsest whole multiple of ``step`` that still gives enough."""
    import shapely

    if shape.is_empty or most < 1:
        return []
    c = shape.representative_point() if not shape.contains(shape.centroid) else shape.centroid
    if most == 1:
        return [(float(c.x), float(c.y))]
    lo_x, lo_y, hi_x, hi_y = shape.bounds

    def lattice(at: float) -> list[tuple[float, float]]:
        xs = np.arange(np.floor((lo_x - c.x) / at), np.ceil((hi_x - c.x) / at) + 1) * at + c.x
        ys = np.arange(np.floor((lo_y - c.y) / at), np.ceil((hi_y - c.y) / at) + 1) * at + c.y
        x, y = (v.ravel() for v in np.meshgrid(xs, ys, indexing="ij"))
        keep = shapely.contains_xy(shape, x, y) & ((x != c.x) | (y != c.y))
        return [(float(a), float(b)) for a, b in zip(x[keep], y[keep])]

    grid = lattice(step)
    k = 1
    while len(grid) > most - 1:  # coarser while enough points remain
        coarser = lattice(step * (k + 1))
        if len(coarser) < most - 1:
            break
        grid, k = coarser, k + 1
    grid.sort(key=lambda p: ((p[0] - c.x) ** 2 + (p[1] - c.y) ** 2, p))
    return [(float(c.x), float(c.y))] + grid[:max(0, most - 1)]


STANDS_ON = 0.002
"""A piece whose lowest point lies within this (m) of a top's height stands on that top."""


def free_tops(tops, pieces, clearance: float) -> list[Top]:
    """``tops`` less what stands on them: the outlines, grown by ``clearance`` (m), of the ``pieces`` whose
    lowest point lies on a top's height (within :data:`STANDS_ON`). With ``clearance`` half the smaller side of
    a piece to set down, no point cut away is a place for that piece's middle (it would be inside what stands
    there); tops left with nothing are dropped."""
    from shapely.ops import unary_union

    standing = []
    for p in pieces:
        world = transform_points(p.shape.vertices, p.pos, p.quat)
        standing.append((float(world[:, 2].min()), MultiPoint(world[:, :2]).convex_hull))
    out = []
    for top in tops:
        cut = [shape for z, shape in standing if abs(z - top.z) <= STANDS_ON and shape.intersects(top.shape)]
        shape = top.shape.difference(unary_union(cut).buffer(clearance)) if cut else top.shape
        if not shape.is_empty and shape.area > 0:
            out.append(Top(top.on, top.z, shape))
    return out


def on_tops(piece: Piece, quats, tops, obstacles: Obstacles, rule_of, step: float, most: int) -> list[Placement]:
    """``piece`` resting on each of ``tops`` in each orientation of ``quats``, at up to ``most`` points spread over
    the part of the top its outline's centre may stand on, every one free (:func:`table_refusal`).

    Args:
        piece: the piece.
        quats: the orientations (xyzw) to try.
        tops: the :class:`Top` s to set it on.
        obstacles: the table's solids without the piece.
        rule_of: ``rule_of(top) -> str``: the rule that allows a placement on that top.
        step: spacing (m) of the points tried on a top.
        most: points tried per top and orientation.
    """
    out = []
    for top in tops:
        for quat in quats:
            for xy in spread(top.shape, step, most):
                pose = resting_pose(piece, quat, xy, top.z)
                if table_refusal(obstacles, piece, pose) is None:
                    out.append(Placement(piece.id, pose, rule_of(top), (top.on,)))
    return out


def turned(quat, yaws_deg) -> list[tuple[float, ...]]:
    """``quat`` (xyzw) turned to each of ``yaws_deg`` about the vertical."""
    return [yawed(quat, y) for y in yaws_deg]


def lying(rot_deg=(0.0, 0.0, 0.0)) -> tuple[float, ...]:
    """The quaternion (xyzw) of Euler angles ``rot_deg`` (fixed X, Y, Z)."""
    return tuple(float(q) for q in euler_to_quat(rot_deg))


__all__ = ["Placement", "STANDS_ON", "Top", "free_tops", "on_tops", "outline", "piece_tops", "resting_pose",
           "spread", "table_refusal", "turned", "yawed"]
