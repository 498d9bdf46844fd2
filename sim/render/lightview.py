"""The key light's view for shadow mapping: an orthographic box around what casts and receives shadows.

Pure numpy: the renderer places Panda3D's light camera from a :class:`LightView`
and hands :meth:`LightView.texture_matrix` to the shaders, so both agree by
construction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PAD_FRACTION = 0.04  # free border around the fitted box, as a fraction of its size
MIN_PAD = 2e-3  # m


@dataclass(frozen=True)
class LightView:
    """An orthographic view along the light.

    Attributes:
        origin: (3,) the light camera's position (m, world).
        basis: (3, 3) rows right, up and forward (towards the scene) unit vectors.
        width, height: size of the view (m).
        near, far: depth range from the origin along forward (m).
    """

    origin: np.ndarray
    basis: np.ndarray
    width: float
    height: float
    near: float
    far: float

    def texture_matrix(self) -> np.ndarray:
        """(4, 4) world (homogeneous, column vector) -> shadow-map (s, t) in 0..1 and depth in 0..1."""
        r, u, f = self.basis
        m = np.zeros((4, 4))
        m[0, :3] = r / self.width
        m[1, :3] = u / self.height
        m[2, :3] = f / (self.far - self.near)
        m[:3, 3] = [0.5 - r @ self.origin / self.width,
                    0.5 - u @ self.origin / self.height,
                    -(f @ self.origin + self.near) / (self.far - self.near)]
        m[3, 3] = 1.0
        return m

    def texel(self, resolution: int) -> float:
        """Size of one shadow-map texel (m) for a square map of ``resolution`` texels."""
        return max(self.width, self.height) / resolution


def fit_light(casters, toward_light, floor_z: float) -> LightView:
    """The smallest light view holding every caster and its shadow on the floor.

    Args:
        casters: (k, 3) points bounding what casts shadows (m, world), k >= 1.
        toward_light: (3,) unit vector from the scene towards the light (z > 0).
        floor_z: height of the floor catching the shadows (m).

    Returns:
        The view, with its depth range covering casters and their floor shadows.
    """
    pts = np.asarray(casters, dtype=float)
    d = np.asarray(toward_light, dtype=float)
    d = d / np.linalg.norm(d)
    shadows = pts - np.outer((pts[:, 2] - floor_z) / d[2], d)
    everything = np.vstack([pts, shadows])
    f = -d
    helper = np.array([0.0, 0.0, 1.0]) if abs(f[2]) < 0.99 else np.array([0.0, 1.0, 0.0])
    r = np.cross(f, helper)
    r /= np.linalg.norm(r)
    u = np.cross(r, f)
    x, y, z = everything @ r, everything @ u, everything @ f
    size = float(max(np.ptp(x), np.ptp(y), np.ptp(z)))
    pad = max(MIN_PAD, PAD_FRACTION * size)
    side = max(np.ptp(x), np.ptp(y)) + 2.0 * pad  # square: texels are the same size both ways
    origin = (x.min() + x.max()) / 2.0 * r + (y.min() + y.max()) / 2.0 * u + (z.min() - 2.0 * pad) * f
    return LightView(origin, np.array([r, u, f]), float(side), float(side), float(pad),
                     float(np.ptp(z) + 3.0 * pad))


def top_view(points, floor_z: float, radius: float, resolution: int) -> LightView:
    """A view straight down over ``points`` for contact occlusion, coarse enough for a soft filter.

    Its texels are at least ``radius / 2.5`` wide, so that a filter of that
    radius blurs smoothly with a few bilinear taps.

    Args:
        points: (k, 3) what occludes (m, world), k >= 1.
        floor_z: the lowest surface that receives occlusion (m).
        radius: the occlusion's reach (m).
        resolution: texels per side of the map.
    """
    pts = np.asarray(points, dtype=float)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    side = max(float(np.max(hi[:2] - lo[:2])) + 4.0 * radius, resolution * radius / 2.5)
    centre = (lo + hi) / 2.0
    pad = max(MIN_PAD, PAD_FRACTION * side)
    top = float(hi[2]) + 2.0 * pad
    origin = np.array([centre[0], centre[1], top])
    basis = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]])
    return LightView(origin, basis, side, side, pad, top - min(floor_z, float(lo[2])) + pad)
