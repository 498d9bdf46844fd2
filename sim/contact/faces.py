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
    """The faces of a convex part: coplanar hull triangles merged into polygons (cached per part)."""
    pts = np.unique(np.asarray(part.vertices, dtype=float), axis=0)
    hull = ConvexHull(pts)
    verts = pts[hull.vertices]
    eps = tol.merge + tol.merge_rel * float(np.ptp(verts, axis=0).max())
    normals, offsets = [], []
    for eq in hull.equations:
        n, d = eq[:3], -eq[3]
        if not any(np.dot(n, m) > 1.0 - tol.parallel and abs(d - e) <= eps for m, e in zip(normals, offsets)):
            normals.append(n)
            offsets.append(d)
    bases = np.array([plane_basis(n) for n in normals])
    polygons = []
    for n, d, basis in zip(normals, offsets, bases):
        on = verts[np.abs(verts @ n - d) <= eps]
        order = ConvexHull(on @ basis.T).vertices  # counter-clockwise in (u, v), hence about n
        polygons.append(on[order])
    return PartFaces(verts, np.array(normals), np.array(offsets), bases, tuple(polygons))


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
