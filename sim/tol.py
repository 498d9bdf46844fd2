"""Named tolerances, in one place (SI units: metres, radians, seconds).

Every threshold the project compares against lives here, with the reason for
its value, so that no literal is scattered through the code.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tolerances:
    """Geometric and numerical tolerances.

    Attributes:
        merge: distance below which two vertices are the same point (m).
        coplanar: distance below which two faces touch (m); contact interfaces
            are found between faces closer than this.
        coplanar_angle: angle below which two face normals count as opposite (rad).
        overlap: interpenetration depth tolerated between pieces at load (m);
            more is reported as overlapping pieces.
        volume_rel: relative tolerance of volume comparisons between a mesh and
            the parts it was built from.
        talo_snap: how far (m) a Talo piece may sit from the grid (its corner from
            a grid line, its bottom from a level) and still count as on the grid:
            3 mm, 15 % of a field, well above the sub-millimetre drift of a
            settled block and well below a placement visibly between fields.
        talo_snap_angle: how far (rad) a Talo piece may be turned from lying or
            standing square and still count as on the grid: 5°, beyond the
            settling wobble, well short of a diagonal or a leaning block.
    """

    merge: float = 1e-9
    coplanar: float = 5e-5
    coplanar_angle: float = 1e-3
    overlap: float = 2e-4
    volume_rel: float = 1e-6
    talo_snap: float = 3e-3
    talo_snap_angle: float = 0.0873


tol = Tolerances()
