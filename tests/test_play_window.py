"""End to end, in a real window: ``towerlab play`` under Xvfb — a whole scripted game to its winner, and a
person's keys (xdotool) reaching the referee; what the game recorded is read back.

Skipped, with the reason, where Xvfb or xdotool is missing (``make test`` installs them where apt is available).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from desktop import Desktop, launch

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "play"
SIZE = (900, 600)
TURN = 90
"""The card test's turn length (s), a house rule: a person's mouse needs more than 15 s on a loaded machine."""
MISSING = [tool for tool in ("Xvfb", "xdotool") if shutil.which(tool) is None]
pytestmark = [pytest.mark.skipif(bool(MISSING), reason=f"needs {' and '.join(MISSING)} (make test installs them)"),
              pytest.mark.window]


def _play(display: str, cwd: Path, *args: str) -> subprocess.Popen:
    return launch(display, cwd, "play", *args, "--size", f"{SIZE[0]}x{SIZE[1]}")


def _game(state: dict) -> dict:
    """The referee's part of a probe state."""
    return next(g for g in state["game"] if g.get("referee"))


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
    person = Mouse(display, tmp_path, _play(display, tmp_path, "talo", "--seed", "7", "--actions", str(opening),
                                            "--record", str(rec)))
    for key in ("x", "Return", "v"):  # red throws; ends the turn without building; blue looks at its routes
        person.key(key)
    person.quit()
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


class Mouse(Desktop):
    """A person's mouse and keys on one play window (xdotool), the window found by its title; each waits for the
    window to have seen it and to be idle (or, with a piece in hand, steady): its probe, never a fixed time."""

    def __init__(self, display: str, cwd: Path, proc: subprocess.Popen):
        super().__init__(display, cwd, proc, "towerlab play", SIZE, settle=0.0, timeout=120.0)
        self.idle(timeout=300.0)  # the first frames, and any scripted opening played

    def move(self, xy) -> dict:
        return self.point(*xy)

    def click(self, xy) -> dict:
        return self.tap(*xy)

    def carry(self, start, end, steps: int = 6) -> dict:
        """Click a piece at ``start`` (picked up), glide to ``end`` and click there (set down)."""
        self.click(start)
        for t in np.linspace(0.0, 1.0, steps)[1:]:
            self.move(np.asarray(start) + (np.asarray(end) - np.asarray(start)) * t)
        return self.click(end)

    def key(self, key: str) -> dict:
        return self.keys(key)

    def quit(self) -> None:
        code = super().quit(timeout=60.0)
        assert code == 0, self.proc.stderr.read()[-2000:]


def _opening_view(scene):
    from sim.viewer.control.camera import OrbitCamera

    camera = OrbitCamera(SIZE)
    camera.start(scene)
    return camera


def test_talo_fantasy_in_a_window_with_the_keys_and_the_mouse(display, tmp_path):
    from sim.games.play.fantasy import FantasySession
    from sim.games.play.judge import statics_judge
    from sim.games.registry import fantasy_table, game_rng

    seed = 2
    first = FantasySession(("ann", "ben"), game_rng(seed), statics_judge)
    first.act("throw", {}, None)
    length = first.view()["options"][0][0]  # what ann's first throw allows
    table = fantasy_table()
    block = f"b{length}-1"
    camera = _opening_view(table)
    at_block = camera.pixel(np.array(table.piece(block).pos) + [0.0, 0.0, 0.01])
    at_middle = camera.pixel([0.0, 0.02, 0.0])
    rec = tmp_path / "fantasy.tlrec"
    proc = _play(display, tmp_path, "talo", "--variant", "fantasy", "--players", "ann,ben", "--seed", str(seed),
                 "--record", str(rec))
    person = Mouse(display, tmp_path, proc)
    person.key("x")  # ann throws
    person.carry(at_block, at_middle)  # picks the block the throw allows (taking it) and sets it down mid-table
    person.key("Return")  # ends the turn
    person.key("x")  # ben throws
    person.key("Return")
    person.key("End")  # the goal is reached
    person.grab(tmp_path / "fantasy.png")
    person.quit()
    events = _events(rec)
    placed = [dict(e.data) for e in events if e.kind == "placed"]
    assert placed == [{"player": "ann", "pieces": [block]}]
    assert [dict(e.data)["player"] for e in events if e.kind == "turn_changed"] == ["ann", "ben", "ann"]
    assert len([e for e in events if e.kind == "rolled"]) == 2
    over = [dict(e.data) for e in events if e.kind == "game_over"]
    assert over == [{"reason": "goal reached", "winners": ["ann", "ben"], "loser": None}]
    assert (tmp_path / "fantasy.png").stat().st_size > 10_000


def test_tohuwabohu_a_card_fulfilled_with_the_mouse_in_a_window(display, tmp_path):
    """The script builds the card's example but its last piece in ann's turns and waits for her next turn; then
    a person's mouse picks the last level from beside the area and sets it on the pillar: the card is set aside."""
    from play_tohuwabohu_plan import opening_for_the_mouse

    from sim.games.tohuwabohu import CARDS
    from sim.viewer.play.games import new_game

    card = "levels-1-3-one-pillar"
    # a house rule's 90 s turns, the last piece left with at least 60 s on ann's clock: a person's mouse on a
    # loaded machine (probe waits between its steps) took more than the rulebook's 15 s
    actions, piece, pose = opening_for_the_mouse(card, ("ann", "bob"), 15, TURN, left=60.0)
    script = tmp_path / "opening.json"
    script.write_text(json.dumps(actions))
    scene = new_game("tohuwabohu", ("ann", "bob"), None, 15, TURN).scene
    camera = _opening_view(scene)
    level = scene.piece(piece)
    at_level = camera.pixel(np.array(level.pos) + [0.0, 0.0, 0.002])
    at_pillar = camera.pixel([pose[0], pose[1], pose[2] - 0.0015])  # the top of the brick standing on end
    rec = tmp_path / "mouse.tlrec"
    proc = _play(display, tmp_path, "tohuwabohu", "--players", "ann,bob", "--seed", "15", "--turn-seconds",
                 str(TURN), "--actions", str(script), "--record", str(rec))
    person = Mouse(display, tmp_path, proc)  # the opening played (the window waits for its script)
    state = person.state()
    assert _game(state)["player"] == "ann" and _game(state)["clock"]["time_left"] > 50.0, _game(state)
    person.carry(at_level, at_pillar)
    person.idle(ready=lambda s: any(m.startswith("ann fulfilled ") for m in s["messages"]))
    person.grab(tmp_path / "card.png")
    person.quit()
    events = _events(rec)
    fulfilled = [dict(e.data) for e in events if e.kind == "card_fulfilled"]
    assert fulfilled == [{"player": "ann", "card": card}]
    # ann's next card is up in the card tray, drawn as the cards command draws it: its frame in its colour
    from sim.games.play.tohuwabohu import TohuwabohuSession
    from sim.games.registry import game_rng
    from sim.pieces import dimensions as dim
    from sim.render.image import load_png
    from sim.viewer.window.play import tray

    deal = TohuwabohuSession(("ann", "bob"), game_rng(15))
    following = deal.state.hand("ann").pile[0]
    half = SIZE[1] / 2  # pixels per unit of the window's height (2 units)
    x0, w = tray.MARGIN * half, tray.HEIGHT["basic"] * tray.CARD_ASPECT * half
    top = SIZE[1] - (tray.BOTTOM + tray.HEIGHT["basic"]) * half
    shot, h = load_png(tmp_path / "card.png")[..., :3].astype(float), tray.HEIGHT["basic"] * half
    band = shot[int(top + 4):int(top + 12), int(x0 + 0.2 * w):int(x0 + 0.8 * w)]
    want = np.array(dim.COLORS[CARDS[following].color][:3]) * 255
    assert np.abs(band.reshape(-1, 3).mean(axis=0) - want).max() < 40, (following, band.mean(axis=(0, 1)))
    picture = shot[int(top + 0.3 * h):int(top + 0.4 * h), int(x0 + 0.12 * w):int(x0 + 0.22 * w)]
    assert picture.mean() > 170  # the rendered picture's light ground, not a card still being drawn
    picks = [a.piece for a in load_actions_of(rec) if a.kind == "pick"]
    assert picks[-1] == piece and picks.count(piece) == 1  # the last level: by the mouse, not the script


def _wait_for(rec: Path, proc, done) -> None:
    """Until ``done(recording)`` holds of the recording (written a chunk a second as the game goes)."""
    from sim.replay import RecordingError, load_recording

    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()[-2000:]
        try:
            if done(load_recording(rec)):
                return
        except RecordingError:
            pass
        time.sleep(0.25)
    raise AssertionError(f"{rec}: the script did not get there")
