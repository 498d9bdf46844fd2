"""The window's panels, in DirectGUI: status, stability, the piece under the cursor, messages, the help,
and the two dialogs (recover a session; type a path).

DirectGUI rather than panda3d-imgui: it ships with Panda3D (no second GUI stack
and no imgui-bundle wheel to install), draws through the same window and
context as everything else, and text panels and a few buttons are all the
viewer needs; live plots, imgui's strength, are not.
"""

from __future__ import annotations

import textwrap

from direct.gui.DirectGui import DGG, DirectButton, DirectEntry, DirectFrame
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import TextNode

from sim.viewer.keys import help_text
from sim.viewer.marks import margin_color

PANEL = (0.08, 0.09, 0.10, 0.72)
TEXT = (0.96, 0.96, 0.96, 1.0)
SCALE = 0.042
MESSAGES = 4
MESSAGE_SECONDS = 8.0
COLUMNS = 44
"""Characters a line of the stability panel holds (its frame is 0.95 wide at :data:`SCALE`)."""


def verdict_text(verdict, pending: bool) -> str:
    """The stability panel's lines, none longer than :data:`COLUMNS`."""
    return "\n".join(_wrapped(line) for line in _verdict_lines(verdict, pending).split("\n"))


def _verdict_lines(verdict, pending: bool) -> str:
    if verdict is None:
        return "judging ..."
    if verdict.error is not None:
        return "CANNOT JUDGE\n" + verdict.error
    if verdict.empty:
        return "NOTHING BUILT YET\npick up a piece (left click) and set it down"
    wait = "  (judging the latest change ...)" if pending else ""
    if not verdict.feasible:
        names = ", ".join(verdict.unheld[:8]) + (" ..." if len(verdict.unheld) > 8 else "")
        return f"FALLS{wait}\ncannot be held: {names}"
    if verdict.partial:
        return f"STANDS{wait}\nmargin: being computed ..."
    if verdict.margin_error is not None:
        return f"STANDS{wait}\nmargin unknown ({verdict.margin_error})"
    if verdict.margin_g <= 0.0:
        return f"KNIFE EDGE{wait}\nmargin 0 g: the slightest push tips it"
    direction = verdict.weakest_direction_deg
    where = f" toward {direction:.0f}°" if direction is not None else ""
    moving = ", ".join(verdict.mode[:6]) + (" ..." if len(verdict.mode) > 6 else "")
    lines = [f"STANDS{wait}", f"margin {verdict.margin_g:.3f} g{where}"]
    if moving:
        lines.append(f"weakest: {moving}")
    return "\n".join(lines)


def _wrapped(line: str) -> str:
    """One line of the panel on at most three (a list of long ids would run past its edge)."""
    return "\n".join(textwrap.wrap(line, COLUMNS, subsequent_indent="  ", max_lines=3, placeholder=" ..."))


class Overlay:
    """The panels of one window.

    Args:
        base: the ShowBase.
        controls: the controls the help lists (default :data:`~sim.viewer.keys.CONTROLS`; a window with
            plug-ins adds theirs).
    """

    def __init__(self, base, controls=None):
        self.base = base
        a2d = base.a2dTopLeft
        self.status = OnscreenText(parent=a2d, pos=(0.03, -0.06), scale=SCALE, fg=TEXT, align=TextNode.A_left,
                                   mayChange=True, bg=PANEL, text="")
        self.stability_frame = DirectFrame(parent=base.a2dTopRight, frameColor=PANEL,
                                           frameSize=(-0.95, 0.0, -0.30, 0.0), pos=(-0.02, 0, -0.02))
        self.stability = OnscreenText(parent=self.stability_frame, pos=(-0.92, -0.07), scale=SCALE, fg=TEXT,
                                      align=TextNode.A_left, mayChange=True, text="")
        self.hover_frame = DirectFrame(parent=base.a2dBottomLeft, frameColor=PANEL,
                                       frameSize=(0.0, 0.95, 0.0, 0.30), pos=(0.02, 0, 0.02))
        self.hover = OnscreenText(parent=self.hover_frame, pos=(0.03, 0.24), scale=SCALE, fg=TEXT,
                                  align=TextNode.A_left, mayChange=True, text="")
        self.hover_frame.hide()
        for name, node in (("stability", self.stability_frame), ("hover", self.hover_frame)):
            node.set_tag("towerlab-panel", name)
        self.messages = OnscreenText(parent=base.a2dBottomRight, pos=(-0.03, 0.22), scale=SCALE, fg=TEXT,
                                     align=TextNode.A_right, mayChange=True, bg=PANEL, text="")
        self.help = DirectFrame(parent=base.aspect2d, frameColor=(0.05, 0.06, 0.07, 0.90),
                                frameSize=(-1.55, 1.55, -0.95, 0.95))
        for k, (keys, helps) in enumerate(help_text(2, controls)):
            x = -1.5 + 1.55 * k
            OnscreenText(parent=self.help, text=keys, pos=(x, 0.86), scale=0.034, fg=(0.7, 0.8, 1.0, 1.0),
                         align=TextNode.A_left)
            OnscreenText(parent=self.help, text=helps, pos=(x + 0.48, 0.86), scale=0.034, fg=TEXT,
                         align=TextNode.A_left)
        OnscreenText(parent=self.help, text="F1 or Esc closes this help", pos=(0.0, -0.9), scale=0.034,
                     fg=(0.7, 0.8, 1.0, 1.0))
        self.help.set_tag("towerlab-panel", "help")
        self.help.hide()
        self.dialog = None
        self.entry = None

    # --- panels ---------------------------------------------------------------------------------

    def show_status(self, text: str) -> None:
        if self.status.text != text:
            self.status.setText(text)

    def show_stability(self, verdict, pending: bool, visible: bool) -> None:
        if not visible:
            self.stability_frame.hide()
            return
        self.stability_frame.show()
        text = verdict_text(verdict, pending)
        if self.stability.text != text:
            self.stability.setText(text)
            self.stability.setFg(margin_color(verdict) if verdict is not None and verdict.error is None else TEXT)
            lines = text.count("\n") + 1
            self.stability_frame["frameSize"] = (-0.95, 0.0, -0.05 - 0.055 * lines, 0.0)

    def show_hover(self, text: str | None) -> None:
        if not text:
            self.hover_frame.hide()
            return
        self.hover_frame.show()
        if self.hover.text != text:
            self.hover.setText(text)
            lines = text.count("\n") + 1
            self.hover_frame["frameSize"] = (0.0, 0.95, 0.0, 0.05 + 0.055 * lines)
            self.hover.setPos(0.03, 0.055 * lines - 0.02)

    def show_messages(self, messages, now: float) -> None:
        recent = [m for m in messages[-MESSAGES:] if now - m[1] < MESSAGE_SECONDS]
        text = "\n".join(m[0] for m in recent)
        if self.messages.text != text:
            self.messages.setText(text)

    def toggle_help(self, show: bool) -> None:
        (self.help.show if show else self.help.hide)()

    # --- dialogs --------------------------------------------------------------------------------

    def ask(self, text: str, choices: list[tuple[str, callable]]) -> None:
        """A dialog with a question and buttons (each closes it and calls its function)."""
        self.close_dialog()
        frame = DirectFrame(parent=self.base.aspect2d, frameColor=(0.06, 0.07, 0.08, 0.94),
                            frameSize=(-0.9, 0.9, -0.28, 0.28))
        frame.set_tag("towerlab-panel", "dialog")
        OnscreenText(parent=frame, text=text, pos=(0.0, 0.12), scale=0.045, fg=TEXT, wordwrap=38)
        for k, (label, fn) in enumerate(choices):
            DirectButton(parent=frame, text=label, scale=0.05, pos=(-0.35 + 0.7 * k, 0, -0.17),
                         command=self._chose, extraArgs=[fn], pad=(0.4, 0.2))
        self.dialog = frame

    def prompt(self, text: str, initial: str, done) -> None:
        """A dialog with a line to type in (Enter confirms, Esc cancels)."""
        self.close_dialog()
        frame = DirectFrame(parent=self.base.aspect2d, frameColor=(0.06, 0.07, 0.08, 0.94),
                            frameSize=(-1.2, 1.2, -0.2, 0.2))
        frame.set_tag("towerlab-panel", "dialog")
        OnscreenText(parent=frame, text=text, pos=(-1.15, 0.08), scale=0.045, fg=TEXT, align=TextNode.A_left)
        self.entry = DirectEntry(parent=frame, initialText=initial, scale=0.045, width=50, pos=(-1.15, 0, -0.08),
                                 focus=1, command=self._entered, extraArgs=[done], frameColor=(1, 1, 1, 0.9),
                                 state=DGG.NORMAL)
        self.dialog = frame

    def _chose(self, fn) -> None:
        self.close_dialog()
        fn()

    def _entered(self, text: str, done) -> None:
        self.close_dialog()
        done(text.strip())

    def close_dialog(self) -> bool:
        """Close the open dialog; whether there was one."""
        if self.dialog is None:
            return False
        self.dialog.destroy()
        self.dialog = self.entry = None
        return True
