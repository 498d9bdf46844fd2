"""A towerlab window under Xvfb, worked as a person works it (xdotool) and seen as the X server shows it (ffmpeg's
x11grab): what the window tests of the viewer, the games and the replay share."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def desktop_env(display: str, cwd: Path) -> dict:
    """The environment of a towerlab process on ``display``: its state and recordings under ``cwd``."""
    return dict(os.environ, DISPLAY=display, XDG_STATE_HOME=str(cwd / "state"),
                TOWERLAB_RECORDINGS=str(cwd / "recordings"),
                PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


def launch(display: str, cwd: Path, *args: str) -> subprocess.Popen:
    """``python -m sim ARGS`` on ``display``, its output kept."""
    return subprocess.Popen([sys.executable, "-m", "sim", *args], cwd=cwd, env=desktop_env(display, cwd),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class Desktop:
    """The window of a running towerlab process, found by its title.

    Args:
        display, cwd: where the process runs (:func:`launch`).
        proc: the process.
        name: part of the window's title.
        size: the window's size in pixels (what :meth:`picture` grabs).
        settle: seconds to wait once the window is there (its first frames).
        timeout: seconds to wait for it.
    """

    def __init__(self, display: str, cwd: Path, proc: subprocess.Popen, name: str, size: tuple[int, int],
                 settle: float = 3.0, timeout: float = 90.0):
        self.proc = proc
        self.env = desktop_env(display, cwd)
        self.size = size
        self.find(name, settle, timeout)

    def xdotool(self, *args) -> str:
        return subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=20).stdout

    def find(self, name: str, settle: float = 3.0, timeout: float = 90.0) -> str:
        """Wait for the process's window titled ``name`` (a first, or another it opens), then ``settle`` seconds
        (its first frames); it becomes :attr:`window`, its position :attr:`origin`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the window ended early: {self.proc.stderr.read()[-2000:]}")
            found = self.xdotool("search", "--name", name).split()
            if found:
                time.sleep(settle)
                self.window = found[0]
                geometry = self.xdotool("getwindowgeometry", self.window)
                pos = next(line for line in geometry.splitlines() if "Position" in line).split()[1]
                self.origin = tuple(int(v) for v in pos.split(","))
                return self.window
            time.sleep(0.3)
        raise AssertionError(f"no window named {name!r} appeared")

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

    def quit(self, wait: float = 0.5, timeout: float = 30.0) -> int:
        """Ctrl+Q; the process's exit code (killed when it does not end)."""
        self.xdotool("key", "--window", self.window, "ctrl+q")
        time.sleep(wait)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


def run_in_window(script: str, display: str) -> dict:
    """Run a Python ``script`` that opens a window on ``display``, in a process of its own (from the project's
    root); what its last line of output says, as JSON."""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ, DISPLAY=display), timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])
