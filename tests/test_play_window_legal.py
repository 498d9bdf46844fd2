"""The legal moves in a real ``towerlab play`` window under Xvfb, one game each: while a piece is carried, the
window draws a ring at every place the referee lists and nowhere else (read from the pixels), its ghost is red
where the referee would refuse the drop with the rule written under it (its contrast read from the pixels), and
blue where it would accept it. The window's probe says what it highlights and how it judged the ghost; the test
waits on it, never a fixed time."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from desktop import Desktop, contrast, launch, pixel

from sim.games.setup import setup
from sim.geometry.transforms import transform_points
from sim.viewer.play.legal import PLACE, ring, ring_radius
from sim.viewer.window.theme import AA

DATA = Path(__file__).parent / "data" / "play"
SIZE = (900, 600)
MISSING = [tool for tool in ("Xvfb", "xdotool") if shutil.which(tool) is None]
pytestmark = [pytest.mark.skipif(bool(MISSING), reason=f"needs {' and '.join(MISSING)} (make test installs them)"),
              pytest.mark.window]

TALO = [{"action": "start", "cell": [0, 0]}, {"action": "start", "cell": [0, 9]}, {"action": "throw"},
        {"action": "take", "blocks": [1, 3]}, {"action": "pick", "piece": "b3-1"}, {"action": "rotate"},
        {"action": "move-to", "at": [90, -90]}]  # seed 7: fields 9 to 11 of the front row, off the grid
BABYLON = json.loads((DATA / "babylon-first-turn.json").read_text())[:13] + [
    {"action": "pick", "piece": "red-tower-2"}, {"action": "move-to", "at": [-40, 60]}]  # on a bridge, off its spots
TOHUWABOHU = [{"action": "pick", "piece": "level-quad-1"}, {"action": "move-to", "at": [0, 0]}, {"action": "drop"},
              {"action": "wait", "seconds": 1.0}, {"action": "pick", "piece": "figure-red-1"},
              {"action": "move-to", "at": [0, 0]}]  # a figure over the level: its points free


def cyan(picture: np.ndarray) -> np.ndarray:
    """(h, w) bool: the pixels of the rings' colour."""
    return np.linalg.norm(picture - np.asarray(PLACE[:3]) * 255.0, axis=2) < 70.0


def silhouette(state: dict, piece, pose) -> Path:
    """The outline on screen (pixels) of ``piece``'s bounding box at ``pose``."""
    from matplotlib.path import Path
    from scipy.spatial import ConvexHull

    px = np.array([pixel(state, p) for p in transform_points(piece.shape.box_corners, pose[:3], pose[3:])])
    return Path(px[ConvexHull(px).vertices])


def ghost_tint(state: dict, piece, shot: np.ndarray, plain: np.ndarray, boxes) -> tuple[float, float]:
    """How the ghost changes the picture: the shares of the pixels of its box's outline on screen (not those of
    the carried piece over it, of a ring, of ``boxes``) that it made clearly redder, and clearly bluer."""
    h, w = shot.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    points = np.column_stack([xx.ravel() + 0.5, yy.ravel() + 0.5])
    legal = state["game"][0]["legal"]["right"]
    inside = silhouette(state, piece, legal["ghost"]["pose"]).contains_points(points)
    held = state["poses"][state["ids"].index(piece.id)]
    inside &= ~silhouette(state, piece, held).contains_points(points)
    inside &= ~cyan(shot).ravel()
    for x0, y0, x1, y1 in boxes:
        inside &= ~((points[:, 0] >= x0) & (points[:, 0] <= x1) & (points[:, 1] >= y0) & (points[:, 1] <= y1))
    d = (shot - plain).reshape(-1, 3)[inside]
    assert len(d) > 30, f"only {len(d)} pixels of the ghost show"
    return float(np.mean(d[:, 0] - d[:, 2] > 12.0)), float(np.mean(d[:, 2] - d[:, 0] > 12.0))


@pytest.mark.parametrize("game, players, args, script, piece, rule", [
    ("talo", None, ("--seed", "7"), TALO, "b3-1", "protrusion"),
    ("babylon", ("red", "blue", "green"), (), BABYLON, "red-tower-2", "bridge-spot"),
    ("tohuwabohu", ("ann", "bob"), ("--seed", "3", "--turn-seconds", "600"), TOHUWABOHU, "figure-red-1", None),
])
def test_the_window_rings_the_legal_places_and_reddens_a_refused_ghost(display, tmp_path, game, players, args, script,
                                                                       piece, rule):
    (tmp_path / "script.json").write_text(json.dumps(script))
    if players:
        args = ("--players", ",".join(players), *args)
    proc = launch(display, tmp_path, "play", game, *args, "--actions", "script.json", "--no-record", "--size",
                  f"{SIZE[0]}x{SIZE[1]}")
    carried = setup(game, players).piece(piece)
    window = Desktop(display, tmp_path, proc, "towerlab play", SIZE, settle=0.0, timeout=120.0)

    def judged(s):
        legal = (s["game"] or [{}])[0].get("legal", {}).get("right")
        return not s["busy"] and not s["scripted"] and legal is not None and not legal["pending"]
    state = window.steady(ready=judged, timeout=300.0)
    legal = state["game"][0]["legal"]["right"]
    assert legal["piece"] == piece and legal["places"] and legal["ghost"]["rule"] == rule
    shot = window.picture(tmp_path / "carried.png")

    # a ring at the places: each drawn where the probe says (most; some lie behind a piece or the label) ...
    mask = cyan(shot)
    ys, xs = np.nonzero(mask)
    r = ring_radius(carried)
    rings = [np.array([pixel(state, p) for p in ring(point, r)]) for point in legal["places"]]
    found = 0
    for px in rings:
        near = [np.any((np.abs(xs - x) <= 2) & (np.abs(ys - y) <= 2)) for x, y in px]
        found += np.mean(near) >= 0.25
    assert found >= 0.6 * len(rings), f"{found} of {len(rings)} rings seen"
    # ... and nothing of the rings' colour anywhere else
    every = np.vstack(rings)
    far = [np.min(np.hypot(every[:, 0] - x, every[:, 1] - y)) > 5.0 for x, y in zip(xs, ys)]
    assert mask.sum() > 50 and np.mean(far) < 0.03, f"{np.sum(far)} of {mask.sum()} ring-coloured pixels elsewhere"

    texts = [t for t in state["texts"] if t["text"].startswith("not here")]
    if rule is None:
        assert not texts
    else:
        assert len(texts) == 1 and f"not here ({rule}):" in texts[0]["text"]
        assert contrast(shot, texts[0]["box"]) >= AA
    window.keys("Escape", idle=False)  # put back: the ghost goes, what lay behind it shows
    after = window.idle(after=state, timeout=120.0)
    assert not after["hands"] and after["game"][0]["legal"] == {}
    plain = window.picture(tmp_path / "put-back.png")
    assert cyan(plain).sum() == 0  # nothing carried, nothing ringed
    redder, bluer = ghost_tint(state, carried, shot, plain, [t["box"] for t in texts])
    tinted, other = (bluer, redder) if rule is None else (redder, bluer)  # blue where accepted, red where refused
    assert tinted > 0.25 and tinted > 2.5 * other, (redder, bluer)  # (its outline drawn blue over a red ghost)
    assert window.quit(timeout=60.0) == 0
