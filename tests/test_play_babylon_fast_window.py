"""End to end, in a real window: ``towerlab play babylon --variant fast`` under Xvfb, worked with the mouse and the
keys (xdotool) like three people at one desktop.

Red picks a tower from its supply with the mouse and sets it down in its area with blue; Tab passes the hands to
blue, who says End (done), then to green (End), then back to red, whose Enter ("stop") is refused with two of
eight nobles unplaced... red says End too: nobody builds any further, the round is scored (red has placed a piece more:
red wins), G begins round 2 on a cleared table. The window's pictures are grabbed from the X server at each step
(the panel, the construction areas drawn in the seated player's colour); what the game recorded is read back.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from desktop import Desktop, launch

from sim.viewer.control.camera import OrbitCamera

SIZE = (900, 600)
PLAYERS = ("red", "blue", "green")
MISSING = [tool for tool in ("Xvfb", "xdotool") if shutil.which(tool) is None]
pytestmark = [pytest.mark.skipif(bool(MISSING), reason=f"needs {' and '.join(MISSING)} (make test installs them)"),
              pytest.mark.window]


class Table(Desktop):
    """A running ``towerlab play babylon --variant fast`` and a person's mouse and keys, each waiting for the
    window to have seen it and to be idle or steady (its probe), never a fixed time."""

    def __init__(self, display: str, cwd: Path, record: Path):
        proc = launch(display, cwd, "play", "babylon", "--variant", "fast", "--players", ",".join(PLAYERS),
                      "--record", str(record), "--size", f"{SIZE[0]}x{SIZE[1]}")
        super().__init__(display, cwd, proc, "towerlab play", SIZE, settle=0.0, timeout=120.0)
        self.idle(timeout=300.0)

    def move(self, xy) -> dict:
        return self.point(*xy)

    def click(self, xy) -> dict:
        return self.tap(*xy)

    def key(self, key: str) -> dict:
        return self.keys(key)

    def quit(self) -> int:
        return super().quit(timeout=60.0)


def _near(picture: np.ndarray, colour, tol: float = 40.0) -> int:
    """How many pixels are within ``tol`` of ``colour`` (0..255 RGB)."""
    return int((np.abs(picture - np.asarray(colour, dtype=float)).max(axis=-1) < tol).sum())


def test_a_fast_round_worked_by_mouse_and_keys_in_a_window(display, tmp_path):
    from sim.games.setup import setup
    from sim.pieces import dimensions as dim
    from sim.replay import load_recording

    scene = setup("babylon", PLAYERS, mode="fast")
    camera = OrbitCamera(SIZE)
    camera.start(scene)  # the opening view the window shows
    tower = camera.pixel(np.array(scene.piece("red-tower-5").pos) + [0.0, 0.0, 0.011])  # the middle of its top
    target = camera.pixel(np.array([-0.15, -0.08, 0.0]))  # in red and blue's area
    rec = tmp_path / "fast.tlrec"
    table = Table(display, tmp_path, rec)
    try:
        table.key("F4")  # no stability marks over the pictures
        start = table.picture(tmp_path / "1-start.png")
        table.click(tower)  # red's hands pick it up
        for t in np.linspace(0.0, 1.0, 10):  # carry it across the table
            table.move(tower + (target - tower) * t)
        table.click(target)  # and set it down
        placed = table.picture(tmp_path / "2-placed.png")
        table.key("Tab")  # blue's hands
        blue = table.picture(tmp_path / "3-blue.png")
        table.key("End")
        table.key("Tab")  # green's
        table.key("End")
        table.key("Tab")  # red's again
        table.key("Return")  # stop!, refused: not every noble is placed
        refused = table.picture(tmp_path / "4-stop-refused.png")
        table.key("End")  # nobody builds any further: the round is over
        scored = table.picture(tmp_path / "5-scored.png")
        table.key("g")  # the next round
        cleared = table.picture(tmp_path / "6-round-2.png")
        assert table.quit() == 0, table.proc.stderr.read()[-2000:]
    finally:
        if table.proc.poll() is None:
            table.proc.kill()

    r = load_recording(rec)
    events = [(e.kind, dict(e.data)) for e in r.timeline_events]
    assert ("placed", {"player": "red", "pieces": ["red-tower-5"]}) in events
    refusals = [d for k, d in events if k == "refused"]
    assert len(refusals) == 1 and refusals[0]["rule"] == "stop" and "red has placed 0 of 8 nobles" in \
        refusals[0]["reason"]
    ended = [d for k, d in events if k == "round_ended"]
    assert ended == [{"round": 1, "reason": "nobody can build any further", "winners": ["red"],
                      "scores": {"red": 0, "blue": 0, "green": 0}}]
    acts = [(a.kind, a.actor) for a in r.actions if a.kind in ("seat", "done", "stop", "next_round")]
    assert acts == [("seat", "blue"), ("done", "blue"), ("seat", "green"), ("done", "green"), ("seat", "red"),
                    ("stop", "red"), ("done", "red"), ("next_round", "red")]
    # the pictures: red's tower left its supply and stood in the area; red's areas in red, then blue's in blue;
    # the panel changed with every step; the new round put the tower back
    red, blue_ = (np.array(dim.COLORS[c][:3]) * 255 for c in ("red", "blue"))
    assert _near(blue, blue_) > _near(placed, blue_) + 200  # blue's two areas drawn in blue
    assert _near(placed, red) > _near(blue, red)
    panel = (slice(0, 200), slice(0, 600))
    for a, b in ((start, placed), (blue, refused), (refused, scored), (scored, cleared)):
        assert np.abs(a[panel] - b[panel]).mean() > 0.5
    ids, poses = r.frame(len(r.times) - 1)  # the new round put the tower back in red's supply
    home = np.asarray(scene.piece("red-tower-5").pos)
    assert np.linalg.norm(poses[ids.index("red-tower-5")][:3] - home) < 1e-3
    ids, poses = r.frame(r.frame_at(ended_at(r)))
    assert np.linalg.norm(poses[ids.index("red-tower-5")][:2] - [-0.15, -0.08]) < 0.01  # where the mouse set it


def ended_at(r) -> float:
    return next(e.time for e in r.timeline_events if e.kind == "round_ended")
