"""Contact interfaces between touching convex parts of a scene's pieces (pure geometry)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
import shapely
from scipy.spatial import ConvexHull

from sim.geometry.transforms import quat_to_matrix
from sim.pieces import ConvexPart
from sim.pieces.boards import TABLE_MATERIAL
from sim.tol import tol

BOARD = "board"
BOARD_PART = -1  # ``part_a`` of an interface with the board, its slab or the table


@dataclass(frozen=True, eq=False)
class Interface:
    """Where two pieces (or a piece and the board) touch over a flat area.

    Attributes:
        a: id of one piece, or ``BOARD`` for the board or table.
        b: id of the other piece; when ``normal`` points up, b rests on a.
        part_a: index of a's convex part (-1 for the board).
        part_b: index of b's convex part.
        normal: (3,) unit normal from a into b (world).
        polygon: (k, 3) vertices of the contact polygon (world, m), counter-clockwise about ``normal``.
        area: polygon area (m²).
    """

    a: str
    b: str
    part_a: int
    part_b: int
    normal: np.ndarray
    polygon: np.ndarray
    area: float


def contact_friction(mu_a: float, mu_b: float) -> float:
    """Coulomb coefficient between two materials: the geometric mean of theirs.

    Two pieces of one material get that material's coefficient; pybullet and
    the statics both use this rule, so their verdicts compare like with like.
    """
    return float(np.sqrt(mu_a * mu_b))


def board_friction(scene) -> float:
    """Coulomb coefficient of the scene's board surface (its slab's material, else the table's)."""
    shape = scene.board_info.shape
    return TABLE_MATERIAL.friction if shape is None else shape.material.friction


def is_table_contact(scene, interface: Interface) -> bool:
    """Whether an interface with ``BOARD`` is with the table beside the board's slab.

    Pieces may stand on the table around a board: that plane lies the slab's
    thickness below the board top. On the endless ``table`` board every board
    contact is with the board itself.
    """
    if BOARD not in (interface.a, interface.b):
        return False
    thickness = scene.board_info.thickness
    return thickness > 0 and float(interface.polygon[:, 2].mean()) < -thickness / 2


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
class _Placed:
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


def _place(faces: PartFaces, piece: str, part: int, rot: np.ndarray, pos: np.ndarray) -> _Placed:
    verts = faces.vertices @ rot.T + pos
    normals = faces.normals @ rot.T
    return _Placed(piece, part, verts, normals, faces.offsets + normals @ pos, faces.bases @ rot.T,
                   faces.polygon_vertices @ rot.T + pos, faces.polygon_counts, verts.min(axis=0), verts.max(axis=0))


def _board_parts(scene) -> list[_Placed]:
    """The board's slab parts, and the endless table plane (under the slab, or at z = 0 without one)."""
    board = scene.board_info
    placed = []
    if board.shape is not None:
        placed += [_place(part_faces(part), BOARD, BOARD_PART, np.eye(3), board.pos) for part in board.shape.parts]
    z0 = -board.thickness
    up = np.array([[0.0, 0.0, 1.0]])
    placed.append(_Placed(BOARD, BOARD_PART, np.zeros((0, 3)), up, np.array([z0]), plane_basis(up[0])[None],
                          np.zeros((0, 3)), np.zeros(1, dtype=int), np.full(3, -np.inf),
                          np.array([np.inf, np.inf, z0])))
    return placed


def _scene_parts(scene, poses) -> list[_Placed]:
    placed = []
    rots = quat_to_matrix(poses[:, 3:7]) if len(poses) else []
    for piece, pos, rot in zip(scene.pieces, poses[:, :3], rots):
        placed += [_place(part_faces(part), piece.id, k, rot, pos) for k, part in enumerate(piece.shape.parts)]
    return placed


def _resolve_poses(scene, poses) -> np.ndarray:
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

def _candidate_pairs(lo: np.ndarray, hi: np.ndarray, owner: np.ndarray, margin: float) -> np.ndarray:
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


# --- narrow phase -----------------------------------------------------------------

@dataclass(eq=False)
class _Candidate:
    """A touching set of one part on a face plane of another, before clipping to the face."""

    pair: int
    flip: bool  # the face belongs to the pair's second part
    dim: int  # 2 polygon, 1 segment, 0 point
    touch: np.ndarray  # (k, 2) in the face's (u, v), counter-clockwise for polygons
    face: np.ndarray | None  # (m, 2) the face polygon, None for the endless plane
    normal: np.ndarray  # (3,) the face's outward normal
    origin: np.ndarray  # (3,) the face plane's point nearest the world origin
    basis: np.ndarray  # (2, 3)


def _ragged(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For segments of the given lengths laid end to end: each element's segment and place in it."""
    counts = np.asarray(counts, dtype=int)
    seg = np.repeat(np.arange(len(counts)), counts)
    return seg, np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)


@dataclass(eq=False)
class _Table:
    """The placed parts' vertices, faces and face polygons in flat arrays (world)."""

    vstart: np.ndarray
    vcnt: np.ndarray
    fstart: np.ndarray
    fcnt: np.ndarray
    verts: np.ndarray  # (V, 3)
    normals: np.ndarray  # (F, 3)
    offsets: np.ndarray  # (F,)
    bases: np.ndarray  # (F, 2, 3)
    pstart: np.ndarray  # (F,) first polygon vertex of each face
    pcnt: np.ndarray  # (F,) its vertex count; 0 for the endless plane
    pverts: np.ndarray  # (P, 3)

    @classmethod
    def of(cls, parts: list) -> _Table:
        vcnt = np.array([len(p.vertices) for p in parts])
        fcnt = np.array([len(p.offsets) for p in parts])
        pcnt = np.concatenate([p.pcnt for p in parts])
        return cls(np.cumsum(vcnt) - vcnt, vcnt, np.cumsum(fcnt) - fcnt, fcnt,
                   np.vstack([p.vertices for p in parts]), np.vstack([p.normals for p in parts]),
                   np.concatenate([p.offsets for p in parts]), np.concatenate([p.bases for p in parts]),
                   np.cumsum(pcnt) - pcnt, pcnt, np.vstack([p.pverts for p in parts]))


def _touching_rows(table: _Table, pairs: np.ndarray, gap: float, depth: float):
    """Signed distances of every pair's vertices to the other part's face planes, all pairs at once.

    Each pair is looked at both ways round (faces of the first part, vertices of the second, and
    the reverse). A face plane is a candidate where the vertex part lies wholly outside it, at most
    ``depth`` inside and at least one vertex within ``gap`` of it.

    Args:
        table: the placed parts.
        pairs: (p, 2) part indices.

    Returns:
        Per candidate row: pair index, flip (the face is the second part's), the global face
        index, and the (v,) boolean mask of the touching vertices of the other part.
    """
    pair_idx = np.concatenate([np.arange(len(pairs))] * 2)
    flip = np.repeat([False, True], len(pairs))
    face_part = np.concatenate([pairs[:, 0], pairs[:, 1]])
    vert_part = np.concatenate([pairs[:, 1], pairs[:, 0]])
    live = table.vcnt[vert_part] > 0
    pair_idx, flip, face_part, vert_part = pair_idx[live], flip[live], face_part[live], vert_part[live]
    row_dir, row_face = _ragged(table.fcnt[face_part])  # one row per (directed pair, face)
    row_len = table.vcnt[vert_part[row_dir]]
    el_row, el_vert = _ragged(row_len)  # one element per (row, vertex)
    face_id = table.fstart[face_part[row_dir]] + row_face
    vert_id = table.vstart[vert_part[row_dir[el_row]]] + el_vert
    s = np.einsum("ij,ij->i", table.verts[vert_id], table.normals[face_id[el_row]]) - table.offsets[face_id[el_row]]
    starts = np.cumsum(row_len) - row_len
    smin = np.minimum.reduceat(s, starts)
    hit = np.flatnonzero((smin >= -depth) & (smin <= gap))
    on = s <= gap
    masks = [on[starts[r]:starts[r] + row_len[r]] for r in hit]
    d = row_dir[hit]
    return pair_idx[d], flip[d], face_id[hit], masks


def _facing_polygons(table: _Table, face: np.ndarray, other: np.ndarray, top: np.ndarray):
    """For faces and the parts touching them: the other part's face lying on each face's plane.

    Args:
        face: (r,) global face indices.
        other: (r,) the touching parts.
        top: (r,) the highest a vertex may lie on the face's plane (its offset plus the gap).

    Returns:
        (r,) the other part's global face index with the opposite normal whose polygon lies
        within the gap of the plane, or -1 where there is none.
    """
    n = table.normals[face]
    el_row, el_face = _ragged(table.fcnt[other])
    g_all = table.fstart[other][el_row] + el_face
    dots = np.einsum("ij,ij->i", table.normals[g_all], n[el_row])
    starts = np.cumsum(table.fcnt[other]) - table.fcnt[other]
    lowest = np.minimum.reduceat(dots, starts)
    first = np.flatnonzero(dots == lowest[el_row])
    rows, at = np.unique(el_row[first], return_index=True)
    g = np.full(len(face), -1)
    g[rows] = g_all[first[at]]
    g[lowest > -np.cos(tol.coplanar_angle)] = -1
    ok = np.flatnonzero(g >= 0)
    el2, k2 = _ragged(table.pcnt[g[ok]])
    height = np.einsum("ij,ij->i", table.pverts[table.pstart[g[ok]][el2] + k2], n[ok][el2])
    above = np.zeros(len(ok), dtype=bool)
    np.logical_or.at(above, el2, height > top[ok][el2])
    g[ok[above]] = -1
    return g


def _face_candidates(parts: list, pairs: np.ndarray, table: _Table, rows, gap: float) -> list:
    """The touching set of each candidate row, in its face's plane coordinates.

    A face-on-face overlap is found from both faces; the second finding (the second part's face
    facing a polygon already found from the first part's face) is skipped. Face-on-face rows are
    handled together in flat arrays; edges and corners one by one.
    """
    pair_k, flip, face, masks = rows
    count = np.array([np.count_nonzero(m) for m in masks], dtype=int)
    other = np.where(flip, pairs[pair_k, 0], pairs[pair_k, 1])
    g = np.full(len(face), -1)
    many = np.flatnonzero(count >= 3)
    g[many] = _facing_polygons(table, face[many], other[many], table.offsets[face[many]] + gap)
    # both faces of a face-on-face contact find it: keep the first part's
    first_side = {(int(k), int(fc)) for k, fc, fl, gg in zip(pair_k, face, flip, g) if gg >= 0 and not fl}
    out = []
    flat = np.flatnonzero(g >= 0)
    touch2d, face2d, overlap = _flat_projections(table, face[flat], g[flat], gap)
    for r, t2, f2, ok in zip(flat.tolist(), touch2d, face2d, overlap.tolist()):
        if ok and not (flip[r] and (int(pair_k[r]), int(g[r])) in first_side):
            out.append(_candidate(table, int(pair_k[r]), bool(flip[r]), int(face[r]), 2, t2, f2))
    for r in np.flatnonzero(g < 0).tolist():
        fid, ob = int(face[r]), parts[int(other[r])]
        n, basis = table.normals[fid], table.bases[fid]
        if count[r] >= 3:
            touch = _touching_polygon(ob, masks[r], n, basis)
            dim = 2 if len(touch) >= 3 else len(touch) - 1
        else:
            dim, touch = int(count[r]) - 1, ob.vertices[masks[r]] @ basis.T
        f2 = None if table.pcnt[fid] == 0 else _project(table, fid, basis)
        if dim == 2 and f2 is not None and not _boxes_overlap(touch, f2, gap):
            continue
        out.append(_candidate(table, int(pair_k[r]), bool(flip[r]), fid, dim, touch, f2))
    return out


def _project(table: _Table, fid: int, basis: np.ndarray) -> np.ndarray:
    """A face's polygon in a plane basis, (k, 2)."""
    return table.pverts[table.pstart[fid]:table.pstart[fid] + table.pcnt[fid]] @ basis.T


def _flat_projections(table: _Table, face: np.ndarray, g: np.ndarray, gap: float):
    """The facing polygons (reversed: counter-clockwise about the face normal) and the faces, in 2-d.

    Returns:
        Two lists of (k, 2) arrays (a face of the endless plane is None), and (r,) whether the
        two polygons' bounding boxes overlap by more than ``gap`` both ways (a face-on-face
        contact can only have an area there).
    """
    basis = table.bases[face]
    el, k = _ragged(table.pcnt[g])
    rev = table.pstart[g][el] + table.pcnt[g][el] - 1 - k
    t2 = np.einsum("ij,ikj->ik", table.pverts[rev], basis[el])
    el_f, k = _ragged(table.pcnt[face])
    f2 = np.einsum("ij,ikj->ik", table.pverts[table.pstart[face][el_f] + k], basis[el_f])
    overlap = np.ones(len(face), dtype=bool)
    bounded = np.flatnonzero(table.pcnt[face] > 0)
    if len(bounded):
        t_start = np.cumsum(table.pcnt[g]) - table.pcnt[g]
        f_cnt = table.pcnt[face[bounded]]
        f_start = np.cumsum(f_cnt) - f_cnt
        lo = np.maximum(np.minimum.reduceat(t2, t_start)[bounded], np.minimum.reduceat(f2, f_start))
        hi = np.minimum(np.maximum.reduceat(t2, t_start)[bounded], np.maximum.reduceat(f2, f_start))
        overlap[bounded] = np.all(hi - lo > gap, axis=1)
    touch = np.split(t2, np.cumsum(table.pcnt[g])[:-1])
    faces = np.split(f2, np.cumsum(table.pcnt[face])[:-1])
    return touch, [f if len(f) else None for f in faces], overlap


def _candidate(table: _Table, k: int, flip: bool, fid: int, dim: int, touch, face) -> _Candidate:
    n = table.normals[fid]
    return _Candidate(k, flip, dim, touch, face, n, n * table.offsets[fid], table.bases[fid])


def _boxes_overlap(p: np.ndarray, q: np.ndarray, gap: float) -> bool:
    """Whether the 2-d bounding boxes of two polygons overlap by more than ``gap`` both ways."""
    lo = np.maximum(p.min(axis=0), q.min(axis=0))
    hi = np.minimum(p.max(axis=0), q.max(axis=0))
    return bool(hi[0] - lo[0] > gap and hi[1] - lo[1] > gap)


def _touching_polygon(ob: _Placed, on: np.ndarray, n: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """The hull of the vertices ``on`` of ``ob`` on a plane of normal ``n``, in (u, v), counter-clockwise."""
    pts = ob.vertices[on] @ basis.T
    geom = shapely.MultiPoint(pts).convex_hull
    if geom.geom_type == "Polygon":
        return np.asarray(shapely.geometry.polygon.orient(geom, 1.0).exterior.coords)[:-1]
    return _segment(np.asarray(geom.coords))


def _segment(coords: np.ndarray) -> np.ndarray:
    """The two extreme points of roughly collinear points, or one point if they coincide; (k, 2)."""
    coords = np.unique(coords, axis=0)
    if len(coords) <= 1:
        return coords
    centred = coords - coords.mean(axis=0)
    t = centred @ np.linalg.svd(centred, full_matrices=False)[2][0]
    ends = coords[[int(np.argmin(t)), int(np.argmax(t))]]
    return ends[:1] if np.linalg.norm(ends[1] - ends[0]) <= tol.merge else ends


def _geometries(arrays: list, kind: str) -> np.ndarray:
    """Shapely geometries of (k, 2) arrays in one vectorised call: ``polygon``, ``line`` or ``point``."""
    if not arrays:
        return np.empty(0, dtype=object)
    if kind == "point":
        return shapely.points(np.array([a[0] for a in arrays]))
    coords = np.vstack(arrays)
    index = np.repeat(np.arange(len(arrays)), [len(a) for a in arrays])
    if kind == "line":
        return shapely.linestrings(coords, indices=index)
    return shapely.polygons(shapely.linearrings(coords, indices=index))


def _clip(cands: list) -> list:
    """Clip every candidate's touching set to its face polygon (shapely, vectorised).

    Returns:
        One (dim, area, points (k, 2)) per candidate, or None where nothing is left. Polygons
        that clip to less than an area (two faces meeting only along their rims) are dropped.
    """
    touch = np.empty(len(cands), dtype=object)
    for dim, kind in ((2, "polygon"), (1, "line"), (0, "point")):
        idx = [i for i, c in enumerate(cands) if c.dim == dim]
        touch[idx] = _geometries([cands[i].touch for i in idx], kind)
    bounded = [i for i, c in enumerate(cands) if c.face is not None]
    clipped = touch.copy()
    clipped[bounded] = shapely.intersection(touch[bounded], _geometries([cands[i].face for i in bounded], "polygon"))
    areas = shapely.area(clipped)
    types = shapely.get_type_id(clipped)
    coords, index = shapely.get_coordinates(clipped, return_index=True)
    pieces = np.split(coords, np.searchsorted(index, np.arange(1, len(cands))))
    out = []
    for c, pts, area, kind in zip(cands, pieces, areas, types):
        if len(pts) == 0:
            out.append(None)
        elif c.dim == 2:
            out.append(_polygon_points(pts, float(area)) if kind == POLYGON_TYPE else None)
        else:
            pts = _segment(pts)
            out.append((len(pts) - 1, 0.0, pts))
    return out


POLYGON_TYPE = 3  # shapely's geometry type id of a Polygon


def _polygon_points(closed: np.ndarray, area: float):
    """A clipped face overlap (closed ring, (k + 1, 2)) as (2, area, (k, 2) counter-clockwise).

    Returns None for an overlap thinner than the contact gap: two faces touching along their rims.
    Plain Python: these rings have a handful of vertices, too few for numpy to pay off.
    """
    ring = closed.tolist()
    k = len(ring) - 1
    longest = max(math.dist(ring[i], ring[i + 1]) for i in range(k))
    if area <= tol.coplanar * longest:
        return None
    signed = sum(ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1] for i in range(k))
    pts = ring[:k] if signed > 0 else ring[k:0:-1]
    keep = []
    for i in range(k):  # drop vertices on the line through their neighbours
        (px, py), (cx, cy), (nx, ny) = pts[i - 1], pts[i], pts[(i + 1) % k]
        cross = (cx - px) * (ny - cy) - (cy - py) * (nx - cx)
        if abs(cross) > tol.merge * max(abs(cx - px) + abs(cy - py), abs(nx - cx) + abs(ny - cy), tol.merge):
            keep.append(pts[i])
    return 2, area, np.array(keep if len(keep) >= 3 else pts)


def find_interfaces(scene, poses=None, *, gap: float | None = None, depth: float | None = None) -> list[Interface]:
    """Every contact between convex parts of different pieces, and between pieces and the board.

    Two convex parts touch where one's vertices lie on (within ``gap`` above,
    or ``depth`` below) a face plane of the other, which the other lies
    wholly outside of. Those vertices' convex hull, clipped to the face
    polygon, is the interface: a polygon for face-on-face contact, a segment
    for an edge lying on a face, a point for a corner on a face. Two faces
    that meet only along their rims (blocks side by side touching a third
    along an edge of its face) give no interface, and neither do edge-on-edge
    crossings (two edges touching at one point, neither lying in a face of the
    other). Convex parts touch over one convex set, so each pair of parts has
    at most one interface: the one of highest dimension, then largest area.

    The board is its slab's parts (top at z = 0) plus the endless table under
    it (the plane z = -thickness; z = 0 for the ``table`` board). Interfaces
    are oriented so that their normal points up (or is horizontal): ``b``
    rests on ``a``; the board is always ``a``.

    Args:
        scene: the scene.
        poses: (n, 7) poses in file order, or a mapping id -> (7,); None for the scene's own.
        gap: largest separation that still counts as touching (m); default ``tol.coplanar``.
        depth: largest interpenetration that still counts as touching (m); default ``tol.overlap``.

    Returns:
        The interfaces, ordered by (a, b) as the pieces appear in the scene, board first.
    """
    gap = tol.coplanar if gap is None else gap
    depth = tol.overlap if depth is None else depth
    poses = _resolve_poses(scene, poses)
    rank = {BOARD: -1} | {p.id: i for i, p in enumerate(scene.pieces)}
    parts = _board_parts(scene) + _scene_parts(scene, poses)
    finite = [p for p in parts if len(p.vertices)]
    lo = np.array([p.lo for p in finite])
    hi = np.array([p.hi for p in finite])
    owner = np.array([rank[p.piece] for p in finite])
    pairs = _candidate_pairs(lo, hi, owner, gap + depth)
    for plane in (p for p in parts if not len(p.vertices)):
        z0 = plane.offsets[0]
        near = np.flatnonzero((owner >= 0) & (lo[:, 2] <= z0 + gap) & (lo[:, 2] >= z0 - depth))
        finite.append(plane)
        pairs = np.vstack([pairs, np.column_stack([np.full(len(near), len(finite) - 1), near])])
    swap = np.array([rank[finite[i].piece] > rank[finite[j].piece] for i, j in pairs], dtype=bool)
    pairs[swap] = pairs[swap][:, ::-1]
    if len(pairs) == 0:
        return []
    table = _Table.of(finite)
    cands = _face_candidates(finite, pairs, table, _touching_rows(table, pairs, gap, depth), gap)
    best: dict[int, tuple] = {}
    for c, res in zip(cands, _clip(cands) if cands else []):
        if res is not None and (c.pair not in best or res[:2] > best[c.pair][0][:2]):
            best[c.pair] = (res, c)
    out = [_interface((finite[pairs[k][0]], finite[pairs[k][1]]), res, c) for k, (res, c) in best.items()]
    out.sort(key=lambda f: (rank[f.a], rank[f.b], f.part_a, f.part_b))
    return out


def _interface(pair, res, c: _Candidate) -> Interface:
    """The interface record of a pair's chosen contact, oriented so that its normal points up."""
    pa, pb = pair
    _, area, xy = res
    pts = c.origin + xy @ c.basis
    normal = c.normal
    if c.flip:  # the face is b's: seen from a the normal points into b
        normal, pts = -normal, pts[::-1]
    a, b, part_a, part_b = pa.piece, pb.piece, pa.part, pb.part
    if normal[2] < -np.sin(tol.coplanar_angle) or b == BOARD:
        a, b, part_a, part_b, normal, pts = b, a, part_b, part_a, -normal, pts[::-1]
    return Interface(a, b, part_a, part_b, normal.copy(), np.ascontiguousarray(pts), area)
