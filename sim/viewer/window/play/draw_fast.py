"""Babylon's fast game in the window (Panda3D): the construction areas drawn on the table, the game's keys.

The areas are the wedges between neighbouring seats (:meth:`sim.pieces.boards.Seating.areas`). Each is drawn as
its outline a little inside its edges, around the supplies lying in it, with the two players who share it written
in it; the two areas of the player whose hands are at work are drawn in that player's colour, the others grey, so
that a player sees where they may build.
"""

from __future__ import annotations

import numpy as np
import shapely
from panda3d.core import LineSegs, NodePath, TextNode
from shapely.geometry import MultiPoint, Polygon

from sim.geometry.transforms import transform_points
from sim.pieces import dimensions as dim
from sim.render.graph import SHADOW_MASK
from sim.viewer.control.keys import Control
from sim.viewer.window import theme
from sim.viewer.window.play.draw import PlayWindow

LIFT = 0.0005
"""How far (m) the area outlines float over the table."""
INSET = 0.012
"""How far (m) inside its edges an area's outline runs (two areas' outlines do not meet)."""
LABEL = 0.022
"""Height (m) of the letters naming an area's players."""
OTHERS = (0.45, 0.45, 0.45, 1.0)


AROUND = 0.015
"""How far (m) an area's outline keeps from the supplies' pieces."""


def outlines(area, supplies, inset: float = INSET) -> list[np.ndarray]:
    """An area's outline ``inset`` (m) inside its edges and around ``supplies`` (shapely geometry of the supplies'
    ground, m): closed rings (k, 2), the first point again last (more than one where a supply cuts it apart)."""
    shape = Polygon(area.polygon).difference(supplies.buffer(AROUND)).buffer(-inset, join_style="mitre")
    parts = getattr(shape, "geoms", [shape])
    return [np.asarray(p.exterior.coords) for p in parts if not p.is_empty]


def supply_ground(scene) -> object:
    """Where the set-up's supplies lie (shapely, m): the convex hull of each player's pieces seen from above,
    united."""
    groups: dict = {}
    for p in scene.pieces:
        corners = transform_points(p.shape.box_corners, p.pos, p.quat)[:, :2]
        groups.setdefault(p.owner or p.params.get("color"), []).extend(corners)
    return shapely.union_all([MultiPoint(np.asarray(pts)).convex_hull for pts in groups.values()])


class FastWindow(PlayWindow):
    """The fast game's window plug-in: the game panel, the construction areas, the game's keys.

    Args:
        referee: the session's :class:`~sim.viewer.play.mode.Referee` (its session a
            :class:`~sim.games.play.babylon_fast.FastSession`).
    """

    def __init__(self, referee):
        super().__init__(referee)
        self.areas: NodePath | None = None
        self._seat = None
        self._supplies = None

    def attach(self, window) -> None:
        super().attach(window)
        self.areas = window.render.attach_new_node("fast-areas")
        self.areas.hide(SHADOW_MASK)
        self.areas.set_light_off(1)
        self.areas.set_bin("fixed", 44)

    def game_controls(self) -> tuple[Control, ...]:
        g = "Game"
        return (Control("Tab", ("tab",), self._next_seat, "the next player's hands", g),
                Control("Enter", ("enter",), lambda: self._act("stop"), "stop! (all your nobles are placed)", g),
                Control("End", ("end",), lambda: self._act("done"), "done: you can build no further this round", g),
                Control("G", ("g",), lambda: self._act("next-round"), "go on: the next round", g))

    def frame(self, window, dt: float) -> None:
        super().frame(window, dt)
        seat = self.referee.session.seat
        if seat != self._seat:
            self._seat = seat
            self._draw_areas(seat)

    def _draw_areas(self, seat: str) -> None:
        self.areas.node().remove_all_children()
        areas = self.referee.areas()
        c = self.window.controller
        if self._supplies is None:  # where the set-up put the supplies (they stay there, round after round)
            self._supplies = supply_ground(c.scene0)
        for a in sorted(areas, key=lambda a: seat in a.players):  # the seat's own over the others
            mine = seat in a.players
            colour = tuple(dim.COLORS.get(seat, OTHERS)[:3]) + (1.0,) if mine else OTHERS
            segs = LineSegs(f"area-{'-'.join(a.players)}")
            segs.set_thickness(4.0 if mine else 2.0)
            segs.set_color(*colour)
            for ring in outlines(a, self._supplies):
                segs.move_to(ring[0][0], ring[0][1], LIFT)
                for x, y in ring[1:]:
                    segs.draw_to(x, y, LIFT)
            NodePath(segs.create()).reparent_to(self.areas)
            text = TextNode(f"label-{'-'.join(a.players)}")
            text.set_text(" + ".join(a.players))
            text.set_align(TextNode.A_center)
            text.set_text_color(*theme.legible(colour))  # on a dark plate: read on any table
            text.set_card_color(*theme.PANEL)
            text.set_card_as_margin(0.3, 0.3, 0.15, 0.15)
            text.set_card_decal(True)  # the letters on the plate without fighting it for depth
            label = self.areas.attach_new_node(text)
            centre = Polygon(a.polygon).centroid
            label.set_pos(centre.x, centre.y, LIFT)
            label.set_p(-90.0)  # lying on the table, read from above
            label.set_scale(LABEL)

    def close(self, window) -> None:
        super().close(window)
        if self.areas is not None:
            self.areas.remove_node()
