"""Voussoir arches, as scenes of ``hull`` pieces, and the masonry suite built on them (pure, no engine).

An arch (:class:`Arch`) is ``n`` voussoirs between radial joints, semicircular
(half-angle 90°) or segmental (less), of mean radius R and thickness t, each a
prism of depth ``depth`` whose faces are the chords of its intrados and
extrados; it springs from two abutments, fixed pieces or blocks on the table.
Everything is in its (x, z) plane, y the depth; pieces are the convex hulls of
their corners (mm), as an assembly imported from another tool would be.

Its critical thickness t/R and, for a given thickness, its critical friction
come from :mod:`sim.cases.thrust` (thrust lines of the chain of blocks, written
apart from :mod:`sim.statics`): the continuous semicircle's t/R = 0.1075
(Milankovitch; Heyman's 0.106 neglects where the voussoirs' weight acts) is the
limit of many voussoirs. :func:`suite` puts arches of 5–25 voussoirs, several
proportions, both abutments, turned and shifted, at ±1 % and ±5 % of their
critical thickness and at ±2 % of their critical friction, with each case's
reference verdict and margin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from sim.cases.reference import FORMAT
from sim.cases.thrust import Chain, bisect, margin, stands
from sim.contact.interface import contact_friction
from sim.pieces.boards import TABLE_MATERIAL
from sim.scene import Scene, from_dict
from sim.tol import tol

ABUTMENTS = ("fixed", "blocks")
"""What an arch springs from: fixed pieces, or blocks standing free on the table."""


@dataclass(frozen=True)
class Arch:
    """A voussoir arch's parameters (lengths in mm, angles in degrees).

    Attributes:
        n: number of voussoirs.
        radius: mean radius R (halfway between intrados and extrados).
        ratio: thickness over mean radius, t / R.
        half_angle: half the angle the arch spans: 90 semicircular, less segmental.
        depth: the voussoirs' and abutments' depth (along y).
        abutments: ``fixed`` or ``blocks`` (free on the table).
        abutment_width: how far each abutment reaches beyond the extrados at the springing, in units of R.
        abutment_height: height of the intrados at the springing above the table, in units of R.
        friction: every piece's Coulomb coefficient (so every joint's, the table's aside).
    """

    n: int = 9
    radius: float = 500.0
    ratio: float = 0.12
    half_angle: float = 90.0
    depth: float = 250.0
    abutments: str = "fixed"
    abutment_width: float = 0.5
    abutment_height: float = 0.3
    friction: float = 0.7

    def __post_init__(self):
        if self.n < 1 or not 0.0 < self.half_angle <= 90.0 or not 0.0 < self.ratio < 2.0:
            raise ValueError(f"arch: expected n >= 1, 0 < half_angle <= 90 and 0 < t/R < 2, got {self}")
        if self.abutments not in ABUTMENTS:
            raise ValueError(f"arch: abutments: expected one of {ABUTMENTS}, got {self.abutments!r}")

    @property
    def thickness(self) -> float:
        """t (mm)."""
        return self.ratio * self.radius

    @property
    def label(self) -> str:
        """A short name: shape, n, R, depth and abutments."""
        shape = "semicircular" if self.half_angle == 90.0 else f"segmental {self.half_angle:g}°"
        return (f"{shape} n={self.n} R={self.radius:g} d={self.depth:g} {self.abutments} "
                f"a={self.abutment_width:g}x{self.abutment_height:g}")


@dataclass(frozen=True, eq=False)
class Blocks:
    """An arch's blocks in its plane, left to right: abutment, voussoirs, abutment.

    Attributes:
        names: each block's piece id.
        polygons: each block's outline (k, 2) in (x, z), mm, counter-clockwise.
        fixed: whether each block is fixed.
        joints: (m + 1, 2, 2) the joints of the chain of movable blocks, left to right (mm).
        normals: (m + 1, 2) each joint's unit normal, from its left side into its right side.
        friction: (m + 1,) each joint's Coulomb coefficient.
    """

    names: tuple
    polygons: tuple
    fixed: tuple
    joints: np.ndarray
    normals: np.ndarray
    friction: np.ndarray


def _area_centroid(poly: np.ndarray) -> tuple[float, np.ndarray]:
    """Area and centroid of a counter-clockwise polygon (k, 2) (shoelace)."""
    x, z = poly[:, 0], poly[:, 1]
    xn, zn = np.roll(x, -1), np.roll(z, -1)
    cross = x * zn - xn * z
    area = cross.sum() / 2.0
    return float(area), np.array([((x + xn) * cross).sum(), ((z + zn) * cross).sum()]) / (6.0 * area)


def blocks(arch: Arch) -> Blocks:
    """The arch's blocks and the joints of its chain (see :class:`Blocks`)."""
    r, t = arch.radius, arch.thickness
    ri, re = r - t / 2.0, r + t / 2.0
    spring = math.radians(90.0 - arch.half_angle)  # the springing joints' angle above the horizontal
    centre_z = arch.abutment_height * r - ri * math.sin(spring)
    phi = math.pi - spring - np.arange(arch.n + 1) * (math.pi - 2.0 * spring) / arch.n  # left to right
    radial = np.column_stack([np.cos(phi), np.sin(phi)])
    centre = np.array([0.0, centre_z])
    inner, outer = centre + ri * radial, centre + re * radial
    voussoirs = [np.array([inner[k + 1], outer[k + 1], outer[k], inner[k]]) for k in range(arch.n)]
    right = _abutment(inner[-1], outer[-1], arch.abutment_width * r)
    left = right[::-1] * [-1.0, 1.0]  # the mirror image, still counter-clockwise
    names = ("abutment-left", *(f"v{k + 1:02d}" for k in range(arch.n)), "abutment-right")
    polygons = (left, *voussoirs, right)
    movable = arch.abutments == "blocks"
    fixed = (not movable, *(False,) * arch.n, not movable)
    joints = [np.array([inner[k], outer[k]]) for k in range(arch.n + 1)]
    normals = [np.array([math.sin(p), -math.cos(p)]) for p in phi]  # towards the next voussoir (φ falling)
    mu = contact_friction(arch.friction, arch.friction)
    friction = [mu] * (arch.n + 1)
    if movable:
        ground = contact_friction(arch.friction, TABLE_MATERIAL.friction)
        joints = [left[[-2, -1]], *joints, right[[0, 1]]]  # the abutments' bases
        normals = [np.array([0.0, 1.0]), *normals, np.array([0.0, -1.0])]
        friction = [ground, *friction, ground]
    return Blocks(names, polygons, fixed, np.array(joints), np.array(normals), np.array(friction))


def _abutment(inner: np.ndarray, outer: np.ndarray, reach: float) -> np.ndarray:
    """The right abutment's outline (counter-clockwise) under the springing joint ``inner``–``outer``:
    down to the table (z = 0) below the intrados, ``reach`` beyond the extrados, its top level there."""
    x_out = outer[0] + reach
    base = [[inner[0], 0.0], [x_out, 0.0], [x_out, outer[1]]]
    if outer[1] - inner[1] > 1e-9 * max(1.0, abs(outer[1])):  # an inclined skewback: the joint is a face
        return np.array([*base, outer, inner])
    return np.array([*base, inner])


def chain(arch: Arch) -> Chain:
    """The chain of the arch's movable blocks, for :mod:`sim.cases.thrust` (one density: weight ∝ area)."""
    b = blocks(arch)
    moving = [p for p, f in zip(b.polygons, b.fixed) if not f]
    props = [_area_centroid(p) for p in moving]
    return Chain(np.array([a for a, _ in props]), np.array([c for _, c in props]), b.joints, b.normals, b.friction)


def reference_margin(arch: Arch) -> float:
    """The arch's margin (g) by its thrust lines: the weaker of its two in-plane load factors; 0 if it falls."""
    return margin(chain(arch), arch.radius)


def critical_ratio(arch: Arch, lo: float = 0.002, hi: float = 0.8) -> float:
    """The least t/R at which the arch (the rest as given) stands, by bisection on its thrust lines."""
    return bisect(lambda x: stands(chain(replace(arch, ratio=x)), arch.radius), lo, hi)


def critical_friction(arch: Arch, lo: float = 0.01, hi: float = 2.0) -> float:
    """The least friction coefficient (every piece's) at which the arch stands, by bisection on its thrust lines."""
    return bisect(lambda mu: stands(chain(replace(arch, friction=mu)), arch.radius), lo, hi)


def arch_scene(arch: Arch, turn_deg: float = 0.0, shift_mm=(0.0, 0.0, 0.0), title: str | None = None) -> Scene:
    """The arch as a free scene on the endless table: every block a ``hull`` of its corners (mm), written
    where it stands (turned by ``turn_deg`` about the vertical through the origin, then shifted)."""
    b = blocks(arch)
    turn = math.radians(turn_deg)
    rot = np.array([[math.cos(turn), -math.sin(turn), 0.0], [math.sin(turn), math.cos(turn), 0.0], [0.0, 0.0, 1.0]])
    half = arch.depth / 2.0
    pieces = []
    for name, poly, fixed in zip(b.names, b.polygons, b.fixed):
        corners = np.array([[x, y, z] for y in (-half, half) for x, z in poly]) @ rot.T + np.asarray(shift_mm)
        piece = {"id": name, "kind": "hull", "vertices": corners.tolist(),
                 "pos": ((corners.min(axis=0) + corners.max(axis=0)) / 2.0).tolist(), "friction": arch.friction}
        if fixed:
            piece["fixed"] = True
        pieces.append(piece)
    title = title or f"arch {arch.label} t/R={arch.ratio:.6g} mu={arch.friction:g}"
    return from_dict({"format": FORMAT, "game": "free", "board": "table", "title": title, "pieces": pieces},
                     f"<{title}>")


@dataclass(frozen=True)
class ArchCase:
    """One case of the masonry suite.

    Attributes:
        name: what it is, e.g. ``semicircular n=9 … t/R x1.01``.
        family: ``thickness`` (t/R about its critical value) or ``friction`` (μ about its critical value).
        arch: its parameters.
        turn_deg, shift_mm: how the scene is turned about the vertical and shifted.
        critical: the critical value of the family's parameter (t/R or μ), the rest as in ``arch``.
        factor: the case's parameter over the critical one (0.95, 0.99, 1.01, 1.05; 0.98, 1.02).
        margin_g: its reference margin (g), by its thrust lines (0 where it falls).
    """

    name: str
    family: str
    arch: Arch
    turn_deg: float
    shift_mm: tuple
    critical: float
    factor: float
    margin_g: float

    @property
    def stands(self) -> bool:
        """The reference verdict: it stands with a margin above ``tol.stable_margin_g`` (as the statics judge)."""
        return self.margin_g > tol.stable_margin_g

    @property
    def scene(self) -> Scene:
        """The case as a scene (built anew on each call)."""
        return arch_scene(self.arch, self.turn_deg, self.shift_mm, self.name)


THICKNESS_FACTORS = (0.95, 0.99, 1.01, 1.05)
"""The thickness cases: these factors on the critical t/R."""
FRICTION_FACTORS = (0.98, 1.02)
"""The sliding cases: these factors on the critical friction."""

TURNS = ((0.0, (0.0, 0.0, 0.0)), (33.0, (250.0, -120.0, 0.0)), (90.0, (-40.0, 300.0, 0.0)),
         (217.0, (1200.0, 35.0, 0.0)))
"""(turn about the vertical (degrees), shift (mm)) the suite's arches take in turn."""


def thickness_arches(quick: bool = False) -> list[Arch]:
    """The suite's arches of the thickness family: semicircular and segmental, 5–25 voussoirs, in several
    proportions, on fixed abutments and on blocks."""
    semi = [Arch(5), Arch(7, 300.0, depth=150.0), Arch(9, 1200.0, depth=400.0, abutments="blocks"),
            Arch(12, 500.0, depth=200.0), Arch(16, 800.0, depth=300.0, abutments="blocks", abutment_width=0.7),
            Arch(25, 600.0, depth=250.0)]
    segmental = [Arch(5, 700.0, half_angle=60.0, abutments="blocks"), Arch(9, 1500.0, half_angle=45.0, depth=500.0),
                 Arch(15, 900.0, half_angle=70.0, depth=350.0), Arch(21, 500.0, half_angle=55.0, abutments="blocks",
                                                                    abutment_width=0.8)]
    every = semi + segmental
    return [every[i] for i in (0, 2, 6, 7)] if quick else every


def sliding_arches(quick: bool = False) -> list[Arch]:
    """The suite's arches of the friction family: thick enough that friction, not thickness, decides."""
    every = [Arch(9, 500.0, ratio=0.25, half_angle=90.0), Arch(13, 700.0, ratio=0.3, depth=300.0),
             Arch(7, 400.0, ratio=0.2, half_angle=60.0, depth=180.0), Arch(11, 600.0, ratio=0.22, half_angle=75.0)]
    return every[:2] if quick else every


def suite(quick: bool = False) -> list[ArchCase]:
    """The masonry suite, in a fixed order (deterministic).

    Args:
        quick: a sample of every family (a third of the cases) for the tests.
    """
    families = [("thickness", a, critical_ratio(a), "ratio", THICKNESS_FACTORS) for a in thickness_arches(quick)]
    families += [("friction", a, critical_friction(a), "friction", FRICTION_FACTORS) for a in sliding_arches(quick)]
    cases: list[ArchCase] = []
    for family, arch, critical, field, factors in families:
        for factor in factors:
            turn, shift = TURNS[len(cases) % len(TURNS)]
            case_arch = replace(arch, **{field: critical * factor})
            what = f"t/R x{factor:g}" if family == "thickness" else f"t/R={arch.ratio:g} mu x{factor:g}"
            cases.append(ArchCase(f"{arch.label} {what}", family, case_arch, turn, shift, critical, factor,
                                  reference_margin(case_arch)))
    return cases
