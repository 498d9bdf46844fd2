"""The Talo grid shorthand: a field, a layer and an axis, as a pose on the board."""

from __future__ import annotations

import numpy as np

from sim.geometry.transforms import euler_to_quat
from sim.pieces import Grid
from sim.pieces import shape as catalogue_shape
from sim.pieces.talo import BLOCK, PAWN

SHORTHAND_KINDS = {BLOCK: True, PAWN: False}
"""The kinds that may be given on the grid (``cell``, ``layer``), and whether they also take an ``axis``."""

_AXIS_ROT = {"x": (0.0, 0.0, 0.0), "y": (0.0, 0.0, 90.0), "z": (0.0, 90.0, 0.0)}


def grid_pose(kind: str, params, placement, grid: Grid):
    """Position (m) and quaternion (xyzw) of a Talo piece given on the grid.

    A block with axis ``x`` (``y``) lies on fields i..i+n-1 (j..j+n-1) from its
    cell; with axis ``z`` it stands on its cell. Its bottom is at 20 · layer mm.
    A pawn stands on its cell at that height.

    Args:
        kind: ``talo.block`` or ``talo.pawn``.
        params: the kind's parameters (``length`` for blocks).
        placement: a :class:`~sim.scene.model.GridPlacement`.
        grid: the board's grid.

    Returns:
        pos (3,) and quat (4,) as tuples of floats.
    """
    i, j = placement.cell
    bottom = placement.layer * grid.cell
    x0, y0 = grid.centre(i, j)
    if kind == PAWN:
        height = catalogue_shape(kind, **params).extent[2]
        return (float(x0), float(y0), float(bottom + height / 2)), (0.0, 0.0, 0.0, 1.0)
    n = params["length"]
    half = (n - 1) * grid.cell / 2  # from the first field's centre to the block's centre
    centre = {
        "x": (x0 + half, y0, bottom + grid.cell / 2),
        "y": (x0, y0 + half, bottom + grid.cell / 2),
        "z": (x0, y0, bottom + n * grid.cell / 2),
    }[placement.axis]
    quat = euler_to_quat(_AXIS_ROT[placement.axis])
    return tuple(float(c) for c in centre), tuple(float(q) for q in np.round(quat, 15))
