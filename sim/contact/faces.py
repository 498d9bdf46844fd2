"""The planar faces of convex parts, in the piece frame: each part's, and a piece's parts laid end to end."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from scipy.spatial import ConvexHull

from sim.pieces import ConvexPart
from sim.tol import tol


@dataclass(frozen=True, eq=False)
class PartFaces:
    """The planar faces of a convex part, in its piece frame.

    Attributes:
        vertices: (v, 3) the part's hull vertices (m).
        normals: (f, 3) outward unit face normals.
        offsets: (f,) plane offsets: a face is ``normals[i] · x = offsets[i]``.
        bases: (f, 2, 3) two unit vectors (u, v) in each face's plane with u × v = normal.
        polygons: f arrays (k, 3), each face's vertices counter-clockwise about its normal.
    """

    vertices: np.ndarray
    normals: np.ndarray
    offsets: np.ndarray
    bases: np.ndarray
    polygons: tuple

    @cached_property
    def polygon_vertices(self) -> np.ndarray:
        """(P, 3) every face polygon's vertices, face after face."""
        return np.vstack(self.polygons)

    @cached_property
    def polygon_counts(self) -> np.ndarray:
        """(f,) vertices of each face polygon."""
        return np.array([len(p) for p in self.polygons])


def plane_basis(normal) -> np.ndarray:
    """(2, 3): two unit vectors (u, v) spanning the plane of ``normal`` with u × v = normal."""
    n = np.asarray(normal, dtype=float)
    helper = np.eye(3)[int(np.argmin(np.abs(n)))]
    u = np.array(_cross(helper.tolist(), n.tolist()))
    u /= np.linalg.norm(u)
    return np.array([u, _cross(n.tolist(), u.tolist())])


def _cross(a: list, b: list) -> tuple:
    """The cross product of two 3-vectors given as floats: ``np.cross``'s operations, without its overhead."""
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


@lru_cache(maxsize=4096)
def part_faces(part: ConvexPart) -> PartFaces:
    """The faces of a convex part: hull triangles that lie within ``tol.precision`` of one plane, one polygon
    each (cached per part).

    A block written to the micrometre (or with points added on its edges and faces) has hull triangles
    that are not quite coplanar; they are still one face, as they were drawn. Each face's plane is the
    one its corners fit best, moved out to the part's outermost vertex along its normal (so the part
    lies wholly behind it); a face whose triangles are exactly coplanar keeps its first triangle's plane.
    Corners within ``tol.precision`` of the line through their neighbours are left out of its polygon.
    """
    pts = np.unique(np.asarray(part.vertices, dtype=float), axis=0)
    hull = ConvexHull(pts)
    verts = pts[hull.vertices]
    eps = tol.merge + tol.merge_rel * float(np.ptp(verts, axis=0).max())
    rank = np.full(len(pts), len(pts))
    rank[hull.vertices] = np.arange(len(hull.vertices))  # the polygons' corners in the order of ``verts``
    normals, offsets, bases, polygons = [], [], [], []
    for group in _coplanar_facets(pts, hull):
        n, d = hull.equations[group[0], :3], -hull.equations[group[0], 3]
        corners = np.unique(hull.simplices[group])
        on = pts[corners[np.argsort(rank[corners], kind="stable")]]
        if np.abs(on @ n - d).max() > eps or (hull.equations[group, :3] @ n).min() <= 1.0 - tol.parallel:
            n = _fitted_normal(on, n)
            d = float((verts @ n).max())
        basis = plane_basis(n)
        uv = on @ basis.T
        order = ConvexHull(uv).vertices  # counter-clockwise in (u, v), hence about n
        normals.append(n)
        offsets.append(d)
        bases.append(basis)
        polygons.append(on[order[straight_corners(uv[order], tol.precision)]])
    return PartFaces(verts, np.array(normals), np.array(offsets), np.array(bases), tuple(polygons))


def _coplanar_facets(pts: np.ndarray, hull: ConvexHull) -> list[np.ndarray]:
    """The hull's triangles grouped into faces: neighbours joined while all their corners lie within
    ``tol.precision`` of one plane (the one they fit best).

    Faces grow from the largest triangle left (whose normal the rounding of its corners tilts least),
    so a sliver never leads. A triangle tilted from the face so far by more than ``tol.coplanar_angle``
    is ruled out without a fit.

    Args:
        pts: (v, 3) the points the hull was built on.
        hull: their hull.

    Returns:
        Arrays of triangle indices, one per face, ascending; the faces in the order of their first triangle.
    """
    tri = pts[hull.simplices]
    area = np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    group = np.full(len(tri), -1)
    groups: list[list[int]] = []
    width = 2.0 * tol.precision  # within precision of the mid-plane
    for seed in np.argsort(-area, kind="stable").tolist():
        if group[seed] >= 0:
            continue
        members, corners = [seed], set(hull.simplices[seed].tolist())
        group[seed] = len(groups)
        normal, centre = hull.equations[seed, :3], tri[seed].mean(axis=0)
        frontier = list(hull.neighbors[seed])
        while frontier:
            f = int(frontier.pop())
            if group[f] >= 0:
                continue
            new = [c for c in hull.simplices[f].tolist() if c not in corners]
            if new:
                off = pts[new] - centre
                if (np.abs(off @ normal) > width + tol.coplanar_angle * np.linalg.norm(off, axis=1)).any():
                    continue
                trial = pts[sorted(corners.union(new))]
                fitted = _fitted_normal(trial, normal)
                heights = trial @ fitted
                if heights.max() - heights.min() > width:
                    continue
                normal, centre = fitted, trial.mean(axis=0)
                corners.update(new)
            members.append(f)
            group[f] = len(groups)
            frontier.extend(int(g) for g in hull.neighbors[f] if group[g] < 0)
        groups.append(sorted(members))
    return [np.array(m) for m in sorted(groups)]


def _fitted_normal(points: np.ndarray, like: np.ndarray) -> np.ndarray:
    """The unit normal of the plane (k, 3) points fit best (least squares), pointing the way ``like`` does."""
    centred = points - points.mean(axis=0)
    n = np.linalg.svd(centred, full_matrices=False)[2][-1]
    return n if n @ like >= 0.0 else -n


def straight_corners(uv: np.ndarray, precision: float) -> np.ndarray:
    """Which corners of a convex polygon (k, 2), in order, to keep: a corner goes when it lies within
    ``precision`` of the straight line joining the kept corners on either side, and so does every corner
    gone since the last one kept (so everything left out lies within ``precision`` of what is kept).

    One walk round, from the corner farthest from the centroid (surely a corner); at least three stay.

    Returns:
        (k,) bool.
    """
    k = len(uv)
    keep = np.ones(k, dtype=bool)
    if k <= 3:
        return keep
    start = int(np.argmax(((uv - uv.mean(axis=0)) ** 2).sum(axis=1)))
    ring = [(start + i) % k for i in range(k)] + [start]
    anchor, skipped = ring[0], []
    for j in range(1, k):
        here, after = ring[j], ring[j + 1]
        chord = uv[after] - uv[anchor]
        off = uv[[*skipped, here]] - uv[anchor]
        if np.abs(off[:, 0] * chord[1] - off[:, 1] * chord[0]).max() <= precision * float(np.hypot(*chord)):
            skipped.append(here)
            keep[here] = False
        else:
            anchor, skipped = here, []
    return keep if keep.sum() >= 3 else np.ones(k, dtype=bool)  # a sliver thinner than the precision: as it is


@dataclass(frozen=True, eq=False)
class StackedFaces:
    """The faces of a piece's convex parts laid end to end, in its piece frame.

    Attributes:
        vertices: (V, 3) every part's hull vertices, part after part (m).
        vcnt: (n,) vertices of each part.
        normals: (F, 3) every part's outward unit face normals, part after part.
        offsets: (F,) their plane offsets.
        bases: (F, 2, 3) their plane bases.
        fcnt: (n,) faces of each part.
        pverts: (P, 3) every face polygon's vertices, face after face.
        pcnt: (F,) vertices of each face polygon.
    """

    vertices: np.ndarray
    vcnt: np.ndarray
    normals: np.ndarray
    offsets: np.ndarray
    bases: np.ndarray
    fcnt: np.ndarray
    pverts: np.ndarray
    pcnt: np.ndarray

    @cached_property
    def vstart(self) -> np.ndarray:
        """(n,) each part's first vertex."""
        return self.vcnt.cumsum() - self.vcnt

    @cached_property
    def layout(self) -> np.ndarray:
        """(3, n) int: each part's vertex count, face count and index in the piece."""
        return np.array([self.vcnt, self.fcnt, np.arange(len(self.vcnt))])


@lru_cache(maxsize=1024)
def stacked_faces(parts: tuple) -> StackedFaces:
    """The faces of a piece's parts in flat arrays (cached per parts tuple: they do not depend on the pose)."""
    faces = [part_faces(p) for p in parts]
    return StackedFaces(np.vstack([f.vertices for f in faces]), np.array([len(f.vertices) for f in faces]),
                        np.vstack([f.normals for f in faces]), np.concatenate([f.offsets for f in faces]),
                        np.concatenate([f.bases for f in faces]), np.array([len(f.offsets) for f in faces]),
                        np.vstack([f.polygon_vertices for f in faces]),
                        np.concatenate([f.polygon_counts for f in faces]))
