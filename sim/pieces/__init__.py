"""The piece catalogue: every kind of every game, built parametrically as convex parts.

From the same convex parts come the mass properties, the physics collision
shape and the visual mesh. Numbers live in :mod:`sim.pieces.dimensions`.
"""

from sim.pieces.boards import DEFAULT_BOARD, Board, Grid
from sim.pieces.catalogue import KINDS, KindSpec, Param, all_variants, board, shape
from sim.pieces.model import MM, Anchor, ConvexPart, Decal, Material, PieceShape

__all__ = [
    "DEFAULT_BOARD", "KINDS", "MM", "Anchor", "Board", "ConvexPart", "Decal", "Grid", "KindSpec",
    "Material", "Param", "PieceShape", "all_variants", "board", "shape",
]
