"""What a window shows, told to whoever tests it: the window's own idle signal, its camera, its poses, every
text on screen with its box; and a flat id view of its own picture.

Off unless ``$TOWERLAB_PROBE`` names a file (tests, benchmarks): then, after every frame the window draws,
a :class:`WindowProbe` writes that file (JSON, atomically) whenever what the window shows changed, and at
least every :data:`BEAT` seconds. A test acts on the window as a person does (xdotool), then reads the
file until the window says it is **idle** — nothing left to do until the next input: the camera where it
was sent, nothing moving but what a hand holds still, the statics' verdict in, the full-quality picture
drawn where it will be, and the same picture for :data:`STEADY_FRAMES` frames, so that the one on screen
is it. No fixed sleeps.

Commands come back through ``$TOWERLAB_PROBE`` + ``.cmd`` (JSON ``{"seq": n, "id_view": bool}``): the id
view draws every piece in the flat colour of :func:`sim.render.ids.id_colour` of its row (the board black,
no marks, panels, floor or shadows), so that a grab of the window can be compared pixel for pixel with the
renderer's offscreen id pass of the same poses from the same camera. The file says which ``seq`` it has
done.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np

BEAT = 0.5
"""Seconds at most between two writes of the probe's file (it is written at once when anything changes)."""
STEADY_FRAMES = 3
"""Frames in a row that draw the same picture before the window counts as idle: what a frame draws is on
screen from the next one (the buffers are flipped when the next frame is drawn)."""
ENV = "TOWERLAB_PROBE"
BUTTONS = 12
"""Button events the probe keeps, newest last."""
_COUNTS = {"frames": 0, "inputs": 0}
"""Frames drawn and buttons pressed and released (each a Panda3D button event) in this process, over every
window it opens (a replay's window hands over to the viewer's): what a test counts from."""


def probe_path() -> Path | None:
    """The file ``$TOWERLAB_PROBE`` names, or None (no probe)."""
    value = os.environ.get(ENV)
    return Path(value) if value else None


def text_boxes(base) -> list[dict]:
    """Every text shown in ``base``'s 2D layers: its text, colours and box in window pixels (x right, y down).

    Returns:
        Dicts ``{name, text, box: [x0, y0, x1, y1], fg: [r, g, b, a], card: [r, g, b, a] | None}``.
    """
    w, h = base.win.get_x_size(), base.win.get_y_size()
    out = []
    for np_ in base.render2d.find_all_matches("**/+TextNode"):
        node = np_.node()
        if np_.is_hidden() or not node.get_text().strip() or np_.get_net_transform().get_scale()[0] == 0:
            continue
        bounds = np_.get_tight_bounds(base.render2d)
        if bounds is None:
            continue
        lo, hi = bounds
        box = [(lo[0] + 1) * w / 2, (1 - hi[2]) * h / 2, (hi[0] + 1) * w / 2, (1 - lo[2]) * h / 2]
        out.append({"name": np_.get_name(), "text": node.get_text(), "box": [round(float(v), 1) for v in box],
                    "fg": [round(float(v), 4) for v in node.get_text_color()],
                    "card": [round(float(v), 4) for v in node.get_card_color()] if node.has_card() else None})
    for np_ in base.render2d.find_all_matches("**/+PGEntry"):  # a text box draws its text itself
        if np_.is_hidden():
            continue
        out.append({"name": np_.get_name(), "text": np_.node().get_plain_text(), "entry": True,
                    "box": _item_box(base, np_), "fg": None, "card": None})
    return out


def panel_boxes(base) -> list[dict]:
    """Every visible panel of ``base``'s 2D layers (DirectFrames tagged ``towerlab-panel``): name and box in
    window pixels."""
    out = []
    for np_ in base.render2d.find_all_matches("**/=towerlab-panel"):
        if np_.is_hidden():
            continue
        node = np_.node()  # a DirectFrame draws its frame itself (no bounds in the graph)
        box = _item_box(base, np_) if hasattr(node, "has_frame") and node.has_frame() else None
        lo, hi = np_.get_tight_bounds(base.render2d) or (None, None)
        if lo is not None:  # what is drawn in it (texts, buttons) may reach past the frame
            w, h = base.win.get_x_size(), base.win.get_y_size()
            drawn = [(lo[0] + 1) * w / 2, (1 - hi[2]) * h / 2, (hi[0] + 1) * w / 2, (1 - lo[2]) * h / 2]
            box = drawn if box is None else [min(box[0], drawn[0]), min(box[1], drawn[1]),
                                             max(box[2], drawn[2]), max(box[3], drawn[3])]
        if box is not None:
            out.append({"name": np_.get_tag("towerlab-panel"), "box": [round(float(v), 1) for v in box]})
    return out


def _item_box(base, np_) -> list[float]:
    """The box in window pixels of a DirectGUI item's frame (it draws its frame itself: no bounds in the graph)."""
    w, h = base.win.get_x_size(), base.win.get_y_size()
    left, right, bottom, top = np_.node().get_frame()
    mat = np_.get_mat(base.render2d)
    corners = [mat.xform_point((x, 0, z)) for x in (left, right) for z in (bottom, top)]
    xs = [(c[0] + 1) * w / 2 for c in corners]
    ys = [(1 - c[2]) * h / 2 for c in corners]
    return [round(float(v), 1) for v in (min(xs), min(ys), max(xs), max(ys))]


class WindowProbe:
    """The probe of one window (see the module).

    Args:
        base: the window (a ShowBase) with ``probe_state() -> dict`` (what it shows; ``busy`` True while it
            still has work to do of its own) and ``id_view(on: bool)``.
        path: the file to write.
    """

    def __init__(self, base, path: Path):
        import faulthandler
        import signal

        # a test that finds the window stuck asks where it is (SIGUSR1: every thread's stack on stderr)
        faulthandler.register(signal.SIGUSR1, all_threads=True)
        self.base = base
        self.path = Path(path)
        self.commands = Path(str(path) + ".cmd")
        self.steady = 0
        self.done_seq = 0
        self.id_view = False
        self._last_key = None
        self._written_at = 0.0
        self._written_key = None
        self._cmd_mtime = None
        self.buttons: list[str] = []  # the last button events, "down:control", "up:q" (what a stuck test reads)
        for event, how in (("towerlab-probe-down", "down"), ("towerlab-probe-up", "up")):
            base.accept(event, self._input, [how])
        thrower = base.buttonThrowers[0].node()
        thrower.set_button_down_event("towerlab-probe-down")
        thrower.set_button_up_event("towerlab-probe-up")
        self._task = base.taskMgr.add(self._after_frame, "towerlab-probe", sort=60)  # after igLoop (50) drew it

    def close(self) -> None:
        """The window goes (the task manager outlives it: another window may open in this process)."""
        self.base.taskMgr.remove(self._task)
        for event in ("towerlab-probe-down", "towerlab-probe-up"):
            self.base.ignore(event)

    @property
    def frame(self) -> int:
        return _COUNTS["frames"]

    @property
    def inputs(self) -> int:
        return _COUNTS["inputs"]

    def _input(self, how: str, button=None) -> None:
        _COUNTS["inputs"] += 1
        self.buttons = [*self.buttons[-(BUTTONS - 1):], f"{how}:{button}"]

    def _read_commands(self) -> None:
        try:
            mtime = self.commands.stat().st_mtime_ns
        except OSError:
            return
        if mtime == self._cmd_mtime:
            return
        self._cmd_mtime = mtime
        try:
            cmd = json.loads(self.commands.read_text())
        except (OSError, ValueError):
            return
        seq = int(cmd.get("seq", 0))
        if seq <= self.done_seq:
            return
        if "id_view" in cmd and bool(cmd["id_view"]) != self.id_view:
            self.id_view = bool(cmd["id_view"])
            self.base.id_view(self.id_view)
        self.done_seq = seq

    def _after_frame(self, task):
        if getattr(self.base, "win", None) is None:
            return task.done
        self._read_commands()
        _COUNTS["frames"] += 1
        state = self.base.probe_state()
        texts = text_boxes(self.base)
        key = json.dumps([state.get("picture"), texts], sort_keys=True, default=str)
        self.steady = self.steady + 1 if key == self._last_key else 0
        self._last_key = key
        idle = self.steady >= STEADY_FRAMES and not state.get("busy", False)
        now = time.monotonic()
        summary = (key, idle, self.inputs, self.done_seq)
        if summary != self._written_key or now - self._written_at >= BEAT:
            data = dict(state, pid=os.getpid(), frame=self.frame, steady=self.steady, idle=idle, inputs=self.inputs,
                        seq=self.done_seq, id_view=self.id_view, buttons=self.buttons, texts=texts,
                        panels=panel_boxes(self.base),
                        size=[self.base.win.get_x_size(), self.base.win.get_y_size()],
                        title=self.base.win.get_properties().get_title())
            data.pop("picture", None)
            _write(self.path, data)
            self._written_at, self._written_key = now, summary
        return task.cont


def _write(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, default=_plain))
    os.replace(tmp, path)


def _plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return str(value)
