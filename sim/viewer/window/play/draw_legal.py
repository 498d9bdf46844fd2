"""The legal moves in the window (Panda3D): while a piece is carried, a ring on the table at every place where it
may be set down now, and over a ghost the referee would refuse (and the piece hovering over it), the rule that
refuses it.

What is drawn is the referee's own answer (:meth:`sim.viewer.play.mode.Referee.legal_now`,
:mod:`sim.viewer.play.legal`); the ghost itself turns red in the window's marks
(:meth:`sim.viewer.control.plugins.SessionPlugin.judge_ghost`). A ring lies on what the piece would rest on, under the
middle of the piece there, its size the piece's; the rings are made again only when the places change (a
new piece in hand, the game or the table changed), so that a frame only moves the label.
"""

from __future__ import annotations

import textwrap

import numpy as np
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import LineSegs, NodePath, TextNode, TransparencyAttrib

from sim.geometry.transforms import transform_points
from sim.render.graph import SHADOW_MASK
from sim.viewer.play.legal import PLACE, ring, ring_radius
from sim.viewer.window import theme

LABEL_SCALE = 0.036
LABEL_GAP = 0.02
"""How far (``aspect2d`` units) over the carried piece (which hovers over its ghost) the refusal's label stands:
neither the ghost nor what it would stand on is hidden."""
LABEL_WIDTH = 64
"""Characters of a line of the refusal's label (a longer reason goes on over more lines)."""
LABEL_LINES = 3
"""Lines of the refusal's label at most (the reason ends with `` ...`` only past them)."""
OVERRIDE = 200  # the rings' flat colour beats the live shader (as the ghosts')


def label_text(rule: str, reason: str) -> str:
    """The refusal's label: ``not here (rule): reason``, over lines of at most :data:`LABEL_WIDTH` characters
    (:data:`LABEL_LINES` of them: the whole of a rule's reason as the referee would say it)."""
    return "\n".join(textwrap.wrap(f"not here ({rule}): {reason}", LABEL_WIDTH, max_lines=LABEL_LINES,
                                   break_on_hyphens=False, placeholder=" ..."))


class LegalDrawing:
    """The rings and the refusal's label of one window.

    Args:
        base: the window (its ``controller``, ``render``, ``aspect2d``).
        referee: the play mode's :class:`~sim.viewer.play.mode.Referee`.
    """

    def __init__(self, base, referee):
        self.base = base
        self.referee = referee
        self.root = base.render.attach_new_node("legal-places")
        self.root.hide(SHADOW_MASK)
        self.root.set_light_off(1)
        self.root.set_shader_off(OVERRIDE)
        self.root.set_transparency(TransparencyAttrib.M_none)
        self.root.set_bin("fixed", 43)
        self.root.set_depth_write(False)
        self.label = OnscreenText(parent=base.aspect2d, scale=LABEL_SCALE, fg=theme.ALERT, bg=theme.PANEL,
                                  align=TextNode.A_center, mayChange=True, text="")
        self.label.textNode.set_card_as_margin(0.4, 0.4, 0.25, 0.25)
        self.label.hide()
        self._drawn = None  # (hand, piece, places) the rings show (the places' tuple itself: a new answer is a new one)

    def update(self) -> None:
        """Draw what the referee answers now (once a frame)."""
        legal = self.referee.legal_now()
        places = [(h, k.piece, k.places) for h, k in sorted(legal.items())]
        drawn = self._drawn
        if drawn is None or len(drawn) != len(places) or any(
                a[:2] != b[:2] or a[2] is not b[2] for a, b in zip(drawn, places)):
            self._draw(legal)
            self._drawn = places
        self._label(legal)

    def _draw(self, legal) -> None:
        self.root.node().remove_all_children()
        for k in legal.values():
            if not k.places:
                continue
            piece = self.referee.table.setup_piece(k.piece)
            r = ring_radius(piece)
            segs = LineSegs(f"places-{k.piece}")
            segs.set_thickness(3.0)
            segs.set_color(*PLACE)
            for point in k.points(piece):
                points = ring(point, r)
                segs.move_to(*points[0])
                for p in points[1:]:
                    segs.draw_to(*p)
            NodePath(segs.create()).reparent_to(self.root)

    def _label(self, legal) -> None:
        refused = [k for k in legal.values() if k.refusal is not None and k.ghost is not None]
        if not refused or self.base.overlay.modal:
            self.label.hide()
            return
        k = refused[0]
        c = self.base.controller
        box = self.referee.table.setup_piece(k.piece).shape.box_corners
        pose = c.world.pose(k.piece)  # the carried piece, hovering over its ghost: the label stands over both
        ghost = np.array([c.camera.pixel(p) for p in transform_points(box, k.ghost[:3], k.ghost[3:])])
        held = np.array([c.camera.pixel(p) for p in transform_points(box, pose[:3], pose[3:])])
        w, h = c.camera.size
        to_a2d = self.base.aspect2d.get_relative_point

        def height(py: float) -> float:
            return to_a2d(self.base.render2d, (0, 0, 1 - 2 * py / h)).z

        x = to_a2d(self.base.render2d, (2 * np.vstack([ghost, held])[:, 0].mean() / w - 1, 0, 0)).x
        text = label_text(k.refusal.rule, k.refusal.reason)
        if self.label.text != text:
            self.label.setText(text)
        half = self.label.textNode.get_width() * LABEL_SCALE / 2 + 0.02
        left, right = self.base.a2dLeft + half, self.base.a2dRight - half
        x = float(np.clip(x, left, max(left, right)))
        # the text's baseline: its card's foot just over both; under the ghost where that would run into a panel
        y = max(height(ghost[:, 1].min()), height(held[:, 1].min())) + LABEL_GAP + 0.3 * LABEL_SCALE
        if y + LABEL_SCALE > self._ceiling(x - half, x + half):
            y = height(ghost[:, 1].max()) - LABEL_GAP - 0.9 * LABEL_SCALE
        self.label.setPos(x, float(max(y, self.base.a2dBottom + 0.08)))
        self.label.show()

    def _ceiling(self, x0: float, x1: float) -> float:
        """The lowest bottom edge (``aspect2d``) of the panels shown over ``x0``..``x1`` in the window's top half
        (the status line, the game panel, the stability panel): a label stays under it."""
        out = self.base.a2dTop
        for panel in self.base.aspect2d.find_all_matches("**/=towerlab-panel"):
            if panel.is_hidden() or panel.get_net_transform().get_scale()[0] == 0:
                continue
            bounds = panel.get_tight_bounds(self.base.aspect2d)
            if bounds is None:
                continue
            lo, hi = bounds
            if hi.z > 0 and lo.x < x1 and hi.x > x0:
                out = min(out, float(lo.z))
        return out

    def destroy(self) -> None:
        self.root.remove_node()
        self.label.destroy()


__all__ = ["LegalDrawing", "label_text"]
