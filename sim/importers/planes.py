"""Blocks whose faces do not quite fit, made to: the faces that meet are cut to one shared plane.

A model drawn from a curved design (the Armadillo vault) has blocks whose
faces are not planar and whose neighbours' faces are millimetres to
centimetres apart or inside each other. compas_cra copes by taking two faces
within ``tmax`` of each other as one interface in the first face's plane.
Here the geometry itself is made consistent, so that contacts, statics and
the simulation all see the same solids:

1. every face gets its plane: through its centroid, along its Newell normal;
2. two faces of different blocks *meet* when they face each other (normals
   within 25° of opposite), each one's corners lie within ``snap`` of the
   other's plane, and their outlines overlap by at least ``min_area`` (on the
   first face's plane, as compas_cra measures). Meeting faces join one group,
   largest overlaps first, as long as every corner of the group lies within
   ``snap`` of the group's plane (the area-weighted mean of its faces' planes);
3. each block becomes the intersection of the half-spaces behind its faces'
   planes, a group's plane for the faces that meet: a convex block whose
   meeting faces lie exactly in one plane with their partners';
4. two changed blocks that still overlap (where an edge or a corner of one
   reached into the other) are both cut by the plane across the middle of
   their overlap, along the face normal of either that overlaps least (the
   separating axis): they then touch there instead.

Only blocks that are convex up to ``snap`` (every corner within ``snap`` of
its hull's surface) are changed; the volume each block gains or loses is
reported. Pure numpy, scipy and shapely.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely
from scipy.optimize import linprog
from scipy.spatial import ConvexHull, HalfspaceIntersection, QhullError

FACING = math.cos(math.radians(25.0))
"""Two faces meet only when their normals are within 25° of opposite: wider than any misfit a model has,
narrower than the angle between neighbouring faces of one block (a wedge of 40° or so)."""


@dataclass(frozen=True)
class Polyhedron:
    """One block as the importer reads it.

    Attributes:
        vertices: (k, 3) corners (mm).
        faces: the faces, each a tuple of corner indices, wound outwards.
    """

    vertices: np.ndarray
    faces: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Snapped:
    """The blocks made to fit.

    Attributes:
        vertices: per block, the corners (k, 3) mm of its new convex shape, or None where the block
            was left as it is (not convex within the tolerance).
        groups: how many groups of meeting faces share a plane.
        change: per block, its new volume over its old one, minus 1 (0 where left as it is).
        separated: how many pairs of blocks that still overlapped were cut apart (step 4).
    """

    vertices: list[np.ndarray | None]
    groups: int
    change: np.ndarray
    separated: int = 0


def face_planes(block: Polyhedron) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(f, 3) unit Newell normals, (f, 3) centroids of the corners and (f,) areas of a block's faces."""
    normals, points, areas = [], [], []
    for face in block.faces:
        p = block.vertices[list(face)]
        c = p.mean(axis=0)
        n = np.cross(p - c, np.roll(p, -1, axis=0) - c).sum(axis=0) / 2.0
        area = float(np.linalg.norm(n))
        normals.append(n / area if area > 0 else n)
        points.append(c)
        areas.append(area)
    return np.array(normals), np.array(points), np.array(areas)


def hull_depth(vertices: np.ndarray) -> float:
    """How far (mm) the deepest corner of a block lies inside its convex hull: 0 for a convex block."""
    hull = ConvexHull(vertices)
    return float(-(vertices @ hull.equations[:, :3].T + hull.equations[:, 3]).max(axis=1).min())


def snap_blocks(blocks: list[Polyhedron], snap: float, min_area: float, overlap: float) -> Snapped:
    """The blocks with their meeting faces cut to shared planes (see the module's description).

    Args:
        blocks: the blocks (mm).
        snap: how far apart (mm) two faces may be and still meet; the most a corner may lie inside its
            block's hull for the block to be changed.
        min_area: the least overlap (mm²) of two faces that meet.
        overlap: how deep (mm) two changed blocks may still overlap before they are cut apart.
    """
    planes = [face_planes(b) for b in blocks]
    near = [hull_depth(b.vertices) <= snap for b in blocks]
    faces = [(i, f) for i, b in enumerate(blocks) if near[i] for f in range(len(b.faces))]
    index = {bf: k for k, bf in enumerate(faces)}
    normal = np.array([planes[i][0][f] for i, f in faces]).reshape(-1, 3)
    point = np.array([planes[i][1][f] for i, f in faces]).reshape(-1, 3)
    area = np.array([planes[i][2][f] for i, f in faces])
    corners = [blocks[i].vertices[list(blocks[i].faces[f])] for i, f in faces]
    pairs = _meeting(blocks, faces, normal, point, corners, snap, min_area)
    group = _group(pairs, normal, area, corners, snap)
    halfspaces: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for i, b in enumerate(blocks):
        if near[i]:
            rows = [index[(i, f)] for f in range(len(b.faces))]
            halfspaces[i] = (np.array([group.normal(k, normal[k]) for k in rows]),
                             np.array([group.offset(k, normal[k], point[k]) for k in rows]))
    corners = {i: _intersection(*halfspaces[i], blocks[i].vertices) for i in halfspaces}
    separated = _separate(corners, halfspaces, blocks, overlap)
    snapped, change = [], np.zeros(len(blocks))
    for i, b in enumerate(blocks):
        snapped.append(corners.get(i))
        if i in corners:
            change[i] = ConvexHull(corners[i]).volume / volume(b) - 1.0
    return Snapped(snapped, group.count, change, separated)


def _least_overlap(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray, float]:
    """(depth, axis, middle) of two convex corner sets along the face normal of either hull that they
    overlap least on: depth ≤ 0 where that axis separates them; middle is the overlap's centre along it."""
    best = (np.inf, None, 0.0)
    for own in (a, b):
        eq = ConvexHull(own).equations
        pa, pb = a @ eq[:, :3].T, b @ eq[:, :3].T  # (k, f) heights along each face normal
        lo, hi = np.maximum(pa.min(axis=0), pb.min(axis=0)), np.minimum(pa.max(axis=0), pb.max(axis=0))
        k = int(np.argmin(hi - lo))
        if hi[k] - lo[k] < best[0]:
            best = (float(hi[k] - lo[k]), eq[k, :3], float(lo[k] + hi[k]) / 2.0)
    return best


def _separate(corners: dict, halfspaces: dict, blocks, overlap: float, rounds: int = 4) -> int:
    """Cut apart the changed blocks that overlap deeper than ``overlap`` (mm); returns how many pairs."""
    done = 0
    for _ in range(rounds):
        keys = sorted(corners)
        lo = np.array([corners[i].min(axis=0) for i in keys]).reshape(-1, 3)
        hi = np.array([corners[i].max(axis=0) for i in keys]).reshape(-1, 3)
        cut = 0
        for x, i in enumerate(keys):
            for y in np.flatnonzero((lo[x + 1:] < hi[x]).all(axis=1) & (hi[x + 1:] > lo[x]).all(axis=1)) + x + 1:
                j = keys[int(y)]
                depth, axis, middle = _least_overlap(corners[i], corners[j])
                if depth <= overlap:
                    continue
                side = 1.0 if corners[i].mean(axis=0) @ axis < middle else -1.0  # i lies below the plane
                for k, sign in ((i, side), (j, -side)):
                    n, o = halfspaces[k]
                    halfspaces[k] = (np.vstack([n, sign * axis]), np.append(o, sign * middle))
                    corners[k] = _intersection(*halfspaces[k], blocks[k].vertices)
                cut += 1
        done += cut
        if not cut:
            break
    return done


def volume(block: Polyhedron) -> float:
    """A closed polyhedron's volume (divergence theorem over its faces, fan-triangulated from centroids)."""
    total = 0.0
    for face in block.faces:
        p = block.vertices[list(face)]
        c = p.mean(axis=0)
        q = np.roll(p, -1, axis=0)
        total += float(np.einsum("ij,ij->i", np.cross(p - c, q - c), np.broadcast_to(c, p.shape)).sum())
    return total / 6.0


def _meeting(blocks, faces, normal, point, corners, snap: float, min_area: float) -> list[tuple[float, int, int]]:
    """(overlap area, face k, face l) of faces of different blocks that meet, largest first."""
    owner = np.array([i for i, _ in faces])
    lo = np.array([c.min(axis=0) for c in corners]).reshape(-1, 3) - snap
    hi = np.array([c.max(axis=0) for c in corners]).reshape(-1, 3) + snap
    out = []
    for k in range(len(faces)):
        cand = np.flatnonzero((owner > owner[k]) & (lo <= hi[k]).all(axis=1) & (hi >= lo[k]).all(axis=1)
                              & (normal @ normal[k] <= -FACING))
        for m in cand.tolist():
            if np.abs((corners[m] - point[k]) @ normal[k]).max() > snap or \
                    np.abs((corners[k] - point[m]) @ normal[m]).max() > snap:
                continue
            basis = _in_plane(normal[k])
            a = shapely.Polygon((corners[k] - point[k]) @ basis)
            b = shapely.Polygon((corners[m] - point[k]) @ basis)
            overlap = a.buffer(0).intersection(b.buffer(0)).area
            if overlap >= min_area:
                out.append((overlap, k, m))
    return sorted(out, key=lambda t: -t[0])


def _in_plane(n: np.ndarray) -> np.ndarray:
    """(3, 2): two unit vectors spanning the plane of the unit normal n (coordinates in it)."""
    u = np.cross(np.eye(3)[int(np.argmin(np.abs(n)))], n)
    u /= np.linalg.norm(u)
    return np.column_stack([u, np.cross(n, u)])


class _Groups:
    """Union-find over faces, each group with its shared plane (area-weighted, oriented like its first face)."""

    def __init__(self, n: int):
        self.parent = list(range(n))
        self.members: dict[int, list[int]] = {k: [k] for k in range(n)}
        self.count = 0
        self.planes: dict[int, tuple[np.ndarray, float]] = {}

    def root(self, k: int) -> int:
        while self.parent[k] != k:
            self.parent[k] = self.parent[self.parent[k]]
            k = self.parent[k]
        return k

    def normal(self, k: int, own: np.ndarray) -> np.ndarray:
        """Face k's outward normal: its group's plane normal turned to its side, else its own."""
        plane = self.planes.get(self.root(k))
        if plane is None:
            return own
        return plane[0] if plane[0] @ own > 0 else -plane[0]

    def offset(self, k: int, own_normal: np.ndarray, own_point: np.ndarray) -> float:
        """Face k's plane offset along :meth:`normal` (n · x = offset on the plane)."""
        plane = self.planes.get(self.root(k))
        if plane is None:
            return float(own_normal @ own_point)
        return plane[1] if plane[0] @ own_normal > 0 else -plane[1]


def _fit(members, normal, area, corners) -> tuple[np.ndarray, float]:
    ref = normal[members[0]]
    n = sum(area[m] * (normal[m] if normal[m] @ ref > 0 else -normal[m]) for m in members)
    n = n / np.linalg.norm(n)
    pts = np.vstack([corners[m] for m in members])
    return n, float((pts @ n).mean())


def _group(pairs, normal, area, corners, snap: float) -> _Groups:
    g = _Groups(len(normal))
    for _, k, m in pairs:
        a, b = g.root(k), g.root(m)
        if a == b:
            continue
        members = g.members[a] + g.members[b]
        n, o = _fit(members, normal, area, corners)
        if max(float(np.abs(corners[j] @ n - o).max()) for j in members) > snap:
            continue  # the faces do not lie in one plane within the tolerance: keep the groups apart
        g.parent[b] = a
        g.members[a] = members
        del g.members[b]
        g.planes.pop(b, None)
        g.planes[a] = (n, o)
    g.count = len(g.planes)
    return g


def _intersection(normals: np.ndarray, offsets: np.ndarray, vertices: np.ndarray) -> np.ndarray:
    """The corners of {x : n_i · x ≤ o_i for all i} (mm), from its Chebyshev centre.

    Raises:
        ValueError: the half-spaces hold no solid (the planes moved past each other).
    """
    norm = np.linalg.norm(normals, axis=1)
    size = float(np.ptp(vertices, axis=0).max())
    box = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], dtype=float)
    centre = vertices.mean(axis=0)
    a = np.vstack([normals, box])  # a box twice the block's size keeps it bounded if a face went missing
    b = np.concatenate([offsets, box @ centre + size])
    res = linprog([0, 0, 0, -1], A_ub=np.column_stack([a, np.concatenate([norm, np.ones(6)])]), b_ub=b,
                  bounds=[(None, None)] * 3 + [(0, None)], method="highs")
    if res.status != 0 or res.x[3] <= 0:
        raise ValueError("the block's face planes enclose nothing")
    try:
        hs = HalfspaceIntersection(np.column_stack([a, -b]), res.x[:3])
    except QhullError as e:
        raise ValueError(f"the block's face planes do not bound a solid ({e})") from None
    points = hs.intersections[np.isfinite(hs.intersections).all(axis=1)]
    return points[np.sort(ConvexHull(points).vertices)]
