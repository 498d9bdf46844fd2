"""Generic pieces for free scenes: boxes and cylinders of any size."""

from __future__ import annotations

from sim.geometry import solids
from sim.pieces import dimensions as dim
from sim.pieces.model import G_CM3, Material, PieceShape, assemble

GENERIC_WOOD = Material("wood", dim.BOX_DENSITY * G_CM3, dim.BOX_FRICTION)


def box(size) -> PieceShape:
    """A solid box of ``size`` = (x, y, z) mm."""
    sx, sy, sz = (float(s) for s in size)
    parts = [("box", solids.box((-sx / 2, -sy / 2, -sz / 2), (sx / 2, sy / 2, sz / 2)))]
    variant = f"{sx:g}x{sy:g}x{sz:g}"
    return assemble("box", variant, {"size": (sx, sy, sz)}, parts, GENERIC_WOOD, dim.COLORS["beech"])


def cylinder(radius: float, height: float) -> PieceShape:
    """A solid upright cylinder (mm); its tessellation keeps the exact volume."""
    r, h = float(radius), float(height)
    parts = [("cylinder", solids.frustum(r, r, 0.0, h, dim.ROUND_SEGMENTS * 2))]
    return assemble("cylinder", f"r{r:g}-h{h:g}", {"radius": r, "height": h}, parts,
                    GENERIC_WOOD, dim.COLORS["beech"])
