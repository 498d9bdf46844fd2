"""Convex parts as faces, placed in the world in flat arrays, and the broad phase that pairs nearby parts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from scipy.spatial import ConvexHull

from sim.contact.interface import BOARD_PART
from sim.geometry.transforms import rotation_matrices
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

_UP = np.array([[0.0, 0.0, 1.0]])  # (1, 3) the endless table plane's normal
_UP_BASIS = plane_basis(_UP[0])[None]  # (1, 2, 3) its plane basis

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


@dataclass(eq=False)
class Table:
    """Every placed part's vertices, faces and face polygons in flat arrays (world).

    The parts are the board slab's, then the pieces' in scene order, then the endless
    table plane (no vertices, one face with no polygon).

    Attributes:
        owner: (m,) each part's piece index in the scene, -1 for the board.
        part: (m,) each part's index in its piece, ``BOARD_PART`` for the board.
        vstart, vcnt: (m,) each part's first vertex and vertex count.
        fstart, fcnt: (m,) each part's first face and face count.
        verts: (V, 3) vertices (m).
        normals: (F, 3) outward unit face normals.
        offsets: (F,) plane offsets (``normals[i] · x = offsets[i]``).
        bases: (F, 2, 3) plane bases (u, v), u × v = normal.
        pstart, pcnt: (F,) each face's first polygon vertex and count; 0 for the endless plane.
        pverts: (P, 3) face polygon vertices.
        lo, hi: (m, 3) each part's bounding box.
    """

    owner: np.ndarray
    part: np.ndarray
    vstart: np.ndarray
    vcnt: np.ndarray
    fstart: np.ndarray
    fcnt: np.ndarray
    verts: np.ndarray
    normals: np.ndarray
    offsets: np.ndarray
    bases: np.ndarray
    pstart: np.ndarray
    pcnt: np.ndarray
    pverts: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    @cached_property
    def vcols(self) -> np.ndarray:
        """(3, V) the vertices' coordinates, one row per axis (columns gather faster than rows)."""
        return np.ascontiguousarray(self.verts.T)

    @cached_property
    def ncols(self) -> np.ndarray:
        """(3, F) the face normals' components, one row per axis."""
        return np.ascontiguousarray(self.normals.T)

    @cached_property
    def pcols(self) -> np.ndarray:
        """(3, P) the face polygon vertices' coordinates, one row per axis."""
        return np.ascontiguousarray(self.pverts.T)

    @cached_property
    def bcols(self) -> np.ndarray:
        """(2, 3, F) the face plane bases' components: [u or v, axis, face]."""
        return np.ascontiguousarray(self.bases.transpose(1, 2, 0))

    @cached_property
    def centroids(self) -> np.ndarray:
        """(m, 3) each part's vertex centroid (zero for the endless plane)."""
        out = np.zeros((len(self.vcnt), 3))
        finite = self.vcnt > 0
        out[finite] = np.add.reduceat(self.verts, self.vstart[finite]) / self.vcnt[finite, None]
        return out

    def vertices(self, part: int) -> np.ndarray:
        """(v, 3) one part's vertices."""
        return self.verts[self.vstart[part]:self.vstart[part] + self.vcnt[part]]


def place_all(scene, poses: np.ndarray) -> Table:
    """The board's slab parts, every piece's parts at its pose, and the endless table plane, in one table.

    The table plane lies under the slab (at z = 0 without one).
    """
    board = scene.board_info
    kinds = [stacked_faces(piece.shape.parts) for piece in scene.pieces]
    owners = list(range(len(kinds)))
    rots = rotation_matrices(poses[:, 3:7])
    pos = poses[:, :3]
    if board.shape is not None:
        kinds.insert(0, stacked_faces(board.shape.parts))
        owners.insert(0, -1)
        rots = np.concatenate([np.eye(3)[None], rots])
        pos = np.concatenate([np.asarray(board.pos, dtype=float)[None], pos])
    groups: dict[int, list[int]] = {}  # pieces of one kind, placed together
    for k, faces in enumerate(kinds):
        groups.setdefault(id(faces), []).append(k)
    each = [None] * len(kinds)
    for members in groups.values():
        for k, arrays in zip(members, _place_group(kinds[members[0]], rots[members], pos[members])):
            each[k] = arrays
    verts, normals, offsets, bases, pverts, lo, hi = (list(column) for column in zip(*each)) if each else [[]] * 7
    z0 = -board.thickness
    layout = np.concatenate([f.layout for f in kinds] + [[[0], [1], [BOARD_PART]]], axis=1)
    vcnt, fcnt, part = layout
    vstart, fstart = layout[:2].cumsum(axis=1) - layout[:2]
    owner = np.repeat(owners + [-1], [len(f.vcnt) for f in kinds] + [1])
    part[owner < 0] = BOARD_PART
    pcnt = np.concatenate([f.pcnt for f in kinds] + [[0]], dtype=int)
    return Table(owner, part, vstart, vcnt, fstart, fcnt,
                 np.concatenate(verts + [np.zeros((0, 3))]), np.concatenate(normals + [_UP]),
                 np.concatenate(offsets + [[z0]]), np.concatenate(bases + [_UP_BASIS]),
                 pcnt.cumsum() - pcnt, pcnt, np.concatenate(pverts + [np.zeros((0, 3))]),
                 np.concatenate(lo + [[[-np.inf] * 3]]), np.concatenate(hi + [[[np.inf, np.inf, z0]]]))


def _place_group(faces: StackedFaces, rots: np.ndarray, pos: np.ndarray):
    """One kind's faces at n poses, in batched products (each the same numbers as that piece's own).

    Args:
        faces: the kind's faces.
        rots: (n, 3, 3) rotation matrices.
        pos: (n, 3) positions (m).

    Returns:
        Per pose: vertices (V, 3), normals (F, 3), offsets (F,), bases (F, 2, 3), polygon
        vertices (P, 3), and the parts' boxes lo, hi (parts, 3).
    """
    rt = rots.transpose(0, 2, 1)
    verts = faces.vertices @ rt + pos[:, None]
    normals = faces.normals @ rt
    offsets = faces.offsets + (normals @ pos[:, :, None])[:, :, 0]
    bases = faces.bases[None] @ rt[:, None]
    pverts = faces.pverts @ rt + pos[:, None]
    lo = np.minimum.reduceat(verts, faces.vstart, axis=1)
    hi = np.maximum.reduceat(verts, faces.vstart, axis=1)
    return zip(verts, normals, offsets, bases, pverts, lo, hi)


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

def ragged(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For segments of the given lengths laid end to end: each element's segment and place in it."""
    counts = np.asarray(counts, dtype=int)
    seg = np.arange(len(counts)).repeat(counts)
    return seg, np.arange(len(seg)) - (counts.cumsum() - counts).repeat(counts)


def batched_products(arrays: list, mats: np.ndarray, shifts: np.ndarray | None = None) -> list:
    """``arrays[i] @ mats[i]`` (plus ``shifts[i]``) for every i, in one stacked product per array length.

    numpy multiplies each item of a stack as it would on its own when the shapes match (the
    same kernel: a one-row product, say, takes another path than a longer one), so the results
    are the same numbers as one product at a time.

    Args:
        arrays: n arrays (k_i, a).
        mats: (n, a, b).
        shifts: (n, b) added to each product's rows, or None.

    Returns:
        n arrays (k_i, b).
    """
    out = [None] * len(arrays)
    by_len: dict[int, list[int]] = {}
    for i, x in enumerate(arrays):
        by_len.setdefault(len(x), []).append(i)
    for rows in by_len.values():
        products = np.array([arrays[i] for i in rows]) @ mats[rows]
        if shifts is not None:
            products += shifts[rows][:, None]
        for i, y in zip(rows, products):
            out[i] = y
    return out


def candidate_pairs(lo: np.ndarray, hi: np.ndarray, owner: np.ndarray, margin: float) -> np.ndarray:
    """Pairs (i, j) of boxes of different owners whose bounds overlap.

    Owners' boxes (the union of theirs) are paired first, then the boxes of each pair of owners:
    a Babylon tower's dozens of wall parts all overlap each other, and are never paired.

    Args:
        lo, hi: (m, 3) box corners.
        owner: (m,) integer owner of each box; boxes of one owner are never paired.
        margin: how far apart two boxes may be and still pair.

    Returns:
        (p, 2) int indices.
    """
    if len(lo) < 2:
        return np.zeros((0, 2), dtype=int)
    if (owner[1:] > owner[:-1]).all():  # one box per owner: the owners' boxes are the boxes
        return np.column_stack(_sweep(lo, hi, margin))
    owners, group = np.unique(owner, return_inverse=True)
    glo = np.full((len(owners), 3), np.inf)
    ghi = np.full((len(owners), 3), -np.inf)
    np.minimum.at(glo, group, lo)
    np.maximum.at(ghi, group, hi)
    ga, gb = _sweep(glo, ghi, margin)
    members = group.argsort(kind="stable")
    size = np.bincount(group, minlength=len(owners))
    start = size.cumsum() - size
    pair, at = ragged(size[ga] * size[gb])  # every box of one owner with every box of the other
    i = members[start[ga][pair] + at // size[gb][pair]]
    j = members[start[gb][pair] + at % size[gb][pair]]
    keep = ((lo[j] <= hi[i] + margin) & (lo[i] <= hi[j] + margin)).all(axis=1)
    return np.column_stack([i[keep], j[keep]])


def _sweep(lo: np.ndarray, hi: np.ndarray, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i, j) of boxes whose bounds overlap, within ``margin`` (sort and sweep on the widest axis)."""
    m = len(lo)
    axis = int((hi.max(axis=0) - lo.min(axis=0)).argmax())
    order = lo[:, axis].argsort(kind="stable")
    slo, shi = lo[order], hi[order]
    ends = np.searchsorted(slo[:, axis], shi[:, axis] + margin, side="right")
    first, later = ragged(np.maximum(ends - np.arange(m) - 1, 0))
    second = first + 1 + later
    keep = ((slo[second] <= shi[first] + margin) & (slo[first] <= shi[second] + margin)).all(axis=1)
    return order[first[keep]], order[second[keep]]
