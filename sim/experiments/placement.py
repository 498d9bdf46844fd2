"""Placement noise as a person's hand makes it: each piece shifted and turned, set down against what is there (pure).

A piece is turned about the vertical through its frame's origin (the centre
of its bounding box) and, with a tilt, about the horizontal axes through it,
then shifted. Pieces cannot pass into each other: pieces side by side that
would pass into each other deeper than :data:`PUSH_DEPTH` are pushed apart
along the shortest horizontal way out, half each (a fixed piece does not
move), as a piece set into a gap too narrow for it pushes its neighbours
aside; a tilted piece passing into what it lies on is lifted out of it.
Without a tilt the pieces keep their heights, so the faces they rest on stay
level and the statics judge the noisy scene exactly.

The translations come from the Minkowski difference M = B ⊖ A of two convex
parts (the convex hull of every vertex of B minus every vertex of A): A moved
by t passes into B exactly when t lies inside M, so a part overlaps when the
origin does, and the shortest horizontal way out is the nearest edge of M's
slice through the origin, min over M's facets n·x ≤ d of d / |n_xy|.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import ConvexHull, QhullError
from scipy.spatial.transform import Rotation

from sim.geometry.transforms import transform_points
from sim.scene import Scene
from sim.tol import tol

PUSH_DEPTH = tol.overlap / 4
"""Two parts deeper into each other than this (m) are set apart: 50 µm, a quarter of the
overlap the physics world and the contact finder accept (``tol.overlap``), so that what is
left is accepted by both, and far above the rounding of exactly touching faces."""

ORDERED_SWEEPS = 4
"""Sweeps in which, of two movable pieces, the one set down later (higher, or later in the scene) gives way
alone: a push then runs through a row of pieces in one sweep; after them both give way, half each, which
frees a piece wedged between two that came closer than its width."""

MAX_SWEEPS = 50
"""Sweeps over the overlapping pairs before the pieces are left as they are (a row of n pieces
pressed together needs about n; what is left is reported as ``overlap_m``)."""

LIFT_COS = np.cos(np.pi / 4)
"""A way out whose direction is within 45° of vertical is a lift (the piece lies on the other)."""


def noisy_poses(scene: Scene, draws: np.ndarray, rows: list[int], sigma_m: float, sigma_rad: float,
                tilt_rad: float, axes: str) -> np.ndarray:
    """The scene's poses with placement noise applied, before the pieces are set apart.

    Args:
        scene: the scene.
        draws: (len(rows), 5) standard normals per piece: shift x, shift y, turn, tilt x, tilt y.
        rows: the pieces perturbed (indices into ``scene.pieces``).
        sigma_m: standard deviation of the shift along each axis of ``axes`` (m).
        sigma_rad: of the turn about the vertical (rad).
        tilt_rad: of the tilt about each horizontal axis (rad).
        axes: ``x``, ``y`` or ``xy``: the axes the shift acts along.

    Returns:
        (n, 7) poses, xyz (m) + quaternion xyzw, scene order.
    """
    poses = scene.poses()
    if not rows:
        return poses
    z = np.asarray(draws, dtype=float)
    shift = np.zeros((len(rows), 3))
    shift[:, 0] = z[:, 0] * sigma_m * ("x" in axes)
    shift[:, 1] = z[:, 1] * sigma_m * ("y" in axes)
    turn = np.zeros((len(rows), 3))
    turn[:, 2] = z[:, 2] * sigma_rad
    turn[:, :2] = z[:, 3:5] * tilt_rad
    poses[rows, :3] += shift
    turned = np.flatnonzero(np.any(turn != 0.0, axis=1))  # an unturned piece keeps its quaternion to the bit
    if len(turned):
        at = np.asarray(rows)[turned]
        poses[at, 3:] = (Rotation.from_rotvec(turn[turned]) * Rotation.from_quat(poses[at, 3:])).as_quat()
    return poses


def set_down(scene: Scene, poses: np.ndarray, *, lift: bool = False) -> tuple[np.ndarray, float]:
    """Push apart the pieces that pass into each other, until none does deeper than :data:`PUSH_DEPTH`.

    Sweeps over every pair of parts of different pieces whose bounding boxes overlap, in
    a fixed order (Gauss–Seidel): a pair side by side is pushed apart along the shortest
    horizontal way out, first by moving the piece set down later (:data:`ORDERED_SWEEPS`),
    then each piece half of it (a fixed piece never), as a piece set into a gap too narrow
    for it pushes its neighbours aside; with ``lift``, a piece lying on another (the
    shortest way out within 45° of vertical) is lifted out of it, the lower one left where it is.

    Args:
        scene: the scene (its pieces and which are fixed; its poses are not used).
        poses: (n, 7) the poses to start from, scene order.
        lift: pieces lying on others may be lifted (tilted pieces); without, every height stays.

    Returns:
        (n, 7) the poses set apart, and the deepest overlap left (m; 0 when all were resolved).
    """
    poses = np.array(poses, dtype=float)
    owner = [k for k, piece in enumerate(scene.pieces) for _ in piece.shape.parts]
    if not owner:
        return poses, 0.0
    owner = np.array(owner)
    world = [transform_points(part.vertices, poses[k, :3], poses[k, 3:])
             for k, piece in enumerate(scene.pieces) for part in piece.shape.parts]
    movable = np.array([not scene.pieces[k].fixed for k in owner])
    bottom = [min(w[:, 2].min() for w, o in zip(world, owner) if o == k) for k in range(len(scene.pieces))]
    rank = np.argsort(np.lexsort((np.arange(len(scene.pieces)), bottom)))  # lowest first, then scene order
    offset = np.zeros((len(scene.pieces), 3))
    for sweep in range(MAX_SWEEPS):
        moved = False
        ordered = sweep < ORDERED_SWEEPS
        for a, b in _candidates(world, owner, movable, offset):
            ka, kb = owner[a], owner[b]
            facets = _facets(world[a] + offset[ka], world[b] + offset[kb])
            if facets is None or facets[1].min() <= PUSH_DEPTH:
                continue
            out = _way_out(*facets, lift)  # moves a out of b
            if out[2] != 0.0:  # a lift: the upper piece rises
                if out[2] > 0 and movable[a]:
                    offset[ka] += out
                elif out[2] < 0 and movable[b]:
                    offset[kb] -= out
                else:
                    continue
            elif movable[a] and movable[b] and ordered:  # the piece set down later gives way
                if rank[ka] > rank[kb]:
                    offset[ka] += out
                else:
                    offset[kb] -= out
            elif movable[a] and movable[b]:
                offset[ka] += out / 2
                offset[kb] -= out / 2
            elif movable[a]:
                offset[ka] += out
            else:
                offset[kb] -= out
            moved = True
        if not moved:
            break
    poses[:, :3] += offset
    return poses, _deepest(world, owner, movable, offset)


def _candidates(world, owner, movable, offset) -> list[tuple[int, int]]:
    """Pairs (a, b), a < b, of parts of different pieces, one of them movable, whose bounding boxes overlap
    deeper than PUSH_DEPTH on every axis."""
    lo = np.array([w.min(axis=0) for w in world]) + offset[owner]
    hi = np.array([w.max(axis=0) for w in world]) + offset[owner]
    depth = np.minimum(hi[:, None, :], hi[None, :, :]) - np.maximum(lo[:, None, :], lo[None, :, :])
    near = (depth > PUSH_DEPTH).all(axis=2) & (owner[:, None] != owner[None, :])
    near &= movable[:, None] | movable[None, :]
    a, b = np.nonzero(np.triu(near, 1))
    return list(zip(a.tolist(), b.tolist()))


def _facets(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The facets n·x ≤ d (unit n) of the Minkowski difference b ⊖ a, or None when it is flat."""
    points = (b[None, :, :] - a[:, None, :]).reshape(-1, 3)
    try:
        hull = ConvexHull(points)
    except (QhullError, ValueError):
        return None
    return hull.equations[:, :3], -hull.equations[:, 3]


def _way_out(normals: np.ndarray, offsets: np.ndarray, lift: bool) -> np.ndarray:
    """The shortest translation that takes the origin out of a convex set given by its facets n·x ≤ d:
    horizontal, or a lift (vertical) when allowed and the shortest way out is within 45° of vertical."""
    nearest = int(np.argmin(offsets))
    if lift and abs(normals[nearest, 2]) >= LIFT_COS:
        up = normals[nearest, 2] > 0
        rising = normals[:, 2] > 1e-9 if up else normals[:, 2] < -1e-9
        return np.array([0.0, 0.0, float((offsets[rising] / normals[rising, 2]).min() if up
                                         else (offsets[rising] / normals[rising, 2]).max())])
    across = np.hypot(normals[:, 0], normals[:, 1])
    side = across > 1e-9
    reach = offsets[side] / across[side]
    j = int(np.argmin(reach))
    direction = normals[side][j, :2] / across[side][j]
    return np.array([direction[0] * reach[j], direction[1] * reach[j], 0.0])


def _deepest(world, owner, movable, offset) -> float:
    """The deepest overlap (m) left between two pieces."""
    worst = 0.0
    for a, b in _candidates(world, owner, movable, offset):
        facets = _facets(world[a] + offset[owner[a]], world[b] + offset[owner[b]])
        if facets is not None:
            worst = max(worst, float(facets[1].min()))
    return worst


def lift_onto_ground(scene: Scene, poses: np.ndarray) -> np.ndarray:
    """Lift every movable piece whose lowest point a tilt took below the board's top (z = 0) back onto it.

    Pieces that started lower (on the table around a board's slab) are left alone.
    """
    poses = np.array(poses, dtype=float)
    nominal = scene.poses()
    for k, piece in enumerate(scene.pieces):
        if piece.fixed:
            continue
        verts = piece.shape.vertices
        start = transform_points(verts, nominal[k, :3], nominal[k, 3:])[:, 2].min()
        low = transform_points(verts, poses[k, :3], poses[k, 3:])[:, 2].min()
        if start > -tol.coplanar and low < 0.0:
            poses[k, 2] -= low
    return poses
