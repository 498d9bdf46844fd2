"""An impulse at a point of a rigid body as the change of its velocity and spin (pure, SI).

A body of mass m, inertia I (principal moments in principal axes turned by R
into the world) struck by an impulse J at a point r from its centre of mass
changes its velocity by J / m and its spin by I_w⁻¹ (r × J), with
I_w = R diag(I) Rᵀ (Newton–Euler over an instant).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial.transform import Rotation


def impulse_response(mass: float, moments, frame_quat, lever, impulse) -> tuple[np.ndarray, np.ndarray]:
    """The velocity and spin an impulse adds to a rigid body.

    Args:
        mass: kg.
        moments: (3,) principal moments of inertia (kg m²).
        frame_quat: (4,) xyzw, the principal axes' orientation in the world.
        lever: (3,) the point struck, from the centre of mass (m, world frame).
        impulse: (3,) the impulse (N s, world frame).

    Returns:
        (3,) velocity change (m/s) and (3,) spin change (rad/s), world frame.
    """
    j = np.asarray(impulse, dtype=float)
    r = Rotation.from_quat(frame_quat).as_matrix()
    inertia = r @ np.diag(np.asarray(moments, dtype=float)) @ r.T
    return j / mass, np.linalg.solve(inertia, np.cross(np.asarray(lever, dtype=float), j))


def strike_point(centre, lowest: float, highest: float, direction: float, height: float, offset: float) -> np.ndarray:
    """Where a horizontal push meets a piece: on the vertical through its centre of mass, at a height.

    The point's place along the push does not change what the push does (a lever along
    the impulse adds no moment), so the vertical through the centre of mass stands for
    the piece's surface where the push comes in.

    Args:
        centre: (3,) the centre of mass (m).
        lowest, highest: the piece's lowest and highest point (m).
        direction: the push's direction (rad from +x).
        height: 0 at the lowest point, 1 at the highest.
        offset: how far to the left of the centre of mass the push's line passes (m).

    Returns:
        (3,) the point (m, world frame).
    """
    left = np.array([-math.sin(direction), math.cos(direction), 0.0])
    point = np.asarray(centre, dtype=float) + offset * left
    point[2] = lowest + height * (highest - lowest)
    return point
