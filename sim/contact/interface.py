"""The contact interface record, the friction rule, and which board contacts are with the table."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.names import BOARD
from sim.pieces.boards import TABLE_MATERIAL

BOARD_PART = -1  # ``part_a`` of an interface with the board, its slab or the table


@dataclass(frozen=True, eq=False)
class Interface:
    """Where two pieces (or a piece and the board) touch over a flat area.

    Attributes:
        a: id of one piece, or ``BOARD`` for the board or table.
        b: id of the other piece; when ``normal`` points up, b rests on a.
        part_a: index of a's convex part (-1 for the board).
        part_b: index of b's convex part.
        normal: (3,) unit normal from a into b (world).
        polygon: (k, 3) vertices of the contact polygon (world, m), counter-clockwise about ``normal``.
        area: polygon area (m²).
    """

    a: str
    b: str
    part_a: int
    part_b: int
    normal: np.ndarray
    polygon: np.ndarray
    area: float


def contact_friction(mu_a: float, mu_b: float) -> float:
    """Coulomb coefficient between two materials: the geometric mean of theirs.

    Two pieces of one material get that material's coefficient; pybullet and
    the statics both use this rule, so their verdicts compare like with like.
    """
    return math.sqrt(mu_a * mu_b)


def board_friction(scene) -> float:
    """Coulomb coefficient of the scene's board surface (its slab's material, else the table's)."""
    shape = scene.board_info.shape
    return TABLE_MATERIAL.friction if shape is None else shape.material.friction


def is_table_contact(scene, interface: Interface) -> bool:
    """Whether an interface with ``BOARD`` is with the table beside the board's slab.

    Pieces may stand on the table around a board: that plane lies the slab's
    thickness below the board top. On the endless ``table`` board every board
    contact is with the board itself.
    """
    if BOARD not in (interface.a, interface.b):
        return False
    thickness = scene.board_info.thickness
    return thickness > 0 and float(interface.polygon[:, 2].mean()) < -thickness / 2
