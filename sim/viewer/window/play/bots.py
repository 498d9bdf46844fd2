"""The computer players in the window (Panda3D): their panel under the game panel, and their keys.

The panel says who plays by computer and what the one at work is doing (thinking, placing a piece); I opens its
reasoning (why it chose its last move, the candidates it weighed with their scores and risks of collapse), K
hurries the hand at work (the rest of its move at once). The text is :func:`sim.viewer.play.bots.bots_panel`'s.
"""

from __future__ import annotations

from direct.gui.DirectGui import DirectFrame
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import TextNode

from sim.errors import TowerlabError
from sim.viewer.control.actions import action, specs_with
from sim.viewer.control.keys import Control
from sim.viewer.control.plugins import WindowPlugin
from sim.viewer.play.bots import BotSeats, bots_panel
from sim.viewer.window import theme
from sim.viewer.window.layout import fit
from sim.viewer.window.play.draw import PAD, SCALE, WIDTH

GAP = 0.02
"""Room (``aspect2d`` units) between the game panel and this one."""
REFRESH = 8.0
"""Times a second the panel's text is made again."""


class BotWindow(WindowPlugin):
    """The computer players' panel and keys (see the module).

    Args:
        seats: the session's :class:`~sim.viewer.play.bots.BotSeats`.
        play: the game's window plug-in (:class:`~sim.viewer.window.play.draw.PlayWindow`): the panel goes under
            its game panel.
    """

    def __init__(self, seats: BotSeats, play):
        self.seats = seats
        self.play = play
        self.window = None
        self.panel = None
        self.text = None
        self._since = 1.0
        self._laid_out = None

    def attach(self, window) -> None:
        self.window = window
        self.panel = DirectFrame(parent=window.a2dTopLeft, frameColor=theme.PANEL, frameSize=(0.0, WIDTH, -0.1, 0.0),
                                 pos=(0.02, 0, -0.7), suppressMouse=0)
        self.panel.set_tag("towerlab-panel", "bots")
        self.text = OnscreenText(parent=self.panel, pos=(PAD, -0.05), scale=SCALE, fg=theme.TEXT,
                                 align=TextNode.A_left, mayChange=True, text="")

    def controls(self) -> tuple[Control, ...]:
        g = "Computer players"
        return (Control("K", ("k",), self.hurry, "hurry the computer player's hand (the rest of its move at once)", g),
                Control("I", ("i",), self.toggle_reasoning, "the computer player's reasoning: its candidates, "
                                                            "their scores and risks", g))

    def hurry(self) -> None:
        self._act("skip-move")

    def toggle_reasoning(self) -> None:
        self._act("bot-reasoning", show=not self.seats.show_reasoning)
        self._since = 1.0

    def _act(self, name: str, **fields) -> None:
        c = self.window.controller
        try:
            c.apply(action(name, "the window", specs_with(c.plugins), **fields))
        except TowerlabError as e:
            c.report(e)

    def frame(self, window, dt: float) -> None:
        self._since += dt
        if self._since < 1.0 / REFRESH:
            return
        self._since = 0.0
        game = self.play.drawing.frame
        if window.overlay.modal or game.is_hidden():
            self.panel.hide()
            return
        self.panel.show()
        size = game["frameSize"]
        top = game.getZ() + size[2] - GAP
        width = size[1]
        text = bots_panel(self.seats)
        key = (text, round(top, 4), round(width, 4))
        if key == self._laid_out:
            return
        self._laid_out = key
        lines = fit(text, width - 2 * PAD, lambda line: self.text.textNode.calc_width(line) * SCALE)
        self.text.setText("\n".join(lines))
        self.panel.setPos(0.02, 0, top)
        line = self.text.textNode.get_line_height() * SCALE
        self.panel["frameSize"] = (0.0, width, -(0.05 + line * (len(lines) - 1) + 0.35 * line + 0.02), 0.0)

    def close(self, window) -> None:
        if self.panel is not None:
            self.panel.destroy()
