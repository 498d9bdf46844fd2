"""Computer players in a real ``towerlab play`` window under Xvfb: they decide on their own thread while the window
goes on drawing, their hand carries each piece over the table at a person's pace (the pixels change where it
goes), I opens their reasoning in a panel of its own (readable, apart from the other texts), K hurries a move.
The test waits on the window's probe, never a fixed time."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from desktop import Desktop, contrast, launch, overlaps, pixel

from sim.viewer.window.theme import AA

SIZE = (1000, 700)
MISSING = [tool for tool in ("Xvfb", "xdotool") if shutil.which(tool) is None]
pytestmark = [pytest.mark.skipif(bool(MISSING), reason=f"needs {' and '.join(MISSING)} (make test installs them)"),
              pytest.mark.window]


def bots(s: dict) -> dict:
    return next((g for g in s.get("game") or [] if "seats" in g), {})


def carried(s: dict) -> str | None:
    return next(iter((s.get("hands") or {}).values()), None) if bots(s).get("moving") else None


def test_computer_players_play_in_the_window_by_hand_show_their_reasoning_and_hurry(display, tmp_path):
    proc = launch(display, tmp_path, "play", "talo", "--players", "red,blue", "--bot", "red:1", "--bot", "blue:2",
                  "--no-record", "--size", f"{SIZE[0]}x{SIZE[1]}")
    window = Desktop(display, tmp_path, proc, "towerlab play", SIZE, timeout=120.0)
    try:
        # a placement under way: the piece in the computer's hand travels over the table, frame after frame
        s = window.wait(lambda s: carried(s) is not None, timeout=300.0, what="a computer player carrying a piece")
        piece = carried(s)
        first = np.asarray(s["poses"][s["ids"].index(piece)])
        before = window.picture(tmp_path / "before.png")
        s = window.wait(lambda t: t["frame"] > s["frame"] + 10 and carried(t) == piece and np.linalg.norm(
            np.asarray(t["poses"][t["ids"].index(piece)])[:3] - first[:3]) > 0.02, timeout=120.0,
            what="the piece carried on")
        later = window.picture(tmp_path / "later.png")
        x, y = pixel(s, s["poses"][s["ids"].index(piece)][:3])
        h, w = later.shape[:2]
        box = later[max(int(y) - 12, 0):min(int(y) + 12, h), max(int(x) - 12, 0):min(int(x) + 12, w)].astype(float)
        was = before[max(int(y) - 12, 0):min(int(y) + 12, h), max(int(x) - 12, 0):min(int(x) + 12, w)]
        assert np.abs(box - was).mean() > 4.0  # the pixels changed where the piece went

        # I: the reasoning, in a panel of its own, readable and apart from every other text
        s = window.keys("i", idle=False)
        s = window.wait(lambda s: any("level" in t["text"] and "I hides this" in t["text"] for t in s["texts"]),
                        what="the reasoning panel")
        panel = next(t for t in s["texts"] if "Computer players" in t["text"])
        assert "red (level 1), blue (level 2)" in panel["text"]
        shot = window.picture(tmp_path / "reasoning.png")
        assert contrast(shot, panel["box"]) >= AA
        assert overlaps(s["texts"]) == []

        # K: the move under way is made at once
        s = window.wait(lambda s: carried(s) is not None, timeout=300.0, what="another piece carried")
        made = bots(s)["made"]
        window.keys("k", idle=False)
        s = window.wait(lambda t: bots(t)["made"] > made, timeout=30.0, what="the hurried move made")
        assert bots(s)["refused"] == 0 and bots(s)["failed"] is None
        assert window.quit() == 0
    finally:
        if proc.poll() is None:
            proc.kill()
