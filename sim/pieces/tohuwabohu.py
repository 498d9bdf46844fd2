"""Tohuwabohu pieces: bricks, arches, quadrilateral and triangular level plates, figures."""

from __future__ import annotations

import numpy as np
import shapely.geometry as sg

from sim.geometry import solids
from sim.pieces import dimensions as dim
from sim.pieces.figures import pawn_parts
from sim.pieces.model import G_CM3, Anchor, Decal, Material, PieceShape, assemble

WOOD = Material("wood", dim.TOHU_WOOD_DENSITY * G_CM3, dim.TOHU_FRICTION)
CARDBOARD = Material("cardboard", dim.TOHU_CARDBOARD_DENSITY * G_CM3, dim.TOHU_FRICTION)

# The three coloured areas of a level plate are sectors around the plate's
# centre, 120° each; the value is the angle (degrees) of each sector's middle.
AREA_DIRECTIONS = {"red": 90.0, "blue": 210.0, "green": 330.0}


def brick(size: str, color: str) -> PieceShape:
    """A small (40 × 20 × 20) or large (80 × 20 × 20) brick, lying."""
    lx, ly, lz = dim.TOHU_BRICK[size]
    parts = [("brick", solids.box((-lx / 2, -ly / 2, -lz / 2), (lx / 2, ly / 2, lz / 2)))]
    anchors = [Anchor("top", "top", (0.0, 0.0, lz / 2))]
    return assemble("tohuwabohu.brick", f"{size}-{color}", {"size": size, "color": color}, parts,
                    WOOD, dim.COLORS[color], anchors)


def arch() -> PieceShape:
    """An 80 × 20 × 40 block with a half-round opening (radius 20) from below: two 20 mm feet."""
    a = dim.TOHU_ARCH
    half, depth, r = a["length"] / 2, a["depth"], a["opening_radius"]
    profiles = solids.arched_wall_profiles(-half, half, 0.0, a["height"], 0.0, r, 0.0, dim.ARC_SEGMENTS)
    names = ["foot-left", "foot-right", "crown"] + [f"spandrel-{i}" for i in range(len(profiles) - 3)]
    parts = [(n, solids.extrude_profile(p, -depth / 2, depth / 2, "y")) for n, p in zip(names, profiles)]
    anchors = [Anchor("top", "top", (0.0, 0.0, a["height"]))]
    return assemble("tohuwabohu.arch", "", {}, parts, WOOD, dim.COLORS["neutral"], anchors)


def level_outline(shape: str) -> np.ndarray:
    """Outline of a level plate around its centre (mm), counter-clockwise, (k, 2).

    The quadrilateral is a 120 mm square; the triangle is equilateral with
    140 mm sides, its centroid at the origin and one corner pointing to +y.
    """
    if shape == "quad":
        h = dim.TOHU_QUAD_SIDE / 2
        return np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    circumradius = dim.TOHU_TRI_SIDE / np.sqrt(3.0)
    angles = np.radians([90.0, 210.0, 330.0])
    return circumradius * np.column_stack([np.cos(angles), np.sin(angles)])


def level_areas(shape: str) -> dict[str, np.ndarray]:
    """The three coloured areas of a plate: colour -> (k, 2) polygon (mm, plate centre)."""
    plate = sg.Polygon(level_outline(shape))
    far = 1000.0
    areas = {}
    for color, mid in AREA_DIRECTIONS.items():
        a = np.radians(np.linspace(mid - 60.0, mid + 60.0, 5))
        wedge = sg.Polygon([(0.0, 0.0), *zip(far * np.cos(a), far * np.sin(a))])
        poly = sg.polygon.orient(plate.intersection(wedge), 1.0)
        areas[color] = np.asarray(poly.exterior.coords)[:-1]
    return areas


def level_points(shape: str) -> dict[str, np.ndarray]:
    """Centre (mm, plate centre) of each area's marked figure point, (2,) per colour."""
    plate = sg.Polygon(level_outline(shape))
    points = {}
    for color, mid in AREA_DIRECTIONS.items():
        d = np.array([np.cos(np.radians(mid)), np.sin(np.radians(mid))])
        rim = plate.exterior.intersection(sg.LineString([(0, 0), tuple(1000.0 * d)]))
        points[color] = d * dim.TOHU_POINT_DISTANCE * float(np.hypot(rim.x, rim.y))
    return points


def level(shape: str) -> PieceShape:
    """A cardboard level plate (``quad`` or ``tri``) with its coloured areas and figure points."""
    t = dim.TOHU_LEVEL_THICKNESS
    outline = level_outline(shape)
    parts = [("plate", solids.prism(outline, -t / 2, t / 2))]
    r = dim.TOHU_POINT_DIAMETER / 2
    points = level_points(shape)
    anchors = [Anchor("top", "top", (0.0, 0.0, t / 2))]
    anchors += [Anchor(f"point-{c}", "figure_point", (p[0], p[1], t / 2), color=c, radius=r)
                for c, p in points.items()]
    decals = [Decal(f"area-{c}", (poly,), t / 2, dim.COLORS[f"area-{c}"])
              for c, poly in level_areas(shape).items()]
    decals += [Decal(f"point-{c}", (solids.circle(r, dim.ROUND_SEGMENTS, p),), t / 2, dim.COLORS[c])
               for c, p in points.items()]
    return assemble("tohuwabohu.level", shape, {"shape": shape}, parts, CARDBOARD,
                    dim.COLORS["cardboard"], anchors, decals)


def figure(color: str) -> PieceShape:
    """A figure (pawn Ø12, 22 high) of one of the three colours."""
    f = dim.TOHU_FIGURE
    return assemble("tohuwabohu.figure", color, {"color": color},
                    pawn_parts(f["base_radius"], f["height"]), WOOD, dim.COLORS[color])
