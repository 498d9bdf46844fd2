"""The controller's view actions and what a pixel shows: the camera, the toggles, the hovered piece, the
active hand, waits and screenshot requests; the rays through pixels (picking).

A mixin of :class:`sim.viewer.controller.Controller`; it holds no state of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.viewer.actions import Action


@dataclass
class Request:
    """Work only the front end can do (a screenshot): ``kind`` and its arguments."""

    kind: str
    args: dict = field(default_factory=dict)


class Viewing:
    """Camera, orbit, pan, zoom, toggle, hover, hand, wait, screenshot; the piece or point under a pixel."""

    def _do_camera(self, a: Action) -> None:
        name = a["preset"]
        if name == "reset":
            self.camera.reset()
        elif name == "frame":
            self.camera.frame(self.scene())
        else:
            self.camera.preset(name, self.scene())

    def _do_orbit(self, a: Action) -> None:
        self.camera.orbit(*a["degrees"])

    def _do_pan(self, a: Action) -> None:
        self.camera.pan(*a["fraction"])

    def _do_zoom(self, a: Action) -> None:
        about = None if a["at"] is None else self.point_at(*a["at"])
        self.camera.zoom(a["factor"], about)

    def _do_toggle(self, a: Action) -> None:
        what = a["what"]
        setattr(self.toggles, what, not getattr(self.toggles, what))

    def _do_hover(self, a: Action) -> None:
        pid = a["piece"]
        if pid is not None and pid not in self.world.ids:
            raise a.fail("piece", f"no piece {pid!r} in the scene")
        self.hovered = pid

    def _do_hand(self, a: Action) -> None:
        if a["name"] not in self.hand_names:
            raise a.fail("name", f"{self.game} is built with one hand at a time (the right)")
        self._may_use(a, None, a["name"], "name")
        self.active_hand = a["name"]

    def _do_wait(self, a: Action) -> None:
        self.run(a["seconds"])

    def _do_screenshot(self, a: Action) -> None:
        size = None if a["size"] is None else tuple(int(x) for x in a["size"])
        self.requests.append(Request("screenshot", {"path": a["path"], "size": size}))

    # --- reading pixels ------------------------------------------------------------------------

    def point_at(self, px: float, py: float) -> np.ndarray:
        """The world point (m) under a pixel: the first surface, else the table's plane, else the camera's target."""
        origin, d = self.camera.ray(px, py)
        hit = self.world.ray_test(origin, origin + d * 50.0)
        if hit is not None:
            return np.asarray(hit.point, dtype=float)
        if d[2] < -1e-6:
            return origin + d * ((self.camera.floor - origin[2]) / d[2])
        return np.asarray(self.camera.goal.target, dtype=float)

    def surface_at(self, px: float, py: float) -> np.ndarray | None:
        """Where the ray through a pixel meets a piece, the board or the table, passing through the
        carried pieces (the point a carried piece is taken to), or None."""
        origin, d = self.camera.ray(px, py)
        carried = self._held()
        start = origin
        for _ in range(4):
            hit = self.world.ray_test(start, origin + d * 50.0)
            if hit is None:
                return self.table_point(px, py, self.camera.floor)
            if hit.piece not in carried:
                return np.asarray(hit.point, dtype=float)
            start = np.asarray(hit.point, dtype=float) + d * 1e-4
        return None

    def piece_at(self, px: float, py: float) -> str | None:
        """The piece under a pixel (picking with the physics world's ray test), or None."""
        origin, d = self.camera.ray(px, py)
        hit = self.world.ray_test(origin, origin + d * 50.0)
        return hit.piece if hit is not None and hit.piece in self.world.ids else None

    def table_point(self, px: float, py: float, height: float) -> np.ndarray | None:
        """Where the ray through a pixel meets the horizontal plane at ``height`` (m), or None."""
        origin, d = self.camera.ray(px, py)
        if abs(d[2]) < 1e-6:
            return None
        t = (height - origin[2]) / d[2]
        return origin + d * t if t > 0 else None
