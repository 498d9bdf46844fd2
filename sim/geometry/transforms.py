"""Rigid transforms. Quaternions are ``(x, y, z, w)`` everywhere (scipy/pybullet order)."""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

IDENTITY_QUAT = np.array([0.0, 0.0, 0.0, 1.0])


def euler_to_quat(rot_deg) -> np.ndarray:
    """Rotation about the fixed X, then Y, then Z axes (degrees) as a quaternion.

    Args:
        rot_deg: (3,) angles in degrees.

    Returns:
        (4,) quaternion xyzw, normalised, with w >= 0.
    """
    q = Rotation.from_euler("xyz", np.asarray(rot_deg, dtype=float), degrees=True).as_quat()
    return canonical_quat(q)


def canonical_quat(quat) -> np.ndarray:
    """Normalise a quaternion (or an (n, 4) array of them) and make w non-negative."""
    q = np.asarray(quat, dtype=float)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return np.where(q[..., 3:4] < 0, -q, q)


def quat_to_matrix(quat) -> np.ndarray:
    """(4,) xyzw -> (3, 3) rotation matrix; (n, 4) -> (n, 3, 3)."""
    return Rotation.from_quat(np.asarray(quat, dtype=float)).as_matrix()


def rotation_matrices(quats: np.ndarray) -> np.ndarray:
    """(n, 3, 3) rotation matrices of (n, 4) quaternions xyzw, as :func:`quat_to_matrix` gives them (read-only).

    Scenes leave most pieces unrotated: when every quaternion is exactly the identity (signs of
    zero included) the matrices are the identity, which scipy returns for it bit for bit, and
    scipy's fixed cost of some 15 µs a call is not paid.
    """
    if (quats == IDENTITY_QUAT).all() and not np.signbit(quats).any():
        return np.broadcast_to(np.eye(3), (len(quats), 3, 3))
    return quat_to_matrix(quats)


def quat_multiply(a, b) -> np.ndarray:
    """Quaternion product ``a * b`` (apply b first, then a), xyzw."""
    return canonical_quat((Rotation.from_quat(a) * Rotation.from_quat(b)).as_quat())


def transform_points(points, pos, quat) -> np.ndarray:
    """Apply a rigid transform to points.

    Args:
        points: (k, 3) points in the body frame.
        pos: (3,) translation.
        quat: (4,) rotation xyzw.

    Returns:
        (k, 3) points in the world frame.
    """
    return np.asarray(points, dtype=float) @ quat_to_matrix(quat).T + np.asarray(pos, dtype=float)


def rotation_angle(quat_a, quat_b) -> np.ndarray:
    """Angle (rad) of the rotation taking ``quat_a`` to ``quat_b``; broadcasts over (n, 4)."""
    a = np.asarray(quat_a, dtype=float)
    b = np.asarray(quat_b, dtype=float)
    dot = np.abs(np.sum(a * b, axis=-1)) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))
    return 2.0 * np.arccos(np.clip(dot, -1.0, 1.0))


def tilt_angle(quat_a, quat_b) -> np.ndarray:
    """Angle (rad) between the body z axis under ``quat_a`` and under ``quat_b``; broadcasts."""
    za = quat_to_matrix(quat_a)[..., :, 2]
    zb = quat_to_matrix(quat_b)[..., :, 2]
    return np.arccos(np.clip(np.sum(za * zb, axis=-1), -1.0, 1.0))
