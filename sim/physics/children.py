"""A piece's convex parts as the children of its Bullet compound, each held where the scene puts its faces.

A part Bullet holds exactly once its axes' scales are tuned (:func:`sim.physics.exact.tuned_scale`: boxes,
prisms, most catalogue parts) is one child, its hull file shared by every body of the shape, narrowed along
the piece's axes by the world's ``shrink``. A part whose faces Bullet would move out of their planes by
more than :data:`sim.physics.exact.EXACT` (hulls of any shape: voussoirs, vault blocks) is cut into face
pyramids (:func:`sim.physics.exact.face_pyramids`), narrowed within their faces' planes. Rounds (more than
``settings.exact_faces`` faces) and pieces of many parts keep their parts whole: their faces move by a few
micrometres at most (a cylinder's sides 2.5 µm), and a pyramid per face would multiply their contacts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.physics.exact import EXACT, face_error, face_pyramids, tuned_scale
from sim.physics.hulls import face_corners, hull_file, remember

FLAT = 1e-6
"""A hull point this close (m) to a face's plane is on that face (for measuring how far Bullet moves it)."""

_PLANS: dict = {}
"""(id of a shape, settings that cut it) -> (shape, its parts whole or to cut, {shrink: its children}): cut once
per shape, its pyramids once per narrowing (a body remade by an undo cuts nothing)."""

_SCALES: dict = {}
"""(hull file, wanted scale, passes) -> the tuned scale: a body remade (an undo) tunes nothing."""


@dataclass(frozen=True)
class Child:
    """One child shape of a body's compound.

    Attributes:
        points: (k, 3) its hull points in its own frame (Bullet units), as written to its file.
        faces: (k', 3) int triangles of their hull (None: found when the file is written).
        position: (3,) its frame's origin in the piece frame (Bullet units).
        quat: (4,) its frame's orientation in the piece frame, xyzw.
        sat: whether it gets separating-axis contacts (faces of at most ``settings.sat_corners`` corners).
        pyramid: a face pyramid (narrowed within its face's plane), not a whole part (narrowed along the piece's
            axes).
    """

    points: np.ndarray
    faces: np.ndarray | None
    position: np.ndarray
    quat: np.ndarray
    sat: bool
    pyramid: bool


def plan(shape, settings, shrink: float = 0.0) -> list[Child]:
    """The children of ``shape``'s compound (before any swell): whole parts cut once per shape and settings, face
    pyramids once per narrowing ``shrink`` too (their faces are narrowed in their geometry)."""
    made = (settings.length_scale, settings.sat, settings.sat_corners, settings.exact_hulls, settings.exact_faces,
            settings.exact_parts, settings.face_gap)
    key = (id(shape), made)
    hit = _PLANS.get(key)
    if hit is None or hit[0] is not shape:
        hit = remember(_PLANS, key, (shape, _cut(shape, settings), {}))
    cut, narrowed = hit[1], hit[2]
    if not any(isinstance(c, _Faces) for c in cut):
        return cut
    if shrink not in narrowed:
        if len(narrowed) > 64:
            narrowed.clear()
        narrowed[shrink] = [child for c in cut for child in
                            (c.pyramids(shrink, settings.sat, settings.face_gap * settings.length_scale)
                             if isinstance(c, _Faces) else [c])]
    return narrowed[shrink]


@dataclass(frozen=True)
class _Faces:
    """A part to be cut into face pyramids: its faces and an inner point in its frame, and where it lies."""

    polygons: list
    normals: np.ndarray
    inner: np.ndarray
    centre: np.ndarray

    def pyramids(self, shrink: float, sat: bool, gap: float) -> list[Child]:
        return [Child(p.vertices, p.faces, self.centre + p.position, p.quat, sat, True)
                for p in face_pyramids(self.polygons, self.normals, self.inner, shrink, gap)]


def _cut(shape, settings) -> list:
    """Each part of ``shape`` as a whole :class:`Child`, or as :class:`_Faces` to cut (see the module docstring)."""
    from sim.contact.faces import part_faces

    s = settings.length_scale
    few = len(shape.parts) <= settings.exact_parts
    out: list = []
    for part in shape.parts:
        centre = (part.vertices.min(axis=0) + part.vertices.max(axis=0)) / 2
        hull = part.hull  # cached
        local = (hull.vertices - centre) * s
        faces = part_faces(part)
        if not (settings.exact_hulls and few and len(faces.normals) <= settings.exact_faces):
            out.append(_whole(hull, local, centre * s, settings))
            continue
        on = [(n, np.flatnonzero(np.abs(hull.vertices @ n - d) <= FLAT)) for n, d in zip(faces.normals, faces.offsets)]
        if face_error(local, on, tuned_scale(local)) <= EXACT:
            out.append(_whole(hull, local, centre * s, settings))
            continue
        out.append(_Faces([(p - centre) * s for p in faces.polygons], faces.normals,
                          (faces.vertices.mean(axis=0) - centre) * s, centre * s))
    return out


def _whole(hull, local: np.ndarray, position: np.ndarray, settings) -> Child:
    """A part loaded whole: its hull's points ``local`` (Bullet units, about ``position`` in the piece frame),
    with separating-axis contacts where its faces have few enough corners (counted only here: a part cut into
    pyramids needs no count)."""
    return Child(local, hull.faces, position, np.array([0.0, 0.0, 0.0, 1.0]),
                 settings.sat and face_corners(hull) <= settings.sat_corners, False)


def swollen(child: Child, swell: np.ndarray) -> Child:
    """A whole part reaching ``swell`` (3,) Bullet units farther along the piece axes on both sides (pyramids are
    left as they are)."""
    if child.pyramid or not swell.any():
        return child
    half = np.abs(child.points).max(axis=0)
    points = child.points * (1.0 + np.divide(swell, half, out=np.zeros(3), where=half > 0))
    return Child(points, child.faces, child.position, child.quat, child.sat, child.pyramid)


def file_of(child: Child) -> str:
    """The child's hull file (written once per content)."""
    return hull_file(child.points, child.faces)


def scale_of(child: Child, file: str, squeeze: np.ndarray, passes: int) -> np.ndarray:
    """The mesh scale to load ``child`` with: the piece's ``squeeze`` along its axes for a whole part, 1 for a
    pyramid (narrowed in its geometry), tuned so that Bullet keeps the ends of every axis exactly."""
    wanted = np.ones(3) if child.pyramid else np.asarray(squeeze, dtype=float)
    key = (file, wanted.tobytes(), passes)
    hit = _SCALES.get(key)
    if hit is None:
        hit = remember(_SCALES, key, tuned_scale(child.points, wanted, passes))
    return hit
