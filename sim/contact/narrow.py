"""The narrow phase: the touching sets of parts on each other's face planes, before clipping.

Candidate face planes of all pairs are found at once in flat numpy arrays;
face-on-face contacts are projected together; edges and corners on faces are
handled one by one. :mod:`sim.contact.clip` clips them to the faces.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.contact.clip import touching_polygon
from sim.contact.placed import PlacedParts
from sim.contact.ragged import batched_products, ragged, split
from sim.tol import tol

BOUND_ROWS = 256  # rows (pair direction, face) above which ruling rows out by cheap bounds first pays


@dataclass(eq=False)
class Candidate:
    """A touching set of one part on a face plane of another, before clipping to the face."""

    pair: int
    flip: bool  # the face belongs to the pair's second part
    dim: int  # 2 polygon, 1 segment, 0 point
    touch: np.ndarray  # (k, 2) in the face's (u, v), counter-clockwise for polygons
    face: np.ndarray | None  # (m, 2) the face polygon, None for the endless plane
    normal: np.ndarray  # (3,) the face's outward normal
    origin: np.ndarray  # (3,) the face plane's point nearest the world origin
    basis: np.ndarray  # (2, 3)


def _dot3(a: np.ndarray, ia: np.ndarray, b: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """Dot products of vectors picked from two sets: ``a[:, ia]`` · ``b[:, ib]``.

    The same numbers as ``einsum("ij,ij->i", a.T[ia], b.T[ib])``, several times faster: gathering
    columns beats gathering rows, and the products are added in einsum's order, (x + z) + y, so
    results match it bit for bit.

    Args:
        a, b: (3, N) and (3, M) vectors, one row per axis.
        ia, ib: (n,) indices into them.

    Returns:
        (n,) dot products.
    """
    return (a[0][ia] * b[0][ib] + a[2][ia] * b[2][ib]) + a[1][ia] * b[1][ib]


def touching_rows(placed: PlacedParts, pairs: np.ndarray, gap: float, depth: float):
    """Signed distances of every pair's vertices to the other part's face planes, all pairs at once.

    Each pair is looked at both ways round (faces of the first part, vertices of the second, and
    the reverse). A face plane is a candidate where the vertex part lies wholly outside it, at most
    ``depth`` inside and at least one vertex within ``gap`` of it.

    Args:
        placed: the placed parts.
        pairs: (p, 2) part indices.

    Returns:
        Per candidate row: pair index, flip (the face is the second part's), the global face
        index, and the number of touching vertices of the other part; then ``on`` (E,), whether
        each vertex of every row lies within the gap, and each candidate row's first place in it
        (a row's vertices are the other part's, in order).
    """
    face_part = pairs.T.ravel()  # the pairs' first parts, then their second parts
    vert_part = pairs[:, ::-1].T.ravel()
    live = (placed.vcnt[vert_part] > 0).nonzero()[0]
    pair_idx, flip, face_part, vert_part = live % len(pairs), live >= len(pairs), face_part[live], vert_part[live]
    row_dir, row_face = ragged(placed.fcnt[face_part])  # one row per (directed pair, face)
    face_id = placed.fstart[face_part[row_dir]] + row_face
    if len(face_id) > BOUND_ROWS:
        maybe = _may_touch(placed, face_id, vert_part[row_dir], gap, depth)
        row_dir, face_id = row_dir[maybe], face_id[maybe]
    row_len = placed.vcnt[vert_part[row_dir]]
    el_row, el_vert = ragged(row_len)  # one element per (row, vertex)
    vert_id = placed.vstart[vert_part[row_dir[el_row]]] + el_vert
    el_face = face_id[el_row]
    s = _dot3(placed.vcols, vert_id, placed.ncols, el_face) - placed.offsets[el_face]
    starts = row_len.cumsum() - row_len
    smin = np.minimum.reduceat(s, starts)
    hit = ((smin >= -depth) & (smin <= gap)).nonzero()[0]
    on = s <= gap
    count = np.add.reduceat(on, starts)[hit]
    d = row_dir[hit]
    return pair_idx[d], flip[d], face_id[hit], count, on, starts[hit]


def _may_touch(placed: PlacedParts, face: np.ndarray, part: np.ndarray, gap: float, depth: float) -> np.ndarray:
    """Whether a part's nearest vertex may lie within (-depth, gap) of a face plane, from cheap bounds.

    Its box bounds that vertex's distance from below, its vertex centroid from above; rows ruled
    out (by more than ``tol.merge``, far beyond rounding) cannot touch, so skipping them changes
    nothing but the time.

    Args:
        face: (r,) global face indices.
        part: (r,) the parts whose vertices are tested against them.

    Returns:
        (r,) bool.
    """
    n, offset = placed.normals[face], placed.offsets[face]
    low = np.minimum(n * placed.lo[part], n * placed.hi[part]).sum(axis=1) - offset
    high = (n * placed.centroids[part]).sum(axis=1) - offset
    return (low <= gap + tol.merge) & (high >= -depth - tol.merge)


def _facing_polygons(placed: PlacedParts, face: np.ndarray, other: np.ndarray, top: np.ndarray):
    """For faces and the parts touching them: the other part's face lying on each face's plane.

    Args:
        face: (r,) global face indices.
        other: (r,) the touching parts.
        top: (r,) the highest a vertex may lie on the face's plane (its offset plus the gap).

    Returns:
        (r,) the other part's global face index with the opposite normal whose polygon lies
        within the gap of the plane, or -1 where there is none.
    """
    fcnt = placed.fcnt[other]
    el_row, el_face = ragged(fcnt)
    g_all = placed.fstart[other][el_row] + el_face
    dots = _dot3(placed.ncols, g_all, placed.ncols, face[el_row])
    lowest = np.minimum.reduceat(dots, fcnt.cumsum() - fcnt)
    first = (dots == lowest[el_row]).nonzero()[0]
    rows = el_row[first]  # ascending: keep each row's first
    lead = np.ones(len(rows), dtype=bool)
    lead[1:] = rows[1:] != rows[:-1]
    g = np.full(len(face), -1)
    g[rows[lead]] = g_all[first[lead]]
    g[lowest > -np.cos(tol.coplanar_angle)] = -1
    ok = (g >= 0).nonzero()[0]
    el2, k2 = ragged(placed.pcnt[g[ok]])
    height = _dot3(placed.pcols, placed.pstart[g[ok]][el2] + k2, placed.ncols, face[ok][el2])
    g[ok[el2[height > top[ok][el2]]]] = -1  # a vertex above the plane
    return g


def face_candidates(pairs: np.ndarray, placed: PlacedParts, rows, gap: float) -> list:
    """The touching set of each candidate row, in its face's plane coordinates.

    A face-on-face overlap is found from both faces; the second finding (the second part's face
    facing a polygon already found from the first part's face) is skipped. Face-on-face rows are
    handled together in flat arrays; edges and corners one by one.
    """
    pair_k, flip, face, count, on, start = rows
    other = pairs[pair_k, 1 - flip]  # the part whose vertices touch the face
    g = np.full(len(face), -1)
    many = (count >= 3).nonzero()[0]
    if len(many):
        g[many] = _facing_polygons(placed, face[many], other[many], placed.offsets[face[many]] + gap)
    # both faces of a face-on-face contact find it: keep the first part's
    flat = (g >= 0).nonzero()[0]
    first_side = flat[~flip[flat]]
    n_faces = len(placed.offsets)
    seen = isin(pair_k[flat] * n_faces + g[flat], pair_k[first_side] * n_faces + face[first_side])
    flat = flat[~(flip[flat] & seen)]
    origins = placed.normals[face] * placed.offsets[face][:, None]
    out = []
    if len(flat):
        overlap, touch2d, face2d = _flat_projections(placed, face[flat], g[flat], gap)
        flat = flat[overlap]
        out = [Candidate(k, fl, 2, t2, f2, placed.normals[fid], origin, placed.bases[fid])
               for k, fl, fid, t2, f2, origin in zip(pair_k[flat].tolist(), flip[flat].tolist(), face[flat].tolist(),
                                                     touch2d, face2d, origins[flat])]
    rest = (g < 0).nonzero()[0]
    if not len(rest):
        return out
    edges = rest[count[rest] == 2]  # an edge on a face: its two vertices, projected together
    edge_touch = dict(zip(edges.tolist(), _touching_pairs(placed, on, start[edges], other[edges], face[edges])))
    for r, f2 in zip(rest.tolist(), _projected_faces(placed, face[rest])):
        fid = int(face[r])
        basis = placed.bases[fid]
        if r in edge_touch:
            dim, touch = 1, edge_touch[r]
        else:
            verts = placed.vertices(int(other[r]))
            mask = on[start[r]:start[r] + len(verts)]
            if count[r] >= 3:
                touch = touching_polygon(verts[mask], basis)
                dim = 2 if len(touch) >= 3 else len(touch) - 1
            else:
                dim, touch = int(count[r]) - 1, verts[mask] @ basis.T
        if dim == 2 and f2 is not None and not _boxes_overlap(touch, f2, gap):
            continue
        out.append(Candidate(int(pair_k[r]), bool(flip[r]), dim, touch, f2, placed.normals[fid], origins[r], basis))
    return out


def isin(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.isin(a, b)`` for integer arrays; short ones compared all against all (np.isin costs ~50 µs)."""
    if len(a) * len(b) > 4096:
        return np.isin(a, b)
    return (a[:, None] == b).any(axis=1)


def _touching_pairs(placed: PlacedParts, on: np.ndarray, start: np.ndarray, part: np.ndarray, face: np.ndarray):
    """For rows where exactly two vertices of a part touch a face: those two in the face's (u, v), (r, 2, 2).

    Batched products: the same numbers as each row's own ``vertices @ basis.T``.
    """
    el, at = ragged(placed.vcnt[part])
    ids = (placed.vstart[part][el] + at)[on[start[el] + at]].reshape(-1, 2)
    return placed.verts[ids] @ placed.bases[face].transpose(0, 2, 1)


def _projected_faces(placed: PlacedParts, face: np.ndarray) -> list:
    """Faces' polygons in their own (u, v), (k, 2) each (None for the endless plane), in batched products."""
    cnt = placed.pcnt[face].tolist()
    bounded = [i for i, k in enumerate(cnt) if k]
    polys = [placed.pverts[placed.pstart[face[i]]:placed.pstart[face[i]] + cnt[i]] for i in bounded]
    out = [None] * len(face)
    for i, proj in zip(bounded, batched_products(polys, placed.bases[face[bounded]].transpose(0, 2, 1))):
        out[i] = proj
    return out


def _flat_projections(placed: PlacedParts, face: np.ndarray, g: np.ndarray, gap: float):
    """The facing polygons (reversed: counter-clockwise about the face normal) and the faces, in 2-d.

    Returns:
        (r,) whether the two polygons' bounding boxes overlap by more than ``gap`` both ways (a
        face-on-face contact can only have an area there); then, for the rows that do, two lists
        of (k, 2) arrays (a face of the endless plane is None).
    """
    r = len(face)
    cnt = np.concatenate([placed.pcnt[g], placed.pcnt[face]])  # the facing polygons', then the faces'
    row, k = ragged(cnt)
    # the facing polygons' vertices last to first, the faces' first to last
    vert = np.concatenate([placed.pstart[g] + cnt[:r] - 1, placed.pstart[face]])[row] + np.where(row < r, -k, k)
    fid = np.concatenate([face, face])[row]
    uv = np.column_stack([_dot3(placed.pcols, vert, b, fid) for b in placed.bcols])
    overlap = np.ones(r, dtype=bool)
    bounded = (cnt[r:] > 0).nonzero()[0]
    if len(bounded):
        starts = (cnt.cumsum() - cnt)[np.concatenate([np.arange(r), r + bounded])]
        low, high = np.minimum.reduceat(uv, starts), np.maximum.reduceat(uv, starts)
        lo = np.maximum(low[:r][bounded], low[r:])
        hi = np.minimum(high[:r][bounded], high[r:])
        overlap[bounded] = (hi - lo > gap).all(axis=1)
    rows = overlap.nonzero()[0]
    faces = [f if len(f) else None for f in split(uv, cnt, r + rows)]
    return overlap, split(uv, cnt, rows), faces


def _boxes_overlap(p: np.ndarray, q: np.ndarray, gap: float) -> bool:
    """Whether the 2-d bounding boxes of two polygons overlap by more than ``gap`` both ways."""
    lo = np.maximum(p.min(axis=0), q.min(axis=0))
    hi = np.minimum(p.max(axis=0), q.max(axis=0))
    return bool(hi[0] - lo[0] > gap and hi[1] - lo[1] > gap)
