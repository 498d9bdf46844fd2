"""End to end, in a real window: ``towerlab play`` under Xvfb — a whole scripted game to its winner, and a
person's keys (xdotool) reaching the referee; what the game recorded is read back.

Skipped, with the reason, where Xvfb or xdotool is missing (``make test`` installs them where apt is available).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "play"
SIZE = (900, 600)
MISSING = [tool for tool in ("Xvfb", "xdotool") if shutil.which(tool) is None]
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"needs {' and '.join(MISSING)} (make test installs them)")


def _env(display: str, cwd: Path) -> dict:
    return dict(os.environ, DISPLAY=display, XDG_STATE_HOME=str(cwd / "state"),
                TOWERLAB_RECORDINGS=str(cwd / "recordings"),
                PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


def _play(display: str, cwd: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "sim", "play", *args, "--size", f"{SIZE[0]}x{SIZE[1]}"],
                            cwd=cwd, env=_env(display, cwd), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _events(path: Path) -> list:
    from sim.replay import load_recording

    return list(load_recording(path).events)


def test_a_whole_talo_game_in_a_window_to_its_winner(display, tmp_path):
    rec = tmp_path / "talo.tlrec"
    shot = tmp_path / "end.png"
    proc = _play(display, tmp_path, "talo", "--seed", "7", "--actions", str(DATA / "talo-seed7.json"),
                 "--record", str(rec), "--screenshot", str(shot), "--exit")
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]
    assert shot.stat().st_size > 10_000
    events = _events(rec)
    over = [e for e in events if e.kind == "game_over"]
    assert len(over) == 1 and dict(over[0].data) == {"reason": "level 10", "winners": ["red"], "loser": None}
    rolled = [dict(e.data)["rolls"] for e in events if e.kind == "rolled"]
    assert len(rolled) == 11 and all(1 <= r <= 10 for rolls in rolled for r in rolls)
    assert not [e for e in events if e.kind == "refused"]


def test_keys_in_the_window_reach_the_referee(display, tmp_path):
    rec = tmp_path / "keys.tlrec"
    opening = tmp_path / "opening.json"
    opening.write_text('[{"action": "start", "cell": [0, 0]}, {"action": "start", "cell": [0, 9]}]\n')
    proc = _play(display, tmp_path, "talo", "--seed", "7", "--actions", str(opening), "--record", str(rec))
    env = _env(display, tmp_path)

    def xdotool(*args):
        return subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True, timeout=20).stdout

    deadline = time.monotonic() + 90
    window = None
    while window is None and time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()[-2000:]
        found = xdotool("search", "--name", "towerlab play").split()
        window = found[0] if found else None
        time.sleep(0.3)
    assert window is not None, "no window appeared"
    time.sleep(8.0)  # the two scripted starts, then the window is the players'
    for key in ("d", "e", "v"):  # red throws; ends the turn without building; blue looks at its routes
        xdotool("key", "--window", window, key)
        time.sleep(1.5)
    xdotool("key", "--window", window, "ctrl+q")
    proc.wait(timeout=60)
    assert proc.returncode == 0, proc.stderr.read()[-2000:]
    events = _events(rec)
    kinds = [e.kind for e in events if e.kind in ("rolled", "turn_changed")]
    assert kinds == ["turn_changed", "rolled", "turn_changed"]
    turns = [dict(e.data)["player"] for e in events if e.kind == "turn_changed"]
    assert turns == ["red", "blue"]


def _scripted(display, tmp_path, game: str, actions: str, *args: str) -> list:
    script = tmp_path / "script.json"
    script.write_text(actions)
    rec = tmp_path / f"{game}.tlrec"
    proc = _play(display, tmp_path, game, "--actions", str(script), "--record", str(rec), "--exit", *args)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]
    return _events(rec)


def test_tohuwabohu_in_a_window_the_turn_passes_by_time(display, tmp_path):
    events = _scripted(display, tmp_path, "tohuwabohu", '[{"action": "swap"}, {"action": "wait", "seconds": 16}]',
                       "--players", "ann,bob", "--seed", "3")
    turns = [dict(e.data)["player"] for e in events if e.kind == "turn_changed"]
    assert turns == ["ann", "bob"]
    assert any(e.kind == "swap" for e in load_actions_of(tmp_path / "tohuwabohu.tlrec"))


def test_babylon_in_a_window_the_first_turn_then_the_next_player(display, tmp_path):
    actions = (DATA / "babylon-first-turn.json").read_text()
    events = _scripted(display, tmp_path, "babylon", actions, "--players", "red,blue,green")
    placed = [dict(e.data) for e in events if e.kind == "placed"]
    assert [p["player"] for p in placed] == ["red"]
    assert sorted(placed[0]["pieces"]) == ["red-bridge-1", "red-bridge-2", "red-bridge-3", "red-tower-1",
                                           "red-tower-2"]
    assert [dict(e.data)["player"] for e in events if e.kind == "turn_changed"] == ["red", "blue"]


def load_actions_of(path: Path) -> list:
    from sim.replay import load_recording

    return list(load_recording(path).actions)
