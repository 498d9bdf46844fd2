"""The file list of the window (DirectGUI): the recent files, the folder above, a folder's sub-folders and its
scene files, and a line to type a name or a path in; driven by the keyboard and the mouse.

Opened by :meth:`sim.viewer.window.overlay.Overlay.choose_file` (Ctrl+O, Ctrl+Shift+S, and whoever else needs a file).
What it lists and what Enter does are :mod:`sim.viewer.control.browse`'s; this module draws them and takes the input:

* Up / Down (Page Up / Page Down, the wheel) choose a row: its name goes into the name line;
* Enter does what the name line says: a folder (``games/``, ``../``, a typed path) is entered, a file is
  chosen (saving over an existing one is asked first: Enter again replaces it);
* a click chooses a row, a second click on it is Enter; the buttons: Open or Save, the folder above, Cancel;
* Esc cancels.

While it is open the name line has the keys: the window's shortcuts do not fire (the overlay's
:data:`~sim.viewer.window.overlay.TYPING` prefix); the dialog listens to the prefixed keys it uses.
"""

from __future__ import annotations

from direct.gui.DirectGui import DGG, DirectButton, DirectEntry, DirectFrame
from direct.gui.OnscreenText import OnscreenText
from direct.showbase.DirectObject import DirectObject
from panda3d.core import TextNode

from sim.viewer.control.browse import Entry, decide, list_folder
from sim.viewer.window import theme
from sim.viewer.window.layout import MORE, fit
from sim.viewer.window.overlay import text_button

WIDTH, HEIGHT = 2.4, 1.7
"""The dialog's size at most (``aspect2d`` units; the window is 2 high)."""
PAD = 0.04
ROW = 0.064
"""A row's height."""
TEXT_SCALE = 0.04
HEAD = 0.2
"""The title and the folder line, above the list."""
FOOT = 0.40
"""The name line, the message, the keys' hint and the buttons, below it."""
KEYS = {"arrow_up": -1, "arrow_down": 1, "page_up": -10, "page_down": 10}


def _tail(text: str, room: float, width) -> str:
    """The end of ``text`` that fits ``room`` (a long folder path keeps its last folders)."""
    if width(text) <= room:
        return text
    keep = len(text)
    while keep > 0 and width(MORE.strip() + text[len(text) - keep:]) > room:
        keep -= 1
    return MORE.strip() + text[len(text) - keep:]


def _width(text: OnscreenText):
    """The width (``aspect2d`` units) a line takes in ``text``'s font at :data:`TEXT_SCALE`."""
    return lambda line: text.textNode.calc_width(line) * TEXT_SCALE


class FileDialog(DirectObject):
    """One open file list (see the module).

    Args:
        base: the window.
        title: what it asks.
        folder: the folder it opens on.
        suffixes: the files it lists.
        save: choosing a file to write (else one to read).
        recent: recent files to offer (paths, newest first).
        name: what the name line starts with.
        done: called with the chosen path.
        cancel: called when Esc or Cancel closes it.
        note: a line to say at first (why the recent files could not be read), or None.

    Attributes:
        frame: the dialog's panel (tagged ``towerlab-panel`` = ``dialog``).
        entry: the name line.
    """

    def __init__(self, base, title: str, folder, suffixes, save: bool, recent, name: str, done, cancel,
                 note: str | None = None):
        super().__init__()
        self.base = base
        self.title = title
        self.suffixes = tuple(suffixes)
        self.save = save
        self.name = name
        self.done = done
        self.cancel = cancel
        self.recent = [Entry(p.name, p, "recent") for p in recent]
        self.listing = list_folder(folder, self.suffixes)
        self.chosen = -1  # the row chosen (an index into rows()), -1: none
        self.offset = 0  # the first row shown
        self.said: tuple[str, bool] | None = (note, True) if note else None  # (what, alert)
        self.confirm = None  # the existing file a second Enter replaces
        self.size = (WIDTH, HEIGHT)
        self.frame = DirectFrame(parent=base.aspect2d, frameColor=theme.MODAL)
        self.frame.set_tag("towerlab-panel", "dialog")
        self._widgets = []
        self._slots: list = []
        self.entry = None
        self._draw(name)
        for key, step in KEYS.items():
            for suffix in ("", "-repeat"):
                self.accept(f"typing-{key}{suffix}", self.move, [step])
        self.accept("typing-wheel_up", self.scroll, [-3])
        self.accept("typing-wheel_down", self.scroll, [3])
        self.accept("typing-escape", self.cancel)

    # --- what it shows ---------------------------------------------------------------------------

    def rows(self) -> list[Entry | str]:
        """Every row: a heading (a str) or an :class:`~sim.viewer.control.browse.Entry`."""
        out: list[Entry | str] = []
        if self.recent:
            out += ["RECENT FILES", *self.recent]
        return out + ["THIS FOLDER", *self.listing.entries]

    def visible(self) -> int:
        """Rows the list shows at once."""
        return max(int((self.size[1] - HEAD - FOOT) / ROW), 3)

    def _message(self) -> tuple[str, bool]:
        if self.said is not None:
            return self.said
        if self.listing.error:
            return self.listing.error, True
        files, folders = self.listing.files, self.listing.folders
        kind = " or ".join(self.suffixes)
        text = f"{files} {kind} file{'s' * (files != 1)}, {folders} folder{'s' * (folders != 1)}"
        if self.listing.cut:
            text += " (a large folder: only its first entries; type a name)"
        return text, False

    def fit(self, room: tuple[float, float], top: float) -> None:
        """Fit the dialog into ``room`` (width, height) with its top edge at ``top`` (``aspect2d``)."""
        size = (min(WIDTH, room[0]), min(HEIGHT, room[1]))
        self.frame.setPos(0, 0, top)
        if size != self.size or not self._widgets:
            self.size = size
            self._draw(self.entry.get() if self.entry is not None else self.name)

    def _draw(self, typed: str) -> None:
        """(Re)build the widgets at :attr:`size`, the name line holding ``typed``."""
        for w in self._widgets:
            w.destroy()
        self._widgets, self._slots = [], []
        w, h = self.size
        left = -w / 2 + PAD
        self.frame["frameSize"] = (-w / 2, w / 2, -h, 0.0)
        self._text(self.title, (left, -0.08), 0.05, theme.TEXT)
        where = self._text("", (left, -0.145), TEXT_SCALE, theme.MUTED)
        where.setText(_tail(str(self.listing.folder), w - 2 * PAD, _width(where)))
        for k in range(self.visible()):
            self._slots.append(self._row_widget(k, left, -HEAD - k * ROW, w - 2 * PAD))
        y = -h + FOOT
        label = "Save as:" if self.save else "Open:"
        self._text(label, (left, y - 0.08), TEXT_SCALE, theme.TEXT)
        field = left + 0.2
        self.entry = DirectEntry(parent=self.frame, initialText=typed, scale=TEXT_SCALE, pos=(field, 0, y - 0.08),
                                 width=(w / 2 - PAD - field) / TEXT_SCALE, focus=1, command=self.enter,
                                 frameColor=theme.FIELD, text_fg=theme.INK, state=DGG.NORMAL, numLines=1)
        self.entry.setCursorPosition(len(typed))
        self._widgets.append(self.entry)
        self.note = self._text("", (left, y - 0.165), TEXT_SCALE, theme.MUTED)
        verb = "save" if self.save else "open"
        self._text(f"Up/Down: choose a row   Enter: {verb} it or enter the folder   Esc: cancel", (left, y - 0.24),
                   TEXT_SCALE * 0.85, theme.MUTED)
        buttons = (("Save" if self.save else "Open", self._activate), ("Folder above", self.up),
                   ("Cancel", self.cancel))
        x = w / 2 - PAD
        for text, command in reversed(buttons):
            bw = _width(self.note)(text) + 2 * TEXT_SCALE
            self._widgets += text_button(self.frame, text, (x - bw / 2, -h + 0.07), command, TEXT_SCALE)
            x -= bw + 0.04
        self.refresh()

    def _text(self, text: str, pos, scale: float, fg) -> OnscreenText:
        node = OnscreenText(parent=self.frame, text=text, pos=pos, scale=scale, fg=fg, align=TextNode.A_left,
                            mayChange=True)
        self._widgets.append(node)
        return node

    def _row_widget(self, k: int, left: float, top: float, width: float) -> tuple[DirectButton, OnscreenText]:
        """A row: a flat button to click, and its text over it (a text of its own, which the probe sees)."""
        button = DirectButton(parent=self.frame, relief=DGG.FLAT, frameColor=theme.ROW,
                              frameSize=(0.0, width, -ROW + 0.008, 0.0), pos=(left, 0, top), command=self.click,
                              extraArgs=[k], pressEffect=0)
        self._widgets.append(button)
        return button, self._text("", (left + 0.02, top - ROW * 0.68), TEXT_SCALE, theme.TEXT)

    def refresh(self) -> None:
        """Show the rows from :attr:`offset`, the chosen one marked, and the message."""
        rows = self.rows()
        width = self.size[0] - 2 * PAD - 0.04
        for k, (button, label) in enumerate(self._slots):
            i = self.offset + k
            row = rows[i] if i < len(rows) else None
            if row is None:
                button.hide()
                label.hide()
                continue
            button.show()
            label.show()
            if isinstance(row, str):
                text, colour, fg = row, (0, 0, 0, 0), theme.KEYS
            else:
                text = row.name if row.kind != "recent" else f"{row.name}   ({row.path.parent})"
                colour = theme.ROW_CHOSEN if i == self.chosen else theme.ROW
                fg = theme.TEXT
            button["frameColor"] = colour
            label.setText(fit(text, width, _width(label), rows=1)[0])
            label.setFg(fg)
        said, alert = self._message()
        self.note.setText(fit(said, self.size[0] - 2 * PAD, _width(self.note), rows=1)[0])
        self.note.setFg(theme.ALERT if alert else theme.MUTED)

    # --- what it does ------------------------------------------------------------------------------

    def _say(self, text: str | None, alert: bool = True) -> None:
        self.said = None if text is None else (text, alert)

    def _refocus(self) -> None:
        if self.entry is not None:
            self.entry["focus"] = 1

    def move(self, step: int) -> None:
        """Choose the row ``step`` rows down (up when negative), headings skipped; its name into the name line."""
        rows = self.rows()
        picks = [i for i, r in enumerate(rows) if not isinstance(r, str)]
        if not picks:
            return
        if self.chosen not in picks:
            target = picks[0] if step > 0 else picks[-1]
        else:
            k = picks.index(self.chosen)
            target = picks[min(max(k + step, 0), len(picks) - 1)]
        self.choose(target)

    def choose(self, i: int) -> None:
        """Choose row ``i``: marked, in view, its name in the name line."""
        row = self.rows()[i]
        self.chosen = i
        n = self.visible()
        if i < self.offset:
            self.offset = max(i - 1, 0)
        elif i >= self.offset + n:
            self.offset = i - n + 1
        self.confirm = None
        self._say(None)
        if self.save and row.kind in ("file", "recent"):
            self.entry.enterText(row.path.name if row.kind == "file" else str(row.path))
        else:
            self.entry.enterText(row.typed)
        self.refresh()
        self._refocus()

    def scroll(self, rows: int) -> None:
        self.offset = min(max(self.offset + rows, 0), max(len(self.rows()) - self.visible(), 0))
        self.refresh()

    def click(self, slot: int) -> None:
        """A row clicked: chosen; clicked again: Enter."""
        i = self.offset + slot
        rows = self.rows()
        if i >= len(rows) or isinstance(rows[i], str):
            return
        if i == self.chosen:
            self._activate()
        else:
            self.choose(i)

    def _activate(self) -> None:
        self.enter(self.entry.get())

    def up(self) -> None:
        """Show the folder above."""
        self.go(self.listing.folder.parent)

    def go(self, folder) -> None:
        """Show ``folder``; the name line back to the name being saved (empty when opening)."""
        self.listing = list_folder(folder, self.suffixes)
        self.chosen, self.offset, self.confirm = -1, 0, None
        self._say(None)
        self._draw(self.name if self.save else "")
        self._refocus()

    def enter(self, typed: str) -> None:
        """Enter: do what the name line says (see :func:`~sim.viewer.control.browse.decide`)."""
        d = decide(self.listing.folder, typed, self.suffixes, self.save)
        if d.kind == "enter":
            self.go(d.path)
            return
        if d.kind == "choose" or (d.kind == "confirm" and self.confirm == d.path):
            self.done(d.path)
            return
        self.confirm = d.path if d.kind == "confirm" else None
        self._say(d.message)
        self.refresh()
        self._refocus()

    def destroy(self) -> None:
        self.ignoreAll()
        self.frame.destroy()
        self._widgets, self._slots, self.entry = [], [], None
