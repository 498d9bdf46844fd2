"""A towerlab window under Xvfb, worked as a person works it (xdotool) and seen as the X server shows it (ffmpeg's
x11grab): what the window tests of the viewer, the games and the replay share.

The window tells what it shows through its probe (:mod:`sim.viewer.window.probe`, ``$TOWERLAB_PROBE``): after an
input, a test waits until the window has seen it and says it is idle, then looks at the screen — never a
fixed sleep. :meth:`Desktop.ids` grabs the window's own id view; :func:`expected_ids` and
:func:`expected_picture` are the renderer's offscreen answers for the same poses and camera, and
:func:`contrast` measures a text's contrast from the pixels.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


PROBE = "probe.json"
"""The probe's file, in the process's folder."""
WAIT = 90.0
"""Seconds a test waits at most for the window to be idle (a loaded machine is slow, never wrong)."""


def desktop_env(display: str, cwd: Path) -> dict:
    """The environment of a towerlab process on ``display``: its state and recordings under ``cwd``, its probe
    at ``cwd/probe.json``."""
    return dict(os.environ, DISPLAY=display, XDG_STATE_HOME=str(cwd / "state"),
                TOWERLAB_RECORDINGS=str(cwd / "recordings"), TOWERLAB_PROBE=str(cwd / PROBE),
                PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


def launch(display: str, cwd: Path, *args: str) -> subprocess.Popen:
    """``python -m sim ARGS`` on ``display``, its output kept."""
    return subprocess.Popen([sys.executable, "-m", "sim", *args], cwd=cwd, env=desktop_env(display, cwd),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _brief(state: dict | None) -> str:
    """A probe state for a failure's message: what tells most first (the poses and texts last, cut)."""
    if state is None:
        return "none"
    first = ("idle", "steady", "busy", "quality", "frame", "inputs", "buttons", "title", "mode", "hands", "ghosts",
             "hovered", "mouse", "messages", "verdict", "game")
    head = {k: state[k] for k in first if k in state}
    rest = {k: v for k, v in state.items() if k not in head}
    return json.dumps(head)[:3000] + " ... " + json.dumps(rest)[:1500]


class Desktop:
    """The window of a running towerlab process, found by its title.

    Args:
        display, cwd: where the process runs (:func:`launch`).
        proc: the process.
        name: part of the window's title.
        size: the window's size in pixels (what :meth:`picture` grabs).
        settle: seconds to wait once the window has drawn its first frame (none unless a test asks).
        timeout: seconds to wait for it.
    """

    def __init__(self, display: str, cwd: Path, proc: subprocess.Popen, name: str, size: tuple[int, int],
                 settle: float = 0.0, timeout: float = 90.0):
        self.proc = proc
        self.env = desktop_env(display, cwd)
        self.size = size
        self.probe_file = cwd / PROBE
        self.cwd = cwd
        self._seq = 0
        self.find(name, settle, timeout)

    def xdotool(self, *args) -> str:
        return subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=20).stdout

    def find(self, name: str, settle: float = 0.0, timeout: float = 90.0) -> str:
        """Wait for the process's window titled ``name`` (a first, or another it opens) and for its first drawn
        frame (the probe of a window of that title), then ``settle`` seconds more where a test asks; it becomes
        :attr:`window`, its position :attr:`origin`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the window ended early: {self.proc.stderr.read()[-2000:]}")
            found = self.xdotool("search", "--name", name).split()
            if found:
                self.wait(lambda s: name in s.get("title", ""), max(deadline - time.monotonic(), 1.0),
                          f"the first frame of the window {name!r}")
                if settle:
                    time.sleep(settle)
                self.window = found[0]
                geometry = self.xdotool("getwindowgeometry", self.window)
                pos = next(line for line in geometry.splitlines() if "Position" in line).split()[1]
                self.origin = tuple(int(v) for v in pos.split(","))
                return self.window
            time.sleep(0.3)  # (a polling pause)
        raise AssertionError(f"no window named {name!r} appeared")

    # --- the probe: what the window says it shows ---------------------------------------------------

    def state(self) -> dict | None:
        """The window's last probe (None before its first; a probe left by an earlier process is none)."""
        try:
            state = json.loads(self.probe_file.read_text())
        except (OSError, ValueError):
            return None
        return state if state.get("pid") == self.proc.pid else None

    def wait(self, ready, timeout: float = WAIT, what: str = "the window to be ready") -> dict:
        """Poll the probe until ``ready(state)``; that state. Fails naming ``what`` when the process ends or
        ``timeout`` passes."""
        deadline = time.monotonic() + timeout
        state = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the window ended while waiting for {what}: {self.proc.stderr.read()[-2000:]}")
            state = self.state()
            if state is not None and ready(state):
                return state
            time.sleep(0.05)
        raise AssertionError(f"waited {timeout:.0f} s for {what}; last probe: {_brief(state)}; where the window "
                             f"was:\n{self.stuck()}")

    def idle(self, after: dict | None = None, inputs: int = 0, ready=None, timeout: float = WAIT) -> dict:
        """Wait until the window is idle (:mod:`sim.viewer.window.probe`), has drawn a frame since ``after`` (a state)
        and seen ``inputs`` more button events than then, and ``ready(state)`` holds; that state."""
        frame = -1 if after is None else after["frame"]
        seen = 0 if after is None else after["inputs"]

        def done(s):
            return s["idle"] and s["frame"] > frame + 2 and s["inputs"] >= seen + inputs and (ready is None or ready(s))
        return self.wait(done, timeout, "the window to be idle")

    def steady(self, after: dict | None = None, ready=None, timeout: float = WAIT) -> dict:
        """Wait until the window has drawn the same picture for a few frames (a piece held still in a hand is
        steady, never idle) since ``after``, and ``ready(state)``; that state."""
        from sim.viewer.window.probe import STEADY_FRAMES

        frame = -1 if after is None else after["frame"]
        return self.wait(lambda s: s["steady"] >= STEADY_FRAMES and s["frame"] > frame + 2
                         and (ready is None or ready(s)), timeout, "the window to be steady")

    def keys(self, *keys: str, idle: bool = True) -> dict:
        """Press and let go of ``keys`` in turn (xdotool names); the state once the window has seen them all
        (and, with ``idle``, is idle)."""
        before = self.state()
        self.xdotool("key", "--window", self.window, *keys)
        n, repeat, args = 0, 1, list(keys)
        while args:
            k = args.pop(0)
            if k == "--repeat":
                repeat = int(args.pop(0))
            elif k.startswith("--"):
                args.pop(0)
            else:
                n += len(k.split("+")) * 2 * repeat
        if idle:
            return self.idle(before, n)
        return self.wait(lambda s: s["inputs"] >= before["inputs"] + n, what=f"the keys {keys}")

    def type_in(self, text: str) -> dict:
        """Type ``text`` (into the window's text box); the state once the box shows it."""
        self.xdotool("type", "--window", self.window, "--delay", "20", text)
        return self.wait(lambda s: any(t["text"].endswith(text) for t in s["texts"]), what=f"{text!r} typed")

    def save_as(self, path: Path) -> dict:
        """Ctrl+Shift+S, the path typed over the one offered, Enter; the state once the window said it saved."""
        self.keys("ctrl+shift+s")
        self.keys("--repeat", "120", "BackSpace")
        self.type_in(str(path))
        self.keys("Return", idle=False)
        return self.wait(lambda s: any(str(path) in m for m in s["messages"]), what=f"{path} saved")

    def point(self, x: float, y: float, idle: bool = True) -> dict:
        """Move the mouse to pixel (x, y) of the window; the state once the window has it there (and is idle
        or, with a piece in hand, steady)."""
        x, y = int(round(x)), int(round(y))
        before = self.state()
        self.xdotool("mousemove", "--window", self.window, str(x), str(y))

        def there(s):
            m = s.get("mouse")
            return m is not None and abs(m[0] - x) <= 1 and abs(m[1] - y) <= 1
        self.wait(there, what=f"the mouse at {x}, {y}")
        if not idle:
            return self.state()
        return self.steady(before, there) if self.state()["hands"] else self.idle(before, ready=there)

    def press(self, button: int = 1, idle: bool = False) -> dict:
        before = self.state()
        self.xdotool("mousedown", "--window", self.window, str(button))
        return self.idle(before, 1) if idle else self.wait(lambda s: s["inputs"] >= before["inputs"] + 1,
                                                            what="the button pressed")

    def let_go(self, button: int = 1, idle: bool = True) -> dict:
        before = self.state()
        self.xdotool("mouseup", "--window", self.window, str(button))
        return self.idle(before, 1) if idle else self.wait(lambda s: s["inputs"] >= before["inputs"] + 1,
                                                            what="the button let go")

    def tap(self, x: float, y: float, button: int = 1, idle: bool = True) -> dict:
        """A click at pixel (x, y); the state once the window has seen it (and is idle or steady)."""
        self.point(x, y, idle=False)
        before = self.state()
        self.xdotool("click", "--window", self.window, str(button))
        self.wait(lambda s: s["inputs"] >= before["inputs"] + 2, what="the click")
        if not idle:
            return self.state()
        return self.steady(before) if self.state()["hands"] else self.idle(before)

    def drag(self, start, end, button: int = 1, steps: int = 8, keys: tuple[str, ...] = ()) -> dict:
        """Press at ``start``, move to ``end`` in ``steps``, let go (holding ``keys``, xdotool names, all
        along); the state once idle or steady."""
        self.point(*start, idle=False)
        for k in keys:
            self.xdotool("keydown", "--window", self.window, k)
        self.press(button)
        for t in np.linspace(0.0, 1.0, steps + 1)[1:]:
            self.point(*(np.asarray(start, float) + (np.asarray(end, float) - np.asarray(start, float)) * t),
                       idle=False)
        before = self.state()
        self.xdotool("mouseup", "--window", self.window, str(button))
        for k in keys:
            self.xdotool("keyup", "--window", self.window, k)
        self.wait(lambda s: s["inputs"] >= before["inputs"] + 1, what="the drag let go")
        return self.steady(before) if self.state()["hands"] else self.idle(before)

    def click_with(self, modifier: str, x: float, y: float, button: int = 1) -> dict:
        """A click at pixel (x, y) with ``modifier`` (xdotool's name) held, as the X server's own input: an event
        sent to a window carries no modifier. The state once the window has seen it."""
        self.point(x, y, idle=False)
        self.xdotool("windowfocus", "--sync", self.window)
        ox, oy = self.origin
        self.xdotool("mousemove", str(int(round(ox + x))), str(int(round(oy + y))))
        before = self.state()
        self.xdotool("keydown", modifier, "click", str(button), "keyup", modifier)
        return self.wait(lambda s: s["inputs"] >= before["inputs"] + 4, what=f"the {modifier}+click")

    def ids(self, path: Path) -> tuple[np.ndarray, dict]:
        """The window's own id view, grabbed from the screen: (h, w) rows of the pieces each pixel shows (-1:
        none), and the state it shows."""
        state = self._command(id_view=True)
        picture = self.picture(path)
        self._command(id_view=False)
        return decode_ids(picture), state

    def _command(self, **cmd) -> dict:
        self._seq += 1
        before = self.state()
        tmp = self.probe_file.with_name(self.probe_file.name + ".cmd.tmp")
        tmp.write_text(json.dumps(dict(cmd, seq=self._seq)))
        os.replace(tmp, self.probe_file.with_name(self.probe_file.name + ".cmd"))
        seq = self._seq
        return self.wait(lambda s: s["seq"] >= seq and s["frame"] > before["frame"] + 2 and
                         (s["idle"] or (s["hands"] and s["steady"] >= 3)), what=f"the command {cmd}")

    def grab(self, path: Path) -> None:
        """What the window shows, panels and all, from the X server, into a PNG file."""
        import imageio_ffmpeg

        x, y = self.origin
        subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-loglevel", "error", "-f", "x11grab", "-video_size",
                        f"{self.size[0]}x{self.size[1]}", "-i", f"{self.env['DISPLAY']}+{x},{y}", "-frames:v", "1",
                        "-y", str(path)], check=True, timeout=60)

    def picture(self, path: Path) -> np.ndarray:
        """What the window shows (:meth:`grab`), as (h, w, 3) floats 0..255."""
        from sim.render.image import load_png

        self.grab(path)
        return load_png(path)[..., :3].astype(float)

    def quit(self, wait: float = 0.0, timeout: float = 30.0) -> int:
        """Ctrl+Q, typed as the X server's own input into the window given the focus (an event sent to the window,
        as the other keys are, lost its Q now and then under load: the window saw Ctrl go down and up and Q only
        let go, its probe's ``buttons`` showed); the process's exit code (killed when it does not end)."""
        self.xdotool("windowfocus", "--sync", self.window)
        self.xdotool("key", "ctrl+q")
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the window did not end within {timeout:g} s; last probe: {_brief(self.state())}; "
                                 f"where it was:\n{self.stuck()}") from None

    def stuck(self) -> str:
        """Where a window that does not end is (its threads' stacks, which the probe gives on SIGUSR1), and end
        it: the tail of its stderr."""
        import signal

        try:
            self.proc.send_signal(signal.SIGUSR1)
            self.proc.wait(timeout=3)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            pass
        self.proc.kill()
        self.proc.wait(timeout=10)
        # what it wrote so far, not its end: a worker process it started may hold the pipe open
        os.set_blocking(self.proc.stderr.fileno(), False)
        try:
            err = self.proc.stderr.read() or ""
        except (OSError, TypeError):
            err = ""
        return err[-4000:]


def run_in_window(script: str, display: str) -> dict:
    """Run a Python ``script`` that opens a window on ``display``, in a process of its own (from the project's
    root); what its last line of output says, as JSON."""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ, DISPLAY=display), timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


# --- what the screen should show -------------------------------------------------------------------------


def camera_of(state: dict):
    """The renderer's camera of a probe's view."""
    from sim.render.camera import Camera

    v = state["view"]
    return Camera(tuple(v["eye"]), tuple(v["target"]), tuple(v["up"]), tuple(v["size"]), v["fov_y"], v["near"],
                  v["far"])


def pixel(state: dict, point) -> np.ndarray:
    """(2,) the pixel of a world point (m) in the camera of a probe's state."""
    return camera_of(state).project(np.asarray(point, dtype=float).reshape(1, 3))[0]


def posed(scene, state: dict):
    """``scene`` with the poses the probe's state shows (its pieces by id)."""
    return scene.with_poses({i: np.asarray(p) for i, p in zip(state["ids"], state["poses"]) if i in scene.ids})


def expected_ids(scene, state: dict) -> np.ndarray:
    """The renderer's offscreen id pass of ``scene`` at the state's poses from its camera: (h, w) rows of
    ``state["ids"]`` (-1: none)."""
    from sim.render import default_renderer

    r = default_renderer()
    shown = posed(scene, state)
    rows = r.ids(r.graph(shown), camera_of(state))
    order = np.array([state["ids"].index(i) for i in shown.ids] + [-1])
    return order[rows]


def expected_picture(scene, state: dict) -> np.ndarray:
    """The renderer's full-quality picture of ``scene`` at the state's poses from its camera, (h, w, 3) floats."""
    from sim.render import default_renderer

    r = default_renderer()
    return r.render_graph(r.graph(posed(scene, state)), camera_of(state))[..., :3].astype(float)


def decode_ids(picture: np.ndarray) -> np.ndarray:
    """The rows an id view's picture (h, w, 3, 0..255) shows: the colours of :func:`sim.render.ids.id_colour`."""
    p = np.rint(picture).astype(np.int64)
    return p[..., 0] + 256 * p[..., 1] + 65536 * p[..., 2] - 1


def id_mismatch(shown: np.ndarray, expected: np.ndarray, edge: int = 3) -> float:
    """The fraction of pixels whose piece differs between two id maps farther than ``edge`` pixels from any
    edge of ``expected`` (the live picture's simpler bodies and rasterisation differ by a pixel or two there)."""
    from scipy.ndimage import binary_dilation

    edges = np.zeros(expected.shape, bool)
    edges[:, 1:] |= expected[:, 1:] != expected[:, :-1]
    edges[1:, :] |= expected[1:, :] != expected[:-1, :]
    near = binary_dilation(edges, iterations=edge)
    return float(((shown != expected) & ~near).mean())


def luminance(rgb) -> np.ndarray:
    """WCAG relative luminance of sRGB colours (..., 3) 0..255."""
    c = np.asarray(rgb, dtype=float) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return lin @ np.array([0.2126, 0.7152, 0.0722])


def contrast(picture: np.ndarray, box) -> float:
    """The contrast ratio (WCAG, 1..21) of a text inside ``box`` [x0, y0, x1, y1] of a picture (h, w, 3): its
    background the commonest colour there, the text the colour farthest from it in luminance (the glyphs'
    cores, which antialiasing does not blend)."""
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    h, w = picture.shape[:2]
    patch = picture[max(y0, 0):min(y1, h), max(x0, 0):min(x1, w)].reshape(-1, 3)
    colours, counts = np.unique(np.rint(patch).astype(int), axis=0, return_counts=True)
    background = luminance(colours[np.argmax(counts)])
    lum = luminance(patch)
    text = lum[np.argmax(np.abs(lum - background))]
    hi, lo = max(text, background), min(text, background)
    return float((hi + 0.05) / (lo + 0.05))


def overlaps(boxes: list[dict], margin: float = 0.0) -> list[tuple[str, str]]:
    """Pairs of texts (probe ``texts``) whose boxes overlap by more than ``margin`` pixels."""
    out = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            ax0, ay0, ax1, ay1 = a["box"]
            bx0, by0, bx1, by1 = b["box"]
            if min(ax1, bx1) - max(ax0, bx0) > margin and min(ay1, by1) - max(ay0, by0) > margin:
                out.append((a["text"][:40], b["text"][:40]))
    return out
