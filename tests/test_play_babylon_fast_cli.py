"""``towerlab play babylon --variant fast`` from the command line: bad input is one line and exit 2; a short game
offscreen is recorded with its variant, players and the referee's events."""

from __future__ import annotations

import json

import pytest
from helpers import one_line

from sim.cli import main


@pytest.mark.parametrize(("args", "says"), [
    (["--variant", "slow"], "--variant: babylon plays tactical, expert, fast, fast-expert, got 'slow'"),
    (["--variant", "fast", "--players", "red,blue"], "--players: Babylon takes 3 to 5 players, got 2"),
    (["--variant", "fast", "--players", "red,blue,red"], "--players: each colour plays once, got red, blue, red"),
])
def test_bad_input_is_one_line_and_exit_2(args, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["play", "babylon", *args, "--offscreen", "--no-record"]) == 2
    assert says in one_line(capsys)


def test_an_action_of_the_tactical_game_is_no_action_of_the_fast_one(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    moves = tmp_path / "moves.json"
    moves.write_text('[\n{"action": "seat", "player": "blue"},\n{"action": "end-turn"}\n]\n')
    assert main(["play", "babylon", "--variant", "fast", "--actions", str(moves), "--offscreen", "--no-record"]) == 2
    line = one_line(capsys)
    assert 'moves.json:3: actions[1].action: unknown action "end-turn"' in line and "next-round" in line


def test_a_short_fast_game_offscreen_is_recorded(tmp_path, monkeypatch):
    from sim.replay import load_recording

    monkeypatch.chdir(tmp_path)
    moves = tmp_path / "moves.json"
    moves.write_text(json.dumps([
        {"action": "seat", "player": "blue"}, {"action": "pick", "piece": "blue-tower-1"},
        {"action": "move-to", "at": [150.0, -80.0]}, {"action": "drop"},  # green and red's area: refused
        {"action": "pick", "piece": "blue-tower-1"}, {"action": "move-to", "at": [-150.0, 150.0]}, {"action": "drop"},
        {"action": "stop"}]))
    rec = tmp_path / "fast.tlrec"
    assert main(["play", "babylon", "--variant", "fast", "--players", "green,red,blue,yellow", "--actions",
                 str(moves), "--offscreen", "--record", str(rec)]) == 0
    r = load_recording(rec)
    assert r.variant == "fast" and r.players == ("green", "red", "blue", "yellow")
    events = [(e.kind, dict(e.data)) for e in r.events if e.kind in ("refused", "placed")]
    assert [k for k, _ in events] == ["refused", "placed", "refused"]
    assert events[0][1]["rule"] == "area" and "the two shared with red and yellow" in events[0][1]["reason"]
    assert events[1][1] == {"player": "blue", "pieces": ["blue-tower-1"]}
    assert "blue has placed 0 of 8 nobles" in events[2][1]["reason"]
    assert sum(1 for p in r.scene.pieces if p.owner == "blue" and p.kind == "babylon.tower") == 21  # four players
