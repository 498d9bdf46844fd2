"""Clipping touching sets to the faces they lie on (shapely, vectorised), and the overlaps as contact points.

Face-on-face overlaps are clipped in one vectorised shapely call and turned
into counter-clockwise polygons all at once; segments and points keep their
extreme points.
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from sim.contact.faces import straight_corners
from sim.contact.ragged import ragged, split
from sim.tol import tol

PICOMETRE = 1e-12  # the grid (m) of the robust clipping, when the floating one fails: far below any precision


def touching_polygon(on: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """The hull of the points ``on`` (k, 3) projected to a plane of basis (2, 3), in (u, v), counter-clockwise."""
    pts = on @ basis.T
    geom = shapely.MultiPoint(pts).convex_hull
    if geom.geom_type == "Polygon":
        return np.asarray(shapely.geometry.polygon.orient(geom, 1.0).exterior.coords)[:-1]
    return segment(np.asarray(geom.coords))


def segment(coords: np.ndarray) -> np.ndarray:
    """The two extreme points of roughly collinear points, or one point if they coincide; (k, 2)."""
    coords = np.unique(coords, axis=0)
    if len(coords) <= 1:
        return coords
    centred = coords - coords.mean(axis=0)
    t = centred @ np.linalg.svd(centred, full_matrices=False)[2][0]
    ends = coords[[int(np.argmin(t)), int(np.argmax(t))]]
    return ends[:1] if np.linalg.norm(ends[1] - ends[0]) <= tol.merge else ends


def geometries(arrays: list, kind: str) -> np.ndarray:
    """Shapely geometries of (k, 2) arrays in one vectorised call: ``polygon``, ``line`` or ``point``."""
    if not arrays:
        return np.empty(0, dtype=object)
    if kind == "point":
        return shapely.points(np.array([a[0] for a in arrays]))
    lengths = [len(a) for a in arrays]
    if min(lengths) == max(lengths):  # one (n, k, 2) array: no index to build nor read (several times faster)
        return shapely.linestrings(np.array(arrays)) if kind == "line" else shapely.polygons(np.array(arrays))
    coords = np.concatenate(arrays)
    index = np.arange(len(arrays)).repeat(lengths)
    if kind == "line":
        return shapely.linestrings(coords, indices=index)
    return shapely.polygons(shapely.linearrings(coords, indices=index))


def clip(cands: list) -> list:
    """Clip every candidate's touching set to its face polygon (shapely, vectorised).

    Returns:
        One (dim, area, points (k, 2)) per candidate, or None where nothing is left. Polygons
        that clip to less than an area (two faces meeting only along their rims) are dropped.
    """
    dims = [c.dim for c in cands]
    touch = np.empty(len(cands), dtype=object)
    polygons = [i for i, d in enumerate(dims) if d == 2]
    bounded = [i for i, c in enumerate(cands) if c.face is not None]
    # the touching polygons and the faces, made in one call
    touches = _snapped(cands, polygons)
    made = geometries(touches + [cands[i].face for i in bounded], "polygon")
    touch[polygons] = made[:len(polygons)]
    for dim, kind in ((1, "line"), (0, "point")):
        idx = [i for i, d in enumerate(dims) if d == dim]
        if idx:
            touch[idx] = geometries([cands[i].touch for i in idx], kind)
    clipped = touch.copy()
    if bounded:
        clipped[bounded] = shapely.intersection(touch[bounded], made[len(polygons):])
        _clip_again(clipped, touch, made[len(polygons):], bounded, dims,
                    [cands[i].face for i in bounded], dict(zip(polygons, touches)))
    coords, index = shapely.get_coordinates(clipped, return_index=True)
    counts = np.bincount(index, minlength=len(cands))
    pieces = split(coords, counts)
    out = [None] * len(cands)
    if polygons:
        polygon = shapely.get_type_id(clipped) == shapely.GeometryType.POLYGON
        rings = ((counts > 0) & polygon & (np.array(dims) == 2)).nonzero()[0]
        rows = rings.tolist()
        areas = shapely.area(clipped[rings])
        for r, res in zip(rows, _polygons_points([pieces[r] for r in rows], counts[rings], areas)):
            out[r] = res
    rows = [r for r, (d, pts) in enumerate(zip(dims, pieces)) if d < 2 and len(pts)]
    for r, pts in zip(rows, _segments([pieces[r] for r in rows])):
        out[r] = (len(pts) - 1, 0.0, pts)
    return out


def _snapped(cands: list, rows: list) -> list:
    """The touching polygons of ``rows``, each corner within ``tol.precision`` of a corner of its face moved
    onto that corner.

    A corner two pieces share (the same rounded point in a file, placed with each piece's pose) comes
    out of the two placements a few bits apart; moved onto one another, coincident edges are
    coincident again, which GEOS clips as it should (two copies of one polygon whose corners differ in
    the last bits clipped to a few points).
    """
    touches = [cands[i].touch for i in rows]
    faced = [k for k, i in enumerate(rows) if cands[i].face is not None]
    if not faced:
        return touches
    t = [touches[k] for k in faced]
    f = [cands[rows[k]].face for k in faced]
    tk, fk = np.array([len(x) for x in t]), np.array([len(x) for x in f])
    tv, fv = np.concatenate(t), np.concatenate(f)
    row, at = ragged(tk * fk)  # every corner of a touching polygon with every corner of its face
    ti = (tk.cumsum() - tk)[row] + at // fk[row]
    fi = (fk.cumsum() - fk)[row] + at % fk[row]
    d = tv[ti] - fv[fi]
    d2 = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]
    close = ((d2 <= tol.precision * tol.precision) & (d2 > 0.0)).nonzero()[0]  # apart, but not by more
    if not len(close):
        return touches
    tv = tv.copy()
    tv[ti[close]] = fv[fi[close]]
    moved = np.unique(row[close])
    for r, m in zip(moved.tolist(), split(tv, tk, moved)):
        touches[faced[r]] = m
    return touches


def _clip_again(clipped: np.ndarray, touch: np.ndarray, faces: np.ndarray, bounded: list, dims: list,
                face_points: list, touch_points: dict) -> None:
    """Clip once more, snapping to a picometre grid (GEOS's snap-rounding overlay, robust but some five times
    slower), the face-on-face candidates whose overlap came out less than a polygon although the centre of
    one polygon lies inside the other by more than the gap: there the overlap has an area, and the
    floating overlay failed (on nearly coincident edges: two copies of one polygon). Faces meeting along
    their rims have no such centre.

    Args:
        clipped, touch: per candidate, the clipped and the touching geometries (shapely).
        faces: per bounded candidate, its face (shapely).
        bounded: the candidates with a face.
        dims: per candidate, its dimension.
        face_points: per bounded candidate, its face polygon (m, 2).
        touch_points: candidate -> its touching polygon (k, 2), for the polygons.
    """
    rows = [k for k, i in enumerate(bounded) if dims[i] == 2]
    if not rows:
        return
    got = shapely.get_type_id(clipped[[bounded[k] for k in rows]]).tolist()
    odd = [k for k, g in zip(rows, got) if g != shapely.GeometryType.POLYGON]
    if not odd:
        return
    mine = [touch_points[bounded[k]] for k in odd]
    theirs = [face_points[k] for k in odd]
    deep = _centre_inside(mine, theirs) | _centre_inside(theirs, mine)
    again = [k for k, d in zip(odd, deep.tolist()) if d]
    if again:
        idx = [bounded[k] for k in again]
        clipped[idx] = shapely.intersection(touch[idx], faces[again], grid_size=PICOMETRE)


def _centre_inside(points: list, polygons: list) -> np.ndarray:
    """(r,) whether the mean of ``points[i]`` (k, 2) lies inside the convex counter-clockwise polygon
    ``polygons[i]`` (m, 2), farther than ``tol.coplanar`` from each of its edges; all rows at once."""
    pk, qk = np.array([len(p) for p in points]), np.array([len(q) for q in polygons])
    centres = np.add.reduceat(np.concatenate(points), pk.cumsum() - pk) / pk[:, None]
    qv = np.concatenate(polygons)
    row, j = ragged(qk)  # every edge of every polygon
    start = qk.cumsum() - qk
    a = qv[start[row] + j]
    e = qv[start[row] + (j + 1) % qk[row]] - a
    x = centres[row] - a
    inside = (e[:, 0] * x[:, 1] - e[:, 1] * x[:, 0]) > tol.coplanar * np.hypot(e[:, 0], e[:, 1])
    return np.logical_and.reduceat(inside, start)


def _segments(coords: list) -> list:
    """:func:`segment` of each (k, 2) array; a lone point (a corner on a face) is itself."""
    return [c.copy() if len(c) == 1 else segment(c) for c in coords]


def _polygons_points(rings: list, counts: np.ndarray, areas: np.ndarray) -> list:
    """Clipped face overlaps (closed rings (k + 1, 2)) as (2, area, (k, 2) counter-clockwise), all at once.

    An overlap thinner than the contact gap (two faces touching along their rims) gives None.
    Vertices within ``tol.precision`` of the line through their neighbours are dropped (unless fewer
    than three would be left): :func:`sim.contact.faces.straight_corners`.

    Args:
        rings: the closed rings (views).
        counts: (r,) their lengths, k + 1.
        areas: (r,) their areas (m²).
    """
    if not len(rings):
        return []
    closed = np.concatenate(rings)
    k = counts - 1
    er, j = ragged(k)  # each edge's ring, and its place there: from point j to j + 1
    first = (counts.cumsum() - counts)[er]
    edge = first + j  # its first point in ``closed``
    start, end = closed[edge], closed[edge + 1]
    d = end - start
    starts = k.cumsum() - k
    longest = np.sqrt(np.maximum.reduceat(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1], starts))
    limit = tol.coplanar * longest
    near = np.abs(areas - limit) <= tol.area_recheck_rel * limit  # decide these as ever, with math.dist
    for r in near.nonzero()[0].tolist():
        ring_r = rings[r].tolist()
        limit[r] = tol.coplanar * max(math.dist(ring_r[i], ring_r[i + 1]) for i in range(int(k[r])))
    signed = np.add.reduceat(start[:, 0] * end[:, 1] - end[:, 0] * start[:, 1], starts)
    # counter-clockwise: points 0 .. k-1 as they are, else k, k-1, .. 1
    ccw = signed[er] > 0
    ke = k[er]
    pts = closed[np.where(ccw, edge, first + ke - j)]
    at = edge - er  # each point's place in ``pts``
    after, before = np.where(j == ke - 1, at - j, at + 1), np.where(j == 0, at + ke - 1, at - 1)
    b = pts[after] - pts  # to the next point
    a = b[before]  # from the previous point: the same two numbers subtracted
    cross = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
    # within the precision of the chord from the previous point to the next (or a repeated point)
    straight = np.abs(cross) <= tol.precision * np.hypot(a[:, 0] + b[:, 0], a[:, 1] + b[:, 1])
    # such a point between two corners goes at once (what straight_corners does with it); runs of them
    # (points a nanometre apart, a finely divided edge) take the walk round
    run = straight & (straight[before] | straight[after])
    kept = np.add.reduceat(~straight, starts)
    walk = (np.add.reduceat(run, starts) > 0) | (kept < 3)
    simple = ~straight | walk[er]
    pieces = split(pts[simple], np.add.reduceat(simple, starts))
    for r in (walk & (np.add.reduceat(straight, starts) > 0)).nonzero()[0].tolist():
        pieces[r] = pieces[r][straight_corners(pieces[r], tol.precision)]
    return [None if area <= lim else (2, area, poly) for area, lim, poly in zip(areas.tolist(), limit.tolist(), pieces)]
