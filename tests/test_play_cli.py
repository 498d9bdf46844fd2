"""``towerlab play`` from the command line: bad input is one line and exit 2; a scripted game offscreen is
recorded, and the same seed and actions give the same game."""

from __future__ import annotations

import json

import pytest
from helpers import one_line

from sim.cli import main


@pytest.mark.parametrize(("args", "says"), [
    (["moon"], "game: expected one of tohuwabohu, talo, babylon, got 'moon'"),
    (["talo", "--variant", "desert"], "--variant: talo plays green, island, fantasy, got 'desert'"),
    (["talo", "--players", "red,purple"], "--players: Talo's pawns are"),
    (["talo", "--variant", "fantasy", "--players", "solo"], "--players: Talo-Fantasy is for 2 to 4 players, got 1"),
    (["babylon", "--players", "red,blue"], "--players"),
    (["tohuwabohu", "--screenshot", "out.bmp", "--offscreen"], "expected a .png, .jpg or .jpeg"),
    (["talo", "--record", "r.tlrec", "--no-record", "--offscreen", "--exit"], "give one of them"),
])
def test_bad_input_is_one_line_and_exit_2(args, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["play", *args]) == 2
    assert says in one_line(capsys)


def test_a_malformed_game_action_names_its_file_line_and_field(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    moves = tmp_path / "moves.json"
    moves.write_text('[\n{"action": "throw"},\n{"action": "move-pawn", "cell": [12, 0], "level": 1}\n]\n')
    assert main(["play", "talo", "--actions", str(moves), "--offscreen", "--no-record"]) == 2
    line = one_line(capsys)
    assert "moves.json:3: actions[1].cell: expected two field numbers 0..9" in line and "[12, 0]" in line


def test_a_talo_action_is_no_action_of_talo_fantasy(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    moves = tmp_path / "moves.json"
    moves.write_text('[\n{"action": "throw"},\n{"action": "select-pawn"}\n]\n')
    assert main(["play", "talo", "--variant", "fantasy", "--actions", str(moves), "--offscreen", "--no-record"]) == 2
    assert "moves.json:3: actions[1]" in one_line(capsys)


def test_without_a_display_and_without_actions_nothing_opens(capsys, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    assert main(["play", "talo", "--no-record"]) == 2
    assert "no display" in one_line(capsys)


def test_a_scripted_game_offscreen_is_recorded_the_same_every_time(tmp_path, monkeypatch):
    from sim.replay import load_recording

    monkeypatch.chdir(tmp_path)
    moves = tmp_path / "moves.json"
    moves.write_text(json.dumps([{"action": "start", "cell": [0, 0]}, {"action": "start", "cell": [0, 9]},
                                 {"action": "throw"}, {"action": "end-turn"}, {"action": "throw"}]))
    got = []
    for k in range(2):
        rec = tmp_path / f"{k}.tlrec"
        assert main(["play", "talo", "--seed", "5", "--actions", str(moves), "--offscreen", "--record",
                     str(rec)]) == 0
        got.append([(e.kind, dict(e.data)) for e in load_recording(rec).events if e.kind in ("rolled", "turn_changed")])
    assert got[0] == got[1] and [k for k, _ in got[0]] == ["turn_changed", "rolled", "turn_changed", "rolled"]
    header = load_recording(tmp_path / "0.tlrec")
    assert header.players == ("red", "blue") and header.variant == "green" and header.header["seed"] == 5
    assert main(["penalty", str(tmp_path / "0.tlrec"), "--json"]) == 0  # judged by the base game's rules


def test_a_pick_the_rules_refuse_is_said_and_the_script_goes_on(tmp_path, monkeypatch):
    # a refused pick used to end the script with exit 2 (a refused drop did not): the rules' no is part of a game
    from sim.replay import load_recording

    monkeypatch.chdir(tmp_path)
    moves = tmp_path / "moves.json"
    moves.write_text(json.dumps([{"action": "start", "cell": [0, 0]}, {"action": "pick", "piece": "b3-1"},
                                 {"action": "start", "cell": [0, 9]}, {"action": "throw"}]))
    rec = tmp_path / "game.tlrec"
    assert main(["play", "talo", "--seed", "5", "--actions", str(moves), "--offscreen", "--record", str(rec)]) == 0
    kinds = [e.kind for e in load_recording(rec).events if e.kind in ("refused", "rolled")]
    assert kinds == ["refused", "rolled"]  # the pick before the throw refused, the game went on to the throw
