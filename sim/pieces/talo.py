"""Talo pieces: beech blocks of length 1..10 and halma pawns."""

from __future__ import annotations

from sim.geometry import solids
from sim.pieces import dimensions as dim
from sim.pieces.figures import pawn_parts
from sim.pieces.model import G_CM3, Anchor, Material, PieceShape, assemble

BLOCK = "talo.block"
"""The kind name of a Talo block, as scene files write it."""

PAWN = "talo.pawn"
"""The kind name of a Talo pawn."""

BEECH = Material("wood", dim.TALO_DENSITY * G_CM3, dim.TALO_FRICTION)


def block(length: int) -> PieceShape:
    """A block of ``length`` grid units, lying along x: 20·n × 20 × 20 mm."""
    u = dim.TALO_UNIT
    lx = u * length
    parts = [("block", solids.box((-lx / 2, -u / 2, -u / 2), (lx / 2, u / 2, u / 2)))]
    anchors = [Anchor("top", "top", (0.0, 0.0, u / 2))]
    return assemble(BLOCK, str(length), {"length": length}, parts, BEECH,
                    dim.COLORS["beech"], anchors)


def pawn(color: str) -> PieceShape:
    """A pawn of one of the six player colours."""
    p = dim.TALO_PAWN
    return assemble(PAWN, color, {"color": color}, pawn_parts(p["base_radius"], p["height"]),
                    BEECH, dim.COLORS[color])
