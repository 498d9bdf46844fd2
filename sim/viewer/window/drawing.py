"""The window's drawing of the controller's state: poses copied to the scene graph, the marks (ghosts,
tints, the weakest direction, contacts, centres) and the text panels; the full-quality still once nothing
has moved for :data:`STILL_AFTER`.

A mixin of :class:`sim.viewer.window.build.ViewerWindow`. It reads ``controller.world`` only through its ids,
poses, scene, moving pieces and time (any :class:`~sim.viewer.control.live.ViewerWorld` is drawn alike), the
controller's hands, carry plans and ghosts (red where a plug-in would reject the drop:
``controller.ghost_refusals()``) and ``controller.verdict()``.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from sim.viewer.control.inspect import describe_text
from sim.viewer.window.marks import arrows_shown

STILL_AFTER = 0.5
"""Seconds without any change before the full-quality picture is drawn."""
STATUS_PERIOD = 0.25
"""Seconds between updates of the text panels."""
ARROW_GAP = 0.008
"""How far (m) the weakest-direction arrow starts beyond the edge of what the weakest mode moves."""
ARROW_MIN = 0.04
"""The shortest weakest-direction arrow (m)."""


def weakest_arrow(pieces, poses: np.ndarray, direction_deg: float) -> tuple[np.ndarray, float, float]:
    """The weakest-direction arrow of the pieces a weakest mode moves, at ``poses`` (k, 7): its tail (x, y)
    on the line through their centres' mean along the direction, just beyond their outline on that side
    (under the pieces it would be hidden), the height it lies at (their lowest point: the board, or the top
    of what the pieces stand on) and its length (half what they span, at least :data:`ARROW_MIN`). An empty
    mode: at the origin, on the board, of the least length."""
    from sim.geometry.transforms import transform_points

    if not len(pieces):
        return np.zeros(2), 0.0, ARROW_MIN
    a = np.radians(direction_deg)
    d = np.array([np.cos(a), np.sin(a)])
    centre = np.asarray(poses, dtype=float)[:, :2].mean(axis=0)
    points = np.vstack([transform_points(p.shape.vertices, pose[:3], pose[3:]) for p, pose in zip(pieces, poses)])
    corners = points[:, :2]
    edge = float(((corners - centre) @ d).max())
    span = float(np.ptp(corners, axis=0).max())
    return centre + d * (max(edge, 0.0) + ARROW_GAP), max(float(points[:, 2].min()), 0.0), max(0.5 * span, ARROW_MIN)



def mode_structures(verdict, mode: list[str]) -> list[list[str]]:
    """The pieces of a weakest ``mode`` by the structure each stands in (connected through the verdict's contact
    interfaces, the board and fixed pieces not joining them), in the mode's order."""
    from sim.graphs import components

    inside = set(mode)
    edges = [(f.a, f.b) for f in verdict.interfaces if f.a in inside and f.b in inside]
    label = {}
    for k, group in enumerate(components(mode, edges)):
        for i in group:
            label[i] = k
    groups: dict[int, list[str]] = {}
    for i in mode:
        groups.setdefault(label[i], []).append(i)
    return list(groups.values())


LAGGING = 0.95
"""Below this share of the chosen speed the status line says the physics cannot keep up."""


def pace_text(paused: bool, speed: float, factor: float) -> str:
    """How fast the world runs, as measured: ``PAUSED``; ``speed 1/4: 0.25x real time``; with ``factor`` (simulated
    over asked-for seconds) below :data:`LAGGING`, ``speed 1: 0.42x real time (the physics cannot keep up)``."""
    if paused:
        return "PAUSED"
    chosen = {1.0: "1", 0.5: "1/2", 0.25: "1/4", 0.125: "1/8"}.get(speed, f"{speed:g}")
    text = f"speed {chosen}: {factor * speed:.2f}x real time"
    return text + (" (the physics cannot keep up)" if factor < LAGGING else "")


class Drawing:
    """_sync, the marks and the panels (see the module)."""

    def _sync(self, force: bool = False) -> None:
        """Copy the controller's state to the scene graph, the marks and the panels."""
        c = self.controller
        world = c.world
        ids = world.ids
        key = (id(world), c.scene0.board)
        scene = None
        if force or key != self._scene_key or ids != self._graph_ids:
            scene = world.scene()
            self.look.show(scene)
            self._scene_key, self._graph_ids = key, list(ids)
            self._last_poses = None
        poses = world.poses()
        view = c.camera.view()
        moved = self._last_poses is None or poses.shape != self._last_poses.shape or not np.array_equal(
            poses, self._last_poses)
        looked = view != self._last_view
        self.quiet_frames = 0 if looked or force or c.hands else self.quiet_frames + 1  # pieces may still fall
        self.look.shadows()
        self.look.hold(c.in_hand())
        if not moved:
            self.look.idle()
        if not (moved or looked or c.dirty or force) and self.look.shadows_stale:  # a piece came to rest
            self.look.place(view, c.scene0 if scene is None else scene, poses)
        if moved or looked or c.dirty or force:
            if moved or looked or force:  # the still shows the world as it was: back to the live picture at once
                self.look.go_live()
            if moved:
                self.look.set_poses(poses)
            self.look.place(view, c.scene0 if scene is None else scene, poses)
            self._marks(poses)
            self._changed_at = time.monotonic()
            c.dirty = False
            self._last_poses, self._last_view = poses, view
        elif c.verdict() is not self._marked_verdict:  # the statics answered after the pieces came to rest
            self._marks(poses)
            self.look.go_live()
        elif c.hands and c.ghost_refusals() != self._marked_refusals:  # a plug-in judged a ghost since
            self._marks(poses)
        now = time.monotonic()
        news = (len(c.messages), id(c.verdict()), c.mode, tuple((h, s.piece) for h, s in c.hands.items()),
                c.active_hand, c.paused, c.speed, c.hovered, dataclasses.astuple(c.toggles))
        if now - self._status_at > STATUS_PERIOD or force or news != self._panel_news:
            # what a player did shows at once; the clock and the frame rate a few times a second
            self._status_at, self._panel_news = now, news
            self._panels()
        if self.still_due(now) and not world.moving():
            self.look.draw_still(view)

    def still_due(self, now: float | None = None) -> bool:
        """Whether the full-quality still is to be drawn now, nothing moving: nothing changed for
        :data:`STILL_AFTER`, no piece in a hand, no dialog open, not the id view, and not drawn already."""
        now = time.monotonic() if now is None else now
        return (not self.look.showing_still and not self.look.ids_shown and now - self._changed_at > STILL_AFTER
                and not self.controller.hands and self.overlay.dialog is None)

    # --- what a test sees (sim.viewer.window.probe) ---------------------------------------------------------

    def id_view(self, on: bool) -> None:
        """The probe's id view: the pieces in their id colours, nothing else drawn."""
        self.look.show_ids(on)
        (self.marks.root.hide if on else self.marks.root.show)()
        (self.render2d.hide if on else self.render2d.show)()
        self._changed_at = time.monotonic()

    def probe_state(self) -> dict:
        """What the window shows now, for :class:`sim.viewer.window.probe.WindowProbe`."""
        c = self.controller
        view = c.camera.view()
        poses = c.world.poses()
        verdict = c.verdict()
        quality = "still" if self.look.showing_still else "live"
        hands = {h: s.piece for h, s in c.hands.items()}
        game = [p.probe() for p in c.plugins if hasattr(p, "probe")]
        picture = [view.eye, view.target, view.size, quality, hands, poses.round(7).tolist(), c.hovered,
                   id(verdict), self.look.ids_shown, self.overlay.dialog is not None,
                   [g.get("legal") for g in game]]  # what a game marks on the table (its legal places)
        gliding = c.camera.current != c.camera.goal
        pending = bool(getattr(c.world, "verdict_pending", False))
        still_coming = not (self.look.showing_still or self.look.ids_shown or c.hands or self.overlay.dialog)
        scripted = self.runner is not None and not self.runner.done  # a script's actions are still to come
        busy = gliding or pending or not c.quiet() or still_coming or scripted or any(g.get("busy") for g in game)
        px = self._mouse_pixel()
        return {"kind": "view", "picture": picture, "busy": busy, "quality": quality, "scripted": scripted,
                "view": {"eye": view.eye, "target": view.target, "up": view.up, "size": list(view.size),
                         "fov_y": view.fov_y, "near": view.near, "far": view.far},
                "ids": list(c.world.ids), "poses": poses, "hands": hands,
                "ghosts": {h: k.ghost for h, k in c.carries.items()}, "mode": c.mode, "hovered": c.hovered,
                "groups": {h: list(s.pieces) for h, s in c.hands.items() if s.group},
                "pulls": {k: {"point": v.point, "target": v.target, "load": v.load}
                          for k, v in c.world.pulls().items()},
                "following": c.following,
                "mouse": None if px is None else [round(px[0], 1), round(px[1], 1)],
                "verdict": None if verdict is None else _verdict_json(verdict), "pending": pending,
                "paused": c.paused, "speed": c.speed, "time": c.world.time, "session_time": c.session_time,
                "messages": [m.text for m in c.messages], "events": len(c.events),
                "game": game}


    def _marks(self, poses) -> None:
        c = self.controller
        v = c.verdict()
        self._marked_verdict = v
        t = c.toggles
        tints = {}
        if t.stability and v is not None:
            color = (0.95, 0.25, 0.15, 0.45) if not v.feasible else (1.0, 0.6, 0.1, 0.35)
            for pid in v.mode:
                tints[pid] = color
        if c.hovered is not None:
            tints[c.hovered] = (0.3, 0.6, 1.0, 0.35)
        self.look.tint(tints)
        bad = set(v.unheld) if v is not None else set()
        self._marked_refusals = c.ghost_refusals()  # a ghost where a plug-in would reject the drop: red too
        self.marks.carries(self.look.graph, c.carry_plans(), bad | set(self._marked_refusals))
        size = self._scene_size(poses)
        arrows = self._weakest_arrows(c.world, poses, v) if arrows_shown(v, t.stability) else []
        self.marks.weakest(v, arrows, t.stability)  # where the mode's pieces stand
        forces = c.describer.forces(v) if t.forces else None
        self.marks.contacts(v, forces, t.contacts, 0.25 * size)
        self.marks.centres(c.world, t.centres, 0.006)

    @staticmethod
    def _scene_size(poses) -> float:
        if not len(poses):
            return 0.1
        return float(max(np.ptp(poses[:, 0]), np.ptp(poses[:, 1]), 0.05))

    def _weakest_arrows(self, world, poses, verdict) -> list[tuple[np.ndarray, float, float]]:
        """Where the weakest-direction arrows start and how long they are (:func:`weakest_arrow`), one for each
        structure the weakest mode moves (two towers apart: two arrows, each from its own edge), worked out
        again only when the verdict or the poses of the pieces its mode moves change."""
        if verdict is None or verdict.weakest_direction_deg is None:
            return []
        ids = world.ids
        row = {i: k for k, i in enumerate(ids)}
        mode = [i for i in (verdict.mode or ids) if i in row]
        moved = poses[[row[i] for i in mode]]
        key = (id(verdict), moved.tobytes())
        if self._arrow_key != key:
            self._arrows = [weakest_arrow([world.piece(i) for i in group], poses[[row[i] for i in group]],
                                          verdict.weakest_direction_deg)
                            for group in mode_structures(verdict, mode)]
            self._arrow_key = key
        return self._arrows

    def _panels(self) -> None:
        c = self.controller
        fps = self._fps()
        hands = ", ".join(f"{h}: {s.piece}" + (f" +{len(s.group)}" if s.group else "") for h, s in c.hands.items())
        hands = hands or "empty"
        status = (f"{c.game} | {c.mode} | {c.active_hand} hand ({hands}) | t {c.world.time:6.2f} s | "
                  f"{pace_text(c.paused, c.speed, c.real_time_factor)} | {fps:4.0f} fps"
                  + (" | full quality" if self.look.showing_still else "") + "   F1: help")
        self.overlay.show_status(status)
        self.overlay.show_stability(c.verdict(), getattr(c.world, "verdict_pending", False), c.toggles.stability)
        hover = describe_text(c.describe(c.hovered)) if c.hovered in c.world.ids else None
        self.overlay.show_hover(hover)
        now = time.monotonic()
        while self._seen < len(c.messages):
            self._messages.append((c.messages[self._seen].text, now))
            self._seen += 1
        self.overlay.show_messages(self._messages, now)
        self.overlay.toggle_help(c.toggles.help)

    def _fps(self) -> float:
        recent = self.frame_times[-30:]
        return len(recent) / max(sum(recent), 1e-6) if recent else 0.0


def _verdict_json(v) -> dict:
    return {"feasible": bool(v.feasible), "stands": bool(v.stands), "margin_g": float(v.margin_g),
            "direction_deg": v.weakest_direction_deg, "unheld": list(v.unheld), "mode": list(v.mode),
            "partial": bool(v.partial), "error": v.error, "revision": v.revision}
