"""``towerlab view`` from the command line: bad input is one line and exit 2, scripted sessions are
the same every time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import one_line

from sim.cli import main
from sim.scene import load_scene
from sim.viewer.control.actions import SPECS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def no_window(monkeypatch):
    """Fail the test if a window is opened."""
    import sim.viewer.window.build

    def refuse(*args, **kwargs):
        raise AssertionError("a window was opened although the command should have stopped first")

    monkeypatch.setattr(sim.viewer.window.build, "ViewerWindow", refuse)


def test_a_scene_that_does_not_load_opens_nothing(tmp_path, capsys, no_window, monkeypatch):
    monkeypatch.setenv("DISPLAY", ":99")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "towerlab-scene/1", "game": "talo", "pieces": [{"id": "a", "kind": "talo.block", '
                   '"length": 11, "cell": [0, 0], "layer": 0, "axis": "x"}]}')
    assert main(["view", str(bad)]) == 2
    assert one_line(capsys).startswith(f"towerlab: error: {bad}: pieces[0].length")
    assert main(["view", str(tmp_path / "none.json")]) == 2
    assert "none.json" in one_line(capsys)


def test_bad_action_files_name_the_line_and_the_field(tmp_path, capsys, no_window, monkeypatch):
    monkeypatch.setenv("DISPLAY", ":99")
    scene = ROOT / "scenes" / "talo" / "bridge.json"
    unknown = tmp_path / "unknown.json"
    unknown.write_text('[\n  {"action": "pause"},\n  {"action": "fly", "piece": "x"}\n]\n')
    assert main(["view", str(scene), "--actions", str(unknown)]) == 2
    assert one_line(capsys) == (f'towerlab: error: {unknown}:3: actions[1].action: unknown action "fly"; expected '
                                "one of " + ", ".join(SPECS))
    piece = tmp_path / "piece.json"
    piece.write_text('[\n  {"action": "pause"},\n  {"action": "pause"},\n  {"action": "pick", "piece": "b99"}\n]\n')
    assert main(["view", str(scene), "--actions", str(piece)]) == 2
    assert one_line(capsys) == f"towerlab: error: {piece}:4: actions[2].piece: no piece 'b99' in the scene"


def test_other_bad_options_are_one_line(tmp_path, capsys, no_window, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    assert main(["view", "--game", "talo"]) == 2
    assert "no display" in one_line(capsys)
    assert main(["view", "--game", "chess", "--exit"]) == 2
    assert "--game: expected one of tohuwabohu, talo, babylon, free" in one_line(capsys)
    assert main(["view", str(ROOT / "scenes/talo/bridge.json"), "--game", "babylon", "--exit"]) == 2
    assert "is a talo scene" in one_line(capsys)
    assert main(["view", "--game", "talo", "--screenshot", str(tmp_path / "x.gif"), "--exit"]) == 2
    assert "expected a .png, .jpg or .jpeg" in one_line(capsys)
    assert main(["view", "--game", "talo", "--size", "10x10", "--exit"]) == 2
    assert "--size" in one_line(capsys)
    assert main(["view", "--game", "talo", "--exit", "--record", str(tmp_path / "r.tlrec"), "--no-record"]) == 2
    assert "--record and --no-record" in one_line(capsys)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["view", "--game", "talo", "--exit", "--record", str(blocker / "r.tlrec")]) == 2
    assert "--record" in one_line(capsys)


BUILD = [
    {"action": "pick", "piece": "b3-1"},
    {"action": "move-to", "at": [-10, -10]},
    {"action": "drop"},
    {"action": "pick", "piece": "b3-2"},
    {"action": "rotate", "degrees": 90},
    {"action": "move-to", "at": [-10, -30]},
    {"action": "drop"},
    {"action": "pick", "piece": "b1-1"},
    {"action": "move-to", "at": [-10, -50]},
    {"action": "drop"},
    {"action": "poke", "piece": "b1-1", "direction": [0, -1, 0], "speed": 0.2},
    {"action": "wait", "seconds": 0.5},
]


def _run(tmp_path: Path, name: str, *extra: str) -> tuple[Path, Path]:
    actions = tmp_path / "build.json"
    out, shot = tmp_path / f"{name}.json", tmp_path / f"{name}.png"
    actions.write_text(json.dumps(BUILD + [{"action": "save", "path": str(out)}]))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env.pop("DISPLAY", None)  # offscreen
    env["TOWERLAB_RECORDINGS"] = str(tmp_path / "recordings")
    done = subprocess.run([sys.executable, "-m", "sim", "view", "--game", "talo", "--actions", str(actions),
                           "--screenshot", str(shot), "--size", "320x200", *extra], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return out, shot


def test_a_scripted_talo_session_saves_the_same_scene_every_time(tmp_path):
    first, shot = _run(tmp_path, "first", "--record", str(tmp_path / "first.tlrec"))
    second, _ = _run(tmp_path, "second")
    assert first.read_bytes() == second.read_bytes()
    # --record kept the first session; a scripted one records nothing unasked (the second)
    from sim.replay import load_recording

    rec = load_recording(tmp_path / "first.tlrec")
    done = [a["action"].replace("-", "_") for a in BUILD if a["action"] != "wait"]  # a wait is the runner's
    assert rec.complete and [a.kind for a in rec.actions] == done + ["save"]
    assert rec.actions[0].piece == "b3-1" and rec.actions[1].args["at"] == [-10, -10]
    assert not (tmp_path / "recordings").exists()
    built = load_scene(first)
    # a 3 lying along y over fields (4, 3..5), a 3 along x across its first field one level up, a 1 in front
    np.testing.assert_allclose(built.piece("b3-1").pos, [-0.01, -0.01, 0.01], atol=5e-4)
    np.testing.assert_allclose(built.piece("b3-2").pos, [-0.01, -0.03, 0.03], atol=5e-4)
    assert built.piece("b1-1").pos[1] < -0.05 - 2e-3  # the poke slid it towards -y (v² / 2μg: 4 mm)
    from sim.render.image import load_png

    assert load_png(shot).shape == (200, 320, 4)
