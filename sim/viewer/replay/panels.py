"""The replay window's panels, in DirectGUI: the status line, the timeline bar with its marks and cursor,
the caption of the current event, the panes' labels, messages and the help.

The bar's place is :mod:`sim.viewer.replay.timeline`'s (fractions of the
window), drawn in ``render2d`` (x and y from -1 to 1 across the window), so a
pixel maps to a place on it without the aspect ratio; text goes in
``aspect2d``.
"""

from __future__ import annotations

from direct.gui.DirectGui import DirectFrame
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import TextNode

from sim.viewer.replay.keys import help_lines
from sim.viewer.replay.timeline import BAR_BOTTOM, BAR_LEFT, BAR_RIGHT, BAR_TOP

PANEL = (0.08, 0.09, 0.10, 0.72)
TEXT = (0.96, 0.96, 0.96, 1.0)
SCALE = 0.042
MESSAGES = 3
MESSAGE_SECONDS = 6.0


def _x(f: float) -> float:
    return 2.0 * f - 1.0


def _y(f: float) -> float:
    return 1.0 - 2.0 * f


class ReplayPanels:
    """The panels of one replay window.

    Args:
        base: the ShowBase.
        controller: the :class:`~sim.viewer.replay.controller.ReplayController`.
    """

    def __init__(self, base, controller):
        self.base = base
        self.controller = controller
        r2d = base.render2d
        self.bar = DirectFrame(parent=r2d, frameColor=(0.12, 0.13, 0.14, 0.85),
                               frameSize=(_x(BAR_LEFT) - 0.01, _x(BAR_RIGHT) + 0.01, _y(BAR_BOTTOM) - 0.012,
                                          _y(BAR_TOP) + 0.012))
        self.played = DirectFrame(parent=r2d, frameColor=(0.35, 0.37, 0.40, 0.9), frameSize=(0, 0, 0, 0))
        self.marks_root = r2d.attach_new_node("replay-marks")
        self.cursor = DirectFrame(parent=r2d, frameColor=(1.0, 1.0, 1.0, 1.0), frameSize=(0, 0, 0, 0))
        a2d = base.a2dTopLeft
        self.status = OnscreenText(parent=a2d, pos=(0.03, -0.06), scale=SCALE, fg=TEXT, align=TextNode.A_left,
                                   mayChange=True, bg=PANEL, text="")
        self.caption = OnscreenText(parent=base.a2dBottomLeft, pos=(0.03, 0.2), scale=SCALE, fg=TEXT,
                                    align=TextNode.A_left, mayChange=True, bg=PANEL, text="")
        self.messages = OnscreenText(parent=base.a2dBottomRight, pos=(-0.03, 0.32), scale=SCALE, fg=TEXT,
                                     align=TextNode.A_right, mayChange=True, bg=PANEL, text="")
        self.labels = [OnscreenText(parent=base.aspect2d, scale=SCALE, fg=TEXT, mayChange=True, bg=PANEL, text="")
                       for _ in range(2)]
        self.help = DirectFrame(parent=base.aspect2d, frameColor=(0.05, 0.06, 0.07, 0.92),
                                frameSize=(-1.55, 1.55, -0.85, 0.85))
        for k, (keys, helps) in enumerate(help_lines()):
            x = -1.5 + 1.55 * k
            OnscreenText(parent=self.help, text=keys, pos=(x, 0.76), scale=0.034, fg=(0.7, 0.8, 1.0, 1.0),
                         align=TextNode.A_left)
            OnscreenText(parent=self.help, text=helps, pos=(x + 0.55, 0.76), scale=0.034, fg=TEXT,
                         align=TextNode.A_left)
        OnscreenText(parent=self.help, text="F1 or Esc closes this help", pos=(0.0, -0.8), scale=0.034,
                     fg=(0.7, 0.8, 1.0, 1.0))
        self.help.hide()
        self._marks_width = None
        self._seen = 0
        self._shown: list[tuple[str, float]] = []

    def draw_marks(self, width: int) -> None:
        """The events' marks along the bar, for a window ``width`` pixels wide (two pixels each)."""
        if width == self._marks_width:
            return
        self._marks_width = width
        self.marks_root.node().remove_all_children()
        span = BAR_RIGHT - BAR_LEFT
        half = 3.0 / max(width, 1)
        for m in self.controller.timeline.marks(resolution=max(int(width * span / 4), 1)):
            x = _x(BAR_LEFT + m.fraction * span)
            tall = 0.03 if m.kind == "knocked_down" else 0.012
            DirectFrame(parent=self.marks_root, frameColor=m.color,
                        frameSize=(x - half, x + half, _y(BAR_BOTTOM) - tall, _y(BAR_TOP) + tall))

    def update(self, now: float, fps: float) -> None:
        """The cursor, the texts and the panes' labels as the controller says."""
        c = self.controller
        w, _ = c.size
        self.draw_marks(w)
        f = c.timeline.fraction(c.time)
        x = _x(BAR_LEFT + f * (BAR_RIGHT - BAR_LEFT))
        half = 2.0 / max(w, 1)
        self.played["frameSize"] = (_x(BAR_LEFT), x, _y(BAR_BOTTOM), _y(BAR_TOP))
        self.cursor["frameSize"] = (x - half, x + half, _y(BAR_BOTTOM) - 0.02, _y(BAR_TOP) + 0.02)
        self._text(self.status, f"{c.status()} | {fps:3.0f} fps   F1: help")
        self._text(self.caption, c.caption() or "")
        panes = c.panes()
        aspect = self.base.getAspectRatio()
        for k, label in enumerate(self.labels):
            if len(panes) < 2:
                label.hide()
                continue
            label.show()
            pane = panes[k]
            label.setPos((-0.5 + k) * aspect, 0.82)
            self._text(label, f"{pane.label}: {pane.time:.2f} s")
        while self._seen < len(c.messages):
            self._shown.append((c.messages[self._seen].text, now))
            self._seen += 1
        recent = [m for m, at in self._shown[-MESSAGES:] if now - at < MESSAGE_SECONDS]
        self._text(self.messages, "\n".join(recent))

    @staticmethod
    def _text(node, text: str) -> None:
        if node.text != text:
            node.setText(text)

    def toggle_help(self) -> bool:
        """Show or hide the help; whether it shows."""
        (self.help.show if self.help.is_hidden() else self.help.hide)()
        return not self.help.is_hidden()

    def destroy(self) -> None:
        for node in (self.bar, self.played, self.cursor, self.help):
            node.destroy()
        self.marks_root.remove_node()
        for node in (self.status, self.caption, self.messages, *self.labels):
            node.destroy()
