"""Contact interfaces between touching convex parts of a scene's pieces (pure geometry)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BOARD = "board"


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
    return float(np.sqrt(mu_a * mu_b))
