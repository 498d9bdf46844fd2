"""Carrying a piece: its footprint, where it would land, how high to carry it, and its turns.

Pure geometry on numpy arrays; the only outside help is a ray function
(``rays(starts, ends) -> [Hit | None]``, the live world's ray test of many segments at once), so that the
landing is found on the very collision shapes the simulation uses.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection
from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation

from sim.geometry.transforms import canonical_quat, quat_to_matrix, rotate

CLEARANCE = 0.015
"""How far (m) a carried piece floats above whatever lies under it (auto-raise)."""
SET_DOWN_GAP = 2e-4
"""The gap (m) between a piece set down by a hand and its support when the hand lets go."""
SAMPLE_SPACING = 0.008
"""Rays under a footprint are at most this far apart (m), so every 20 mm field is seen."""
MAX_SAMPLES_PER_SIDE = 9
EDGE_INSET = 5e-4
"""The outermost rays start this far (m) inside the footprint: a wall the piece only touches is not under it."""
RAY_TOP = 3.0
RAY_BOTTOM = -1.0


@dataclass(frozen=True)
class Footprint:
    """A piece at an orientation, seen from above.

    Attributes:
        bottom: its lowest point below its frame's origin (m, negative or zero).
        top: its highest point above the origin (m).
        samples: (k, 2) offsets from the origin (m, world xy) where rays look for what is under it.
        half: (2,) half extents of its outline in its heading frame (m).
        heading_deg: the heading of that frame (degrees from +x).
        outline: (4, 2) the corners of that outline, offsets from the origin (m, world xy), anticlockwise.
    """

    bottom: float
    top: float
    samples: np.ndarray
    half: np.ndarray
    heading_deg: float
    outline: np.ndarray


KEPT = 1024
"""How many answers each kept function (:func:`kept`) keeps: a carried piece asks the same few every frame."""


def kept(fn: Callable) -> Callable:
    """``fn(quat, *args)`` kept for the last :data:`KEPT` arguments asked: a pure function of a quaternion and
    numbers, asked again with the same ones frame after frame while a piece is carried. The quaternion is told
    apart by its bytes (-0.0 is not 0.0 there). What it returns must not be changed by the caller."""

    @functools.lru_cache(maxsize=KEPT)
    def by_bytes(quat: bytes, *args):
        return fn(np.frombuffer(quat).copy(), *args)

    @functools.wraps(fn)
    def wrapper(quat, *args):
        return by_bytes(np.asarray(quat, dtype=float).tobytes(), *args)

    return wrapper


@kept
def heading(quat) -> float:
    """The heading (degrees from +x) of a piece's most horizontal own axis, x before y before z."""
    m = quat_to_matrix(quat)
    flatness = np.abs(m[2, :])  # how vertical each own axis is
    axis = int(np.argmin(flatness + np.array([0.0, 1e-6, 2e-6])))
    v = m[:2, axis]
    return float(np.degrees(np.arctan2(v[1], v[0])))


def _seen_from_above(vertices: np.ndarray, quat):
    """The vertices turned by ``quat`` (k, 3), the heading, its cosine and sine, and the outline's least and
    greatest coordinates (2,) along and across the heading."""
    v = rotate(quat, vertices)
    h = heading(quat)
    c, s = np.cos(np.radians(h)), np.sin(np.radians(h))
    local = v[:, :2] @ np.array([[c, -s], [s, c]])  # coordinates along and across the heading
    return v, h, c, s, local.min(axis=0), local.max(axis=0)


def silhouette(vertices: np.ndarray, quat) -> tuple[float, np.ndarray]:
    """A piece's :class:`Footprint`'s ``bottom`` and ``outline`` alone (no rays to place: cheaper), for an
    orientation asked once (the carried piece's own, frame by frame)."""
    v, _, c, s, lo, hi = _seen_from_above(vertices, quat)
    return float(v[:, 2].min()), _corners(lo, hi, c, s)


def extent(vertices: np.ndarray, quat) -> tuple[float, float, np.ndarray]:
    """A piece's :class:`Footprint`'s ``bottom``, ``top`` and ``outline`` alone (no rays to place), for an
    orientation that changes from frame to frame (a carried piece as the other hands see it)."""
    v, _, c, s, lo, hi = _seen_from_above(vertices, quat)
    return float(v[:, 2].min()), float(v[:, 2].max()), _corners(lo, hi, c, s)


def _corners(lo: np.ndarray, hi: np.ndarray, c, s) -> np.ndarray:
    corners = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
    return corners @ np.array([[c, s], [-s, c]])


_FOOTPRINTS: dict = {}


def footprint(vertices: np.ndarray, quat) -> Footprint:
    """The footprint of a piece whose vertices (k, 3) (piece frame, m) are turned by ``quat``.

    Kept for the last :data:`KEPT` (vertices, orientation) asked (the vertices by identity): a carried piece
    asks for the same one every frame. Its arrays are read-only."""
    key = (id(vertices), np.asarray(quat, dtype=float).tobytes())
    known = _FOOTPRINTS.get(key)
    if known is not None and known[0] is vertices:
        return known[1]
    fp = _footprint(vertices, quat)
    if len(_FOOTPRINTS) >= KEPT:
        _FOOTPRINTS.pop(next(iter(_FOOTPRINTS)))  # the oldest
    _FOOTPRINTS[key] = (vertices, fp)  # the vertices kept alive: their id is not taken by another array
    return fp


def _footprint(vertices: np.ndarray, quat) -> Footprint:
    v, h, c, s, lo, hi = _seen_from_above(vertices, quat)
    axes = []
    for a, b in zip(lo + EDGE_INSET, hi - EDGE_INSET):
        n = int(np.clip(np.ceil((b - a) / SAMPLE_SPACING) + 1, 2, MAX_SAMPLES_PER_SIDE)) if b > a else 1
        axes.append(np.linspace(a, b, n) if b > a else np.array([(a + b) / 2]))
    grid = np.array([(x, y) for x in axes[0] for y in axes[1]])
    samples = grid @ np.array([[c, s], [-s, c]])
    within = inside(samples, _outline(v[:, :2]))  # a triangle's rays under the triangle, not its whole box
    if within.any():
        samples = samples[within]
    fp = Footprint(float(v[:, 2].min()), float(v[:, 2].max()), samples, (hi - lo) / 2, h, _corners(lo, hi, c, s))
    for a in (fp.samples, fp.half, fp.outline):
        a.setflags(write=False)
    return fp


def _outline(xy: np.ndarray) -> np.ndarray:
    """(m, 2) the convex outline of points (k, 2) seen from above, anticlockwise, drawn in by ``EDGE_INSET``
    (and a hair more, so that the rays along a straight side stay inside)."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        hull = xy[ConvexHull(xy).vertices]  # anticlockwise in two dimensions
    except (QhullError, ValueError):  # flat or degenerate from above: every ray counts
        return np.array([[-np.inf, -np.inf], [np.inf, -np.inf], [np.inf, np.inf], [-np.inf, np.inf]])
    centre = hull.mean(axis=0)
    d = hull - centre
    r = np.linalg.norm(d, axis=1, keepdims=True)
    return centre + d * np.maximum(r - EDGE_INSET * 0.5, 0.0) / np.maximum(r, 1e-12)


def support_height(rays: Callable, xy, samples: np.ndarray, skip: Collection[str] = (), floor: float = 0.0,
                   tops=None) -> tuple[float, list[str]]:
    """The highest surface under a footprint, and what it belongs to.

    Args:
        rays: ``rays(starts, ends)`` (k, 3) each -> for each segment a hit with ``piece`` and ``point``, or None.
        xy: (2,) where the piece's origin is (m).
        samples: (k, 2) the footprint's ray offsets.
        skip: pieces that do not count (the carried ones); rays go on through them.
        floor: the height (m) when a ray meets nothing.
        tops: (k,) where each ray starts (m); default high above everything. Rays under the carried
            piece itself start just under it, so that what it carries is not taken for what lies under it.

    Returns:
        The height (m) and the pieces (or ``board``/``table``) met at that height.
    """
    tops = np.full(len(samples), RAY_TOP) if tops is None else np.asarray(tops, dtype=float)
    starts = [[float(xy[0] + dx), float(xy[1] + dy), float(z0)] for (dx, dy), z0 in zip(samples, tops)]
    met: list = [None] * len(starts)  # (height, name or None) of each ray's first surface not skipped
    waiting = list(range(len(starts)))
    for _ in range(4):  # through at most three skipped pieces
        if not waiting:
            break
        hits = rays([starts[k] for k in waiting], [[starts[k][0], starts[k][1], RAY_BOTTOM] for k in waiting])
        going = []
        for k, hit in zip(waiting, hits):
            if hit is None:
                met[k] = (floor, None)
            elif hit.piece not in skip:
                met[k] = (float(hit.point[2]), hit.piece)
            else:
                starts[k][2] = float(hit.point[2]) - 1e-4
                going.append(k)
        waiting = going
    best, under = -np.inf, []
    for found in met:
        if found is None:
            continue
        z, name = found
        if z > best + 1e-6:
            best, under = z, ([name] if name else [])
        elif z > best - 1e-6 and name and name not in under:
            under.append(name)
    return (floor if best == -np.inf else best), under


def inside(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """(k,) whether each point (k, 2) lies inside a convex anticlockwise polygon (m, 2)."""
    edges = np.roll(polygon, -1, axis=0) - polygon
    rel = points[:, None, :] - polygon[None, :, :]
    return np.all(edges[None, :, 0] * rel[:, :, 1] - edges[None, :, 1] * rel[:, :, 0] >= 0.0, axis=1)


def turn_about_vertical(quat, degrees: float) -> np.ndarray:
    """``quat`` turned by ``degrees`` about the world's vertical."""
    return canonical_quat((Rotation.from_euler("z", degrees, degrees=True) * Rotation.from_quat(quat)).as_quat())


def tip_over(quat, axis: str = "across") -> np.ndarray:
    """``quat`` tipped over by 90° about a world horizontal axis: lying flat becomes standing on end and back.

    Args:
        quat: (4,) the orientation.
        axis: ``x`` or ``y``, or ``across``: the one of them more nearly across the piece's heading,
            so that a lying block stands up and a standing one lies down along its heading.
    """
    if axis == "across":
        h = np.radians(heading(quat))
        axis = "y" if abs(np.cos(h)) >= abs(np.sin(h)) else "x"
    if axis not in ("x", "y"):
        raise ValueError(f"tip axis must be x, y or across, got {axis!r}")
    return canonical_quat((Rotation.from_euler(axis, 90.0, degrees=True) * Rotation.from_quat(quat)).as_quat())


def flip_over(quat) -> np.ndarray:
    """``quat`` turned upside down: half a turn about the world's horizontal axis along the piece's heading, so
    that what was its top is its bottom and its outline seen from above is mirrored in place (an arch stands on
    its crown, a figure on its head)."""
    h = np.radians(heading(quat))
    axis = np.array([np.cos(h), np.sin(h), 0.0])
    return canonical_quat((Rotation.from_rotvec(np.pi * axis) * Rotation.from_quat(quat)).as_quat())


def square_up(quat) -> np.ndarray:
    """The orientation with every own axis along a world axis nearest to ``quat``: upright pieces only."""
    return _square_up(quat).copy()


@kept
def _square_up(quat) -> np.ndarray:
    m = Rotation.from_quat(quat).as_matrix()
    out = np.zeros((3, 3))
    used = set()
    for col in np.argsort(-np.abs(m).max(axis=0)):  # the best aligned axis chooses first
        order = np.argsort(-np.abs(m[:, col]))
        row = next(r for r in order if r not in used)
        used.add(row)
        out[row, col] = np.sign(m[row, col]) or 1.0
    if np.linalg.det(out) < 0:
        weakest = int(np.argmin(np.abs(m).max(axis=0)))
        out[:, weakest] = -out[:, weakest]
    return canonical_quat(Rotation.from_matrix(out).as_quat())


def snap_heading(quat, reference_deg: float = 0.0, step_deg: float = 90.0) -> np.ndarray:
    """``quat`` turned about the vertical so that its heading is ``reference_deg`` plus a multiple of ``step_deg``."""
    return _snap_heading(quat, float(reference_deg), float(step_deg)).copy()


@kept
def _snap_heading(quat, reference_deg: float, step_deg: float) -> np.ndarray:
    h = heading(quat)
    off = (h - reference_deg) % step_deg
    turn = -off if off <= step_deg / 2 else step_deg - off
    return turn_about_vertical(quat, turn)
