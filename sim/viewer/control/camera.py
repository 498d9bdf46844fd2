"""The viewer's camera as plain numbers: orbit, pan, zoom to a point, presets, framing, following a point.

Pure numpy: the controller moves it, the window reads :meth:`OrbitCamera.view`
(a :class:`sim.render.camera.Camera`, the very object the renderer places its
lens from) and turns pixels into rays with :meth:`OrbitCamera.ray`. The eye
never goes below the table: the elevation is kept above
:data:`MIN_ELEVATION_DEG` and the eye above the table top.

Direct manipulation (a drag's orbit and pan, the wheel, the keyboard's pan and
turn, a followed piece) moves the view at once: the frame that reads the input
draws its result. Only jumps (the presets, Home, framing) glide, over
:data:`SMOOTHING`, so that the eye sees where it went.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from sim.render.camera import FOV_Y_DEG, Camera, fit_camera, framed_points, view_direction

MIN_ELEVATION_DEG = 2.0
MAX_ELEVATION_DEG = 89.5  # straight down would leave the heading undefined
MIN_EYE_HEIGHT = 0.005  # m above the table top
MIN_DISTANCE, MAX_DISTANCE = 0.03, 30.0  # m
SMOOTHING = 0.12
"""Seconds in which a jump (a preset, Home, framing) closes about 63 % of the way to where it is sent; direct
manipulation does not glide."""


@dataclass(frozen=True)
class Orbit:
    """An orbiting view: where it looks, from how far and from which direction.

    Attributes:
        target: (3,) the point looked at (m).
        distance: from the eye to it (m).
        azimuth: direction from the target to the eye, degrees from +x (anticlockwise).
        elevation: degrees above the horizon.
    """

    target: tuple[float, float, float]
    distance: float
    azimuth: float
    elevation: float

    @property
    def toward_eye(self) -> np.ndarray:
        a, e = np.radians(self.azimuth), np.radians(self.elevation)
        return np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])

    @property
    def eye(self) -> np.ndarray:
        return np.asarray(self.target) + self.distance * self.toward_eye


def _orbit_of(eye, target) -> Orbit:
    d = np.asarray(eye, dtype=float) - np.asarray(target, dtype=float)
    r = float(np.linalg.norm(d))
    return Orbit(tuple(float(x) for x in target), r, float(np.degrees(np.arctan2(d[1], d[0]))),
                 float(np.degrees(np.arcsin(np.clip(d[2] / r, -1.0, 1.0)))))


class OrbitCamera:
    """The viewer's camera: a goal it is sent to and the current view that follows it smoothly.

    Args:
        size: (width, height) of the window (pixels).
        floor: height of the table top (m): the eye stays above it.
    """

    def __init__(self, size=(1280, 800), floor: float = 0.0):
        self.size = (int(size[0]), int(size[1]))
        self.floor = float(floor)
        self.goal = self.current = Orbit((0.0, 0.0, 0.0), 0.6, -52.0, 30.0)
        self.home = self.goal

    # --- where it looks --------------------------------------------------------------------

    def view(self, orbit: Orbit | None = None, size=None) -> Camera:
        """The current view (or ``orbit``'s) as a renderer's camera of ``size`` (default the window's)."""
        o = orbit or self.current
        size = self.size if size is None else (int(size[0]), int(size[1]))
        eye = o.eye
        up = (0.0, 0.0, 1.0)
        near = max(1e-3, 0.02 * o.distance)
        return Camera(tuple(float(x) for x in eye), tuple(float(x) for x in o.target), up, size, FOV_Y_DEG,
                      near=near, far=o.distance * 60.0 + 5.0)

    def ray(self, px: float, py: float) -> tuple[np.ndarray, np.ndarray]:
        """The ray through pixel (px, py) of the current view (x right, y down): origin (3,), unit direction (3,)."""
        cam = self.view()
        r, u, f = cam.basis
        w, h = self.size
        tx, ty = np.tan(np.radians(cam.fov_x) / 2.0), np.tan(np.radians(cam.fov_y) / 2.0)
        nx, ny = 2.0 * px / w - 1.0, 1.0 - 2.0 * py / h
        d = f + nx * tx * r + ny * ty * u
        return np.asarray(cam.eye, dtype=float), d / np.linalg.norm(d)

    def pixel(self, point) -> np.ndarray:
        """(2,) the pixel of a world point (m) in the current view."""
        return self.view().project(np.asarray(point, dtype=float).reshape(1, 3))[0]

    def resize(self, size) -> None:
        self.size = (int(size[0]), int(size[1]))

    # --- moving it -------------------------------------------------------------------------

    def send(self, orbit: Orbit, at_once: bool = False) -> None:
        """Send the camera to ``orbit`` (kept above the table); it glides there unless ``at_once``."""
        self.goal = self._legal(orbit)
        if at_once:
            self.current = self.goal

    def orbit(self, d_azimuth: float, d_elevation: float) -> None:
        """Turn about the target (degrees around, anticlockwise seen from above, and up), at once."""
        g = self.goal
        self.send(replace(g, azimuth=g.azimuth + d_azimuth, elevation=g.elevation + d_elevation), at_once=True)

    def _view_extent(self) -> tuple[float, float]:
        """(width, height) in m of what the view shows at the target's distance."""
        h = 2.0 * self.goal.distance * np.tan(np.radians(FOV_Y_DEG) / 2.0)
        return h * self.size[0] / self.size[1], h

    def pan(self, dx: float, dy: float) -> None:
        """Move sideways by fractions of the view's width (dx, right) and height (dy, up) at the target, at once."""
        r, u, _ = self.view(self.goal).basis
        w, h = self._view_extent()
        self.look_at(np.asarray(self.goal.target) + dx * w * r + dy * h * u)

    def pan_table(self, dx: float, dy: float) -> None:
        """Move over the table, at once: by fractions of the view's width to the right (dx) and of its height
        forward, away from the eye along the table (dy); the height of the target stays (the keyboard's pan)."""
        a = np.radians(self.goal.azimuth)
        forward = -np.array([np.cos(a), np.sin(a), 0.0])  # from the eye towards the target, on the table
        right = np.array([forward[1], -forward[0], 0.0])
        w, h = self._view_extent()
        self.look_at(np.asarray(self.goal.target) + dx * w * right + dy * h * forward)

    def look_at(self, target) -> None:
        """Look at ``target`` (3,) (m) from the same distance and direction, at once (a pan, a followed piece)."""
        self.send(replace(self.goal, target=tuple(float(x) for x in target)), at_once=True)

    def zoom(self, factor: float, about=None) -> None:
        """Come closer (``factor`` < 1) or go away, at once, keeping the world point ``about`` (m) where it is
        in the picture (default: the target).

        Eye and target are scaled about that point together, so the direction of view is
        unchanged and the point stays on the same pixel.
        """
        g = self.goal
        f = float(np.clip(factor, MIN_DISTANCE / g.distance, MAX_DISTANCE / g.distance))
        if about is None:
            self.send(replace(g, distance=g.distance * f), at_once=True)
            return
        p = np.asarray(about, dtype=float)
        target = p + (np.asarray(g.target) - p) * f
        self.send(replace(g, target=tuple(float(x) for x in target), distance=g.distance * f), at_once=True)

    def preset(self, name: str, scene) -> None:
        """A named view (``iso``, ``front``, ``side``, ``top``) framing the scene."""
        toward, up = view_direction(name)
        cam = fit_camera(framed_points(scene), toward, up, self.size)
        o = _orbit_of(cam.eye, cam.target)
        self.send(replace(o, azimuth=-90.0) if name == "top" else o)  # top: +y up in the picture

    def frame(self, scene, points=None) -> None:
        """Frame every piece (or ``points`` (k, 3)) from the current direction."""
        pts = framed_points(scene) if points is None else np.asarray(points, dtype=float)
        cam = fit_camera(pts, self.goal.toward_eye, (0.0, 0.0, 1.0), self.size)
        self.send(_orbit_of(cam.eye, cam.target))

    def start(self, scene) -> None:
        """The opening view of a scene (iso, framed), which ``reset`` comes back to."""
        self.preset("iso", scene)
        self.current = self.home = self.goal

    def reset(self) -> None:
        self.send(self.home)

    def tick(self, seconds: float) -> bool:
        """Glide the current view towards the goal for ``seconds``; whether it moved."""
        g, c = self.goal, self.current
        if g == c:
            return False
        k = 1.0 - np.exp(-max(seconds, 0.0) / SMOOTHING)
        da = (g.azimuth - c.azimuth + 180.0) % 360.0 - 180.0
        nxt = Orbit(tuple(float(a + (b - a) * k) for a, b in zip(c.target, g.target)),
                    float(np.exp(np.log(c.distance) + (np.log(g.distance) - np.log(c.distance)) * k)),
                    c.azimuth + da * k, c.elevation + (g.elevation - c.elevation) * k)
        close = (np.linalg.norm(np.subtract(nxt.target, g.target)) < 1e-5
                 and abs(nxt.distance / g.distance - 1) < 1e-4
                 and abs((g.azimuth - nxt.azimuth + 180) % 360 - 180) < 0.01
                 and abs(g.elevation - nxt.elevation) < 0.01)
        self.current = g if close else self._legal(nxt)
        return True

    def _legal(self, o: Orbit) -> Orbit:
        """``o`` with the distance in range and the eye above the table."""
        d = float(np.clip(o.distance, MIN_DISTANCE, MAX_DISTANCE))
        e = float(np.clip(o.elevation, MIN_ELEVATION_DEG, MAX_ELEVATION_DEG))
        low = self.floor + MIN_EYE_HEIGHT - o.target[2]
        if d * np.sin(np.radians(e)) < low:
            e = float(np.degrees(np.arcsin(min(1.0, low / d))))
        return Orbit(tuple(float(x) for x in o.target), d, float(o.azimuth % 360.0), min(e, MAX_ELEVATION_DEG))
