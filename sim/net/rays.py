"""Rays at the pieces' own shapes, all pieces and all rays at once: what a client's window casts for its own carry.

The live world on the server meets a ray at a piece's collision shape: the compound of its convex parts
(:attr:`sim.pieces.model.PieceShape.parts`). A window that is a client of a table has no physics; it casts the
same rays at the same parts, each the intersection of its faces' half-spaces (``n · x + c <= 0``, from the hull
of the part's vertices), so that its predicted carry rides where the server's hand will hold the piece: over an
arch's opening and between towers as over the bare board (a bounding box would cover the opening: the piece
would ride up to 20 mm higher than the server's).

A segment ``a + t (b - a)``, ``t`` in [0, 1], enters a convex part at the largest ``t`` among the faces it
crosses inwards and leaves it at the smallest among those it crosses outwards; it meets the part when it enters
before it leaves, at a ``t`` in (0, 1] (as Bullet's ray test: a part the segment starts inside is not met).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Faces:
    """The faces of a set of bodies' convex parts, in the bodies' own frames, flattened.

    Attributes:
        normals: (f, 3) outward unit normals.
        offsets: (f,) ``c`` of each face's plane ``n · x + c = 0``.
        part: (f,) the part each face belongs to (0 ... p - 1, faces of a part contiguous).
        body: (p,) the body each part belongs to.
        starts: (p,) each part's first face.
        ends: (p,) each part's last face + 1.
        centres: (p, 3) the middle of each part's vertices (its body's frame).
        radii: (p,) the radius of a ball about the centre that holds the part.
    """

    normals: np.ndarray
    offsets: np.ndarray
    part: np.ndarray
    body: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    centres: np.ndarray
    radii: np.ndarray


_PART_FACES: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
"""id of a part's vertex array -> its faces (normals, offsets) and the array: the catalogue's shapes are shared
by every piece of a kind, so a table's parts are read once."""


def part_faces(vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(normals (f, 3), offsets (f,)) of the convex hull of ``vertices`` (k, 3), coplanar facets merged."""
    key = id(vertices)
    hit = _PART_FACES.get(key)
    if hit is not None and hit[2] is vertices:
        return hit[0], hit[1]
    from scipy.spatial import ConvexHull

    eq = ConvexHull(np.asarray(vertices, dtype=float)).equations
    _, keep = np.unique(np.round(eq, 9), axis=0, return_index=True)  # a face of two triangles: one plane
    eq = eq[np.sort(keep)]
    _PART_FACES[key] = (eq[:, :3].copy(), eq[:, 3].copy(), vertices)
    return eq[:, :3].copy(), eq[:, 3].copy()


def faces_of(bodies) -> Faces:
    """The faces of ``bodies``: each a sequence of parts' vertex arrays ((k, 3), its own frame)."""
    normals, offsets, part, body, starts, centres, radii = [], [], [], [], [], [], []
    n = 0
    for b, parts in enumerate(bodies):
        for vertices in parts:
            nrm, off = part_faces(vertices)
            v = np.asarray(vertices, dtype=float)
            middle = 0.5 * (v.min(axis=0) + v.max(axis=0))
            starts.append(n)
            centres.append(middle)
            radii.append(float(np.linalg.norm(v - middle, axis=1).max()))
            part += [len(body)] * len(off)
            body.append(b)
            normals.append(nrm)
            offsets.append(off)
            n += len(off)
    if not normals:
        z = np.zeros(0, dtype=np.int64)
        return Faces(np.zeros((0, 3)), np.zeros(0), z, z, z, z, np.zeros((0, 3)), np.zeros(0))
    starts = np.asarray(starts)
    return Faces(np.concatenate(normals), np.concatenate(offsets), np.asarray(part), np.asarray(body), starts,
                 np.append(starts[1:], n), np.asarray(centres), np.asarray(radii))


@dataclass(frozen=True)
class Placed:
    """Faces where their bodies are now, in the world: what every ray of a frame is cast at.

    Attributes:
        faces: the faces in the bodies' frames.
        normals: (f, 3) each face's outward normal in the world.
        offsets: (f,) ``c`` of its plane in the world.
        middles: (p, 3) each part's ball's centre in the world.
    """

    faces: Faces
    normals: np.ndarray
    offsets: np.ndarray
    middles: np.ndarray


def placed(faces: Faces, rot: np.ndarray, centres: np.ndarray) -> Placed:
    """``faces`` with their bodies at ``rot`` (n, 3, 3: each body's frame to the world's) and ``centres`` (n, 3,
    its origin in the world, m)."""
    owner = faces.body[faces.part]
    n_w = np.einsum("fij,fj->fi", rot[owner], faces.normals)  # n_w = R n, c_w = c - n_w · centre
    c_w = faces.offsets - np.einsum("fi,fi->f", n_w, centres[owner])
    middles = np.einsum("pij,pj->pi", rot[faces.body], faces.centres) + centres[faces.body]
    return Placed(faces, n_w, c_w, middles)


def cast(at: Placed, starts: np.ndarray, ends: np.ndarray):
    """Every segment against every part, all at once.

    Args:
        at: the parts where they are (:func:`placed`).
        starts, ends: (r, 3) the segments (m).

    Returns:
        For each segment, ``(body, t, normal)`` of the nearest part it meets (``t`` in (0, 1], the world's
        outward normal of the face it enters by), or None.
    """
    starts, ends = np.asarray(starts, dtype=float), np.asarray(ends, dtype=float)
    faces, middle = at.faces, at.middles
    if len(faces.offsets) == 0:
        return [None] * len(starts)
    # the parts near each segment first: a ball about each part
    d = ends - starts
    dd = np.maximum(np.einsum("ri,ri->r", d, d), 1e-30)[:, None]
    wd = d @ middle.T - np.einsum("ri,ri->r", starts, d)[:, None]  # (r, p): (middle - a) · d
    ww = (middle ** 2).sum(axis=1)[None, :] - 2.0 * starts @ middle.T + (starts ** 2).sum(axis=1)[:, None]
    along = np.clip(wd / dd, 0.0, 1.0)  # the segment's nearest point to each middle
    near = ww - 2.0 * along * wd + along ** 2 * dd <= (faces.radii ** 2)[None, :] * (1.0 + 1e-6) + 1e-12
    out = []
    for r in range(len(starts)):
        parts = np.nonzero(near[r])[0]
        out.append(_first(at, parts, starts[r], d[r]) if len(parts) else None)
    return out


def _first(at: Placed, parts: np.ndarray, a: np.ndarray, d: np.ndarray):
    """The nearest of ``parts`` the segment ``a + t d`` meets: (body, t, the world's normal of the face it
    enters by), or None."""
    faces = at.faces
    counts = faces.ends[parts] - faces.starts[parts]
    local = np.concatenate([[0], np.cumsum(counts)[:-1]])
    f = np.repeat(faces.starts[parts] - local, counts) + np.arange(counts.sum())  # the parts' faces in turn
    n_w = at.normals[f]
    num, den = -(n_w @ a + at.offsets[f]), n_w @ d  # inside: t (n·d) <= num
    with np.errstate(divide="ignore", invalid="ignore"):
        t = num / den
    entering, leaving = den < -1e-15, den > 1e-15
    t_in = np.where(entering, t, np.where(~leaving & (num < 0.0), np.inf, -np.inf))  # parallel, outside: never
    t_out = np.where(leaving, t, np.inf)
    enter = np.maximum.reduceat(t_in, local)
    leave = np.minimum.reduceat(t_out, local)
    met = (enter <= leave) & (enter > 0.0) & (enter <= 1.0)
    if not met.any():
        return None
    k = int(np.argmin(np.where(met, enter, np.inf)))
    face = local[k] + int(np.argmax(t_in[local[k]:local[k] + counts[k]]))
    return int(faces.body[parts[k]]), float(enter[k]), n_w[face]


__all__ = ["Faces", "Placed", "cast", "faces_of", "part_faces", "placed"]
