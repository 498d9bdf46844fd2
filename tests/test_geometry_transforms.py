"""sim.geometry.transforms' own arithmetic is scipy's Rotation, bit for bit: the physics' poses and energies,
the viewer's footprints and snaps are read with it on hot paths, and must not change by a bit."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.geometry.transforms import FEW, compose, quat_to_matrix, rotate


def _quats(rng, n: int) -> np.ndarray:
    """Random quaternions, not normalised, and the awkward ones: the identity, signed zeros, a turn of
    90° about z, a negative w, near-zero vector parts, whole numbers."""
    q = rng.normal(size=(n, 4))
    q[::7] = np.round(q[::7])
    q[1::11] = [0.0, 0.0, 0.0, 1.0]
    q[2::13] = [0.0, 0.0, np.sqrt(0.5), np.sqrt(0.5)]
    q[3::17, :3] *= 1e-9
    q[4::19] *= -1.0
    q[5::23] = [-0.0, 0.0, -0.0, 1.0]
    q[6::29] = [0.0, -0.0, 0.70710678, -0.70710678]
    return q[np.linalg.norm(q, axis=1) > 0]


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))  # -0.0 is not 0.0


def test_one_rotation_is_scipys_bit_for_bit():
    rng = np.random.default_rng(7)
    q, p, v = _quats(rng, 3000), _quats(rng, 3000), rng.normal(size=(3000, 3))
    for k in range(min(len(q), len(p))):
        assert _same(quat_to_matrix(q[k]), Rotation.from_quat(q[k]).as_matrix())
        assert _same(rotate(q[k], v[k]), Rotation.from_quat(q[k]).apply(v[k]))
        assert _same(rotate(q[k], v[:5]), Rotation.from_quat(q[k]).apply(v[:5]))
        assert _same(rotate(q[k], v[k], inverse=True), Rotation.from_quat(q[k]).inv().apply(v[k]))
        r = Rotation.from_quat(q[k]) * Rotation.from_quat(p[k])
        assert _same(compose(q[k], p[k]), r.as_quat())
        inverse = Rotation.from_quat(q[k]) * Rotation.from_quat(p[k]).inv()
        assert _same(compose(q[k], p[k], invert_b=True), inverse.as_quat())
        assert _same(rotate(r.as_quat(), v[k], unit=True), r.apply(v[k]))


@pytest.mark.parametrize("n", [0, 1, 2, FEW, FEW + 1, 140])
def test_many_rotations_are_scipys_bit_for_bit(n):
    """A few one by one on floats, more on arrays: every size gives scipy's doubles."""
    rng = np.random.default_rng(n)
    for _ in range(50 if n < 20 else 5):
        q, p = _quats(rng, 4 * n + 40)[:n], _quats(rng, 4 * n + 40)[:n]
        v = rng.normal(size=(n, 3))
        assert _same(quat_to_matrix(q), Rotation.from_quat(q).as_matrix().reshape(-1, 3, 3))
        if n == 0:
            continue
        r = Rotation.from_quat(q) * Rotation.from_quat(p).inv()
        c = compose(q, p, invert_b=True)
        assert _same(c, r.as_quat())
        assert _same(quat_to_matrix(c, unit=True), r.as_matrix())
        assert _same(rotate(c, v, unit=True), r.apply(v))
        assert _same(rotate(q, v, inverse=True), Rotation.from_quat(q).inv().apply(v))
        assert _same(compose(q, p), (Rotation.from_quat(q) * Rotation.from_quat(p)).as_quat())


def test_a_zero_quaternion_is_refused_as_scipy_refuses_it():
    for bad in ([0.0, 0.0, 0.0, 0.0], [[0.0, 0.0, 0.0, 0.0]], [[np.nan, 0.0, 0.0, 1.0]] * (FEW + 1)):
        with pytest.raises(ValueError, match="zero norm"):
            quat_to_matrix(bad)
        with pytest.raises(ValueError, match="zero norm"):
            Rotation.from_quat(bad)
