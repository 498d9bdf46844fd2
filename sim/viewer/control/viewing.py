"""The controller's view actions and what a pixel shows: the camera (and the piece it follows), the toggles,
the hovered piece, the active hand, waits and screenshot requests; the rays through pixels (picking).

A part of the controller (:class:`~sim.viewer.control.state.Part`); of the session's state it alone changes
``following`` (the piece the camera follows, or None).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.geometry.transforms import rotate
from sim.viewer.control.actions import Action
from sim.viewer.control.state import Part


@dataclass
class Request:
    """Work only the front end can do (a screenshot): ``kind`` and its arguments."""

    kind: str
    args: dict = field(default_factory=dict)


class Viewing(Part):
    """Camera, orbit, pan, zoom, toggle, hover, hand, wait, screenshot; the piece or point under a pixel."""

    ACTIONS = ("camera", "orbit", "pan", "zoom", "follow", "toggle", "hover", "hand", "wait", "screenshot")

    def _do_camera(self, a: Action) -> None:
        name = a["preset"]
        if name == "reset":
            self.state.camera.reset()
        elif name == "frame":
            self.state.camera.frame(self.ctl.scene())
        else:
            self.state.camera.preset(name, self.ctl.scene())

    def _do_orbit(self, a: Action) -> None:
        self.state.camera.orbit(*a["degrees"])

    def _do_pan(self, a: Action) -> None:
        if self.state.following is not None:  # the camera goes where it is sent, no longer with the piece
            self.ctl.say(f"no longer following {self.state.following}")
            self.state.following = None
        (self.state.camera.pan_table if a["plane"] == "table" else self.state.camera.pan)(*a["fraction"])

    def _do_zoom(self, a: Action) -> None:
        # about the point under the cursor, but about the followed piece (the target) while one is followed
        about = None if a["at"] is None or self.state.following is not None else self.point_at(*a["at"])
        self.state.camera.zoom(a["factor"], about)

    def _do_follow(self, a: Action) -> None:
        pid = a["piece"]
        if pid is not None and pid not in self.state.world.ids:
            raise a.fail("piece", f"no piece {pid!r} in the scene")
        self.state.following = pid
        self.follow_camera()

    def follow_camera(self) -> None:
        """Keep the followed piece where the camera looks (distance and direction kept), at once; a piece that
        left the table is no longer followed. While the piece is in a hand or pulled the camera holds still:
        the mouse moves it there, and a camera that went with it would move the point under the cursor, and so
        the piece, again (it would run away from under the cursor)."""
        pid = self.state.following
        if pid is None:
            return
        if pid not in self.state.world.ids:
            self.state.following = None
            self.ctl.say(f"{pid} left the table: no longer followed")
            return
        if pid in self.ctl.building.held() or pid in self.state.world.pulls():
            return
        target = self.state.world.pose(pid)[:3]
        if not np.array_equal(np.asarray(self.state.camera.goal.target), target):
            self.state.camera.look_at(target)

    def _do_toggle(self, a: Action) -> None:
        what = a["what"]
        setattr(self.state.toggles, what, not getattr(self.state.toggles, what))

    def _do_hover(self, a: Action) -> None:
        pid = a["piece"]
        if pid is not None and pid not in self.state.world.ids:
            raise a.fail("piece", f"no piece {pid!r} in the scene")
        self.state.hovered = pid

    def _do_hand(self, a: Action) -> None:
        if a["name"] not in self.ctl.hand_names:
            raise a.fail("name", f"{self.ctl.game} is built with one hand at a time (the right)")
        self.ctl.may_use(a, None, a["name"], "name")
        self.state.active_hand = a["name"]

    def _do_wait(self, a: Action) -> None:
        self.ctl.run(a["seconds"])

    def _do_screenshot(self, a: Action) -> None:
        size = None if a["size"] is None else tuple(int(x) for x in a["size"])
        self.state.requests.append(Request("screenshot", {"path": a["path"], "size": size}))

    # --- reading pixels ------------------------------------------------------------------------

    def point_at(self, px: float, py: float) -> np.ndarray:
        """The world point (m) under a pixel: the first surface, else the table's plane, else the camera's target."""
        origin, d = self.state.camera.ray(px, py)
        hit = self.state.world.ray_test(origin, origin + d * 50.0)
        if hit is not None:
            return np.asarray(hit.point, dtype=float)
        if d[2] < -1e-6:
            return origin + d * ((self.state.camera.floor - origin[2]) / d[2])
        return np.asarray(self.state.camera.goal.target, dtype=float)

    def surface_at(self, px: float, py: float, skip=None) -> np.ndarray | None:
        """Where the ray through a pixel meets a piece, the board or the table, passing through the
        carried pieces (or those of ``skip``; the point a carried piece is taken to), or None."""
        origin, d = self.state.camera.ray(px, py)
        carried = self.ctl.building.held() if skip is None else set(skip)
        start = origin
        for _ in range(4):
            hit = self.state.world.ray_test(start, origin + d * 50.0)
            if hit is None:
                return self.table_point(px, py, self.state.camera.floor)
            if hit.piece not in carried:
                return np.asarray(hit.point, dtype=float)
            start = np.asarray(hit.point, dtype=float) + d * 1e-4
        return None

    def piece_at(self, px: float, py: float) -> str | None:
        """The piece under a pixel (picking with the physics world's ray test), or None."""
        origin, d = self.state.camera.ray(px, py)
        hit = self.state.world.ray_test(origin, origin + d * 50.0)
        return hit.piece if hit is not None and hit.piece in self.state.world.ids else None

    def pieces_in_box(self, corner, other) -> list[str]:
        """The pieces whose middle (the centre of their bounding box) the view shows inside the rectangle between
        two pixels: movable, in front of the eye, in no hand; in the scene's order."""
        cam = self.state.camera.view()
        lo, hi = np.minimum(corner, other), np.maximum(corner, other)
        held = self.ctl.building.held()
        ids = [pid for pid in self.state.world.ids if pid not in held and not self.state.world.piece(pid).fixed]
        if not ids:
            return []
        row = {pid: k for k, pid in enumerate(self.state.world.ids)}
        poses = self.state.world.poses()[[row[pid] for pid in ids]]
        bounds = np.array([self.state.world.piece(pid).shape.bounds for pid in ids])  # (k, 2, 3)
        middles = poses[:, :3] + rotate(poses[:, 3:], bounds.mean(axis=1))
        ahead = cam.to_camera(middles)[:, 2] > cam.near
        px = cam.project(np.where(ahead[:, None], middles, np.asarray(cam.target)))
        inside = ahead & np.all((px >= lo) & (px <= hi), axis=1)
        return [pid for pid, yes in zip(ids, inside) if yes]

    def piece_rect(self, piece_id: str) -> tuple[float, float, float, float] | None:
        """The rectangle (x0, y0, x1, y1, pixels) round a piece's bounding box as the view shows it, or None when
        a corner of it is behind the eye."""
        cam = self.state.camera.view()
        pose = self.state.world.pose(piece_id)
        corners = pose[:3] + rotate(pose[3:], self.state.world.piece(piece_id).shape.box_corners)
        if (cam.to_camera(corners)[:, 2] <= cam.near).any():
            return None
        px = cam.project(corners)
        (x0, y0), (x1, y1) = px.min(axis=0), px.max(axis=0)
        return float(x0), float(y0), float(x1), float(y1)

    def table_point(self, px: float, py: float, height: float) -> np.ndarray | None:
        """Where the ray through a pixel meets the horizontal plane at ``height`` (m), or None."""
        origin, d = self.state.camera.ray(px, py)
        if abs(d[2]) < 1e-6:
            return None
        t = (height - origin[2]) / d[2]
        return origin + d * t if t > 0 else None
