"""The replay window, end to end: ``towerlab replay R`` under Xvfb, driven with xdotool like a person, and its
controls on the docs page.

Open a recorded collapse, press K (the first knock-down), grab the window and compare it with the offscreen
picture of that frame from the same camera; drag along the timeline and compare again with the frame at the
place let go; side by side; a screenshot; re-simulate from here and go on in the viewer's window. Skipped,
with the reason, where Xvfb or xdotool is missing (``make test`` installs them where apt is available).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from desktop import Desktop, launch

from sim.physics.live import LiveWorld
from sim.replay import Recorder, load_recording
from sim.replay.script import play_script
from sim.viewer.replay.actions import SPECS, replay_action
from sim.viewer.replay.controller import ReplayController
from sim.viewer.replay.keys import BOUND, CONTROLS, help_lines
from sim.viewer.replay.timeline import bar_fraction, bar_pixel
from tests.test_replay_live import CARRY_INTO_THE_TOWER, tower_scene

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "recording-format.md").read_text(encoding="utf-8")
SIZE = (800, 500)
MISSING = [tool for tool in ("Xvfb", "xdotool") if shutil.which(tool) is None]


def needs_x(test):
    """A test in a real window: in the window tier, skipped where Xvfb or xdotool is missing."""
    skip = pytest.mark.skipif(bool(MISSING), reason=f"needs {' and '.join(MISSING)} (make test installs them)")
    return pytest.mark.window(skip(test))


def test_every_control_is_bound_in_the_help_and_on_the_docs_page():
    from sim.viewer.window.replay.window import ReplayWindow

    lines = "\n".join(k + "\n" + h for k, h in help_lines())
    for c in CONTROLS:
        assert f"| {c.keys} | {c.help} |" in DOC, c.keys
        assert c.keys in lines and c.help in lines
        if c.method is not None:
            assert callable(getattr(ReplayWindow, c.method, None)) and c.events, c.method
    bound = {e for c in CONTROLS for e in c.events}
    assert set(BOUND) <= bound
    for name, fields in BOUND.values():
        replay_action(name, **fields)  # every bound action is a valid one


def test_every_action_is_documented():
    table = DOC[DOC.index("| action | fields |"):]
    for name in SPECS:
        assert f"| `{name}` |" in table, name


@pytest.fixture(scope="module")
def collapse(tmp_path_factory):
    path = tmp_path_factory.mktemp("window") / "tower.tlrec"
    with LiveWorld(tower_scene()) as lw, Recorder(path, sync=False) as rec:
        rec.start_live(lw, seed=5, players=["ana"])
        play_script(lw, CARRY_INTO_THE_TOWER, rec)
    return path


class Window(Desktop):
    """A running ``towerlab replay`` and the ways a person works it, each waiting for the window to have seen it
    and to be idle (its probe), never a fixed time."""

    def __init__(self, display: str, args: list[str], cwd: Path, name: str = "towerlab replay"):
        super().__init__(display, cwd, launch(display, cwd, "replay", *args), name, SIZE, settle=0)
        self.idle(timeout=300.0)

    def key(self, *keys: str) -> dict:
        return self.keys(*keys)

    def move(self, x: float, y: float) -> dict:
        return self.point(x, y)

    def drag(self, path) -> dict:
        """Press the left button at the path's first pixel, move along it, let go at its last."""
        self.point(*path[0], idle=False)
        self.press()
        for p in path[1:]:
            self.point(*p, idle=False)
        return self.let_go()


def expected(recording, *fields) -> tuple[np.ndarray, ReplayController]:
    """The offscreen picture (the renderer's, no captions) of the single pane after these actions."""
    from sim.render import default_renderer
    from sim.viewer.replay.picture import PaneGraphs

    c = ReplayController(recording, size=SIZE, smooth=False)
    for name, args in fields:
        c.apply(replay_action(name, **args))
    return PaneGraphs(recording, default_renderer()).draw(c.frame, c.view()).astype(float), c


def difference(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute difference (0..255) over the picture without the panels (status, caption, timeline)."""
    h, w = a.shape[:2]
    rows, cols = slice(int(0.10 * h), int(0.82 * h)), slice(int(0.05 * w), int(0.95 * w))
    return float(np.abs(a[rows, cols] - b[rows, cols]).mean())


@needs_x
def test_jump_to_the_first_knockdown_and_scrub_the_timeline_in_a_real_window(display, collapse, tmp_path):
    recording = load_recording(collapse)
    at_knockdown, c = expected(recording, ("jump", {"to": "first-knockdown"}))
    at_start, _ = expected(recording)
    window = Window(display, [str(collapse), "--size", f"{SIZE[0]}x{SIZE[1]}"], tmp_path)
    try:
        opening = window.picture(tmp_path / "opening.png")
        window.key("k")  # the frame, then the full-quality picture once nothing changed
        knocked = window.picture(tmp_path / "knocked.png")
        for _ in range(6):
            window.key("period")  # six frames on
        stepped = window.picture(tmp_path / "stepped.png")
        # drag along the timeline from a quarter to about 0.8 of its length, let go there
        path = [bar_pixel(f, SIZE) for f in np.linspace(0.25, 0.8, 6)]
        window.drag(path)
        window.move(SIZE[0] / 2, SIZE[1] / 3)
        scrubbed = window.picture(tmp_path / "scrubbed.png")
        window.key("b")  # side by side: before the collapse | now
        split = window.picture(tmp_path / "split.png")
        window.key("p")  # a screenshot of what the replay shows
        window.idle(ready=lambda s: any("screenshot saved" in m for m in s["messages"]))
        window.key("b")
        window.key("b")  # side by side off again
        let_go = bar_fraction(path[-1][0], SIZE[0])
        _, here = expected(recording, ("seek", {"t": c.timeline.time_at(let_go)}))
        ids, poses = here.poses()
        window.move(*here.camera.pixel(poses[ids.index("t5"), :3]))
        window.key("l")  # follow the piece under the cursor
        window.key("shift+period")  # a second on
        followed = window.picture(tmp_path / "followed.png")
        code = window.quit()
    finally:
        if window.proc.poll() is None:
            window.proc.kill()
    assert code == 0, window.proc.stderr.read()[-2000:]
    assert difference(opening, at_start) < 6.0
    assert difference(knocked, at_knockdown) < 6.0
    assert difference(knocked, at_start) > 2.0  # and the two frames differ where the tower leans
    at_step, _ = expected(recording, ("jump", {"to": "first-knockdown"}), ("step", {"frames": 6}))
    assert difference(stepped, at_step) < 6.0 and difference(stepped, knocked) > 0.5
    at_let_go, c2 = expected(recording, ("seek", {"t": c.timeline.time_at(let_go)}))
    assert c2.frame > c.frame
    assert difference(scrubbed, at_let_go) < 6.0 and difference(scrubbed, knocked) > 2.0
    assert difference(split, scrubbed) > 2.0
    t = c.timeline.time_at(let_go)
    at_follow, _ = expected(recording, ("seek", {"t": t}), ("follow", {"piece": "t5"}), ("step", {"frames": 60}))
    unfollowed, _ = expected(recording, ("seek", {"t": t}), ("step", {"frames": 60}))
    assert difference(followed, at_follow) < 6.0 and difference(followed, unfollowed) > 2.0
    shots = list(tmp_path.glob("towerlab-replay-*.png"))
    assert len(shots) == 1
    from sim.render.image import load_png

    assert load_png(shots[0]).shape[:2] == (SIZE[1], SIZE[0])


@needs_x
def test_resimulate_from_here_goes_on_in_the_viewers_window(display, collapse, tmp_path):
    window = Window(display, [str(collapse), "--size", f"{SIZE[0]}x{SIZE[1]}", "--at", "1.6"], tmp_path)
    try:
        # Enter closes the replay's window as it goes down: its release reaches neither window, so the new
        # window is waited for, not the key's two inputs
        window.xdotool("key", "--window", window.window, "Return")
        window.find("towerlab view: re-simulated from", settle=0)
        window.wait(lambda s: s["kind"] == "view" and s["session_time"] > 1.5, what="the viewer going on")
        window.key("F4")
        code = window.quit()
    finally:
        if window.proc.poll() is None:
            window.proc.kill()
    assert code == 0, window.proc.stderr.read()[-2000:]
    (recorded,) = (tmp_path / "recordings").glob("*.tlrec")  # the session that went on, recorded as a viewer's
    again = load_recording(recorded)
    assert again.source == "session" and again.complete and again.duration > 1.0


@needs_x
def test_a_scripted_window_saves_what_the_offscreen_replay_saves(display, collapse, tmp_path):
    import json

    from sim.render.image import load_png

    script = tmp_path / "bug.json"
    script.write_text(json.dumps([{"action": "jump", "to": "first-knockdown"},
                                  {"action": "compare", "mode": "before"}, {"action": "step", "frames": 3}]))
    args = [str(collapse), "--actions", str(script), "--size", f"{SIZE[0]}x{SIZE[1]}", "--exit"]
    env = dict(os.environ, DISPLAY=display, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    for where, extra in (("window.png", []), ("offscreen.png", ["--offscreen"])):
        run = subprocess.run([sys.executable, "-m", "sim", "replay", *args, "--screenshot", str(tmp_path / where),
                              *extra], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
        assert run.returncode == 0, run.stderr[-2000:]
    a, b = (load_png(tmp_path / n)[..., :3].astype(float) for n in ("window.png", "offscreen.png"))
    assert a.shape == b.shape == (SIZE[1], SIZE[0], 3) and np.abs(a - b).mean() < 2.0
