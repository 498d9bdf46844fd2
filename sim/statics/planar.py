"""Support functions of planar point sets: the direction in which their convex hull lies nearest the origin."""

from __future__ import annotations

import math

import numpy as np
import shapely

from sim.tol import tol


def lowest_bound(points: np.ndarray) -> tuple[float, float]:
    """Minimise ``max_i points[i] · d(θ)`` over θ: (θ, value).

    The maximum of the sinusoids is lowest either where two of them cross
    (d perpendicular to the difference of two points) or at the bottom of one
    (d opposite a point); every such angle is a candidate.
    """
    angles = directions(np.vstack([crossing_normals(points), -points]))
    if len(angles) == 0:  # every maximiser is α = 0: h is 0 in every direction evaluated
        return 0.0, 0.0
    bound = support_along(angles, points)
    k = int(np.argmin(bound))
    return float(angles[k]), float(bound[k])


def lowest_directions(points: np.ndarray, count: int, taken=(), apart: float = 0.02,
                      below: float = math.inf) -> list[float]:
    """Up to ``count`` directions (rad) where :func:`lowest_bound`'s function has its lowest local minima.

    The candidates are :func:`lowest_bound`'s (crossings and bottoms of the sinusoids) where the
    bound lies under ``below`` (the rest need no evaluation); the lowest first, then each next
    lowest more than ``apart`` (rad) from every one chosen, and not a direction in ``taken``
    (evaluated already: the bound there is exact; ``tol.direction_apart``). A candidate close to
    an evaluated direction is not: where the set of withstood accelerations is a thin sliver (an
    arch, strong across its plane and weak along it), the support function rises eightfold within
    a degree of the weakest direction, and a search that passed over the minimum a degree off an
    evaluated direction stopped with the margin eight times too large and its lower bound at 0.
    """
    angles = directions(np.vstack([crossing_normals(points), -points]))
    if len(angles) == 0 or count <= 0:
        return []
    bound = support_along(angles, points)
    out: list[float] = []
    for k in np.argsort(bound, kind="stable"):
        if not bound[k] < below:
            break
        a = float(angles[k])
        if all(abs(math.remainder(a - b, 2.0 * math.pi)) > apart for b in out) and \
                all(abs(math.remainder(a - b, 2.0 * math.pi)) > tol.direction_apart for b in taken):
            out.append(a)
            if len(out) == count:
                break
    return out


def crossing_normals(points: np.ndarray) -> np.ndarray:
    """(2q, 2) both normals of the line through every pair of points (k, 2): where two sinusoids cross."""
    i, j = np.triu_indices(len(points), 1)
    diff = points[i] - points[j]
    perp = np.column_stack([-diff[:, 1], diff[:, 0]])
    return np.vstack([perp, -perp])


def directions(vectors: np.ndarray) -> np.ndarray:
    """The directions (rad) of the non-zero vectors (q, 2)."""
    vectors = vectors[np.linalg.norm(vectors, axis=1) > 0]
    return np.arctan2(vectors[:, 1], vectors[:, 0])


def support_along(angles: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(q,) the support of the points (k, 2) along each direction (rad)."""
    return (np.column_stack([np.cos(angles), np.sin(angles)]) @ points.T).max(axis=1)


def hull_edges(points: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The edges of the convex hull of each group of points, all groups at once.

    Where the origin lies inside a group's hull, the least distance over its
    edges is :func:`lowest_bound`'s value, found through the hull's edges alone.

    Args:
        points: (k, 2).
        group: (k,) each point's group, ascending from 0, none empty.

    Returns:
        (e,) each edge's group, its outward normal (rad, in [0, 2π)) and its signed distance from
        the origin (negative where the origin lies outside). A group whose hull has no area
        (points on a line) has no edges.
    """
    hulls = shapely.convex_hull(shapely.multipoints(points, indices=group))
    poly = np.flatnonzero(shapely.get_type_id(hulls) == shapely.GeometryType.POLYGON)
    if len(poly) == 0:
        return np.zeros(0, dtype=int), np.zeros(0), np.zeros(0)
    ring, which = shapely.get_coordinates(shapely.get_exterior_ring(hulls[poly]), return_index=True)
    starts = np.flatnonzero(which[1:] == which[:-1])  # edge i runs from point i to i + 1 of the same ring
    start, end = ring[starts], ring[starts + 1]
    owner = which[starts]
    d = end - start
    area = np.zeros(len(poly))
    np.add.at(area, owner, start[:, 0] * end[:, 1] - end[:, 0] * start[:, 1])
    sign = np.where(area[owner] > 0.0, 1.0, -1.0)  # counter-clockwise rings have their outside on the right
    normal = sign[:, None] * np.column_stack([d[:, 1], -d[:, 0]]) / np.linalg.norm(d, axis=1)[:, None]
    angle = np.arctan2(normal[:, 1], normal[:, 0]) % (2.0 * np.pi)
    return poly[owner], angle, np.einsum("ij,ij->i", start, normal)

