"""Contact interfaces between touching convex parts of a scene's pieces (pure geometry).

``find_interfaces`` places every convex part at its pose
(:mod:`sim.contact.placed`, from the faces of :mod:`sim.contact.faces`),
pairs nearby parts (:mod:`sim.contact.broad`), finds where one lies on a face
of the other and clips that to the face (:mod:`sim.contact.narrow`), and
returns :class:`Interface` records.
"""

from __future__ import annotations

import numpy as np
import shapely

from sim.contact.broad import candidate_pairs
from sim.contact.clip import clip
from sim.contact.faces import PartFaces, part_faces, plane_basis
from sim.contact.interface import BOARD, BOARD_PART, Interface, board_friction, contact_friction, is_table_contact
from sim.contact.narrow import face_candidates, touching_rows
from sim.contact.placed import PlacedParts, place_all, resolve_poses
from sim.contact.ragged import batched_products
from sim.tol import tol

__all__ = ["BOARD", "BOARD_PART", "Interface", "PartFaces", "board_friction", "contact_friction", "find_interfaces",
           "is_table_contact", "part_faces", "plane_basis"]


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
    other). Two parts touch over every face of one that a face of the other
    lies on: a pair of parts may have several polygons (faces that fold by
    more than ``tol.precision`` yet less than the gap, like a joint drawn in
    two planes), each an interface, never two over the same area; a pair
    that touches over no face has one segment or point, the longest.

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
    poses = resolve_poses(scene, poses)
    placed = place_all(scene, poses)
    ids = [BOARD] + [p.id for p in scene.pieces]
    rank = placed.owner  # -1 for the board, else the piece's place in the scene
    plane = len(rank) - 1  # the endless table plane, last
    pairs = candidate_pairs(placed.lo[:plane], placed.hi[:plane], rank[:plane], gap + depth)
    pairs = np.where((rank[pairs[:, 0]] > rank[pairs[:, 1]])[:, None], pairs[:, ::-1], pairs)  # lower rank first
    z0 = placed.offsets[-1]
    bottom = placed.lo[:plane, 2]
    near = ((rank[:plane] >= 0) & (bottom <= z0 + gap) & (bottom >= z0 - depth)).nonzero()[0]
    on_table = np.full((len(near), 2), plane)  # the table plane (rank -1) first
    on_table[:, 1] = near
    pairs = np.concatenate([pairs, on_table])
    if len(pairs) == 0:
        return []
    cands = face_candidates(pairs, placed, touching_rows(placed, pairs, gap, depth), gap)
    found: dict[int, list] = {}
    for c, res in zip(cands, clip(cands) if cands else []):
        if res is not None:
            found.setdefault(c.pair, []).append((res, c))
    chosen = [(pair, pick) for pair, results in found.items() for pick in _kept(results)]
    if not chosen:
        return []
    out = _interfaces(placed, ids, pairs[[pair for pair, _ in chosen]], [pick for _, pick in chosen])
    order = {name: i for i, name in enumerate(ids)}
    out.sort(key=lambda f: (order[f.a], order[f.b], f.part_a, f.part_b))
    return out


OVERLAP = 0.5
"""Two polygons of one pair of parts overlapping by more than this share of the smaller one's area are the
same contact found from either part's face (planes a little apart, beyond ``tol.coplanar_angle``):
the larger is kept."""


def _kept(results: list) -> list:
    """Of one pair's clipped contacts, (result, candidate) each: every polygon over an area none larger
    already covers, largest first; without a polygon, the one segment or point of highest dimension.

    Args:
        results: (result of ``clip``, candidate) pairs, result (dim, area, points (k, 2)).
    """
    if len(results) == 1:
        return results
    polygons = [r for r in results if r[0][0] == 2]
    if len(polygons) <= 1:
        return polygons or [max(results, key=lambda r: r[0][:2])]
    polygons.sort(key=lambda r: -r[0][1])
    kept, shapes = [], []
    for res, c in polygons:
        world = res[2] @ c.basis + c.origin
        if any(_covered(world, res[1], other, basis, origin, area) for other, basis, origin, area in shapes):
            continue
        kept.append((res, c))
        shapes.append((shapely.Polygon((world - c.origin) @ c.basis.T), c.basis, c.origin, res[1]))
    return kept


def _covered(world: np.ndarray, area: float, other, basis: np.ndarray, origin: np.ndarray, other_area: float) -> bool:
    """Whether a polygon (world points (k, 3), its area) seen along the normal of a kept one (shapely polygon
    ``other`` in its plane's (u, v) by ``basis``, ``origin``) overlaps it by more than :data:`OVERLAP` of the
    smaller area."""
    mine = shapely.Polygon((world - origin) @ basis.T)
    return shapely.intersection(mine, other).area > OVERLAP * min(area, other_area)


def _interfaces(placed: PlacedParts, ids: list, pairs: np.ndarray, chosen: list) -> list[Interface]:
    """The interface records of the pairs' chosen contacts, oriented so that their normals point up.

    Args:
        placed: the placed parts.
        ids: the board's then the pieces' ids, indexed by owner + 1.
        pairs: (r,) part index pairs.
        chosen: r (result of ``clip``, candidate) of those pairs.
    """
    pts = batched_products([res[2] for res, _ in chosen], np.array([c.basis for _, c in chosen]),
                           np.array([c.origin for _, c in chosen]))
    flip = np.array([c.flip for _, c in chosen], dtype=bool)
    normals = np.array([c.normal for _, c in chosen])
    z = normals[:, 2]
    i, j = pairs[:, 0], pairs[:, 1]
    # the face is b's where flipped: seen from a the normal points into b
    swap = (np.where(flip, -z, z) < -np.sin(tol.coplanar_angle)) | (placed.owner[j] < 0)
    reverse = flip ^ swap
    normals = np.where(reverse[:, None], -normals, normals)
    lo, hi = np.where(swap, j, i), np.where(swap, i, j)
    a_ids = [ids[o + 1] for o in placed.owner[lo].tolist()]
    b_ids = [ids[o + 1] for o in placed.owner[hi].tolist()]
    a_parts, b_parts = placed.part[lo].tolist(), placed.part[hi].tolist()
    return [Interface(a, b, pa, pb, n, p[::-1].copy() if rev else p, res[1])
            for a, b, pa, pb, n, p, rev, (res, _) in zip(a_ids, b_ids, a_parts, b_parts, normals, pts,
                                                         reverse.tolist(), chosen)]
