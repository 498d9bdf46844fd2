"""The replay window's panels, in DirectGUI: the status line, the timeline bar with its marks and cursor,
the caption of the current event, the panes' labels, messages and the help.

The bar's place is :mod:`sim.viewer.replay.timeline`'s (fractions of the
window), drawn in ``render2d`` (x and y from -1 to 1 across the window), so a
pixel maps to a place on it without the aspect ratio; text goes in
``aspect2d``. Every text keeps to one pane when two are side by side (none crosses the split between them):
the status line top left and the caption above the bar in the left pane, the messages above the bar in the
right one, each pane's label under the status line; each is broken to its pane's width
(:mod:`sim.viewer.window.layout`). Colours: :mod:`sim.viewer.window.theme`.
"""

from __future__ import annotations

from direct.gui.DirectGui import DirectFrame
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import TextNode

from sim.viewer.replay.keys import help_lines
from sim.viewer.replay.timeline import BAR_BOTTOM, BAR_LEFT, BAR_RIGHT, BAR_TOP
from sim.viewer.window import theme
from sim.viewer.window.layout import SEPARATOR, fit

PANEL = theme.PANEL
TEXT = theme.TEXT
SCALE = 0.042
MESSAGES = 3
MESSAGE_SECONDS = 6.0
EDGE = 0.03
"""Space between a text and the edge of its pane (``aspect2d`` units)."""
CARD = 2 * 0.1 * SCALE
"""The width a text's card adds to it."""


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
        self.caption = OnscreenText(parent=base.aspect2d, pos=(0.0, 0.0), scale=SCALE, fg=TEXT,
                                    align=TextNode.A_left, mayChange=True, bg=PANEL, text="")
        self.messages = OnscreenText(parent=base.aspect2d, pos=(0.0, 0.0), scale=SCALE, fg=TEXT,
                                     align=TextNode.A_right, mayChange=True, bg=PANEL, text="")
        self.labels = [OnscreenText(parent=base.aspect2d, scale=SCALE, fg=TEXT, mayChange=True, bg=PANEL, text="")
                       for _ in range(2)]
        self.help = DirectFrame(parent=base.aspect2d, frameColor=theme.MODAL,
                                frameSize=(-1.55, 1.55, -0.85, 0.85))
        for k, (keys, helps) in enumerate(help_lines()):
            x = -1.5 + 1.55 * k
            OnscreenText(parent=self.help, text=keys, pos=(x, 0.76), scale=0.034, fg=theme.KEYS,
                         align=TextNode.A_left)
            OnscreenText(parent=self.help, text=helps, pos=(x + 0.55, 0.76), scale=0.034, fg=TEXT,
                         align=TextNode.A_left)
        OnscreenText(parent=self.help, text="F1 or Esc closes this help", pos=(0.0, -0.8), scale=0.034,
                     fg=theme.KEYS)
        self.help.set_tag("towerlab-panel", "help")
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
        while self._seen < len(c.messages):
            self._shown.append((c.messages[self._seen].text, now))
            self._seen += 1
        recent = [m for m, at in self._shown[-MESSAGES:] if now - at < MESSAGE_SECONDS]
        self._layout(f"{c.status()} | {fps:3.0f} fps   F1: help", c.caption() or "", "\n".join(recent))

    def panes(self) -> list[tuple[float, float]]:
        """Each pane's left and right edge in ``aspect2d`` units (one pane: the whole window)."""
        c = self.controller
        w = c.size[0]
        aspect = self.base.getAspectRatio()
        x = lambda px: (2.0 * px / w - 1.0) * aspect  # noqa: E731
        n = len(c.panes())
        if n < 2:
            return [(-aspect, aspect)]
        pane_w, _ = c.pane_size()
        return [(x(0), x(pane_w)), (x(w - pane_w), x(w))]

    def _layout(self, status: str, caption: str, messages: str) -> None:
        """Each text broken to its pane's width and placed (see the module)."""
        panes = self.panes()
        (left0, right0), (left1, right1) = panes[0], panes[-1]
        width = lambda node: lambda line: node.textNode.calc_width(line) * SCALE  # noqa: E731
        line = self.status.textNode.get_line_height() * SCALE
        room = right0 - left0 - 2 * EDGE - CARD
        self._text(self.status, "\n".join(fit(status, room, width(self.status), separator=SEPARATOR, indent="")))
        rows = self.status.text.count("\n") + 1
        label_y = 1.0 - 0.06 - line * rows - 0.04  # under the status line
        helping = not self.help.is_hidden()
        if helping:  # the help covers the window under the status line: the other texts wait
            caption, messages = "", ""
            aspect = self.base.getAspectRatio()
            top, bottom = label_y + 0.02, 1.0 - 2.0 * BAR_TOP + 0.03  # under the status line, over the bar
            self.help.setScale(min(1.0, (2.0 * aspect - 0.04) / 3.1, (top - bottom) / 1.7))
            self.help.setPos(0, 0, (top + bottom) / 2)
        for k, label in enumerate(self.labels):
            if len(panes) < 2 or helping:
                label.hide()
                continue
            label.show()
            pane = self.controller.panes()[k]
            left, right = panes[k]
            self._text(label, fit(f"{pane.label}: {pane.time:.2f} s", right - left - 2 * EDGE - CARD,
                                  width(label), rows=1)[0])
            label.setPos((left + right) / 2, label_y)
        bar_top = 1.0 - 2.0 * BAR_TOP + 0.06  # aspect2d y just above the bar's top edge
        lines = fit(caption, room, width(self.caption), rows=2) if caption else []
        self._text(self.caption, "\n".join(lines))
        self.caption.setPos(left0 + EDGE, bar_top + line * max(len(lines) - 1, 0))
        above = bar_top + line * (len(lines) + 0.6) if len(panes) < 2 and lines else bar_top
        lines = fit(messages, right1 - left1 - 2 * EDGE - CARD, width(self.messages))[-MESSAGES:] if messages else []
        self._text(self.messages, "\n".join(lines))
        self.messages.setPos(right1 - EDGE, above + line * max(len(lines) - 1, 0))

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
