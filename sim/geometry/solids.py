"""Builders of convex solids as vertex arrays, and of non-convex profiles as convex partitions.

Round outlines are tessellated so that their areas equal the exact circle or
arc areas: volumes and masses then match the closed forms (a box minus a
half-cylinder, a cylinder) to rounding error, however coarse the tessellation.

All functions work in whatever length unit they are given.
"""

from __future__ import annotations

import numpy as np

_HIGH = np.array([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)], dtype=bool)  # (8, 3): hi's coordinates


def box(lo, hi) -> np.ndarray:
    """Corners of an axis-aligned box: a box solid's vertices, or a bounding box's corners.

    Args:
        lo: (3,) minimum corner.
        hi: (3,) maximum corner.

    Returns:
        (8, 3) vertices, x slowest, then y, then z (lo before hi); every coordinate
        is exactly lo's or hi's.
    """
    return np.where(_HIGH, np.asarray(hi, dtype=float), np.asarray(lo, dtype=float))


def prism(polygon, z0: float, z1: float) -> np.ndarray:
    """Extrude a convex polygon in the xy plane from z0 to z1.

    Args:
        polygon: (k, 2) convex polygon.

    Returns:
        (2k, 3) vertices.
    """
    p = np.asarray(polygon, dtype=float)
    k = len(p)
    return np.vstack([np.column_stack([p, np.full(k, z0)]), np.column_stack([p, np.full(k, z1)])])


def extrude_profile(profile, w0: float, w1: float, normal_axis: str) -> np.ndarray:
    """Extrude a convex profile drawn in a vertical wall plane.

    The profile's coordinates are ``(u, v)``: ``v`` is always z; ``u`` is the
    horizontal axis lying in the wall. The wall's thickness runs along
    ``normal_axis`` from w0 to w1.

    Args:
        profile: (k, 2) convex polygon in (u, v).
        normal_axis: ``"y"`` (u is x) or ``"x"`` (u is y).

    Returns:
        (2k, 3) vertices.
    """
    p = np.asarray(profile, dtype=float)
    k = len(p)
    out = []
    for w in (w0, w1):
        if normal_axis == "y":
            out.append(np.column_stack([p[:, 0], np.full(k, w), p[:, 1]]))
        elif normal_axis == "x":
            out.append(np.column_stack([np.full(k, w), p[:, 0], p[:, 1]]))
        else:
            raise ValueError(f"normal_axis must be 'x' or 'y', got {normal_axis!r}")
    return np.vstack(out)


def circle_exact_radius(r: float, n: int) -> float:
    """Circumradius of a regular n-gon whose area equals that of a circle of radius r."""
    return r * np.sqrt(2.0 * np.pi / (n * np.sin(2.0 * np.pi / n)))


def circle(r: float, n: int, center=(0.0, 0.0)) -> np.ndarray:
    """Regular n-gon with the area of the circle of radius r, counter-clockwise.

    Returns:
        (n, 2) vertices.
    """
    big = circle_exact_radius(r, n)
    a = 2.0 * np.pi * np.arange(n) / n
    return np.column_stack([big * np.cos(a), big * np.sin(a)]) + np.asarray(center, dtype=float)


def arc(r: float, a0: float, a1: float, k: int, center=(0.0, 0.0)) -> np.ndarray:
    """Polyline along an arc whose fan (from the centre) has the exact sector area.

    The two end points lie on the circle, so that the arc meets straight edges
    there exactly; the k - 1 interior points lie on a slightly larger radius
    chosen so that the polygonal fan's area equals ``r**2 * (a1 - a0) / 2``.

    Args:
        r: radius.
        a0, a1: start and end angle (rad).
        k: number of segments, at least 2.

    Returns:
        (k + 1, 2) points from a0 to a1.
    """
    if k < 2:
        raise ValueError("an exact-area arc needs at least 2 segments")
    theta = (a1 - a0) / k
    s = np.sin(abs(theta))
    # fan area = s/2 * (2 r R + (k - 2) R^2) must equal r^2 |a1 - a0| / 2
    qa, qb, qc = (k - 2) * s, 2.0 * r * s, -(r**2) * abs(a1 - a0)
    big = -qc / qb if qa == 0 else (-qb + np.sqrt(qb * qb - 4 * qa * qc)) / (2 * qa)
    radii = np.full(k + 1, big)
    radii[0] = radii[-1] = r
    a = a0 + theta * np.arange(k + 1)
    return np.column_stack([radii * np.cos(a), radii * np.sin(a)]) + np.asarray(center, dtype=float)


def frustum(r0: float, r1: float, z0: float, z1: float, n: int) -> np.ndarray:
    """Truncated cone (or cylinder) between z0 (radius r0) and z1 (radius r1), exact-area ends.

    Returns:
        (2n, 3) vertices.
    """
    return np.vstack([
        np.column_stack([circle(r0, n), np.full(n, z0)]),
        np.column_stack([circle(r1, n), np.full(n, z1)]),
    ])


def spherical_cap(radius: float, center_z: float, z_cut: float, n_lon: int, n_lat: int) -> np.ndarray:
    """Vertices of a tessellated sphere's part above the plane ``z = z_cut``.

    Returns:
        (m, 3) vertices whose convex hull is the cap: the cut circle, rings of
        latitude above it and the pole.
    """
    h = z_cut - center_z
    if not -radius < h < radius:
        raise ValueError("the cut plane must cross the sphere")
    phi_cut = np.arcsin(h / radius)
    rings = [np.column_stack([circle(radius * np.cos(phi_cut), n_lon), np.full(n_lon, z_cut)])]
    for phi in np.linspace(phi_cut, np.pi / 2, n_lat + 1)[1:-1]:
        z = center_z + radius * np.sin(phi)
        rings.append(np.column_stack([circle(radius * np.cos(phi), n_lon), np.full(n_lon, z)]))
    rings.append(np.array([[0.0, 0.0, center_z + radius]]))
    return np.vstack(rings)


def arched_wall_profiles(u0: float, u1: float, v0: float, v1: float, cu: float, r: float,
                         spring: float, k: int) -> list[np.ndarray]:
    """Convex partition of a wall with an arched opening from its bottom edge.

    The wall spans ``[u0, u1] x [v0, v1]``. The opening is ``2 r`` wide, centred
    at ``u = cu``, with straight sides from v0 up to ``spring`` and a half-round
    top of radius r above it (so it is ``spring - v0 + r`` high).

    Args:
        k: segments per quarter circle (at least 2).

    Returns:
        Convex polygons (each (m, 2) in (u, v)) that tile the wall minus the opening.
    """
    top = spring + r
    if not (u0 < cu - r and cu + r < u1 and v0 <= spring and top <= v1):
        raise ValueError("the opening must lie inside the wall")
    parts = [
        np.array([[u0, v0], [cu - r, v0], [cu - r, v1], [u0, v1]]),
        np.array([[cu + r, v0], [u1, v0], [u1, v1], [cu + r, v1]]),
    ]
    if top < v1:
        parts.append(np.array([[cu - r, top], [cu + r, top], [cu + r, v1], [cu - r, v1]]))
    for sign in (1.0, -1.0):
        # the quarter arc on this side, from the springing point to the crown
        pts = arc(r, 0.0, np.pi / 2, k)
        pts[:, 0] *= sign
        pts += (cu, spring)
        corner = np.array([cu + sign * r, top])
        parts.extend(np.array([corner, pts[i], pts[i + 1]]) for i in range(k))
    return parts

