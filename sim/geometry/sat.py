"""How deep two convex polytopes interpenetrate: the separating-axis depth, exactly, in near-linear time.

The depth of convex solids A and B is the least overlap of their projections
over all directions: the least of ``h_D(u) = max_A u·x - min_B u·x`` over unit
``u``, the support function of the Minkowski difference ``D = A ⊕ (-B)``, which
the origin lies inside when they interpenetrate. Every direction gives an upper
bound; the least is reached at a facet normal of D, and those are of three
kinds (the separating axis theorem): a face normal of A, the reverse of a face
normal of B, and the cross product of an edge of A and an edge of B whose arcs
on the Gauss map cross (a *Minkowski face*; Gregorius, "The Separating Axis
Test between Convex Polyhedra", GDC 2013).

Trying every edge of one against every edge of the other, projecting both
solids on each cross product, costs ``e_A · e_B · (v_A + v_B)``: hours for two
hulls of 10 000 points. Here the work is near-linear:

* **faces**: for a face of A with outward normal n and plane offset d,
  ``h_D(n) = d - min_B n·x``; any point of B gives a lower bound, the vertex of
  B's face whose normal is nearest to ``-n`` (a k-d tree of normals) a close
  one; faces are evaluated exactly in the order of their lower bounds until
  none could beat the least found;
* **edges**: an edge's arc on the Gauss map is where it supports its solid, so
  along it ``h_D(u) >= u·(p_a - b)`` for any point b of B, a bound whose least
  along the arc has a closed form; edges that cannot beat the faces' best are
  dropped; the arcs left are paired through a k-d tree of their pieces (arcs
  that cross lie within their pieces' radii); each crossing pair's axis is
  worth ``u·(p_a - p_b)`` exactly (the edges support both solids there), and a
  pair accepted by rounding is still a lower bound, so candidates are
  evaluated exactly in that order, as the faces are.

Facets of one plane (qhull's triangulation of a merged facet) share an
equation bit for bit, so the edges between them, which are not edges of the
solid, are known without a tolerance. Pure numpy and scipy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.spatial import ConvexHull, cKDTree

CHUNK = 1 << 21
"""The most projections (axes times vertices) computed at once: 16 MiB of float64."""

SMALL = 4096
"""Up to this many edge pairs (or face-vertex products for faces) every one is tried, without bounds or trees."""


@dataclass(frozen=True, eq=False)
class Polytope:
    """A convex polytope's vertices, faces and edges, for depth queries.

    Attributes:
        vertices: (v, 3) its hull's vertices.
        vertex_index: (v,) where each of ``vertices`` was among the points it was made of (ascending).
        normals: (f, 3) outward unit face normals, one per plane.
        offsets: (f,) plane offsets: a face is ``normals[i] · x = offsets[i]``.
        face_vertex: (f,) a vertex on each face (an index into ``vertices``).
        edge_points: (e, 3) one end of each edge.
        edge_dirs: (e, 3) unit edge directions, each pointing along ``n2 × n1`` of its two faces.
        edge_normals: (e, 2, 3) the normals ``n1``, ``n2`` of the faces on either side of each edge.
        edge_tangents: (e, 3) the unit tangent ``t`` at ``n1`` of each edge's arc on the Gauss map, from ``n1``
            to ``n2`` in the plane across the edge: the arc is ``cos θ n1 + sin θ t``, θ in 0..``edge_spans``.
        edge_spans: (e,) each arc's angle (rad, 0..π): the edge's exterior dihedral angle.
    """

    vertices: np.ndarray
    vertex_index: np.ndarray
    normals: np.ndarray
    offsets: np.ndarray
    face_vertex: np.ndarray
    edge_points: np.ndarray
    edge_dirs: np.ndarray
    edge_normals: np.ndarray
    edge_tangents: np.ndarray
    edge_spans: np.ndarray

    def moved(self, rot: np.ndarray, pos: np.ndarray) -> Polytope:
        """The polytope turned by ``rot`` (3, 3) and then moved by ``pos`` (3,)."""
        normals = self.normals @ rot.T
        return Polytope(self.vertices @ rot.T + pos, self.vertex_index, normals, self.offsets + normals @ pos,
                        self.face_vertex, self.edge_points @ rot.T + pos, self.edge_dirs @ rot.T,
                        self.edge_normals @ rot.T, self.edge_tangents @ rot.T, self.edge_spans)

    @cached_property
    def _normal_tree(self) -> cKDTree:
        return cKDTree(self.normals)

    def support_guess(self, dirs: np.ndarray) -> np.ndarray:
        """(k, 3) points of the polytope far along each unit direction of ``dirs`` (k, 3): a vertex of the face
        whose normal is nearest; the farthest vertex itself for a fine polytope, and a point of it always."""
        _, face = self._normal_tree.query(dirs)
        return self.vertices[self.face_vertex[face]]


def polytope(vertices) -> Polytope:
    """The convex hull of ``vertices`` (k, 3), k >= 4 not in one plane, as a :class:`Polytope`."""
    pts = np.asarray(vertices, dtype=float)
    hull = ConvexHull(pts)
    eq, simplices, neighbours = hull.equations, hull.simplices, hull.neighbors
    rows = np.ascontiguousarray(eq).view(np.dtype((np.void, eq.itemsize * 4))).ravel()  # a plane's bits as one key
    _, first, index = np.unique(rows, return_index=True, return_inverse=True)
    planes, index = eq[first], index.ravel()
    # facet i's edge opposite its corner k is shared with neighbours[i, k]; each edge once (i < j), none inside a plane
    i = np.repeat(np.arange(len(simplices)), 3)
    k = np.tile(np.arange(3), len(simplices))
    j = neighbours.ravel()
    keep = (i < j) & (index[i] != index[j])
    i, k, j = i[keep], k[keep], j[keep]
    p, q = pts[simplices[i, (k + 1) % 3]], pts[simplices[i, (k + 2) % 3]]
    n1, n2 = eq[i, :3], eq[j, :3]
    dirs = q - p
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    dirs *= np.where(np.einsum("ij,ij->i", dirs, np.cross(n2, n1)) < 0, -1.0, 1.0)[:, None]
    # the arc from n1 to n2 lies across the edge: its tangent at n1 is n1 x dir, whatever the angle (up to π)
    tangents = np.cross(n1, dirs)
    tangents /= np.linalg.norm(tangents, axis=1, keepdims=True)
    spans = np.arctan2(np.einsum("ij,ij->i", n2, tangents), np.einsum("ij,ij->i", n2, n1))
    tangents *= np.where(spans < 0, -1.0, 1.0)[:, None]  # a direction that rounding turned (a flat edge)
    extreme = np.sort(hull.vertices)
    where = np.full(len(pts), -1)
    where[extreme] = np.arange(len(extreme))
    return Polytope(pts[extreme], extreme, planes[:, :3], -planes[:, 3], where[simplices[first, 0]], p, dirs,
                    np.stack([n1, n2], axis=1), tangents, np.abs(spans))


def depth(a: Polytope, b: Polytope, limit: float = -np.inf) -> float:
    """How deep ``a`` and ``b`` interpenetrate (m): the least overlap of their projections over every direction.

    Args:
        a, b: the polytopes, in one frame.
        limit: an answer at most this is as good as any other (the caller tolerates it): the search stops
            as soon as a direction shows the depth no larger.

    Returns:
        The depth: positive when they interpenetrate, else at most 0 (the separating-axis overlap along a
        separating direction); once it is at most ``limit``, some value at most ``limit``.
    """
    best = _faces(a, b, np.inf, limit)
    if best > limit:
        best = _faces(b, a, best, limit)
    if best > limit:
        best = _edges(a, b, best, limit)
    return float(best)


def width(p: Polytope) -> float:
    """The least width of ``p`` across one of its faces (m): the least of ``offset - min n·x`` over its faces."""
    return float(_faces(p, p, np.inf, -np.inf))


def _spread(a: Polytope, b: Polytope, axes: np.ndarray) -> np.ndarray:
    """(k,) ``h_D`` along each of ``axes`` (k, 3), exactly: ``max_a u·x - min_b u·x``, a chunk at a time."""
    out = np.empty(len(axes))
    step = max(1, CHUNK // (len(a.vertices) + len(b.vertices)))
    for s in range(0, len(axes), step):
        u = axes[s:s + step]
        out[s:s + step] = (a.vertices @ u.T).max(axis=0) - (b.vertices @ u.T).min(axis=0)
    return out


def _least(values, lower: np.ndarray, best: float, limit: float) -> float:
    """The least of ``values(idx)`` over candidates (or ``best`` if none is smaller), evaluated lazily.

    Args:
        values: idx (k,) -> (k,) exact values of those candidates.
        lower: (n,) a lower bound of each candidate's value.
        best: the least value known so far.
        limit: stop once the least is at most this.
    """
    order = np.argsort(lower, kind="stable")
    order = order[lower[order] < best]
    start, batch = 0, 64
    while start < len(order):
        take = order[start:start + batch]
        take = take[lower[take] < best]
        if not len(take):
            break
        best = min(best, float(values(take).min()))
        if best <= limit:
            break
        start += len(take)
        batch *= 4
    return best


def _faces(p: Polytope, q: Polytope, best: float, limit: float) -> float:
    """The least of ``h`` over ``p``'s face normals (with ``q`` on the other side): ``offset - min_q n·x``."""
    if len(p.normals) * len(q.vertices) <= SMALL * 16:
        values = p.offsets - (q.vertices @ p.normals.T).min(axis=0)
        return min(best, float(values.min()))
    step = max(1, CHUNK // len(q.vertices))

    def exact(idx):
        out = np.empty(len(idx))
        for s in range(0, len(idx), step):
            n = p.normals[idx[s:s + step]]
            out[s:s + step] = p.offsets[idx[s:s + step]] - (q.vertices @ n.T).min(axis=0)
        return out

    guess = q.support_guess(-p.normals)
    lower = p.offsets - np.einsum("ij,ij->i", p.normals, guess)
    return _least(exact, lower, best, limit)


def _arc_min(n1: np.ndarray, tangent: np.ndarray, span: np.ndarray, w: np.ndarray) -> np.ndarray:
    """(k,) the least of ``u·w`` over each great-circle arc ``cos θ n1 + sin θ tangent``, θ in 0..``span``
    (n1, tangent, w: (k, 3); span: (k,), at most π).

    Along the arc ``u·w = x cos θ + y sin θ = ρ cos(θ - θ0)``: its least is ``-ρ`` where the arc reaches
    ``θ0 + π``, else at an end.
    """
    x, y = np.einsum("ij,ij->i", n1, w), np.einsum("ij,ij->i", tangent, w)
    turn = np.mod(np.arctan2(y, x) + np.pi, 2 * np.pi)  # where the arc's great circle is least
    ends = np.minimum(x, np.cos(span) * x + np.sin(span) * y)
    return np.where(turn <= span, -np.hypot(x, y), ends)


def _arcs(p: Polytope, sign: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The start (e, 3), tangent (e, 3) and angle (e,) of each edge's arc on the Gauss map of ``sign · p``."""
    return sign * p.edge_normals[:, 0], sign * p.edge_tangents, p.edge_spans


def _middles(n1: np.ndarray, tangent: np.ndarray, span: np.ndarray) -> np.ndarray:
    """(k, 3) the middle of each arc."""
    return np.cos(span / 2)[:, None] * n1 + np.sin(span / 2)[:, None] * tangent


def _edges(a: Polytope, b: Polytope, best: float, limit: float) -> float:
    """The least of ``h_D`` over the cross products of crossing edge arcs of ``a`` and ``-b`` (or ``best``)."""
    ea, eb = np.arange(len(a.edge_dirs)), np.arange(len(b.edge_dirs))
    arcs_a, arcs_b = _arcs(a, 1.0), _arcs(b, -1.0)
    if len(ea) * len(eb) > SMALL:
        # along a's arc a's edge supports a (u·p_a), and b reaches at least as far as any point of it: so
        # h_D(u) >= u·(p_a - b) there for any b of b, a point far along the arc's middle a close one;
        # along -b's arc likewise
        lower_a = _arc_min(*arcs_a, a.edge_points - b.support_guess(-_middles(*arcs_a)))
        lower_b = _arc_min(*arcs_b, a.support_guess(_middles(*arcs_b)) - b.edge_points)
        ea, eb = ea[lower_a < best], eb[lower_b < best]
        if not len(ea) or not len(eb):
            return best
    i, j = _crossing(a, ea, b, eb, arcs_a, arcs_b)
    if not len(i):
        return best
    axes = np.cross(a.edge_dirs[i], b.edge_dirs[j])
    length = np.linalg.norm(axes, axis=1)
    skew = length > 1e-9  # parallel edges span no facet of D: its facets beside them are faces' (above)
    i, j, axes = i[skew], j[skew], axes[skew] / length[skew, None]
    axes *= np.where(np.einsum("ij,ij->i", axes, _middles(*(x[i] for x in arcs_a))) < 0, -1.0, 1.0)[:, None]
    lower = np.einsum("ij,ij->i", axes, a.edge_points[i] - b.edge_points[j])
    return _least(lambda idx: _spread(a, b, axes[idx]), lower, best, limit)


def _crossing(a: Polytope, ea: np.ndarray, b: Polytope, eb: np.ndarray, arcs_a, arcs_b) -> tuple[np.ndarray,
                                                                                                  np.ndarray]:
    """Pairs (i, j) of edges of ``a`` (among ``ea``) and ``b`` (among ``eb``) whose arcs on the Gauss maps of ``a``
    and ``-b`` (``arcs_a``, ``arcs_b``: see :func:`_arcs`) cross (ends on the arcs counting as crossing)."""
    if len(ea) * len(eb) <= SMALL:
        i, j = np.repeat(ea, len(eb)), np.tile(eb, len(ea))
    else:
        i, j = _near_arcs(tuple(x[ea] for x in arcs_a), tuple(x[eb] for x in arcs_b))
        i, j = ea[i], eb[j]
    sa, sb = a.edge_dirs[i], b.edge_dirs[j]
    na, nb = a.edge_normals[i], -b.edge_normals[j]
    cba, dba = np.einsum("ij,ij->i", nb[:, 0], sa), np.einsum("ij,ij->i", nb[:, 1], sa)
    adc, bdc = np.einsum("ij,ij->i", na[:, 0], sb), np.einsum("ij,ij->i", na[:, 1], sb)
    # b's ends on either side of a's great circle, a's on either side of b's, and on the same side of both:
    # a rounding that decides against a pair whose crossing lies on an arc's end loses nothing, that end being
    # a face normal, tried with the faces
    cross = (cba * dba <= 0) & (adc * bdc <= 0) & (cba * bdc >= 0)
    return i[cross], j[cross]


def _near_arcs(arcs_a, arcs_b) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (i, j) of arcs (start, tangent, angle each: see :func:`_arcs`) that may cross: some pieces of them
    lie within reach.

    Each arc is cut into pieces of at most ``step`` radians; a piece lies within ``2 sin(step / 4)`` of its
    middle, so pieces of crossing arcs have middles at most twice that apart.
    """
    count = len(arcs_a[2]) + len(arcs_b[2])
    # pieces about as long as the average arc, and never more than 4 per arc on the whole
    step = max(float(arcs_a[2].sum() + arcs_b[2].sum()) / (2 * count), np.sqrt(4 * np.pi / count), 1e-6)
    ma, ia = _pieces(*arcs_a, step)
    mb, ib = _pieces(*arcs_b, step)
    reach = 4 * np.sin(step / 4) * (1 + 1e-9) + 1e-12
    tree = cKDTree(ma)
    found = []
    per = max(1, int(CHUNK // max(1.0, len(ma) * np.pi * reach * reach / (4 * np.pi) * 8)))
    for s in range(0, len(mb), per):
        pairs = cKDTree(mb[s:s + per]).sparse_distance_matrix(tree, reach, output_type="ndarray")
        found.append(ia[pairs["j"]].astype(np.int64) * len(arcs_b[2]) + ib[s + pairs["i"]])
    keys = np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)
    return keys // len(arcs_b[2]), keys % len(arcs_b[2])


def _pieces(n1: np.ndarray, tangent: np.ndarray, span: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    """The middles (m, 3) of the arcs' pieces of at most ``step`` radians, and the arc (m,) of each."""
    cuts = np.maximum(1, np.ceil(span / step)).astype(np.int64)
    arc = np.repeat(np.arange(len(span)), cuts)
    first = np.cumsum(cuts) - cuts
    angle = (np.arange(len(arc)) - first[arc] + 0.5) / cuts[arc] * span[arc]  # each piece's middle
    return np.cos(angle)[:, None] * n1[arc] + np.sin(angle)[:, None] * tangent[arc], arc
