"""The controller's view actions and what a pixel shows: the camera (and the piece it follows), the toggles,
the hovered piece, the active hand, waits and screenshot requests; the rays through pixels (picking).

A mixin of :class:`sim.viewer.control.controller.Controller`; its one state is the controller's ``following`` (the
piece the camera follows, or None).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.geometry.transforms import rotate
from sim.viewer.control.actions import Action


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
        if self.following is not None:  # the camera goes where it is sent, no longer with the piece
            self.say(f"no longer following {self.following}")
            self.following = None
        (self.camera.pan_table if a["plane"] == "table" else self.camera.pan)(*a["fraction"])

    def _do_zoom(self, a: Action) -> None:
        # about the point under the cursor, but about the followed piece (the target) while one is followed
        about = None if a["at"] is None or self.following is not None else self.point_at(*a["at"])
        self.camera.zoom(a["factor"], about)

    def _do_follow(self, a: Action) -> None:
        pid = a["piece"]
        if pid is not None and pid not in self.world.ids:
            raise a.fail("piece", f"no piece {pid!r} in the scene")
        self.following = pid
        self._follow_camera()

    def _follow_camera(self) -> None:
        """Keep the followed piece where the camera looks (distance and direction kept), at once; a piece that
        left the table is no longer followed. While the piece is in a hand or pulled the camera holds still:
        the mouse moves it there, and a camera that went with it would move the point under the cursor, and so
        the piece, again (it would run away from under the cursor)."""
        pid = self.following
        if pid is None:
            return
        if pid not in self.world.ids:
            self.following = None
            self.say(f"{pid} left the table: no longer followed")
            return
        if pid in self._held() or pid in self.world.pulls():
            return
        target = self.world.pose(pid)[:3]
        if not np.array_equal(np.asarray(self.camera.goal.target), target):
            self.camera.look_at(target)

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

    def surface_at(self, px: float, py: float, skip=None) -> np.ndarray | None:
        """Where the ray through a pixel meets a piece, the board or the table, passing through the
        carried pieces (or those of ``skip``; the point a carried piece is taken to), or None."""
        origin, d = self.camera.ray(px, py)
        carried = self._held() if skip is None else set(skip)
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

    def pieces_in_box(self, corner, other) -> list[str]:
        """The pieces whose middle (the centre of their bounding box) the view shows inside the rectangle between
        two pixels: movable, in front of the eye, in no hand; in the scene's order."""
        cam = self.camera.view()
        lo, hi = np.minimum(corner, other), np.maximum(corner, other)
        held = self._held()
        ids = [pid for pid in self.world.ids if pid not in held and not self.world.piece(pid).fixed]
        if not ids:
            return []
        row = {pid: k for k, pid in enumerate(self.world.ids)}
        poses = self.world.poses()[[row[pid] for pid in ids]]
        bounds = np.array([self.world.piece(pid).shape.bounds for pid in ids])  # (k, 2, 3)
        middles = poses[:, :3] + rotate(poses[:, 3:], bounds.mean(axis=1))
        ahead = cam.to_camera(middles)[:, 2] > cam.near
        px = cam.project(np.where(ahead[:, None], middles, np.asarray(cam.target)))
        inside = ahead & np.all((px >= lo) & (px <= hi), axis=1)
        return [pid for pid, yes in zip(ids, inside) if yes]

    def piece_rect(self, piece_id: str) -> tuple[float, float, float, float] | None:
        """The rectangle (x0, y0, x1, y1, pixels) round a piece's bounding box as the view shows it, or None when
        a corner of it is behind the eye."""
        cam = self.camera.view()
        pose = self.world.pose(piece_id)
        corners = pose[:3] + rotate(pose[3:], self.world.piece(piece_id).shape.box_corners)
        if (cam.to_camera(corners)[:, 2] <= cam.near).any():
            return None
        px = cam.project(corners)
        (x0, y0), (x1, y1) = px.min(axis=0), px.max(axis=0)
        return float(x0), float(y0), float(x1), float(y1)

    def table_point(self, px: float, py: float, height: float) -> np.ndarray | None:
        """Where the ray through a pixel meets the horizontal plane at ``height`` (m), or None."""
        origin, d = self.camera.ray(px, py)
        if abs(d[2]) < 1e-6:
            return None
        t = (height - origin[2]) / d[2]
        return origin + d * t if t > 0 else None
