"""The catalogue's data model: a piece kind as convex parts, material, anchors and decals.

Units are SI (metres, kilograms). A piece's frame has its origin at the centre
of its own bounding box, x along its longest side and z up, as the piece
naturally rests (the ``pos`` of a scene file is this origin).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from sim.geometry import solids

if TYPE_CHECKING:  # trimesh takes a second to import: only code that builds hulls pays for it
    import trimesh

MM = 1e-3  # metres per millimetre
G_CM3 = 1000.0  # kg/m³ per g/cm³


@dataclass(frozen=True)
class Material:
    """What a piece is made of.

    Attributes:
        name: ``wood``, ``cardboard`` or ``plastic``: also how it is drawn.
        density: kg/m³.
        friction: Coulomb coefficient against the same material.
        restitution: coefficient of restitution.
    """

    name: str
    density: float
    friction: float
    restitution: float = 0.05


@dataclass(frozen=True, eq=False)
class ConvexPart:
    """One convex part of a piece.

    Attributes:
        name: what the part is (``foot-left``, ``wall+x``, ...).
        vertices: (k, 3) float, metres, piece frame; the part is their convex hull.
    """

    name: str
    vertices: np.ndarray

    @cached_property
    def hull(self) -> trimesh.Trimesh:
        """The part as a closed convex triangle mesh."""
        import trimesh

        return trimesh.convex.convex_hull(self.vertices)

    @cached_property
    def volume(self) -> float:
        """Volume in m³."""
        return float(self.hull.volume)


@dataclass(frozen=True)
class Anchor:
    """A marked place on a piece that rules refer to.

    Attributes:
        name: unique within the piece (``point-red``, ``spot-center``, ``top``).
        kind: ``figure_point`` (a level's marked point), ``spot`` (where a
            tower or bridge end may stand on a bridge) or ``top`` (a top face).
        position: (3,) metres, piece frame, on the surface.
        normal: (3,) outward unit normal of that surface.
        color: the colour a figure point belongs to, else None.
        radius: radius of a marked point (m), half-size of a spot; 0 for a face.
    """

    name: str
    kind: str
    position: tuple[float, float, float]
    normal: tuple[float, float, float] = (0.0, 0.0, 1.0)
    color: str | None = None
    radius: float = 0.0


@dataclass(frozen=True)
class Decal:
    """A flat coloured area printed on an upward face (board grid, level areas, points).

    Attributes:
        name: what it is (``area-red``, ``point-red``, ``grid``, ``island-3``).
        polygons: tuple of (k, 2) float arrays, metres, counter-clockwise, in the
            piece frame's xy plane.
        z: height of the face it lies on (m, piece frame).
        color: RGBA 0..1.
    """

    name: str
    polygons: tuple
    z: float
    color: tuple[float, float, float, float]


@dataclass(frozen=True, eq=False)
class PieceShape:
    """A piece kind with its parameters, built: geometry, material, mass and marks.

    Attributes:
        kind: the scene file's ``kind`` (``talo.block``).
        variant: names the parameter set in file names (``3``, ``small-red``); may be empty.
        params: the kind's parameters, read-only.
        parts: convex parts; their interiors are disjoint and their union is the piece.
        material: what it is made of.
        color: RGBA 0..1 of its body.
        anchors: marked places rules refer to.
        decals: printed areas drawn on its faces.
        solid: the closed mesh the parts were made from (m, piece frame), for a piece read from a mesh
            file: its mass properties and volume come from it; None for the catalogue's pieces.
        approximation: how the parts differ from ``solid`` (an approximate convex decomposition),
            one sentence; None where the parts are the solid exactly.
    """

    kind: str
    variant: str
    params: Mapping
    parts: tuple[ConvexPart, ...]
    material: Material
    color: tuple[float, float, float, float]
    anchors: tuple[Anchor, ...] = ()
    decals: tuple[Decal, ...] = ()
    solid: trimesh.Trimesh | None = field(default=None, repr=False)
    approximation: str | None = None
    _mass_props: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    @property
    def name(self) -> str:
        """``kind`` and ``variant`` joined, as used for mesh files."""
        return f"{self.kind}.{self.variant}" if self.variant else self.kind

    @cached_property
    def vertices(self) -> np.ndarray:
        """(k, 3) every part's vertices stacked (m)."""
        return np.vstack([p.vertices for p in self.parts])

    @cached_property
    def bounds(self) -> np.ndarray:
        """(2, 3) minimum and maximum corner of the bounding box (m, piece frame)."""
        v = self.vertices
        return np.array([v.min(axis=0), v.max(axis=0)])

    @cached_property
    def box_corners(self) -> np.ndarray:
        """(8, 3) the bounding box's corners (m, piece frame), in the order of :func:`sim.geometry.solids.box`."""
        return solids.box(*self.bounds)

    @property
    def extent(self) -> np.ndarray:
        """(3,) bounding box size (m)."""
        return self.bounds[1] - self.bounds[0]

    @cached_property
    def volume(self) -> float:
        """Volume (m³): the solid's where there is one, else the sum of the parts' volumes."""
        if self.solid is not None:
            return float(self.solid.volume)
        return float(sum(p.volume for p in self.parts))

    @property
    def mass(self) -> float:
        """Mass (kg)."""
        return self._mass_properties()[0]

    @property
    def com(self) -> np.ndarray:
        """(3,) centre of mass (m, piece frame)."""
        return self._mass_properties()[1]

    @property
    def inertia(self) -> np.ndarray:
        """(3, 3) inertia tensor about the centre of mass, piece axes (kg m²)."""
        return self._mass_properties()[2]

    def anchor(self, name: str) -> Anchor:
        """The anchor called ``name``."""
        for a in self.anchors:
            if a.name == name:
                return a
        raise KeyError(f"{self.name} has no anchor {name!r}")

    def _mass_properties(self):
        if not self._mass_props:
            meshes = [self.solid] if self.solid is not None else [p.hull for p in self.parts]
            m, c, i = combine_mass_properties(meshes, self.material.density)
            self._mass_props.update(mass=m, com=c, inertia=i)
        return self._mass_props["mass"], self._mass_props["com"], self._mass_props["inertia"]


def combine_mass_properties(meshes, density: float):
    """Mass, centre of mass and inertia of disjoint closed meshes of one density.

    Args:
        meshes: closed trimesh meshes with disjoint interiors.
        density: kg/m³.

    Returns:
        mass (kg), com (3,) and inertia (3, 3) about the com (kg m²).
    """
    masses, coms, inertias = [], [], []
    for mesh in meshes:
        props = mesh.mass_properties
        masses.append(props.volume * density)
        coms.append(np.asarray(props.center_mass))
        inertias.append(np.asarray(props.inertia) * density)
    masses = np.array(masses)
    coms = np.array(coms)
    mass = float(masses.sum())
    com = (masses[:, None] * coms).sum(axis=0) / mass
    inertia = np.zeros((3, 3))
    for m, c, i in zip(masses, coms, inertias):
        d = c - com
        inertia += i + m * (np.dot(d, d) * np.eye(3) - np.outer(d, d))
    return mass, com, inertia


def assemble(kind: str, variant: str, params: Mapping, parts_mm, material: Material, color,
             anchors_mm=(), decals_mm=(), *, solid_mm: trimesh.Trimesh | None = None,
             approximation: str | None = None) -> PieceShape:
    """Build a :class:`PieceShape` from geometry drawn in millimetres in any frame.

    Everything is converted to metres and shifted together so that the bounding
    box of the parts is centred on the origin (the piece frame of scene files).

    Args:
        parts_mm: ``(name, (k, 3) vertices)`` pairs.
        anchors_mm: :class:`Anchor` objects with positions and radii in mm.
        decals_mm: :class:`Decal` objects with polygons and z in mm.
        solid_mm: the closed mesh the parts were made from (mm, same frame), which the mass
            properties then come from (see :attr:`PieceShape.solid`).
        approximation: how the parts differ from the solid (see :attr:`PieceShape.approximation`).
    """
    named = [(n, np.asarray(v, dtype=float) * MM) for n, v in parts_mm]
    allv = np.vstack([v for _, v in named])
    centre = (allv.min(axis=0) + allv.max(axis=0)) / 2.0
    parts = tuple(ConvexPart(n, v - centre) for n, v in named)
    anchors = tuple(
        Anchor(a.name, a.kind, tuple(float(x) for x in np.asarray(a.position) * MM - centre),
               a.normal, a.color, a.radius * MM)
        for a in anchors_mm)
    decals = tuple(
        Decal(d.name, tuple(np.asarray(p, dtype=float) * MM - centre[:2] for p in d.polygons),
              d.z * MM - centre[2], d.color)
        for d in decals_mm)
    solid = None
    if solid_mm is not None:
        import trimesh

        solid = trimesh.Trimesh(np.asarray(solid_mm.vertices) * MM - centre, solid_mm.faces, process=False)
    return PieceShape(kind, variant, params, parts, material, tuple(color), anchors, decals, solid, approximation)
