"""Convex parts as faces, placed in the world, and the broad phase that pairs nearby parts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from scipy.spatial import ConvexHull

from sim.contact.interface import BOARD, BOARD_PART
from sim.geometry.transforms import quat_to_matrix
from sim.pieces import ConvexPart
from sim.tol import tol

# --- faces of convex parts ------------------------------------------------------

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
    u = np.cross(helper, n)
    u /= np.linalg.norm(u)
    return np.array([u, np.cross(n, u)])


@lru_cache(maxsize=4096)
def part_faces(part: ConvexPart) -> PartFaces:
    """The faces of a convex part: coplanar hull triangles merged into polygons (cached per part)."""
    pts = np.unique(np.asarray(part.vertices, dtype=float), axis=0)
    hull = ConvexHull(pts)
    verts = pts[hull.vertices]
    eps = tol.merge + 1e-9 * float(np.ptp(verts, axis=0).max())
    normals, offsets = [], []
    for eq in hull.equations:
        n, d = eq[:3], -eq[3]
        if not any(np.dot(n, m) > 1.0 - 1e-9 and abs(d - e) <= eps for m, e in zip(normals, offsets)):
            normals.append(n)
            offsets.append(d)
    bases = np.array([plane_basis(n) for n in normals])
    polygons = []
    for n, d, basis in zip(normals, offsets, bases):
        on = verts[np.abs(verts @ n - d) <= eps]
        order = ConvexHull(on @ basis.T).vertices  # counter-clockwise in (u, v), hence about n
        polygons.append(on[order])
    return PartFaces(verts, np.array(normals), np.array(offsets), bases, tuple(polygons))


# --- parts placed in the world --------------------------------------------------

@dataclass(eq=False)
class Placed:
    """One convex part at its world pose, or the endless table plane (no vertices, no polygon)."""

    piece: str
    part: int
    vertices: np.ndarray  # (v, 3)
    normals: np.ndarray  # (f, 3)
    offsets: np.ndarray  # (f,)
    bases: np.ndarray  # (f, 2, 3)
    pverts: np.ndarray  # (P, 3) world polygon vertices, face after face
    pcnt: np.ndarray  # (f,) polygon vertex counts; 0 for the endless plane
    lo: np.ndarray
    hi: np.ndarray


def place(faces: PartFaces, piece: str, part: int, rot: np.ndarray, pos: np.ndarray) -> Placed:
    verts = faces.vertices @ rot.T + pos
    normals = faces.normals @ rot.T
    return Placed(piece, part, verts, normals, faces.offsets + normals @ pos, faces.bases @ rot.T,
                   faces.polygon_vertices @ rot.T + pos, faces.polygon_counts, verts.min(axis=0), verts.max(axis=0))


def board_parts(scene) -> list[Placed]:
    """The board's slab parts, and the endless table plane (under the slab, or at z = 0 without one)."""
    board = scene.board_info
    placed = []
    if board.shape is not None:
        placed += [place(part_faces(part), BOARD, BOARD_PART, np.eye(3), board.pos) for part in board.shape.parts]
    z0 = -board.thickness
    up = np.array([[0.0, 0.0, 1.0]])
    placed.append(Placed(BOARD, BOARD_PART, np.zeros((0, 3)), up, np.array([z0]), plane_basis(up[0])[None],
                          np.zeros((0, 3)), np.zeros(1, dtype=int), np.full(3, -np.inf),
                          np.array([np.inf, np.inf, z0])))
    return placed


def scene_parts(scene, poses) -> list[Placed]:
    placed = []
    rots = quat_to_matrix(poses[:, 3:7]) if len(poses) else []
    for piece, pos, rot in zip(scene.pieces, poses[:, :3], rots):
        placed += [place(part_faces(part), piece.id, k, rot, pos) for k, part in enumerate(piece.shape.parts)]
    return placed


def resolve_poses(scene, poses) -> np.ndarray:
    if poses is None:
        return scene.poses()
    if isinstance(poses, Mapping):
        base = scene.poses()
        for i, p in enumerate(scene.pieces):
            if p.id in poses:
                base[i] = np.asarray(poses[p.id], dtype=float)
        return base
    arr = np.asarray(poses, dtype=float)
    if arr.shape != (len(scene.pieces), 7):
        raise ValueError(f"poses: expected shape ({len(scene.pieces)}, 7), got {arr.shape}")
    return arr


# --- broad phase ------------------------------------------------------------------

def candidate_pairs(lo: np.ndarray, hi: np.ndarray, owner: np.ndarray, margin: float) -> np.ndarray:
    """Pairs (i, j) of boxes of different owners whose bounds overlap (sort and sweep on the widest axis).

    Args:
        lo, hi: (m, 3) box corners.
        owner: (m,) integer owner of each box; boxes of one owner are never paired.
        margin: how far apart two boxes may be and still pair.

    Returns:
        (p, 2) int indices.
    """
    m = len(lo)
    if m < 2:
        return np.zeros((0, 2), dtype=int)
    axis = int(np.argmax(hi.max(axis=0) - lo.min(axis=0)))
    order = np.argsort(lo[:, axis], kind="stable")
    slo, shi = lo[order], hi[order]
    ends = np.searchsorted(slo[:, axis], shi[:, axis] + margin, side="right")
    counts = np.maximum(ends - np.arange(m) - 1, 0)
    first = np.repeat(np.arange(m), counts)
    second = first + 1 + np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    keep = np.all((slo[second] <= shi[first] + margin) & (slo[first] <= shi[second] + margin), axis=1)
    i, j = order[first[keep]], order[second[keep]]
    keep = owner[i] != owner[j]
    return np.column_stack([i[keep], j[keep]])
