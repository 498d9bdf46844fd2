"""Babylon Tower Builders pieces (Alcazar's): hollow towers, bridges and nobles.

Towers and bridges are thin plastic shells, open below. Each is partitioned
into convex wall and deck parts, so that the physics and statics see the real
thin walls, the arched openings and the slit, not a solid block.
"""

from __future__ import annotations

from sim.geometry import solids
from sim.pieces import dimensions as dim
from sim.pieces.figures import pawn_parts
from sim.pieces.model import G_CM3, Anchor, Material, PieceShape, assemble

PLASTIC = Material("plastic", dim.BABYLON_DENSITY * G_CM3, dim.BABYLON_FRICTION)


def _arched_wall(name: str, along: tuple[float, float], across: tuple[float, float], normal_axis: str,
                 bottom: float, top: float, centre: float, width: float, height: float):
    """Convex parts of a wall with an arched opening (width × height, half-round top) at its foot."""
    r = width / 2
    profiles = solids.arched_wall_profiles(along[0], along[1], bottom, top, centre, r,
                                           bottom + height - r, dim.ARC_SEGMENTS)
    return [(f"{name}-{i}", solids.extrude_profile(p, across[0], across[1], normal_axis))
            for i, p in enumerate(profiles)]


def tower() -> PieceShape:
    """A 25 × 25 × 20 shell, open below: an arched opening in its +x wall, a slit in its top.

    The opening marks the orientation: turning the tower about z by 90° gives
    each of its four orientations a different opening side. The slit runs
    along y, parallel to the opening's wall.
    """
    t = dim.BABYLON_TOWER
    sx, sy, sz = t["size"]
    w = dim.BABYLON_WALL
    hx, hy, hz = sx / 2, sy / 2, sz / 2
    deck = hz - w
    slit_x, slit_y = t["slit"][0] / 2, t["slit"][1] / 2
    parts = [
        ("top-left", solids.box((-hx, -hy, deck), (-slit_x, hy, hz))),
        ("top-right", solids.box((slit_x, -hy, deck), (hx, hy, hz))),
        ("top-front", solids.box((-slit_x, -hy, deck), (slit_x, -slit_y, hz))),
        ("top-back", solids.box((-slit_x, slit_y, deck), (slit_x, hy, hz))),
        ("wall-x", solids.box((-hx, -hy, -hz), (-hx + w, hy, deck))),
        ("wall-y", solids.box((-hx + w, -hy, -hz), (hx - w, -hy + w, deck))),
        ("wall+y", solids.box((-hx + w, hy - w, -hz), (hx - w, hy, deck))),
    ]
    parts += _arched_wall("wall+x", (-hy, hy), (hx - w, hx), "x", -hz, deck, 0.0,
                          t["opening_width"], t["opening_height"])
    anchors = [Anchor("top", "top", (0.0, 0.0, hz), radius=hx),
               Anchor("opening", "opening", (hx, 0.0, -hz + t["opening_height"] / 2), normal=(1.0, 0.0, 0.0))]
    return assemble("babylon.tower", "", {}, parts, PLASTIC, dim.COLORS["babylon"], anchors)


def bridge() -> PieceShape:
    """A 75 × 25 × 20 shell spanning three towers, with an arch under its middle.

    Its deck has three spots where towers or bridge ends may stand: the
    centre and either end (``spot-center``, ``spot-left``, ``spot-right``).
    """
    b = dim.BABYLON_BRIDGE
    sx, sy, sz = b["size"]
    w = dim.BABYLON_WALL
    hx, hy, hz = sx / 2, sy / 2, sz / 2
    deck = hz - w
    parts = [
        ("deck", solids.box((-hx, -hy, deck), (hx, hy, hz))),
        ("end-x", solids.box((-hx, -hy + w, -hz), (-hx + w, hy - w, deck))),
        ("end+x", solids.box((hx - w, -hy + w, -hz), (hx, hy - w, deck))),
    ]
    for name, across in (("side-y", (-hy, -hy + w)), ("side+y", (hy - w, hy))):
        parts += _arched_wall(name, (-hx, hx), across, "y", -hz, deck, 0.0,
                              b["opening_width"], b["opening_height"])
    spot = b["spot"]
    anchors = [Anchor("top", "top", (0.0, 0.0, hz))]
    anchors += [Anchor(f"spot-{n}", "spot", (x, 0.0, hz), radius=spot / 2)
                for n, x in (("left", -spot), ("center", 0.0), ("right", spot))]
    anchors += [Anchor("arch", "arch", (0.0, 0.0, -hz + b["opening_height"]), normal=(0.0, 0.0, -1.0),
                       radius=b["opening_width"] / 2)]
    return assemble("babylon.bridge", "", {}, parts, PLASTIC, dim.COLORS["babylon"], anchors)


def noble(size: str, color: str) -> PieceShape:
    """A small (Ø11, 18 high) or large (Ø15, 28 high) noble of one player colour."""
    n = dim.BABYLON_NOBLE[size]
    return assemble("babylon.noble", f"{size}-{color}", {"size": size, "color": color},
                    pawn_parts(n["base_radius"], n["height"]), PLASTIC, dim.COLORS[color])
