"""Convex parts as Bullet holds them, and parts cut so that Bullet holds every face where it is.

Bullet builds every convex hull with ``btConvexHullComputer``, which rounds
the points onto an integer grid of :data:`QUANTA` steps across each axis of
their extent, towards the grid's centre, and keeps the rounded points (in
``btConvexHullShape::optimizeConvexHull`` and ``initializePolyhedralFeatures``;
pybullet reads an OBJ file's coordinates as 32-bit floats first, and a URDF
body's hulls are rounded twice). A point that is not at either end of an
axis moves by up to 1/10216 of the part's extent along it: 18 µm on a 180 mm
voussoir, 60-120 µm out of the planes of the faces of compas_cra's vault,
whose blocks then meet their neighbours apart and tilted. Even a point at an
end moves by a whole step when the grid's floating-point arithmetic lands just
short of it (a 140 × 20 × 20 mm box is 27 µm short in Bullet).

So the world gives Bullet what it can hold:

* :func:`bullet_points` replays that rounding (the same floating-point
  operations), so that a part's error is known before it is loaded (the tests
  compare it with the points pybullet reports);
* :func:`tuned_scale` moves each axis's mesh scale by a few units in the last
  place, so that the coordinates at the ends of every axis land exactly on the
  grid's ends: a box (every coordinate at an end) is then exact;
* :func:`face_pyramids` cuts any other part into pyramids from an inner
  point, one for each face (larger faces than quadrilaterals cut into
  quadrilaterals, so that Bullet's separating-axis contacts apply), each in a
  frame of its own whose z axis is its face's outward normal. The face is then
  the far end of that axis and lies exactly in its plane; the rounding moves
  its corners only within the plane, and each face is first inset by twice the
  in-plane step so that none moves past its edges. The pyramids' other faces
  lie inside the piece, where nothing touches them.

Pure numpy; lengths in Bullet's units (millimetres in the tuned world).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation

from sim.physics.hulls import remember

QUANTA = 10216.0
"""``btConvexHullComputer``'s grid: steps across the extent of a hull's points along each axis."""

EXACT = 1e-6
"""Bullet units (1 nm in millimetres): a part whose faces Bullet moves out of their planes by at most this is
loaded whole."""

NUDGES = 64
"""Units in the last place an axis's scale may move before it is given up (it lands in a few)."""


def bullet_points(points: np.ndarray, scale=(1.0, 1.0, 1.0), passes: int = 1) -> np.ndarray:
    """The hull points Bullet keeps of ``points`` written to an OBJ file and loaded with a mesh scale.

    Args:
        points: (k, 3) coordinates as written (Bullet units).
        scale: (3,) the mesh scale pybullet multiplies them by before building the hull.
        passes: times the hull is computed (2 for a URDF body's collision meshes).

    Returns:
        (k, 3) the points on Bullet's grid (float64), in the same order.
    """
    p = np.asarray(points, dtype=np.float64).astype(np.float32).astype(np.float64) * np.asarray(scale, dtype=float)
    for _ in range(passes):
        lo, hi = p.min(axis=0), p.max(axis=0)
        step = (hi - lo) / QUANTA
        inverse = np.divide(1.0, step, out=np.zeros(3), where=step != 0)
        centre = (lo + hi) * 0.5
        p = np.trunc((p - centre) * inverse) * step + centre
    return p


_STEPS = np.array([0] + [k * sign for k in range(1, NUDGES // 2 + 1) for sign in (1, -1)][:NUDGES - 1])
"""0, +1, -1, +2, -2 ... units in the last place."""


def _nudges(value: float) -> np.ndarray:
    """(NUDGES,) ``value`` moved by 0, +1, -1, +2, -2 ... units in the last place (neighbours of a positive float
    are its bit pattern's neighbours)."""
    if value > 0 and np.isfinite(value):
        return (np.array(value, dtype=np.float64).view(np.int64) + _STEPS).view(np.float64)
    out = []
    for k in _STEPS:
        x = value
        for _ in range(abs(int(k))):
            x = np.nextafter(x, np.inf if k > 0 else -np.inf)
        out.append(x)
    return np.array(out)


def _round_rows(p: np.ndarray, passes: int) -> np.ndarray:
    """Bullet's rounding of coordinates along one axis, each row (..., k) a hull's (the operations of
    :func:`bullet_points`, axis by axis: they are independent)."""
    for _ in range(passes):
        lo, hi = p.min(axis=-1, keepdims=True), p.max(axis=-1, keepdims=True)
        step = (hi - lo) / QUANTA
        inverse = np.divide(1.0, step, out=np.zeros_like(step), where=step != 0)
        centre = (lo + hi) * 0.5
        p = np.trunc((p - centre) * inverse) * step + centre
    return p


_TUNED: dict = {}
"""(points as pybullet reads them, wanted scale, passes) -> the tuned scale: a pyramid's scale is tuned once while
its corners are held (:func:`_held_corners`) and once more when it is loaded (``sim.physics.children.scale_of``)."""


def tuned_scale(points: np.ndarray, scale=(1.0, 1.0, 1.0), passes: int = 1) -> np.ndarray:
    """``scale`` moved by a few units in the last place on each axis, so that the coordinates of ``points`` at the
    ends of every axis land on the ends of Bullet's grid (those inside its range are left to the grid).

    Args:
        points: (k, 3) coordinates as written (Bullet units).
        scale: (3,) the mesh scale wanted.
        passes: as for :func:`bullet_points`.

    Returns:
        (3,) the scale to load them with (the wanted one where no nearby scale does).
    """
    read = np.asarray(points, dtype=np.float64).astype(np.float32).astype(np.float64)  # as pybullet reads them
    out = np.asarray(scale, dtype=float).copy()
    key = (read.tobytes(), read.shape, out.tobytes(), passes)
    hit = _TUNED.get(key)
    if hit is None:
        hit = remember(_TUNED, key, _tuned(read, out, passes))
    return hit.copy()


def _tuned(read: np.ndarray, out: np.ndarray, passes: int) -> np.ndarray:
    """:func:`tuned_scale` of points as pybullet reads them (``out``: the wanted scale, changed in place)."""
    trials = np.array([_nudges(float(x)) for x in out])  # (3, NUDGES): every nudge of every axis
    for tried in (3, NUDGES):  # the nearest three first: most land there
        held = _ends_held(read, trials[:, :tried], passes)
        if held.any(axis=1).all() or tried == NUDGES:
            break
    for axis in range(3):  # the first nudge that holds both ends, else the scale wanted
        if held[axis].any():
            out[axis] = trials[axis, int(np.argmax(held[axis]))]
    return out


def _ends_held(read: np.ndarray, trials: np.ndarray, passes: int = 1) -> np.ndarray:
    """(..., 3, t) bool: whether each trial scale (3, t) keeps the coordinates of ``read`` (..., k, 3) at both ends
    of its axis where they are (to 1e-12 of the extent)."""
    want = trials[:, :, None] * np.swapaxes(read, -1, -2)[..., :, None, :]  # (..., 3, t, k)
    got = _round_rows(want, passes)
    ends = (want == want.max(axis=-1, keepdims=True)) | (want == want.min(axis=-1, keepdims=True))
    error = np.where(ends, np.abs(got - want), 0.0).max(axis=-1)
    return error <= 1e-12 * np.maximum(np.ptp(want, axis=-1), 1e-300)


def face_error(points: np.ndarray, faces, scale=(1.0, 1.0, 1.0), passes: int = 1) -> float:
    """How far Bullet's grid moves a part's points out of the planes of their faces (Bullet units), against the
    points as pybullet reads them (32-bit floats: 25 nm on a coordinate of 400 mm).

    Args:
        points: (k, 3) the part's hull points as written.
        faces: (normal (3,), indices of the points on that face) per face, in the written frame.
        scale: (3,) the mesh scale.
        passes: as for :func:`bullet_points`.
    """
    s = np.asarray(scale, dtype=float)
    written = np.asarray(points, dtype=np.float64).astype(np.float32).astype(np.float64)  # as pybullet reads them
    moved = bullet_points(points, s, passes) - written * s
    return max((float(np.abs(moved[on] @ n).max()) for n, on in faces if len(on)), default=0.0)


@dataclass(frozen=True)
class Pyramid:
    """One pyramid of a part cut by :func:`face_pyramids`.

    Attributes:
        vertices: (k + 1, 3) its face's corners then its apex, in its own frame (Bullet units, float32 values):
            the face at z = +h/2, the apex at z = -h/2.
        position: (3,) its frame's origin in the part's frame (Bullet units).
        quat: (4,) its frame's orientation in the part's frame, xyzw.
    """

    vertices: np.ndarray
    position: np.ndarray
    quat: np.ndarray

    @property
    def faces(self) -> np.ndarray:
        """(2k - 2, 3) int triangles of its hull, outward: its face fanned from corner 0, and a side from each of
        its edges to the apex (so no hull need be computed for it)."""
        k = len(self.vertices) - 1
        fan = [(0, i, i + 1) for i in range(1, k - 1)]  # counter-clockwise about +z, the face's outward normal
        sides = [((i + 1) % k, i, k) for i in range(k)]
        return np.array(fan + sides, dtype=np.int64)


def face_frame(normal: np.ndarray, along: np.ndarray) -> np.ndarray:
    """(3, 3) rotation with columns (u, v, normal): u is ``along`` made perpendicular to the (unit) normal."""
    n = np.asarray(normal, dtype=float)
    u = np.asarray(along, dtype=float) - float(np.dot(along, n)) * n
    if np.linalg.norm(u) < 1e-12:
        u = np.eye(3)[int(np.argmin(np.abs(n)))]
        u = u - float(np.dot(u, n)) * n
    u = u / np.linalg.norm(u)
    a, b = n.tolist(), u.tolist()  # n × u with np.cross's operations, without its overhead
    v = (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
    return np.ascontiguousarray(np.array([b, v, a]).T)


def quads(k: int) -> list[list[int]]:
    """A convex polygon of ``k`` corners cut into quadrilaterals from its corner 0 (the last a triangle when k is
    odd): the corner indices of each."""
    if k <= 4:
        return [list(range(k))]
    return [[0, i, i + 1] + ([i + 2] if i + 2 < k else []) for i in range(1, k - 1, 2)]


def inset(polygon: np.ndarray, by: float) -> np.ndarray | None:
    """A convex counter-clockwise polygon (k, 2) with every edge moved ``by`` inwards (the intersection of the
    moved edges' half-planes: an acute corner goes in far, and a sliver vanishes); None when less than a
    triangle is left."""
    from shapely.geometry import Polygon

    shrunk = Polygon(polygon).buffer(-by, join_style="mitre")
    if shrunk.is_empty or shrunk.geom_type != "Polygon" or shrunk.area <= 0:
        return None
    ring = shrunk.exterior
    corners = np.asarray(ring.coords)[:-1]
    if ring.is_ccw is False:
        corners = corners[::-1]
    return corners if len(corners) >= 3 else None


def face_pyramids(polygons, normals, inner: np.ndarray, shrink: float = 0.0, gap: float = 0.0) -> list[Pyramid]:
    """A convex part cut into pyramids that Bullet holds with every face in its plane (the module docstring).

    Args:
        polygons: the part's faces, each (k, 3) corners counter-clockwise about its outward normal (Bullet units,
            the part's frame).
        normals: (f, 3) their outward unit normals.
        inner: (3,) a point inside the part: every pyramid's apex.
        shrink: relative narrowing of each face within its plane, about its middle (the world's ``shrink``, so
            that two bodies' equal faces never share their edges).

    Returns:
        The pyramids, to be loaded with a scale of 1 tuned by :func:`tuned_scale`: the part, less (where Bullet
        would round a corner past its face's edges) a strip along those edges of up to twice Bullet's step in
        the face's plane (1/5108 of the face's extent).
    """
    inner = np.asarray(inner, dtype=float)
    cut = []  # (rotation, middle, height, face, whole) of every pyramid with a face left
    for polygon, normal in zip(polygons, normals):
        polygon = np.asarray(polygon, dtype=float)
        for corners in quads(len(polygon)):
            one = _face_of(polygon[corners], np.asarray(normal, dtype=float), inner, shrink, gap)
            if one is not None:
                cut.append(one)
    held = _held_corners([(face, whole, -middle, height / 2) for _, middle, height, face, whole in cut])
    made = []
    for (rot, middle, height, _, _), corners in zip(cut, held):
        if corners is None:
            continue
        pts = np.vstack([np.column_stack([corners, np.full(len(corners), height / 2)]),
                         [-middle[0], -middle[1], -height / 2]]).astype(np.float32).astype(np.float64)
        origin = inner + rot @ np.array([middle[0], middle[1], height - float(pts[0, 2])])
        made.append((pts, origin, rot))
    if not made:
        return []
    quats = Rotation.from_matrix(np.array([rot for _, _, rot in made])).as_quat()  # one call: each row as alone
    return [Pyramid(pts, origin, quat) for (pts, origin, _), quat in zip(made, quats)]


def _face_of(base: np.ndarray, normal: np.ndarray, inner: np.ndarray, shrink: float, gap: float):
    """The frame of the pyramid from ``inner`` to the face ``base`` (k, 3): its z axis ``normal``, its x axis along
    the face's longest edge (a rectangle's corners are then all at the ends of x and y); as (rotation (3, 3), the
    face's middle (2,) and height above the apex in it, the face narrowed and inset (k', 2) about its middle,
    the face narrowed only (k, 2)), or None for a face with nothing left."""
    edges = np.roll(base, -1, axis=0) - base
    longest = int(np.argmax(np.linalg.norm(edges, axis=1)))
    rot = face_frame(normal, edges[longest])
    flat = (base - inner) @ rot  # (u, v, height above the apex) of each corner
    height = float(flat[:, 2].mean())
    if not height > 0:
        return None
    middle = (flat[:, :2].min(axis=0) + flat[:, :2].max(axis=0)) / 2
    whole = (flat[:, :2] - middle) * (1.0 - shrink)
    face = inset(whole, gap) if gap > 0 else whole
    if face is None:
        return None
    return rot, middle, height, face, whole


def _held_corners(faces: list) -> list:
    """For each (face (k, 2), whole (k', 2), apex (2,), half height) of a pyramid: the face's corners, those that
    Bullet would round past the whole face's edges pulled in until it does not (the face's in-plane step at a
    time, at most ``NUDGES`` rounds), or an inset of twice the step when that does not settle; None when the face
    is too small to inset. Faces of as many corners are held together, every round an array operation over
    those not yet held (the same floats as one at a time: tests/test_physics_children.py); the scale each is
    then loaded with is remembered for :func:`tuned_scale`."""
    out: list = [None] * len(faces)
    groups: dict[tuple[int, int], list[int]] = {}
    for i, (face, whole, _, _) in enumerate(faces):
        groups.setdefault((len(face), len(whole)), []).append(i)
    for idx in groups.values():
        face = np.array([faces[i][0] for i in idx], dtype=float)
        whole = np.array([faces[i][1] for i in idx], dtype=float)
        apex = np.array([faces[i][2] for i in idx], dtype=float)
        half = np.array([faces[i][3] for i in idx], dtype=float)
        step = np.ptp(np.concatenate([face, apex[:, None, :]], axis=1), axis=1).max(axis=1) / QUANTA
        centre = face.mean(axis=1)
        corners = face.copy()
        left = np.ones(len(idx), dtype=bool)
        for _ in range(NUDGES):
            k = np.flatnonzero(left)
            if not len(k):
                break
            rounded, read, scales = _rounded(corners[k], apex[k], half[k])
            outside = _outside(rounded, whole[k])
            held = ~outside.any(axis=1)
            for j in np.flatnonzero(held):
                remember(_TUNED, (read[j].tobytes(), read[j].shape, np.ones(3).tobytes(), 1), scales[j])
                out[idx[k[j]]] = corners[k[j]]
            left[k[held]] = False
            move, o = k[~held], outside[~held]
            c = corners[move]
            towards = (centre[move][:, None, :] - c)[o]
            c[o] += towards / np.linalg.norm(towards, axis=1, keepdims=True) * np.broadcast_to(step[move][:, None],
                                                                                              o.shape)[o][:, None]
            corners[move] = c
        for j in np.flatnonzero(left):  # not settled: an inset of twice the step
            fallback = inset(face[j], 2.0 * step[j])
            if fallback is not None and not _outside(_rounded(fallback[None], apex[j:j + 1], half[j:j + 1])[0],
                                                     whole[j:j + 1]).any():
                out[idx[j]] = fallback
    return out


def _rounded(corners: np.ndarray, apex: np.ndarray, half: np.ndarray):
    """Pyramids of faces ``corners`` (n, k, 2) at heights ``half`` (n,) and apices ``apex`` (n, 2) at ``-half``, as
    Bullet rounds them with their tuned scales: their faces' corners (n, k, 2) in the faces' planes, their points
    as pybullet reads them (n, k + 1, 3) and the scales (n, 3) (:func:`tuned_scale` and :func:`bullet_points`,
    their operations over the first axis)."""
    n, k = corners.shape[:2]
    pts = np.concatenate([np.concatenate([corners, np.broadcast_to(half[:, None, None], (n, k, 1))], axis=2),
                          np.column_stack([apex, -half])[:, None, :]], axis=1)
    read = pts.astype(np.float32).astype(np.float64)
    trials = np.array([_nudges(1.0)] * 3)  # (3, NUDGES): a pyramid is loaded with a scale of 1
    held = _ends_held(read, trials[:, :3])  # the nearest three first: most land there
    more = ~held.any(axis=2).all(axis=1)
    held = np.concatenate([held, np.zeros((n, 3, NUDGES - 3), dtype=bool)], axis=2)
    if more.any():
        held[more] = _ends_held(read[more], trials)
    first = np.argmax(held, axis=2)  # (n, 3): the first nudge that holds both ends, else the scale wanted
    scales = np.where(held.any(axis=2), trials[np.arange(3)[None, :], first], 1.0)
    p = read * scales[:, None, :]
    lo, hi = p.min(axis=1, keepdims=True), p.max(axis=1, keepdims=True)
    step = (hi - lo) / QUANTA
    inverse = np.divide(1.0, step, out=np.zeros_like(step), where=step != 0)
    middle = (lo + hi) * 0.5
    p = np.trunc((p - middle) * inverse) * step + middle
    return p[:, :-1, :2], read, scales


def _outside(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """(..., m) bool: which points (..., m, 2) lie outside the convex counter-clockwise polygon (..., k, 2) by more
    than 1e-9 of its extent (on its edges counts as in)."""
    edges = np.roll(polygon, -1, axis=-2) - polygon
    rel = points[..., :, None, :] - polygon[..., None, :, :]
    cross = ((edges[..., None, :, 0] * rel[..., 1] - edges[..., None, :, 1] * rel[..., 0])
             / np.linalg.norm(edges, axis=-1)[..., None, :])
    return (cross < -1e-9 * np.ptp(polygon, axis=-2).max(axis=-1)[..., None, None]).any(axis=-1)
