"""Cameras as plain numbers: named views, automatic framing and the pinhole projection.

Pure numpy, no Panda3D: the renderer places its lens from a :class:`Camera`,
and tests project points with the same object to know where they must land.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from sim.errors import TowerlabError
from sim.geometry.transforms import transform_points
from sim.render.looks import LIGHTING, Lighting

CAMERAS = ("iso", "front", "side", "top")
# Direction from the scene towards the eye, and the image's up direction, per named view.
_ISO_AZIMUTH_DEG = -52.0  # from +x, counter-clockwise: the eye is front-right of the scene
_ISO_ELEVATION_DEG = 30.0
FOV_Y_DEG = 30.0  # vertical field of view: a mild perspective, like a product photograph
MARGIN = 0.06  # free border on each side of an automatically framed image (fraction of its size)
MIN_NEAR = 1e-3  # m
# Clipping planes relative to the framed points' depths: the near plane well in front of them, so
# that a table reaching towards the camera is not cut, the far one well behind them; 24-bit depth
# keeps sub-micrometre resolution over that range.
NEAR_FRACTION = 0.1
FAR_FACTOR = 10.0
EMPTY_EXTENT = 0.1  # m: half-size of the region framed when a scene has neither pieces nor a board
BOARD_FRAME_RATIO = 3.0  # the board is framed too when it is at most this many times the pieces' size


class CameraError(TowerlabError):
    """An unknown camera name or an impossible explicit view."""


def _unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def view_direction(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Unit vector from the scene towards the eye and the image's up vector of a named view.

    Args:
        name: ``iso``, ``front`` (looking along +y), ``side`` (looking along -x) or ``top``.

    Raises:
        CameraError: unknown name.
    """
    z = np.array([0.0, 0.0, 1.0])
    if name == "iso":
        az, el = np.radians(_ISO_AZIMUTH_DEG), np.radians(_ISO_ELEVATION_DEG)
        return np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)]), z
    if name == "front":
        return np.array([0.0, -1.0, 0.0]), z
    if name == "side":
        return np.array([1.0, 0.0, 0.0]), z
    if name == "top":
        return z, np.array([0.0, 1.0, 0.0])
    raise CameraError(f"unknown camera {name!r}; expected one of {', '.join(CAMERAS)}")


@dataclass(frozen=True)
class Camera:
    """A pinhole camera.

    Attributes:
        eye: (3,) position (m, world).
        target: (3,) point looked at (m, world).
        up: (3,) world direction that appears upwards in the image.
        size: (width, height) of the image in pixels.
        fov_y: vertical field of view (degrees).
        near, far: clipping distances along the view direction (m).
    """

    eye: tuple[float, float, float]
    target: tuple[float, float, float]
    up: tuple[float, float, float]
    size: tuple[int, int]
    fov_y: float = FOV_Y_DEG
    near: float = 0.01
    far: float = 10.0

    @property
    def basis(self) -> np.ndarray:
        """(3, 3) rows: right, image-up and forward unit vectors (world)."""
        f = _unit(np.subtract(self.target, self.eye))
        r = _unit(np.cross(f, self.up))
        return np.array([r, np.cross(r, f), f])

    @property
    def fov_x(self) -> float:
        """Horizontal field of view (degrees)."""
        w, h = self.size
        return float(np.degrees(2.0 * np.arctan(np.tan(np.radians(self.fov_y) / 2.0) * w / h)))

    def to_camera(self, points) -> np.ndarray:
        """(k, 3) world points -> (k, 3) right, up, depth coordinates (m)."""
        return (np.asarray(points, dtype=float) - np.asarray(self.eye)) @ self.basis.T

    def project(self, points) -> np.ndarray:
        """Pixel coordinates of world points.

        Args:
            points: (k, 3) metres, world; they must lie in front of the camera.

        Returns:
            (k, 2) float: x to the right and y downwards from the image's
            top-left corner, in pixels (the centre of pixel (row, col) is
            (col + 0.5, row + 0.5)).
        """
        c = self.to_camera(points)
        w, h = self.size
        tx = np.tan(np.radians(self.fov_x) / 2.0)
        ty = np.tan(np.radians(self.fov_y) / 2.0)
        ndc_x = c[:, 0] / (c[:, 2] * tx)
        ndc_y = c[:, 1] / (c[:, 2] * ty)
        return np.column_stack([(ndc_x + 1.0) * w / 2.0, (1.0 - ndc_y) * h / 2.0])


def piece_corners(scene) -> np.ndarray:
    """(8n, 3) corners of every piece's oriented bounding box at its pose (m, world)."""
    if not scene.pieces:
        return np.zeros((0, 3))
    return np.vstack([transform_points(p.shape.box_corners, p.pos, p.quat) for p in scene.pieces])


def board_corners(scene) -> np.ndarray:
    """(8, 3) corners of the board's slab (m, world); (0, 3) for the endless table."""
    b = scene.board_info
    if b.shape is None:
        return np.zeros((0, 3))
    return b.shape.box_corners + b.pos


def framed_points(scene) -> np.ndarray:
    """(k, 3) the points an automatic view keeps inside the image (m, world).

    Every piece's bounding-box corners, and the board's when it is a printed
    game board not much larger than what stands on it (a Talo board under a
    tower, never a plain table under a few nobles), or when there are no pieces.
    """
    pieces = piece_corners(scene)
    board = board_corners(scene)
    if len(pieces) == 0:
        if len(board):
            return board
        e = EMPTY_EXTENT
        return np.array([[x, y, z] for x in (-e, e) for y in (-e, e) for z in (0.0, e)])
    if len(board) and scene.board_info.shape.decals:
        piece_size = float(np.max(pieces.max(axis=0) - pieces.min(axis=0)))
        board_size = float(np.max(board.max(axis=0) - board.min(axis=0)))
        if board_size <= BOARD_FRAME_RATIO * piece_size:
            return np.vstack([pieces, board])
    return pieces


def fit_camera(points, toward_eye, up, size, fov_y: float = FOV_Y_DEG, margin: float = MARGIN) -> Camera:
    """The closest camera looking along ``-toward_eye`` whose image holds every point.

    With the orientation fixed, a point (x, y, z) in camera axes is inside the
    image when ``|x - a| <= kx (z - t)`` and ``|y - b| <= ky (z - t)``, where
    (a, b, t) is the eye in those axes and k the tangent of the half field of
    view shrunk by the margin. The largest t (the closest eye) has a closed
    form per axis; the sideways offsets a and b then centre the points'
    projected extent in the image on both axes (a monotonic root).

    Args:
        points: (k, 3) world points (m), k >= 1.
        toward_eye: (3,) direction from the scene to the eye.
        up: (3,) world direction that appears upwards.
        size: (width, height) pixels.
        fov_y: vertical field of view (degrees).
        margin: free border on each side, as a fraction of the image size.

    Returns:
        The camera, with near and far planes enclosing the points.
    """
    pts = np.asarray(points, dtype=float)
    f = -_unit(toward_eye)
    r = _unit(np.cross(f, up))
    u = np.cross(r, f)
    x, y, z = pts @ r, pts @ u, pts @ f
    w, h = size
    ky = np.tan(np.radians(fov_y) / 2.0) * (1.0 - 2.0 * margin)
    kx = np.tan(np.radians(fov_y) / 2.0) * w / h * (1.0 - 2.0 * margin)
    t = min((np.min(x + kx * z) - np.max(x - kx * z)) / (2.0 * kx),
            (np.min(y + ky * z) - np.max(y - ky * z)) / (2.0 * ky))
    extent = float(np.max(pts.max(axis=0) - pts.min(axis=0)))
    t = min(t, float(np.min(z)) - max(MIN_NEAR, 0.05 * extent))
    a = _centre(x, z - t, kx)
    b = _centre(y, z - t, ky)
    eye = a * r + b * u + t * f
    depth = z - t
    target = eye + f * float(np.mean([depth.min(), depth.max()]))
    return Camera(tuple(eye), tuple(target), tuple(up), (int(w), int(h)), fov_y,
                  near=max(MIN_NEAR, NEAR_FRACTION * float(depth.min())), far=float(depth.max()) * FAR_FACTOR)


def _centre(x: np.ndarray, depth: np.ndarray, k: float) -> float:
    """The sideways eye offset that centres the projections ``(x - a) / depth`` within ``[-k, k]``."""
    lo, hi = float(np.max(x - k * depth)), float(np.min(x + k * depth))
    if hi - lo <= 1e-12 * max(1.0, abs(lo)):
        return (lo + hi) / 2.0

    def imbalance(a: float) -> float:
        ndc = (x - a) / depth
        return float(ndc.max() + ndc.min())

    return float(brentq(imbalance, lo, hi, xtol=1e-14))


def look_camera(eye, look_at, size, scene_points, fov_y: float = FOV_Y_DEG) -> Camera:
    """A camera at ``eye`` looking at ``look_at`` (m), its clipping planes fitted to the scene.

    Raises:
        CameraError: eye and look_at coincide.
    """
    eye = np.asarray(eye, dtype=float)
    look_at = np.asarray(look_at, dtype=float)
    d = look_at - eye
    if np.linalg.norm(d) < MIN_NEAR:
        raise CameraError("the eye and the look-at point coincide")
    f = d / np.linalg.norm(d)
    up = np.array([0.0, 0.0, 1.0]) if abs(f[2]) < 0.999 else np.array([0.0, 1.0, 0.0])
    pts = np.asarray(scene_points, dtype=float)
    depth = (pts - eye) @ f if len(pts) else np.array([np.linalg.norm(d)])
    far = max(float(depth.max()), float(np.linalg.norm(d))) * FAR_FACTOR
    near = max(MIN_NEAR, NEAR_FRACTION * float(depth[depth > 0].min())) if np.any(depth > 0) else MIN_NEAR
    return Camera(tuple(eye), tuple(look_at), tuple(up), (int(size[0]), int(size[1])), fov_y,
                  near=min(near, far / FAR_FACTOR), far=far)


def scene_camera(scene, size, camera: str = "iso", eye=None, look_at=None, lighting: Lighting = LIGHTING) -> Camera:
    """The camera for a scene: a named automatically framed view, or an explicit eye and target.

    A named view frames every piece (and the board, see :func:`framed_points`);
    on the endless table it also frames the shadows the pieces cast on it, so
    that the picture shows what stands on the table and what is held above it.

    Args:
        scene: the :class:`~sim.scene.Scene`.
        size: (width, height) pixels.
        camera: ``iso``, ``front``, ``side`` or ``top`` (ignored when eye is given).
        eye, look_at: (3,) metres, world; both or neither.
        lighting: the lights of the picture (where the key light's shadows fall).

    Raises:
        CameraError: unknown camera, only one of eye and look_at, or coincident points.
    """
    if (eye is None) != (look_at is None):
        raise CameraError("give both eye and look-at, or neither")
    pts = framed_points(scene)
    if eye is not None:
        return look_camera(eye, look_at, size, np.vstack([pts, board_corners(scene)]))
    toward, up = view_direction(camera)
    if scene.pieces and scene.board_info.shape is None:
        pts = np.vstack([pts, table_shadows(scene, lighting.key_direction(-toward))])
    return fit_camera(pts, toward, up, size)


def table_shadows(scene, toward_light) -> np.ndarray:
    """(8n, 3) the corners of each piece's box moved along the light onto the table (z = 0) (m, world).

    Their outline holds the shadows the pieces cast on the table: a piece
    resting on it shadows its own foot, one held above it casts its shadow
    aside, and how far aside shows how high it is.

    Args:
        scene: the scene (pieces at their poses).
        toward_light: (3,) unit vector towards the key light (z > 0).
    """
    corners = piece_corners(scene)
    d = np.asarray(toward_light, dtype=float)
    height = np.maximum(corners[:, 2], 0.0)  # what lies below the table casts no shadow on it
    shadows = corners - np.outer(height / d[2], d)
    shadows[:, 2] = 0.0
    return shadows


MIN_PIECE_PIXELS = 2.0  # a piece drawn smaller than this across is a speck, not a picture of it


def framing_warning(scene, camera: Camera) -> str | None:
    """Why a picture of ``scene`` from ``camera`` would show next to nothing, or None when it shows the pieces.

    Three cases: the scene has no pieces; no piece lies in the camera's view (an
    explicit eye looking away); the pieces lie so far apart that framing all of
    them leaves the smallest under :data:`MIN_PIECE_PIXELS` across.
    """
    if not scene.pieces:
        return "no pieces: the picture shows only the " + ("table" if scene.board_info.shape is None else "board")
    corners = piece_corners(scene).reshape(-1, 8, 3)
    depth = camera.to_camera(corners.reshape(-1, 3))[:, 2].reshape(-1, 8)
    in_front = depth.min(axis=1) > camera.near
    w, h = camera.size
    across, visible = [], []
    for box, front in zip(corners, in_front):
        if not front:
            visible.append(False)
            continue
        px = camera.project(box)
        lo, hi = px.min(axis=0), px.max(axis=0)
        visible.append(bool(hi[0] > 0 and hi[1] > 0 and lo[0] < w and lo[1] < h))
        across.append(float(np.max(hi - lo)))
    if not any(visible):
        return "no piece is in view of this camera"
    if min(across) < MIN_PIECE_PIXELS:
        centres = np.array([p.pos for p in scene.pieces])
        spread = float(np.max(np.ptp(centres, axis=0)))
        far = f"{spread:.0f} m" if spread >= 10 else f"{spread:.2f} m" if spread >= 1 else f"{spread * 1000:.0f} mm"
        return (f"the pieces lie {far} apart: at {w}x{h} the smallest is drawn under "
                f"{MIN_PIECE_PIXELS:.0f} pixels across (render them separately, or aim an explicit camera at some)")
    return None
