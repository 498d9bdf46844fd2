"""What the window draws of a gesture under way: the box of a box selection (on the screen) and the spring of
a pull (in the scene: a line from the point pulled to where it is pulled, yellow turning red as the force
nears its limit, a dot at each end).

Drawn without the live shaders, over everything (no depth test: a spring behind a piece still shows), hidden
from the light's camera; the spring lies under the marks' node, so the id view hides it with the marks.
"""

from __future__ import annotations

import numpy as np
from panda3d.core import LineSegs, NodePath

from sim.render.graph import SHADOW_MASK

BOX = (1.0, 0.85, 0.2, 1.0)
SPRING_EASY = np.array([1.0, 0.85, 0.15])
SPRING_HARD = np.array([0.95, 0.2, 0.1])
THICKNESS = 3.0
END = 0.003
"""Half the size (m) of the cross drawn at each end of a spring."""


class Gestures:
    """The box and the springs of one window.

    Args:
        base: the ShowBase (its ``pixel2d`` holds the box).
        parent: the node the springs go under (the marks' root).
    """

    def __init__(self, base, parent: NodePath):
        self.box_node = base.pixel2d.attach_new_node("towerlab-box")
        self.springs_node = parent.attach_new_node("towerlab-springs")
        self.springs_node.hide(SHADOW_MASK)
        self.springs_node.set_light_off(1)
        self.springs_node.set_depth_test(False)
        self.springs_node.set_depth_write(False)
        self.springs_node.set_bin("fixed", 50)
        self._shown_box = None
        self._shown_springs = None

    def box(self, corner, other=None, chosen=()) -> None:
        """Draw the box between two pixels (x right, y down from the top left), or none (``corner`` None), and
        round each piece it would take a frame's corners (``chosen``: rectangles (x0, y0, x1, y1), pixels)."""
        key = None if corner is None else (tuple(corner), tuple(other), tuple(chosen))
        if key == self._shown_box:
            return
        self._shown_box = key
        self.box_node.node().remove_all_children()
        if key is None:
            return
        (x0, y0), (x1, y1) = key[:2]
        segs = LineSegs("box")
        segs.set_thickness(2.0)
        segs.set_color(*BOX)
        segs.move_to(x0, 0, -y0)
        for x, y in ((x1, y0), (x1, y1), (x0, y1), (x0, y0)):
            segs.draw_to(x, 0, -y)
        segs.set_thickness(3.0)
        for a, b, c, d in chosen:  # the corners of each piece's frame, a quarter of its side long
            dx, dy = (c - a) / 4.0, (d - b) / 4.0
            for x, y, sx, sy in ((a, b, 1, 1), (c, b, -1, 1), (c, d, -1, -1), (a, d, 1, -1)):
                segs.move_to(x + sx * dx, 0, -y)
                segs.draw_to(x, 0, -y)
                segs.draw_to(x, 0, -(y + sy * dy))
        self.box_node.attach_new_node(segs.create())

    def springs(self, springs) -> None:
        """Draw the springs (:class:`~sim.viewer.control.live.Spring`, piece -> spring) as they are now."""
        key = tuple((s.piece, tuple(np.round(s.point, 5)), tuple(np.round(s.target, 5))) for s in springs.values())
        if key == self._shown_springs:
            return
        self._shown_springs = key
        self.springs_node.node().remove_all_children()
        if not springs:
            return
        segs = LineSegs("springs")
        segs.set_thickness(THICKNESS)
        for s in springs.values():
            colour = SPRING_EASY + (SPRING_HARD - SPRING_EASY) * float(np.clip(s.load, 0.0, 1.0))
            segs.set_color(*colour, 1.0)
            segs.move_to(*s.point)
            segs.draw_to(*s.target)
            for p in (s.point, s.target):  # a small cross at each end
                for axis in np.eye(3) * END:
                    segs.move_to(*(p - axis))
                    segs.draw_to(*(p + axis))
        self.springs_node.attach_new_node(segs.create())

    def destroy(self) -> None:
        self.box_node.remove_node()
        self.springs_node.remove_node()
