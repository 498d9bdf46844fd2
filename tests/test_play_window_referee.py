"""The referee in a real window under Xvfb, checked by what the window shows (its probe, :mod:`sim.viewer.window.probe`,
and its pixels): a turn that runs out with a piece in hand, a Talo refusal's names, ``--screenshot`` as the
window's own picture, the game clock waiting for the window and standing while the help is open, and a pawn
drawn where the game says it stands.

Keys are looked up in the controls the window binds (:data:`sim.viewer.control.keys.CONTROLS`, the play window's
``controls()``), never written as letters, so that the tests follow a remapping. The window is waited for (its
idle signal, the game's probe), never slept on.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from desktop import ROOT, Desktop, camera_of, expected_ids, id_mismatch, launch

from sim.viewer.control.keys import CONTROLS

SIZE = (900, 600)
MISSING = [tool for tool in ("Xvfb", "xdotool") if shutil.which(tool) is None]
pytestmark = [pytest.mark.skipif(bool(MISSING), reason=f"needs {' and '.join(MISSING)} (make test installs them)"),
              pytest.mark.window]

XDOTOOL = {"enter": "Return", "tab": "Tab", "escape": "Escape", "space": "space", "backspace": "BackSpace",
           "delete": "Delete", "home": "Home", "page_up": "Prior", "page_down": "Next", "control": "ctrl"}
"""Panda3D's names of keys as xdotool's."""


def xkey(event: str) -> str:
    """A Panda3D event (``f1``, ``control-s``, ``w``) as xdotool's key (``F1``, ``ctrl+s``, ``w``)."""
    parts = event.split("-")
    names = [XDOTOOL.get(p, p.upper() if p[:1] == "f" and p[1:].isdigit() else p) for p in parts]
    return "+".join(names)


def viewer_key(method: str) -> str:
    """The key of the viewer's control that calls ``method`` (``toggle_help``)."""
    return xkey(next(c for c in CONTROLS if c.method == method).events[0])


def game_key(game: str, variant: str | None, help_starts: str) -> str:
    """The key of the play window's control whose help begins with ``help_starts``."""
    from sim.viewer.play.games import new_game
    from sim.viewer.play.mode import Referee
    from sim.viewer.window.play.draw import PlayWindow

    controls = PlayWindow(Referee(new_game(game, None, variant, 0))).controls()
    return xkey(next(c for c in controls if c.help.startswith(help_starts)).events[0])


def _play(display: str, cwd: Path, *args: str):
    return launch(display, cwd, "play", *args, "--size", f"{SIZE[0]}x{SIZE[1]}")


def _window(display: str, cwd: Path, proc) -> Desktop:
    return Desktop(display, cwd, proc, "towerlab play", SIZE, settle=0.0, timeout=120.0)


def _script(tmp_path: Path, actions: list) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(actions))
    return path


def _game(state: dict) -> dict:
    """The referee's probe in a window's probe state."""
    return next(g for g in state["game"] if g.get("referee"))


def _events(rec: Path) -> list:
    from sim.replay import load_recording

    return list(load_recording(rec).events)


def _quit(w: Desktop) -> str:
    """Close the window (its quit key); the process's last line of output."""
    try:
        code = w.quit(timeout=60.0)
    finally:
        if w.proc.poll() is None:
            w.proc.kill()
    out, err = w.proc.communicate(timeout=30)
    assert code == 0, err[-2000:]
    return out.strip().splitlines()[-1] if out.strip() else ""


def test_a_turn_that_runs_out_with_a_piece_in_hand_puts_it_back_and_nothing_is_knocked_down(display, tmp_path):
    """Defect 3: the put-back was a collapse ("level-tri-1 knocked down after the pick") that `towerlab penalty`
    blamed on the player, and the status line stayed "carry"."""
    from sim.viewer.play.games import new_game

    piece = "level-tri-1"
    home = new_game("tohuwabohu", ("ann", "bob"), None, 3).scene.piece(piece)
    rec = tmp_path / "timeout.tlrec"
    script = _script(tmp_path, [{"action": "pick", "piece": piece}, {"action": "move-to", "at": [0, 0]}])
    proc = _play(display, tmp_path, "tohuwabohu", "--players", "ann,bob", "--seed", "3", "--turn-seconds", "4",
                 "--actions", str(script), "--record", str(rec))
    w = _window(display, tmp_path, proc)
    try:
        carried = w.wait(lambda s: s["hands"] == {"right": piece}, what="the piece in hand")
        assert _game(carried)["player"] == "ann"
        passed = w.wait(lambda s: _game(s)["player"] == "bob", what="the turn to pass by time")
        state = w.idle(passed)
        assert state["hands"] == {} and state["mode"] == "build"
        assert not [t["text"] for t in state["texts"] if "| carry |" in t["text"]]  # the status line: no carry
        pose = np.asarray(state["poses"][state["ids"].index(piece)])
        assert np.allclose(pose, [*home.pos, *home.quat], atol=1e-5)  # where it was picked up
        assert not [m for m in state["messages"] if "knocked down" in m or m.startswith("collapse")]
        assert any("time is up: bob's turn" in m for m in state["messages"])
        _quit(w)
    finally:
        if proc.poll() is None:
            proc.kill()
    events = _events(rec)
    assert not [e for e in events if e.kind in ("knocked_down", "knocked")]
    verdict = subprocess.run([sys.executable, "-m", "sim", "penalty", str(rec), "--json"], capture_output=True,
                             text=True, cwd=ROOT, timeout=120)
    assert verdict.returncode == 0, verdict.stderr
    assert json.loads(verdict.stdout)["collapses"] == []


def test_a_talo_refusal_names_the_block_set_down(display, tmp_path):
    """Defect 4: "REFUSED (balance): ... b2 would fall" for b5-6 set off-centre on a cube (b2: the game's
    number of the second block built)."""
    actions = json.loads((Path(__file__).parent / "data" / "play" / "talo-seed7.json").read_text())[:2]
    actions += [{"action": "throw"}, {"action": "take", "blocks": [1, 3]},
                {"action": "pick", "piece": "b1-1"}, {"action": "move-to", "at": [-70.0, -90.0], "free": False},
                {"action": "drop", "free": False}, {"action": "end-turn"}]
    for take in ([2, 6], [3], [1]):  # three turns of nothing built; then red's 4 + 5
        actions += [{"action": "throw"}, {"action": "take", "blocks": take}, {"action": "end-turn"}]
    actions += [{"action": "throw"}, {"action": "take", "blocks": [4, 5]}, {"action": "pick", "piece": "b5-6"},
                {"action": "move-to", "at": [-70.0, -50.0], "free": False}, {"action": "drop", "free": False}]
    proc = _play(display, tmp_path, "talo", "--seed", "7", "--actions", str(_script(tmp_path, actions)),
                 "--no-record")
    w = _window(display, tmp_path, proc)
    try:
        refused = w.wait(lambda s: (_game(s)["refusal"] or {}).get("rule") == "balance", what="the refusal")
        state = w.idle(refused)
        texts = [t["text"] for t in state["texts"]]
        assert any("b5-6 would fall" in t for t in texts), texts  # the game panel, and the message
        assert not any("b2 would fall" in t for t in texts), texts
        _quit(w)
    finally:
        if proc.poll() is None:
            proc.kill()


SHOT_LIMIT = 2.0
"""Mean difference (0..255) the screenshot may have from the window's own picture grabbed from the screen, the
texts that changed since left out (the renderer's picture without the panels and the areas differs by 8)."""


def test_the_screenshot_is_the_windows_own_picture_and_the_run_ends_with_what_happened(display, tmp_path):
    """Defect 11: --screenshot saved the renderer's picture (no game panel, no construction areas) and the run
    printed nothing of the game."""
    from sim.render.image import load_png

    shot = tmp_path / "shot.png"
    rec = tmp_path / "fast.tlrec"
    proc = _play(display, tmp_path, "babylon", "--variant", "fast", "--actions",
                 str(_script(tmp_path, [{"action": "seat", "player": "blue"}])), "--screenshot", str(shot),
                 "--record", str(rec))
    w = _window(display, tmp_path, proc)
    try:
        w.xdotool("mousemove", str(SIZE[0] + 60), str(SIZE[1] + 60))  # off the window: no hover, no cursor
        taken = w.wait(lambda s: any(m.startswith("screenshot saved") for m in s["messages"]),
                       what="the screenshot")
        state = w.idle(taken)
        assert state["quality"] == "still"
        shown = w.picture(tmp_path / "screen.png")
        saved = load_png(shot)[..., :3].astype(float)
        assert saved.shape == shown.shape
        before = {t["text"] for t in taken["texts"]}
        keep = np.ones(shown.shape[:2], bool)
        for t in state["texts"]:  # what changed since (the status line's clock, the message saying it was saved)
            if t["text"] not in before or "screenshot saved" in t["text"]:
                x0, y0, x1, y1 = (int(v) for v in t["box"])
                keep[max(y0 - 4, 0):y1 + 4, max(x0 - 4, 0):x1 + 4] = False
        diff = float(np.abs(shown - saved)[keep].mean())
        assert diff < SHOT_LIMIT, f"the screenshot differs from the window's picture by {diff:.2f}"
        panel = max(state["texts"], key=lambda t: len(t["text"]))  # the game panel's
        x0, y0, x1, y1 = (int(v) for v in panel["box"])
        assert np.abs(shown[y0:y1, x0:x1] - saved[y0:y1, x0:x1]).mean() < SHOT_LIMIT  # the game panel in it
        line = _quit(w)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert line == (f"babylon (fast; red, blue, green): round 1 under way (blue's hands); the game goes on; "
                    f"recorded in {rec}; picture {shot}"), line


def test_the_game_clock_waits_for_the_window_and_stands_while_the_help_is_open(display, tmp_path):
    """Defect 13: the first turn's 15 s ran out some 20 s after launch, before its player could act; the help did
    not stop it. A house rule's turn length (--turn-seconds) is what the clock shows."""
    proc = _play(display, tmp_path, "tohuwabohu", "--players", "ann,bob", "--seed", "3", "--turn-seconds", "20",
                 "--no-record")
    w = _window(display, tmp_path, proc)
    try:
        started = w.wait(lambda s: s["game"] and _game(s)["clock"]["started"], what="the clock to begin")
        clock = _game(started)["clock"]
        assert clock["time_left"] > 20.0 - 1.0, clock  # it began as the window was ready: a frame or two ago
        assert any(m.startswith("ann's turn (0:20 on the clock) - order: ") for m in started["messages"])
        help_key = viewer_key("toggle_help")
        w.keys(help_key, idle=False)
        held = w.wait(lambda s: _game(s)["clock"]["stands"] == "help", what="the clock to stand")
        later = w.wait(lambda s: s["frame"] > held["frame"] + 40, what="frames with the help open")
        assert _game(later)["clock"]["time_left"] == _game(held)["clock"]["time_left"]
        assert _game(later)["player"] == "ann"
        # the game panel hides under the help: the help's last line says the clock stands
        assert any("the game's clock stands at 0:" in t["text"] for t in later["texts"]), later["texts"]
        w.keys(help_key, idle=False)
        runs = w.wait(lambda s: _game(s)["clock"]["stands"] is None and s["frame"] > later["frame"] + 30,
                      what="the clock to run again")
        assert _game(runs)["clock"]["time_left"] < _game(later)["clock"]["time_left"]
        _quit(w)
    finally:
        if proc.poll() is None:
            proc.kill()


ID_LIMIT = 0.002
"""The share of pixels whose piece may differ between the window's id view and the renderer's id pass away from
the pieces' edges (as tests/test_window_truth.py)."""


def test_a_pawn_is_drawn_where_the_game_says_it_stands(display, tmp_path):
    """After Talo's walk key the pawn's pixels are where its pose is: the window's own id view against the
    renderer's id pass of the poses and the camera the window says it shows."""
    from scipy.ndimage import binary_erosion

    from sim.games.talo import talo_board
    from sim.viewer.play.games import new_game

    scene = new_game("talo", None, None, 7).scene
    grid = talo_board("talo-green").grid
    opening = [{"action": "start", "cell": [0, 0]}, {"action": "start", "cell": [0, 9]}, {"action": "throw"},
               {"action": "take", "blocks": [1, 3]}, {"action": "pick", "piece": "b1-1"},
               {"action": "move-to", "at": [-70.0, -90.0], "free": False}, {"action": "drop", "free": False}]
    proc = _play(display, tmp_path, "talo", "--seed", "7", "--actions", str(_script(tmp_path, opening)),
                 "--no-record")
    w = _window(display, tmp_path, proc)
    try:
        ready = w.idle(w.wait(lambda s: _game(s)["view"]["hand"] == [3] and not s["hands"], what="the cube built"))
        field = (grid.origin[0] + 1.5 * grid.cell, grid.origin[1] + 0.5 * grid.cell, grid.cell)  # on the cube
        x, y = camera_of(ready).project(np.array([field]))[0]
        w.point(x, y)
        w.keys(game_key("talo", None, "your pawn to the field"), idle=False)
        walked = w.wait(lambda s: next(p for p in _game(s)["view"]["players"] if p["color"] == "red")["level"]
                        == 1, what="the pawn to walk onto the cube")
        w.xdotool("mousemove", str(SIZE[0] + 60), str(SIZE[1] + 60))  # off the window: the grab shows no cursor
        state = w.idle(walked)
        pose = np.asarray(state["poses"][state["ids"].index("pawn-red")])
        assert np.allclose(pose[:2], field[:2], atol=1e-4) and pose[2] > grid.cell - 1e-4  # the game's spot
        shown, seen = w.ids(tmp_path / "ids.png")
        want = expected_ids(scene, seen)
        pawn = seen["ids"].index("pawn-red")
        assert id_mismatch(shown, want) < ID_LIMIT
        inside = binary_erosion(want == pawn, iterations=3)  # away from its outline (a rounder body live)
        assert inside.sum() > 50 and (shown[inside] == pawn).mean() > 0.95  # its pixels are the pawn's
        _quit(w)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_game_saved_with_its_key_in_a_window_goes_on_in_another_window_where_it_was(display, tmp_path):
    """The save key writes the game (the turn, the timer, the cards); `towerlab play --resume FILE` opens it in a
    new window, whose clock waits for the window again and runs on from the time left at the save."""
    save_key = game_key("tohuwabohu", None, "save the game")
    proc = _play(display, tmp_path, "tohuwabohu", "--players", "ann,bob", "--seed", "3", "--turn-seconds", "40",
                 "--no-record")
    w = _window(display, tmp_path, proc)
    try:
        w.wait(lambda s: s["game"] and _game(s)["clock"]["started"], what="the clock to begin")
        w.keys(save_key, idle=False)
        saved = w.wait(lambda s: any(m.startswith("game saved: ") for m in s["messages"]), what="the game saved")
        _quit(w)
    finally:
        if proc.poll() is None:
            proc.kill()
    name = next(m for m in saved["messages"] if m.startswith("game saved: ")).split()[2]
    data = json.loads((tmp_path / name).read_text())
    left = 40.0 - data["referee"]["session"]["state"]["clock"]
    assert 0.0 < left < 40.0 and data["players"] == ["ann", "bob"] and data["turn_seconds"] == 40.0
    order = _game(saved)["view"]["players"][0]["open"][0]["id"]
    proc = _play(display, tmp_path, "--resume", name, "--no-record")
    w = _window(display, tmp_path, proc)
    try:
        started = w.wait(lambda s: s["game"] and _game(s)["clock"]["started"], what="the resumed clock to begin")
        game = _game(started)
        assert game["player"] == "ann" and game["view"]["players"][0]["open"][0]["id"] == order
        assert left - 1.0 < game["clock"]["time_left"] <= left  # from where it stood, not a new turn
        assert any(m.startswith("ann's turn (0:") for m in started["messages"])
        _quit(w)
    finally:
        if proc.poll() is None:
            proc.kill()
