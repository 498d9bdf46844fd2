"""Placement noise as a person's hand makes it: each piece shifted and turned, set down against what is there (pure).

A piece is turned about the vertical through its frame's origin (the centre
of its bounding box) and, with a tilt, about the horizontal axes through it,
then shifted. Pieces cannot pass into each other: they are set down one by
one, from the lowest up (scene order among equals), and a piece that would
pass into one already down (or into a fixed piece) deeper than
:data:`PUSH_DEPTH` is pushed out of it by the shortest horizontal
translation (set flush against its neighbour, as a hand would), or, when it
lies on it, by the shortest lift (a tilted piece resting on an edge of its
support). Without a tilt the pieces keep their heights, so the faces they
rest on stay level and the statics judge the noisy scene exactly.

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

MAX_PUSHES = 12
"""Pushes tried per piece before it is left where it is (a piece wedged between two that
came closer than its width: the physics world then reports the overlap)."""

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
    rot = Rotation.from_rotvec(turn) * Rotation.from_quat(poses[rows, 3:])
    poses[rows, :3] += shift
    poses[rows, 3:] = rot.as_quat()
    return poses


def set_down(scene: Scene, poses: np.ndarray, *, lift: bool = False) -> tuple[np.ndarray, float]:
    """Set the pieces down one by one, pushing each out of the pieces already down.

    Args:
        scene: the scene (its pieces and which are fixed; its poses are not used).
        poses: (n, 7) the poses to start from, scene order.
        lift: a piece lying on another may be lifted out of it (tilted pieces); without,
            only horizontal pushes are made and every height stays.

    Returns:
        (n, 7) the poses set apart, and the deepest overlap left (m; 0 when all were resolved).
    """
    poses = np.array(poses, dtype=float)
    parts = [[p.vertices for p in piece.shape.parts] for piece in scene.pieces]
    down: list[np.ndarray] = []  # vertices of every part set down, world frame
    boxes: list[np.ndarray] = []  # their (2, 3) bounding boxes

    def place(k: int) -> list[np.ndarray]:
        return [transform_points(v, poses[k, :3], poses[k, 3:]) for v in parts[k]]

    bottoms = [min(w[:, 2].min() for w in place(k)) for k in range(len(scene.pieces))]
    order = sorted(range(len(scene.pieces)), key=lambda k: (not scene.pieces[k].fixed, bottoms[k], k))
    worst = 0.0
    for k in order:
        piece_parts = place(k)
        if not scene.pieces[k].fixed:
            for _ in range(MAX_PUSHES):
                push = _deepest_push(piece_parts, down, boxes, lift)
                if push is None:
                    break
                poses[k, :3] += push
                piece_parts = [w + push for w in piece_parts]
            else:
                worst = max(worst, _deepest(piece_parts, down, boxes))
        for w in piece_parts:
            down.append(w)
            boxes.append(np.array([w.min(axis=0), w.max(axis=0)]))
    return poses, worst


def _candidates(piece_parts, boxes) -> list[tuple[int, int]]:
    """(part of the piece, part set down) pairs whose bounding boxes overlap deeper than PUSH_DEPTH on every axis."""
    if not boxes:
        return []
    lo = np.array([b[0] for b in boxes])
    hi = np.array([b[1] for b in boxes])
    pairs = []
    for i, w in enumerate(piece_parts):
        a_lo, a_hi = w.min(axis=0), w.max(axis=0)
        depth = np.minimum(a_hi, hi) - np.maximum(a_lo, lo)
        pairs += [(i, int(j)) for j in np.flatnonzero((depth > PUSH_DEPTH).all(axis=1))]
    return pairs


def _facets(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The facets n·x ≤ d (unit n) of the Minkowski difference b ⊖ a, or None when it is flat."""
    points = (b[None, :, :] - a[:, None, :]).reshape(-1, 3)
    try:
        hull = ConvexHull(points)
    except (QhullError, ValueError):
        return None
    return hull.equations[:, :3], -hull.equations[:, 3]


def _way_out(normals: np.ndarray, offsets: np.ndarray, lift: bool) -> tuple[float, np.ndarray]:
    """How deep the origin lies inside the difference (m), and the shortest translation that takes it out:
    horizontal, or a lift when allowed and the shortest way out is within 45° of vertical."""
    depth = float(offsets.min())
    if lift and normals[int(np.argmin(offsets)), 2] >= LIFT_COS:
        up = normals[:, 2] > 1e-9
        return depth, np.array([0.0, 0.0, float((offsets[up] / normals[up, 2]).min())])
    across = np.hypot(normals[:, 0], normals[:, 1])
    side = across > 1e-9
    reach = offsets[side] / across[side]
    j = int(np.argmin(reach))
    direction = normals[side][j, :2] / across[side][j]
    return depth, np.array([direction[0] * reach[j], direction[1] * reach[j], 0.0])


def _deepest_push(piece_parts, down, boxes, lift: bool) -> np.ndarray | None:
    """The way out of the deepest overlap of the piece with the parts set down, or None when none is deeper
    than PUSH_DEPTH."""
    best, push = PUSH_DEPTH, None
    for i, j in _candidates(piece_parts, boxes):
        facets = _facets(piece_parts[i], down[j])
        if facets is None or facets[1].min() <= PUSH_DEPTH:
            continue
        depth, out = _way_out(*facets, lift)
        if depth > best:
            best, push = depth, out
    return push


def _deepest(piece_parts, down, boxes) -> float:
    """The deepest overlap (m) of the piece with the parts set down."""
    worst = 0.0
    for i, j in _candidates(piece_parts, boxes):
        facets = _facets(piece_parts[i], down[j])
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
