"""Pieces that interpenetrate, found from their convex parts: one policy for every command.

Solid pieces cannot be inside each other, so a scene where they are is not a
position of any game. ``towerlab validate`` reports it, and every command that
analyses a scene refuses it the same way, through :func:`refuse_overlaps`
(``load_scene(path, solid=True)``), before any engine sees it.

Two convex parts interpenetrate by their penetration depth: the shortest
distance one must move to leave the other; two pieces by the deepest of their
parts' depths. By the separating axis theorem it is
the least overlap of their projections on the candidate axes: the face normals
of both parts and the cross products of an edge of one with an edge of the
other (:mod:`sim.geometry.sat`: exactly, in time near-linear in the parts'
sizes, so that hulls of the 10 000 points a ``hull`` may have are checked in
a fraction of a second). Depths up to ``tol.overlap`` (0.2 mm) are tolerated,
as in the contact layer and the physics: pieces pressed together by settling,
a saved scene's rounding.

Pieces are paired by their bounding boxes (sort and sweep), their parts by
theirs; the scene's 5 000 pieces at most (``MAX_PIECES``) bound the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from sim.errors import SceneError
from sim.geometry import sat
from sim.geometry.transforms import rotation_matrices
from sim.names import BOARD, TABLE
from sim.tol import tol

SHOWN = 3
"""Overlapping pairs a refusal names; the rest are counted."""


@dataclass(frozen=True)
class Overlap:
    """Two solids inside each other.

    Attributes:
        a: the first piece's id, or ``board`` (the board's slab) or ``table`` (the table around it,
            or the endless table of the ``table`` board).
        b: the second piece's id (after ``a`` in the scene).
        depth: how far they interpenetrate (m): the deepest penetration of a convex part of one
            into a convex part of the other, the shortest move that would part those two (for a
            piece wholly below the board or table top, how far its bottom lies under the table top).
        below: ``b`` lies wholly below the top of ``a``: under the board's top within its outline,
            else under the table's.
    """

    a: str
    b: str
    depth: float
    below: bool = False

    @property
    def with_ground(self) -> bool:
        """Whether ``a`` is the board or the table rather than a piece."""
        return self.a in (BOARD, TABLE)

    def describe(self) -> str:
        """The overlap in words, for a message: ``c lies below the board top``, ``a and b (3.00 mm deep)``."""
        if self.with_ground:
            if self.below:
                return f"{self.b} lies below the {self.a} top"
            return f"{self.b} reaches {self.depth * 1000:.2f} mm into the {self.a}"
        return f"{self.a} and {self.b} ({self.depth * 1000:.2f} mm deep)"


def summary(overlaps: list[Overlap]) -> str:
    """Overlaps in words, for one line: ``overlapping pieces: a and b (3.00 mm deep), ...; c lies below ...``."""
    pairs = [o.describe() for o in overlaps if not o.with_ground]
    grounds = [o.describe() for o in overlaps if o.with_ground]
    return "; ".join(([f"overlapping pieces: {', '.join(pairs)}"] if pairs else []) + grounds)


@dataclass(frozen=True, eq=False)
class _Solid:
    """A piece's (or the slab's) convex parts in the world, moved as they are needed; their boxes."""

    parts: tuple  # of ConvexPart
    rot: np.ndarray  # (3, 3)
    pos: np.ndarray  # (3,)
    lo: np.ndarray  # (parts, 3)
    hi: np.ndarray  # (parts, 3)
    moved: dict = field(default_factory=dict)  # part index -> its Polytope in the world, once asked for

    def part(self, i: int) -> sat.Polytope:
        """Part i in the world (made once)."""
        got = self.moved.get(i)
        if got is None:
            got = self.moved[i] = _polytope(self.parts[i]).moved(self.rot, self.pos)
        return got


@lru_cache(maxsize=4096)
def _polytope(part) -> sat.Polytope:
    """A convex part's faces and edges in its piece frame (made once per part)."""
    return sat.polytope(part.vertices)


def _solid(parts, rot: np.ndarray, pos: np.ndarray) -> _Solid:
    verts = [np.asarray(p.vertices, dtype=float) @ rot.T + pos for p in parts]
    return _Solid(tuple(parts), rot, pos, np.array([v.min(axis=0) for v in verts]),
                  np.array([v.max(axis=0) for v in verts]))


def _lowered(s: _Solid, drop: float) -> _Solid:
    """``s`` moved down by ``drop`` (m)."""
    d = np.array([0.0, 0.0, drop])
    return _Solid(s.parts, s.rot, s.pos - d, s.lo - d, s.hi - d)


def _pair_depth(a: _Solid, b: _Solid, limit: float) -> float:
    """The deepest interpenetration of any part of ``a`` with any part of ``b`` (m); ``limit`` when none is deeper."""
    deepest = limit
    near = ((a.lo[:, None] < b.hi[None] - limit) & (b.lo[None] < a.hi[:, None] - limit)).all(axis=2)
    for i, j in zip(*near.nonzero()):
        deepest = max(deepest, sat.depth(a.part(int(i)), b.part(int(j)), deepest))
    return deepest


def _box_pairs(lo: np.ndarray, hi: np.ndarray, limit: float, chunk: int = 100_000):
    """Pairs (i, j) of boxes that overlap by more than ``limit`` along every axis, a chunk at a time.

    Sort and sweep along x: each box is paired with the later ones that start before it ends.
    Yields arrays (k, 2) with i < j, so that a caller may stop early: a scene of boxes all in
    one place has millions of pairs.
    """
    order = np.argsort(lo[:, 0], kind="stable")
    ends = np.searchsorted(lo[order, 0], hi[order, 0] - limit, side="left")
    counts = np.maximum(ends - np.arange(len(order)) - 1, 0)
    start = 0
    while start < len(order):
        stop = start + max(1, int(np.searchsorted(counts[start:].cumsum(), chunk)))
        first = np.repeat(np.arange(start, stop), counts[start:stop])
        second = first + 1 + (np.arange(len(first)) - np.repeat(counts[start:stop].cumsum() - counts[start:stop],
                                                                 counts[start:stop]))
        i, j = order[first], order[second]
        keep = ((lo[j] < hi[i] - limit) & (lo[i] < hi[j] - limit)).all(axis=1)
        if keep.any():
            yield np.sort(np.column_stack([i[keep], j[keep]]), axis=1)
        start = stop


def find_overlaps(scene, poses=None, *, most: int | None = None) -> list[Overlap]:
    """Pairs of solids that interpenetrate deeper than ``tol.overlap``: pieces, the board, the table.

    Args:
        scene: the scene.
        poses: (n, 7) poses in file order; None for the scene's own.
        most: stop once this many are found (None: find them all).

    Returns:
        The overlaps, ordered by the later piece's place in the scene (the board or table first
        for a piece).
    """
    if not scene.pieces:
        return []
    poses = scene.poses() if poses is None else np.asarray(poses, dtype=float)
    rots = rotation_matrices(poses[:, 3:7])
    solids = [_solid(p.shape.parts, rots[i], poses[i, :3]) for i, p in enumerate(scene.pieces)]
    lo = np.array([s.lo.min(axis=0) for s in solids])
    hi = np.array([s.hi.max(axis=0) for s in solids])
    limit = tol.overlap
    found: dict[int, list[Overlap]] = {}
    board = scene.board_info
    floor = -board.thickness  # the table top, under the slab (z = 0 on the endless table)
    slab = None if board.shape is None else _solid(board.shape.parts, np.eye(3), board.pos)
    slab_lo, slab_hi = (None, None) if slab is None else (slab.lo.min(axis=0), slab.hi.max(axis=0))
    for i, s in enumerate(solids):
        into_table = floor - lo[i, 2]
        into_slab = 0.0
        if slab is not None and (lo[i] < slab_hi - limit).all() and (slab_lo < hi[i] - limit).all():
            into_slab = _pair_depth(slab, s, limit)
        if max(into_table, into_slab) <= limit:
            continue
        under_slab = slab is not None and bool((lo[i, :2] < slab_hi[:2]).all() and (slab_lo[:2] < hi[i, :2]).all())
        pid = scene.pieces[i].id
        if under_slab and hi[i, 2] <= limit:
            found[i] = [Overlap(BOARD, pid, into_table, below=True)]
        elif hi[i, 2] <= floor + limit:
            found[i] = [Overlap(TABLE, pid, into_table, below=True)]
        elif into_slab >= into_table:
            found[i] = [Overlap(BOARD, pid, into_slab)]
        else:
            found[i] = [Overlap(TABLE, pid, into_table)]
    count = len(found)
    for pairs in _box_pairs(lo, hi, limit):
        for i, j in sorted(pairs.tolist()):
            if most is not None and count >= most:
                break
            depth = _pair_depth(solids[i], solids[j], limit)
            if depth > limit:
                found.setdefault(j, []).append(Overlap(scene.pieces[i].id, scene.pieces[j].id, depth))
                count += 1
        if most is not None and count >= most:
            break
    every = [o for j in sorted(found) for o in found[j]]
    return every if most is None else every[:most]


def refuse_overlaps(scene):
    """The scene itself, if no solids in it interpenetrate (:func:`find_overlaps`).

    Raises:
        SceneError: naming the file, the later piece of the first overlap and what overlaps
            (``overlapping pieces: a and b (3.00 mm deep)``, ``c lies below the board top``),
            up to three, and whether there are more.
    """
    overlaps = find_overlaps(scene, most=SHOWN + 1)
    if not overlaps:
        return scene
    index = {p.id: i for i, p in enumerate(scene.pieces)}
    first = overlaps[0]
    more = "; and more" if len(overlaps) > SHOWN else ""
    raise SceneError(scene.source or "<scene>", f"pieces[{index[first.b]}]", summary(overlaps[:SHOWN]) + more)


class Obstacles:
    """The solids of a scene (its pieces, the board's slab, the table), asked about one more piece at a pose.

    What a hand setting a piece down meets: :meth:`overlap` says whether the piece there would be inside
    something (deeper than ``tol.overlap``, by the same convex parts and separating axes as
    :func:`find_overlaps`), :meth:`resting` whether it rests on something (lowered a little it would be),
    :meth:`probe` both at once.
    Each piece's bounding box is placed at once, its convex parts only when a pose comes near it (and then
    once), so that many poses are asked about cheaply on a table of many pieces.

    Args:
        scene: the scene.
        ignore: ids of pieces to leave out (the piece being placed, pieces in a hand).
    """

    def __init__(self, scene, ignore=()):
        gone = set(ignore)
        self._pieces = [p for p in scene.pieces if p.id not in gone]
        self.ids = [p.id for p in self._pieces]
        poses = np.array([(*p.pos, *p.quat) for p in self._pieces], dtype=float).reshape(-1, 7)
        self._rots = rotation_matrices(poses[:, 3:7]) if self._pieces else np.zeros((0, 3, 3))
        self._pos = poses[:, :3]
        corners = [np.asarray(p.shape.box_corners) @ self._rots[i].T + self._pos[i] for i, p in enumerate(self._pieces)]
        self._lo = np.array([c.min(axis=0) for c in corners]).reshape(-1, 3)
        self._hi = np.array([c.max(axis=0) for c in corners]).reshape(-1, 3)
        self._solids: dict[int, _Solid] = {}
        board = scene.board_info
        self.floor = -board.thickness
        self._slab = None if board.shape is None else _solid(board.shape.parts, np.eye(3), board.pos)

    def overlap(self, piece, pose, limit: float | None = None) -> Overlap | None:
        """The deepest solid ``piece`` at ``pose`` (7,) would be inside by more than ``limit`` (default
        ``tol.overlap``), or None."""
        pose = np.asarray(pose, dtype=float)
        return self._overlap(piece, _solid(piece.shape.parts, rotation_matrices(pose[None, 3:7])[0], pose[:3]), limit)

    def _overlap(self, piece, s: _Solid, limit: float | None = None) -> Overlap | None:
        limit = tol.overlap if limit is None else limit
        lo, hi = s.lo.min(axis=0), s.hi.max(axis=0)
        best: Overlap | None = None
        into_table = self.floor - lo[2]
        if into_table > limit:
            best = Overlap(TABLE, piece.id, float(into_table))
        if self._slab is not None:
            depth = _pair_depth(self._slab, s, limit)
            if depth > limit and (best is None or depth > best.depth):
                best = Overlap(BOARD, piece.id, depth)
        near = ((self._lo < hi - limit) & (lo < self._hi - limit)).all(axis=1)
        for k in np.flatnonzero(near):
            depth = _pair_depth(self._solid(int(k)), s, limit)
            if depth > limit and (best is None or depth > best.depth):
                best = Overlap(self.ids[k], piece.id, depth)
        return best

    def _solid(self, k: int) -> _Solid:
        if k not in self._solids:
            self._solids[k] = _solid(self._pieces[k].shape.parts, self._rots[k], self._pos[k])
        return self._solids[k]

    def probe(self, piece, pose, drop: float = 4 * tol.overlap) -> tuple[Overlap | None, bool]:
        """(the deepest solid ``piece`` at ``pose`` would be inside, or None; whether lowered by ``drop`` (m; default
        four times the overlap tolerance) it would be inside something: it rests on something)."""
        pose = np.asarray(pose, dtype=float)
        s = _solid(piece.shape.parts, rotation_matrices(pose[None, 3:7])[0], pose[:3])
        clash = self._overlap(piece, s)
        return clash, clash is not None or self._overlap(piece, _lowered(s, drop)) is not None

    def resting(self, piece, pose, drop: float = 4 * tol.overlap) -> bool:
        """Whether ``piece`` at ``pose`` rests on something: free there, and inside something once lowered by
        ``drop`` (m; default four times the overlap tolerance)."""
        clash, supported = self.probe(piece, pose, drop)
        return clash is None and supported
