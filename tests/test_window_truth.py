"""Every frame true: in a real window under Xvfb, after each camera move and while a piece is carried, what the
screen shows is checked against the renderer's offscreen answer for the poses and the camera the window says
it shows (its probe, :mod:`sim.viewer.window.probe`): the full-quality still once the window is idle, and the
window's own id view pixel for pixel. The window is waited for (its idle signal), never slept on.

Skipped where Xvfb or xdotool is missing (``make test`` installs them where apt is available).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from desktop import Desktop, camera_of, expected_ids, expected_picture, id_mismatch, launch, pixel

from sim.scene import from_dict, save_scene

SIZE = (800, 500)
MISSING = [tool for tool in ("Xvfb", "xdotool") if shutil.which(tool) is None]
pytestmark = [pytest.mark.skipif(bool(MISSING), reason=f"needs {' and '.join(MISSING)} (make test installs them)"),
              pytest.mark.window]

STILL_LIMIT = 6.0
"""Mean difference (0..255) the window's full-quality still may have from the renderer's picture of the same
poses and camera (the panels left out): a picture from another view differs by 20 and more."""
ID_LIMIT = 0.002
"""The share of pixels whose piece may differ between the window's id view and the renderer's id pass away
from the pieces' edges."""


def _tower(tmp_path: Path) -> tuple[Path, object]:
    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": [
        {"id": "base", "kind": "box", "size": [60, 30, 20], "pos": [0, 0, 10]},
        {"id": "mid", "kind": "box", "size": [30, 30, 30], "pos": [-10, 0, 35]},
        {"id": "top", "kind": "box", "size": [20, 20, 20], "pos": [-10, 0, 60]},
        {"id": "aside", "kind": "box", "size": [20, 40, 20], "pos": [70, 30, 10]}]})
    path = tmp_path / "tower.json"
    save_scene(scene, path)
    return path, scene


def _outside_panels(state: dict, shape) -> np.ndarray:
    """A mask of the picture without every text and panel on it (and a margin)."""
    keep = np.ones(shape[:2], bool)
    for item in state["texts"] + state["panels"]:
        x0, y0, x1, y1 = item["box"]
        keep[max(int(y0) - 6, 0):int(y1) + 6, max(int(x0) - 6, 0):int(x1) + 6] = False
    return keep


def _check_frame(viewer: Desktop, scene, tmp_path: Path, name: str, state: dict) -> np.ndarray:
    """The window's picture is the renderer's of the poses and camera it says it shows; its id view too."""
    assert state["quality"] == "still", f"{name}: the window is idle but not showing its full quality"
    shown = viewer.picture(tmp_path / f"{name}.png")
    want = expected_picture(scene, state)
    keep = _outside_panels(state, shown.shape)
    diff = float(np.abs(shown - want)[keep].mean())
    assert diff < STILL_LIMIT, f"{name}: the still differs from the renderer's picture by {diff:.1f}"
    ids, at = viewer.ids(tmp_path / f"{name}-ids.png")
    mismatch = id_mismatch(ids, expected_ids(scene, at))
    assert mismatch < ID_LIMIT, f"{name}: the id view differs from the id pass at {mismatch:.2%} of the pixels"
    assert (ids >= 0).mean() > 0.002, f"{name}: no piece on screen"
    return shown


def test_every_camera_move_shows_the_world_from_the_new_view(display, tmp_path):
    path, scene = _tower(tmp_path)
    viewer = Desktop(display, tmp_path, launch(display, tmp_path, "view", str(path), "--no-record", "--size",
                                               f"{SIZE[0]}x{SIZE[1]}"), "towerlab view", SIZE, settle=0)
    try:
        state = viewer.idle()
        viewer.keys("F4")  # no stability marks over the picture
        state = viewer.point(4, SIZE[1] - 4)  # nor a hover tint
        last = _check_frame(viewer, scene, tmp_path, "opening", state)
        w, h = SIZE
        moves = [("front", lambda: viewer.keys("2")), ("side", lambda: viewer.keys("3")),
                 ("top", lambda: viewer.keys("4")), ("iso", lambda: viewer.keys("1")),
                 ("wheel", lambda: (viewer.point(w / 2, h / 2), viewer.tap(w / 2, h / 2, button=4))),
                 ("orbit", lambda: viewer.drag((30, h - 40), (130, h - 80))),
                 ("pan", lambda: viewer.drag((30, h - 40), (90, h - 60), button=3)),
                 ("middle", lambda: viewer.drag((30, h - 40), (0, h - 90), button=2)),
                 ("home", lambda: viewer.keys("Home"))]
        for name, move in moves:
            before = viewer.state()
            move()
            viewer.point(4, h - 4)
            state = viewer.idle(before)
            assert state["view"] != before["view"], f"{name}: the camera did not move"
            now = _check_frame(viewer, scene, tmp_path, name, state)
            keep = _outside_panels(state, now.shape)
            assert float(np.abs(now - last)[keep].mean()) > 1.0, f"{name}: the picture did not change"
            last = now
        assert viewer.quit() == 0
    finally:
        if viewer.proc.poll() is None:
            viewer.proc.kill()


def _cubes(tmp_path: Path, n: int = 10) -> Path:
    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": [
        {"id": f"cube{k + 1}", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10 + 20 * k]} for k in range(n)]})
    path = tmp_path / "cubes.json"
    save_scene(scene, path)
    return path


def _panel(state: dict) -> str:
    return next((t["text"] for t in state["texts"] if t["text"].startswith(("STANDS", "FALLS", "KNIFE"))), "")


def test_a_cube_knocked_off_is_judged_where_it_rests_and_a_piece_taken_with_n_never_falls(display, tmp_path):
    path = _cubes(tmp_path)
    viewer = Desktop(display, tmp_path, launch(display, tmp_path, "view", str(path), "--no-record", "--no-recovery",
                                               "--size", f"{SIZE[0]}x{SIZE[1]}"), "towerlab view", SIZE, settle=0)
    try:
        state = viewer.idle()
        top = pixel(state, [0.0, 0.0, 0.19])
        viewer.point(*top)
        for _ in range(6):  # pokes, each a push away from the camera, until the top cube is knocked off
            viewer.click_with("shift", *top)
            state = viewer.idle()
            if any("collapse: cube10 knocked down" in m for m in state["messages"]):
                break
        assert any("collapse: cube10 knocked down" in m for m in state["messages"])
        assert _panel(state).startswith("STANDS"), _panel(state)  # it lies on the table: held, judged there
        viewer.keys("ctrl+s")
        checked = json.loads(subprocess.run([sys.executable, "-m", "sim", "check", str(path), "--json",
                                             "--seconds", "0.5"], capture_output=True, text=True,
                                            timeout=300).stdout)
        assert checked["stable"] and state["verdict"]["stands"]
        assert abs(checked["margin_g"] - state["verdict"]["margin_g"]) < 1e-3 * max(1.0, checked["margin_g"])
        # N over a cube: a new one in the hand, carried about; nothing is knocked down
        cube = pixel(state, [0.0, 0.0, 0.09])
        viewer.point(*cube)
        viewer.keys("n", idle=False)
        state = viewer.steady(ready=lambda s: bool(s["hands"]))
        for x in np.linspace(cube[0], cube[0] + 160, 6):
            state = viewer.point(x, cube[1] + 60)
        assert state["hands"] and not [m for m in state["messages"] if m.startswith("collapse: box")], \
            state["messages"]
        assert viewer.quit() == 0
    finally:
        if viewer.proc.poll() is None:
            viewer.proc.kill()


def test_a_refusal_is_said_once(display, tmp_path):
    viewer = Desktop(display, tmp_path, launch(display, tmp_path, "play", "talo", "--no-record", "--size",
                                               f"{SIZE[0]}x{SIZE[1]}"), "towerlab play", SIZE, settle=0)
    try:
        viewer.idle()
        state = viewer.keys("ctrl+z")  # there is no undo in a game
        said = [m for m in state["messages"] if "undo" in m]
        assert len(said) == 1, state["messages"]
        shown = " ".join(t["text"] for t in state["texts"])
        assert shown.count(said[0]) == 1, shown
        assert viewer.quit() == 0
    finally:
        if viewer.proc.poll() is None:
            viewer.proc.kill()


def test_the_status_line_says_paused_and_the_measured_speed(display, tmp_path):
    path, _ = _tower(tmp_path)
    viewer = Desktop(display, tmp_path, launch(display, tmp_path, "view", str(path), "--no-record", "--no-recovery",
                                               "--size", f"{SIZE[0]}x{SIZE[1]}"), "towerlab view", SIZE, settle=0)

    def status(s):
        return s["texts"][0]["text"] if s["texts"] else ""
    try:
        viewer.idle()
        state = viewer.keys("space")
        assert "PAUSED" in status(state) and "real time" not in status(state), status(state)
        t = state["time"]
        state = viewer.idle(state, ready=lambda s: s["session_time"] > state["session_time"] + 1.0)
        assert state["time"] == t  # paused: the world stands
        viewer.keys("space")
        viewer.keys("minus")
        state = viewer.keys("minus")  # 1/4 of real time, measured over the last second
        state = viewer.wait(lambda s: "speed 1/4: 0.2" in status(s) or "speed 1/4: 0.3" in status(s),
                            what="a quarter of real time measured")
        start = state
        state = viewer.wait(lambda s: s["session_time"] > start["session_time"] + 2.0, what="two seconds")
        ran = (state["time"] - start["time"]) / (state["session_time"] - start["session_time"])
        assert 0.2 < ran < 0.3, ran
        assert viewer.quit() == 0
    finally:
        if viewer.proc.poll() is None:
            viewer.proc.kill()


def test_one_weakest_direction_arrow_per_structure(display, tmp_path):
    """Two towers alike are the weakest mode together: each gets its arrow from its own edge (one arrow from the
    edge of both spanned the table between them)."""
    from sim.viewer.window.drawing import weakest_arrow
    from sim.viewer.window.marks import ARROW_WEAK

    pieces = [{"id": f"{t}{k}", "kind": "box", "size": [20, 20, 40], "pos": [x, 0, 20 + 40 * k]}
              for t, x in (("a", -100), ("b", 100)) for k in range(3)]
    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": pieces})
    path = tmp_path / "towers.json"
    save_scene(scene, path)
    viewer = Desktop(display, tmp_path, launch(display, tmp_path, "view", str(path), "--no-record", "--no-recovery",
                                               "--size", f"{SIZE[0]}x{SIZE[1]}"), "towerlab view", SIZE, settle=0)
    try:
        state = viewer.point(4, SIZE[1] - 4)
        state = viewer.idle(state, ready=lambda s: s["verdict"] and not s["verdict"]["partial"])
        shown = viewer.picture(tmp_path / "towers.png")
        assert viewer.quit() == 0
    finally:
        if viewer.proc.poll() is None:
            viewer.proc.kill()
    direction = state["verdict"]["direction_deg"]
    assert sorted(state["verdict"]["mode"]) == sorted(scene.ids)
    for tower in ("a", "b"):
        group = [p for p in scene.pieces if p.id.startswith(tower)]
        tail, floor, length = weakest_arrow(group, np.array([[*p.pos, *p.quat] for p in group]), direction)
        a = np.radians(direction)
        middle = tail + 0.5 * length * np.array([np.cos(a), np.sin(a)])
        x, y = (int(round(v)) for v in pixel(state, [middle[0], middle[1], floor]))
        patch = shown[y - 5:y + 6, x - 5:x + 6]
        near = (np.abs(patch - np.array(ARROW_WEAK[:3]) * 255).max(axis=-1) < 60).sum()
        assert near >= 4, f"no arrow beside tower {tower} ({near} of its pixels at {x}, {y})"


def test_contacts_are_seen_at_any_zoom(display, tmp_path):
    """F2's contact points lie between pieces, where the pieces hide them: each is drawn over the pieces, a few
    pixels wide whatever the zoom (they were 0.4 mm marks in the world, hidden between the pieces)."""
    from sim.contact import find_interfaces

    path, scene = _tower(tmp_path)
    corners = np.array([p for f in find_interfaces(scene) for p in np.asarray(f.polygon)])
    viewer = Desktop(display, tmp_path, launch(display, tmp_path, "view", str(path), "--no-record", "--no-recovery",
                                               "--size", f"{SIZE[0]}x{SIZE[1]}"), "towerlab view", SIZE, settle=0)
    try:
        viewer.keys("F4")
        viewer.point(4, SIZE[1] - 4)
        missing = []
        for zoom in range(2):
            if zoom:
                viewer.point(SIZE[0] / 2, SIZE[1] / 2)
                for _ in range(6):
                    viewer.tap(SIZE[0] / 2, SIZE[1] / 2, button=5)  # the wheel: away
                viewer.point(4, SIZE[1] - 4)
            off = viewer.picture(tmp_path / f"off-{zoom}.png")
            state = viewer.keys("F2")
            on = viewer.picture(tmp_path / f"on-{zoom}.png")
            viewer.keys("F2")
            changed = np.abs(on - off).max(axis=-1) > 60
            for x, y in camera_of(state).project(corners):
                x, y = int(round(x)), int(round(y))
                near = changed[max(y - 3, 0):y + 4, max(x - 3, 0):x + 4]
                if 0 <= x < SIZE[0] and 0 <= y < SIZE[1] and not near.any():
                    missing.append((zoom, x, y))
        assert viewer.quit() == 0
    finally:
        if viewer.proc.poll() is None:
            viewer.proc.kill()
    assert not missing, f"{len(missing)} of {2 * len(corners)} contact points not seen: {missing[:8]}"


def test_a_carried_block_is_drawn_where_it_is_at_every_step(display, tmp_path):
    """Talo's stock: a block picked up and carried over the board, looked at (the window's id view against the
    renderer's id pass of the poses it says it shows) at each step of the way; its pixels leave the stock.
    Then set down: the panel's verdict is `towerlab check`'s of the saved scene."""
    from sim.games.setup import setup

    scene = setup("talo")
    viewer = Desktop(display, tmp_path, launch(display, tmp_path, "view", "--game", "talo", "--no-record",
                                               "--no-recovery", "--size", f"{SIZE[0]}x{SIZE[1]}"),
                     "towerlab view", SIZE, settle=0)
    try:
        state = viewer.idle()
        block = scene.piece("b3-1")
        start = pixel(state, np.array(block.pos) + [0.0, 0.0, 0.01])
        sx, sy = (int(round(v)) for v in start)
        stocked = viewer.picture(tmp_path / "stocked.png")[sy - 4:sy + 5, sx - 4:sx + 5]
        state = viewer.tap(*start)
        assert state["hands"] == {"right": "b3-1"}
        row = state["ids"].index("b3-1")
        for k, x in enumerate(np.linspace(start[0], SIZE[0] * 0.55, 5)):
            state = viewer.point(x, SIZE[1] * 0.5)
            shown = viewer.picture(tmp_path / f"carried-{k}-picture.png")  # as the window shows it, then its ids
            ids, at = viewer.ids(tmp_path / f"carried-{k}.png")
            want = expected_ids(scene, at)
            assert id_mismatch(ids, want) < ID_LIMIT, f"step {k}: the id view differs from the poses it shows"
            assert (ids == row).sum() > 20, f"step {k}: the carried block is not on screen"
            if k >= 2:  # well away: nothing of it is left in the stock, in the id view and in the picture
                assert not (ids[sy - 3:sy + 4, sx - 3:sx + 4] == row).any(), f"step {k}: still drawn in the stock"
                there = shown[sy - 4:sy + 5, sx - 4:sx + 5]
                assert np.abs(there - stocked).mean() > 10.0, f"step {k}: the picture still shows it in the stock"
        state = viewer.tap(SIZE[0] * 0.55, SIZE[1] * 0.5)  # set down on the board
        state = viewer.idle(state)
        assert not state["hands"]
        saved = tmp_path / "built.json"
        viewer.save_as(saved)
        assert viewer.quit() == 0
    finally:
        if viewer.proc.poll() is None:
            viewer.proc.kill()
    checked = json.loads(subprocess.run([sys.executable, "-m", "sim", "check", str(saved), "--json", "--seconds",
                                         "0.5"], capture_output=True, text=True, timeout=300).stdout)
    panel = state["verdict"]
    assert checked["stable"] == panel["stands"]
    assert abs(checked["margin_g"] - panel["margin_g"]) < 1e-3 * max(1.0, checked["margin_g"])
