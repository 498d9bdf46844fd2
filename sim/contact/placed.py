"""Every part of a scene placed at its pose, in flat arrays: the board's slab, the pieces, the endless table plane."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from sim.contact.faces import StackedFaces, plane_basis, stacked_faces
from sim.contact.interface import BOARD_PART
from sim.geometry.transforms import rotation_matrices

_UP = np.array([[0.0, 0.0, 1.0]])  # (1, 3) the endless table plane's normal
_UP_BASIS = plane_basis(_UP[0])[None]  # (1, 2, 3) its plane basis


@dataclass(eq=False)
class PlacedParts:
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


def place_all(scene, poses: np.ndarray) -> PlacedParts:
    """The board's slab parts, every piece's parts at its pose, and the endless table plane, in flat arrays.

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
    return PlacedParts(owner, part, vstart, vcnt, fstart, fcnt,
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
    """(n, 7) the pieces' poses in scene order: the scene's own, an (n, 7) array, or a mapping id -> (7,) over them.

    Raises:
        ValueError: an array of another shape.
    """
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
