"""Rigid transforms. Quaternions are ``(x, y, z, w)`` everywhere (scipy/pybullet order)."""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial.transform import Rotation

IDENTITY_QUAT = np.array([0.0, 0.0, 0.0, 1.0])
FEW = 4
"""Up to this many quaternions are worked one by one on Python floats (numpy's and scipy's fixed costs
would outweigh the work), more on arrays at once."""


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


def quat_to_matrix(quat, unit: bool = False) -> np.ndarray:
    """(4,) xyzw -> (3, 3) rotation matrix; (n, 4) -> (n, 3, 3).

    scipy's ``Rotation.from_quat(quat).as_matrix()`` bit for bit: the quaternions normalised first, unless
    ``unit`` says they are a Rotation's own already (``as_matrix`` of a composition, an inverse). A few are
    worked out one by one without scipy's fixed cost of some 10 µs a call (see :func:`_unit`).
    """
    q = np.asarray(quat, dtype=float)
    if q.ndim == 1 and q.shape == (4,):
        return np.array(_matrix_terms(*(q.tolist() if unit else _unit(q.tolist()))))
    if q.ndim != 2 or q.shape[1] != 4:
        raise ValueError(f"Expected `quat` to have shape (4,) or (N, 4), got {q.shape}.")
    if len(q) <= FEW:
        rows = q.tolist() if unit else [_unit(r) for r in q.tolist()]
        return np.array([_matrix_terms(*r) for r in rows]).reshape(-1, 3, 3)
    if unit:
        return Rotation(q, normalize=False).as_matrix()
    return Rotation.from_quat(q).as_matrix()


def rotate(quat, vectors, inverse: bool = False, unit: bool = False) -> np.ndarray:
    """``Rotation.from_quat(quat).apply(vectors)`` bit for bit: one quaternion (4,) or one for each vector
    (n, 4); one vector (3,) or many (k, 3). ``inverse`` turns them back as ``Rotation.from_quat(quat).inv().apply``
    does, bit for bit (its matrix is the transpose, to the bit, laid out afresh: not quite ``apply(vectors,
    inverse=True)``, whose products run over the transposed view). ``unit``: see :func:`quat_to_matrix`."""
    q = np.asarray(quat, dtype=float)
    v = np.asarray(vectors, dtype=float)
    single = q.ndim == 1 and v.ndim == 1
    m = quat_to_matrix(q, unit).reshape(-1, 3, 3)
    if inverse:
        m = np.ascontiguousarray(np.swapaxes(m, -1, -2))
    v = v.reshape(-1, 3)
    if len(m) == 1 and len(v) == 1:
        out = np.matmul(m, v[0])
    elif len(m) == 1:
        out = np.matmul(m, v, axes=[(-2, -1), (-1, -2), (-1, -2)])[0]
    else:
        out = np.einsum("ijk,ik->ij", m, v)
    return out[0] if single else out


def compose(a, b, invert_b: bool = False) -> np.ndarray:
    """``(Rotation.from_quat(a) * Rotation.from_quat(b)).as_quat()`` bit for bit (b applied first; each (4,) or
    (n, 4)), not made canonical; with ``invert_b``, ``b``'s inverse (``* Rotation.from_quat(b).inv()``)."""
    p, q = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if p.ndim == 1 and q.ndim == 1:
        return np.array(_compose_one(p.tolist(), q.tolist(), invert_b))
    p, q = p.reshape(-1, 4), q.reshape(-1, 4)
    if len(p) == len(q) and len(p) <= FEW:
        return np.array([_compose_one(x, y, invert_b) for x, y in zip(p.tolist(), q.tolist())]).reshape(-1, 4)
    p, q = _units(p), _units(q)
    if invert_b:
        q[:, :3] *= -1
    return _units(np.stack(_product(p.T, q.T), axis=-1))


# scipy's Cython arithmetic (scipy/spatial/transform/_rotation_cy.pyx), operation for operation and in its order,
# so that every result is the same double (the test holds them to scipy's bit for bit).

def _unit(q):
    """One quaternion (x, y, z, w) normalised."""
    x, y, z, w = q
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    if norm == 0 or norm != norm:
        raise ValueError("Found zero norm quaternions in `quat`.")
    return x / norm, y / norm, z / norm, w / norm


def _units(q: np.ndarray) -> np.ndarray:
    """(n, 4) quaternions normalised."""
    x, y, z, w = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    norm = np.sqrt(x * x + y * y + z * z + w * w)
    if ((norm == 0) | np.isnan(norm)).any():
        raise ValueError("Found zero norm quaternions in `quat`.")
    return q / norm[:, None]


def _compose_one(a, b, invert_b: bool):
    u = _unit(b)
    return _unit(_product(_unit(a), (-u[0], -u[1], -u[2], u[3]) if invert_b else u))


def _product(p, q):
    """The Hamilton product p q of unit quaternions, each its four components (floats or arrays)."""
    p0, p1, p2, p3 = p
    q0, q1, q2, q3 = q
    c0, c1, c2 = p1 * q2 - p2 * q1, p2 * q0 - p0 * q2, p0 * q1 - p1 * q0
    return (p3 * q0 + q3 * p0 + c0, p3 * q1 + q3 * p1 + c1, p3 * q2 + q3 * p2 + c2,
            p3 * q3 - p0 * q0 - p1 * q1 - p2 * q2)


def _matrix_terms(x, y, z, w):
    """The rows of a unit quaternion's matrix."""
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    return ((x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw)),
            (2 * (xy + zw), - x2 + y2 - z2 + w2, 2 * (yz - xw)),
            (2 * (xz - yw), 2 * (yz + xw), - x2 - y2 + z2 + w2))


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
