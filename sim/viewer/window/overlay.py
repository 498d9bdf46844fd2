"""The window's panels, in DirectGUI: status, stability, the piece under the cursor, messages, the help,
and the dialogs (a question with buttons; the file list, :mod:`sim.viewer.window.filedialog`).

DirectGUI rather than panda3d-imgui: it ships with Panda3D (no second GUI stack
and no imgui-bundle wheel to install), draws through the same window and
context as everything else, and text panels and a few buttons are all the
viewer needs; live plots, imgui's strength, are not.

Where each panel goes (units of ``aspect2d``: the window is 2 high): the status line top left, wrapped at its
separators to the room left of the stability panel (top right); a plug-in's panel under the status line
(:meth:`Overlay.column`); the piece under the cursor bottom left, the messages bottom right beside it. No
text runs over another at any window size (:mod:`sim.viewer.window.layout` breaks each to its room). The help and
the dialogs are modal: they sit under the status line, fitted to the window, and hide the other panels
while they show. Colours: :mod:`sim.viewer.window.theme` (every text at least 4.5:1 against its panel over any
picture).
"""

from __future__ import annotations

import textwrap

from direct.gui.DirectGui import DGG, DirectButton, DirectFrame
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import TextNode

from sim.viewer.control.keys import help_text
from sim.viewer.window import theme
from sim.viewer.window.layout import SEPARATOR, fit
from sim.viewer.window.marks import WEAK_G, margin_color

PANEL = theme.PANEL
TEXT = theme.TEXT
HELP_CLOSES = "F1 or Esc closes this help"
"""The help's last line."""
SCALE = 0.042
MESSAGES = 4
"""Rows of messages shown at most (the latest)."""
MESSAGE_SECONDS = 8.0
COLUMNS = 44
"""Characters a line of the stability panel holds (its frame is 0.95 wide at :data:`SCALE`)."""
EDGE = 0.02
"""Space between a panel and the window's edge."""
GAP = 0.04
"""Space between two panels side by side or one above the other."""
STABILITY_WIDTH = 0.95
HOVER_WIDTH = 0.95
HOVER_ROWS = 5
"""Rows of the hover panel at most (the card tray of Tohuwabohu begins above it)."""
PAD = 0.03
"""Space between a panel's edge and its text."""
TYPING = "typing-"
"""While a text box has the keys, every key and mouse button event of the window is thrown with this
prefix: no control (plug-ins' included) nor the mouse's actions fire; a dialog listens to the few it needs
(``typing-escape``, ``typing-arrow_up``, ...)."""


def verdict_text(verdict, pending: bool) -> str:
    """The stability panel's lines, none longer than :data:`COLUMNS`."""
    return "\n".join(_wrapped(line) for line in _verdict_lines(verdict, pending).split("\n"))


def verdict_kind(verdict) -> str | None:
    """``stands``, ``weak`` (below :data:`~sim.viewer.window.marks.WEAK_G`), ``falls``, or None (no verdict yet, one
    that could not be made, nothing built): the colour the panel says it in (:data:`theme.VERDICT_INK`)."""
    if verdict is None or verdict.error is not None or verdict.empty:
        return None
    if not verdict.stands:
        return "falls"
    return "weak" if verdict.margin_g < WEAK_G else "stands"


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


def measure(text: OnscreenText, scale: float = SCALE):
    """The width (``aspect2d`` units) ``text``'s font gives a line at ``scale``: what
    :func:`sim.viewer.window.layout.fit` measures with."""
    node = text.textNode
    return lambda line: node.calc_width(line) * scale


def line_height(text: OnscreenText, scale: float = SCALE) -> float:
    """The distance between two lines of ``text`` at ``scale`` (``aspect2d`` units)."""
    return text.textNode.get_line_height() * scale


def set_text(node: OnscreenText, text: str) -> bool:
    """Show ``text`` (when it is not shown already); whether it changed."""
    if node.text == text:
        return False
    node.setText(text)
    return True


def text_button(parent, text: str, centre, command, scale: float = SCALE) -> tuple[DirectButton, OnscreenText]:
    """A flat button with ``text`` on it, centred at ``centre`` (x, y) of ``parent``: the text a node of its own
    over the button (so that the probe sees it, as every other text)."""
    label = OnscreenText(parent=parent, text=text, pos=(0.0, 0.0), scale=scale, fg=TEXT, mayChange=True)
    width = measure(label, scale)(text) + 2 * scale
    x, y = centre
    button = DirectButton(parent=parent, relief=DGG.FLAT, frameColor=theme.ROW_CHOSEN, command=command,
                          frameSize=(-width / 2, width / 2, -0.9 * scale, 1.1 * scale), pos=(x, 0, y))
    label.reparentTo(parent)  # drawn after the button: over it
    label.setPos(x, y - 0.3 * scale)
    return button, label


class Overlay:
    """The panels of one window.

    Args:
        base: the ShowBase.
        controls: the controls the help lists (default :data:`~sim.viewer.control.keys.CONTROLS`; a window with
            plug-ins adds theirs).
        recent: the recent files the file list offers (a :class:`~sim.viewer.control.browse.RecentFiles`), or None.
    """

    def __init__(self, base, controls=None, recent=None):
        self.base = base
        self.recent = recent
        a2d = base.a2dTopLeft
        self.status = OnscreenText(parent=a2d, pos=(0.03, -0.06), scale=SCALE, fg=TEXT, align=TextNode.A_left,
                                   mayChange=True, bg=PANEL, text="")
        self.stability_frame = DirectFrame(parent=base.a2dTopRight, frameColor=PANEL, suppressMouse=0,
                                           frameSize=(-STABILITY_WIDTH, 0.0, -0.30, 0.0), pos=(-EDGE, 0, -EDGE))
        self.badge = DirectFrame(parent=self.stability_frame, frameColor=(0, 0, 0, 0), suppressMouse=0,
                                 frameSize=(0.0, 0.036, 0.0, 0.036), pos=(-STABILITY_WIDTH + PAD, 0, -0.078))
        self.headline = OnscreenText(parent=self.stability_frame, pos=(-STABILITY_WIDTH + PAD + 0.06, -0.075),
                                     scale=SCALE * 1.1, fg=TEXT, align=TextNode.A_left, mayChange=True, text="")
        self.stability = OnscreenText(parent=self.stability_frame, pos=(-STABILITY_WIDTH + PAD, -0.135),
                                      scale=SCALE, fg=TEXT, align=TextNode.A_left, mayChange=True, text="")
        self.hover_frame = DirectFrame(parent=base.a2dBottomLeft, frameColor=PANEL, suppressMouse=0,
                                       frameSize=(0.0, HOVER_WIDTH, 0.0, 0.30), pos=(EDGE, 0, EDGE))
        self.hover = OnscreenText(parent=self.hover_frame, pos=(PAD, 0.24), scale=SCALE, fg=TEXT,
                                  align=TextNode.A_left, mayChange=True, text="")
        self.hover_frame.hide()
        for name, node in (("stability", self.stability_frame), ("hover", self.hover_frame)):
            node.set_tag("towerlab-panel", name)
        self.messages = OnscreenText(parent=base.a2dBottomRight, pos=(-0.03, 0.06), scale=SCALE, fg=TEXT,
                                     align=TextNode.A_right, mayChange=True, bg=PANEL, text="")
        self.help = DirectFrame(parent=base.aspect2d, frameColor=theme.MODAL, frameSize=(-1.55, 1.55, -0.95, 0.95))
        self._help_size = self._fill_help(controls)
        self.help.set_tag("towerlab-panel", "help")
        self.help.hide()
        self.dialog = None
        self.browser = None
        self._status_text = ""
        self._hover_text = None
        self._message_text = None
        self._fitted = None  # (aspect, status rows) the modal panels were fitted to

    def _fill_help(self, controls) -> tuple[float, float, float, float]:
        """The help's two columns of keys and what they do; the box (left, right, bottom, top) they take."""
        columns = help_text(2, controls)
        rows = max(k.count("\n") + 1 for k, _ in columns)
        key_width = 0.0
        texts = []
        for keys, helps in columns:
            key = OnscreenText(parent=self.help, text=keys, pos=(0.0, 0.0), scale=0.034, fg=theme.KEYS,
                               align=TextNode.A_left)
            key_width = max(key_width, max(measure(key, 0.034)(line) for line in keys.split("\n")))
            texts.append((key, OnscreenText(parent=self.help, text=helps, pos=(0.0, 0.0), scale=0.034, fg=TEXT,
                                            align=TextNode.A_left)))
        x = -1.5
        right = x
        for key, helps in texts:
            key.setPos(x, 0.86)
            helps.setPos(x + key_width + 0.06, 0.86)
            width = max(measure(helps, 0.034)(line) for line in helps.text.split("\n"))
            right = x + key_width + 0.06 + width
            x = right + 0.1
        lh = line_height(texts[0][0], 0.034)
        bottom = 0.86 - lh * rows
        self._help_close = OnscreenText(parent=self.help, text=HELP_CLOSES, pos=((-1.5 + right) / 2, bottom - 0.02),
                                        scale=0.034, fg=theme.KEYS, mayChange=True)
        box = (-1.55, right + 0.05, bottom - 0.08, 0.95)
        self.help["frameSize"] = box
        return box

    # --- where the panels go --------------------------------------------------------------------------

    @property
    def width(self) -> float:
        """The window's width in ``aspect2d`` units (its height is 2)."""
        return 2.0 * self.base.getAspectRatio()

    @property
    def modal(self) -> bool:
        """Whether the help or a dialog shows (the other panels are hidden meanwhile)."""
        return self.dialog is not None or not self.help.is_hidden()

    def _stability_shown(self) -> bool:
        return not self.stability_frame.is_hidden()

    def room(self) -> float:
        """The width a panel of the left column may take: the window's, less the stability panel's when it
        shows (the status line and a plug-in's panel keep left of it)."""
        right = STABILITY_WIDTH + EDGE + GAP if self._stability_shown() else EDGE
        return self.width - EDGE - right

    def status_bottom(self) -> float:
        """How far below the window's top edge the status line ends (``aspect2d`` units)."""
        lo, _hi = self.status.get_tight_bounds(self.base.a2dTopLeft)
        return -float(lo[2]) if lo is not None and self.status.text else 0.0

    def column(self) -> tuple[float, float]:
        """Where a plug-in's panel goes (under the status line, left of the stability panel): the height of its
        top edge in ``a2dTopLeft`` (negative: below the window's top) and the width it may take."""
        return -(self.status_bottom() + GAP / 2), self.room()

    def show_status(self, text: str) -> None:
        self._status_text = text
        self._place_status()
        self._fit_modal()

    def _place_status(self) -> None:
        room = self.room() - 2 * 0.1 * SCALE - 0.01  # the card's margins
        set_text(self.status, "\n".join(fit(self._status_text, room, measure(self.status), separator=SEPARATOR,
                                            indent="")))

    def show_stability(self, verdict, pending: bool, visible: bool) -> None:
        if not visible or self.modal:
            if self._stability_shown():
                self.stability_frame.hide()
                self._place_status()
            return
        if not self._stability_shown():
            self.stability_frame.show()
            self._place_status()
        head, _, rest = verdict_text(verdict, pending).partition("\n")
        kind = verdict_kind(verdict)
        if set_text(self.headline, head) | set_text(self.stability, rest):
            self.headline.setFg(theme.VERDICT_INK[kind] if kind else TEXT)
            self.badge["frameColor"] = margin_color(verdict) if kind else (0, 0, 0, 0)
            self.headline.setPos(-STABILITY_WIDTH + PAD + (0.06 if kind else 0.0), -0.075)
            lines = rest.count("\n") + 1 if rest else 0
            self.stability_frame["frameSize"] = (-STABILITY_WIDTH, 0.0, -0.115 - 0.055 * lines, 0.0)

    def show_hover(self, text: str | None) -> None:
        if not text or self.modal:
            self.hover_frame.hide()
            return
        self.hover_frame.show()
        if text != self._hover_text:
            self._hover_text = text
            lines = fit(text, HOVER_WIDTH - 2 * PAD, measure(self.hover), rows=HOVER_ROWS)
            set_text(self.hover, "\n".join(lines))
            self.hover_frame["frameSize"] = (0.0, HOVER_WIDTH, 0.0, 0.05 + 0.055 * len(lines))
            self.hover.setPos(PAD, 0.055 * len(lines) - 0.02)

    def show_messages(self, messages, now: float) -> None:
        """The latest messages (those of the last :data:`MESSAGE_SECONDS`), bottom right, beside the hover
        panel: the newest at the bottom, at most :data:`MESSAGES` rows."""
        recent = [m for m in messages[-MESSAGES:] if now - m[1] < MESSAGE_SECONDS]
        text = "" if self.modal else "\n".join(m[0] for m in recent)
        if (text, self.width) == self._message_text:
            return
        self._message_text = (text, self.width)
        room = self.width - 2 * EDGE - HOVER_WIDTH - GAP - 0.06
        lines = fit(text, room, measure(self.messages))[-MESSAGES:] if text else []
        set_text(self.messages, "\n".join(lines))
        self.messages.setPos(-0.03, 0.06 + line_height(self.messages) * max(len(lines) - 1, 0))

    def help_note(self, note: str | None) -> None:
        """A line of the window's own under the help's keys (a game's clock that stands while it is open), or
        None for none."""
        set_text(self._help_close, HELP_CLOSES if not note else f"{HELP_CLOSES}   ({note})")

    def toggle_help(self, show: bool) -> None:
        if show == (not self.help.is_hidden()):
            return
        (self.help.show if show else self.help.hide)()
        self._fitted = None
        self._modal_changed()

    def _modal_changed(self) -> None:
        """Hide the other panels at once when a modal one opens (they come back with the next update)."""
        if self.modal:
            for node in (self.stability_frame, self.hover_frame):
                node.hide()
            set_text(self.messages, "")
            self._message_text = None
            self._place_status()
        self._fit_modal()

    def _fit_modal(self) -> None:
        """Fit the help and the open dialog to the window under the status line (again when it was resized)."""
        key = (round(self.width, 4), self.status.text.count("\n"))
        if key == self._fitted:
            return
        self._fitted = key
        top, room = 1.0 - self.status_bottom() - GAP / 2, (self.width - 2 * EDGE, 2.0 - self.status_bottom() - GAP)
        if not self.help.is_hidden():
            left, right, bottom, up = self._help_size
            s = min(1.0, room[0] / (right - left), room[1] / (up - bottom))
            self.help.setScale(s)
            self.help.setPos(-(left + right) / 2 * s, 0, top - up * s)
        if self.browser is not None:
            self.browser.fit(room, top)

    # --- dialogs --------------------------------------------------------------------------------

    def ask(self, text: str, choices: list[tuple[str, callable]]) -> None:
        """A dialog with a question and buttons (each closes it and calls its function)."""
        self.close_dialog()
        frame = DirectFrame(parent=self.base.aspect2d, frameColor=theme.MODAL, frameSize=(-0.9, 0.9, -0.28, 0.28))
        frame.set_tag("towerlab-panel", "dialog")
        OnscreenText(parent=frame, text=text, pos=(0.0, 0.12), scale=0.045, fg=TEXT, wordwrap=38)
        for k, (label, fn) in enumerate(choices):
            text_button(frame, label, (-0.35 + 0.7 * k, -0.17), lambda fn=fn: self._chose(fn), 0.05)
        self.dialog = frame
        self._modal_changed()

    def choose_file(self, title: str, folder, suffixes, save: bool, done, name: str = "", cancel=None) -> None:
        """The file list: a folder's sub-folders and its files of ``suffixes``, the recent files, a line to
        type a name or a path in (:class:`~sim.viewer.window.filedialog.FileDialog`); keyboard and mouse.

        Args:
            title: what it asks ("Open a scene file").
            folder: the folder it opens on.
            suffixes: the files it lists (``(".json",)``); a name saved without one gets the first.
            save: a file to write (a new name may be typed; an existing file is replaced only once confirmed),
                else one to read (it must be a regular file).
            done: called with the chosen :class:`~pathlib.Path` once the dialog has closed.
            name: the name the line starts with (saving: the file's present name).
            cancel: called when it is closed without a choice, or None.
        """
        from sim.viewer.window.filedialog import FileDialog

        self.close_dialog()
        recent = self.recent.files(suffixes) if self.recent is not None else []
        self.browser = FileDialog(self.base, title, folder, suffixes, save, recent, name,
                                  done=lambda path: (self.close_dialog(), done(path)),
                                  cancel=lambda: (self.close_dialog(), cancel and cancel()),
                                  note=self.recent.error if self.recent is not None else None)
        self.dialog = self.browser.frame
        self.typing(True)
        self._fitted = None
        self._modal_changed()

    def remember(self, path) -> None:
        """A file was opened or saved: first of the recent files (said in the window when they cannot be kept)."""
        if self.recent is not None:
            self.recent.add(path)

    def typing(self, on: bool) -> None:
        """Give the keys to a text box (every other key and mouse button event of the window is thrown with the
        :data:`TYPING` prefix, so no shortcut fires) or take them back."""
        for thrower in self.base.buttonThrowers or ():  # (an offscreen window has none)
            thrower.node().set_prefix(TYPING if on else "")

    def _chose(self, fn) -> None:
        self.close_dialog()
        fn()

    def close_dialog(self) -> bool:
        """Close the open dialog; whether there was one."""
        if self.dialog is None:
            return False
        if self.browser is not None:
            self.browser.destroy()
        else:
            self.dialog.destroy()
        self.typing(False)
        self.dialog = self.browser = None
        self._modal_changed()
        return True
