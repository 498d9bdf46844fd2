"""``towerlab babylon score`` and ``check-turn``: JSON and text output, verdicts, bad input."""

from __future__ import annotations

import json

import pytest

from sim.cli import main
from sim.games.babylon.construct import babylon_scene, bridge, tower
from sim.scene import load_scene, save_scene
from tests.helpers import SCENES

BABYLON = SCENES / "babylon"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_score_tactical_json_gives_points_per_level_and_reasons(capsys):
    code, out, _ = run(capsys, "babylon", "score", BABYLON / "tactical-example.json", "--mode", "tactical",
                       "--no-physics", "--json")
    assert code == 0
    green = json.loads(out)["players"]["green"]
    assert green["total"] == 7 and green["levels"] == {"3": 3, "5": 5, "7": 0}
    assert green["bridge_penalty"] == -1
    assert green["nobles"]["green-7L"]["reason"] == "level 7: tie between green and red (3 each)"


def test_score_fast_json_gives_points_per_area(capsys):
    code, out, _ = run(capsys, "babylon", "score", BABYLON / "fast-example.json", "--mode", "fast",
                       "--no-physics", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["players"]["green"]["areas"] == {"red": 10, "blue": 6}
    assert data["players"]["green"]["total"] == 6
    assert data["players"]["green"]["nobles"]["green-4"]["reason"] == "a large noble (red) stands on tower gr-e3"
    assert data["winners"] == ["green"]


def test_score_fast_with_knocks(capsys):
    code, out, _ = run(capsys, "babylon", "score", BABYLON / "fast-example.json", "--mode", "fast", "--no-physics",
                       "--knock", "blue:rb-s1,rb-s3", "--knock", "red:green-2b", "--json")
    players = json.loads(out)["players"]
    assert players["blue"]["knocked_penalty"] == -2
    assert players["red"]["out_of_round"] and players["red"]["total"] is None


def test_score_text_output(capsys):
    code, out, _ = run(capsys, "babylon", "score", BABYLON / "tactical-example.json", "--no-physics")
    assert code == 0
    assert "green: 0 + 5 + 3 - 1 bridge(s) left = 7" in out and "Winner: green" in out
    code, out, _ = run(capsys, "babylon", "score", BABYLON / "fast-example.json", "--mode", "fast", "--no-physics")
    assert "red: 10, blue: 6" in out and "Round won by: green" in out


def test_check_turn_legal_and_illegal(capsys, tmp_path):
    code, out, _ = run(capsys, "babylon", "check-turn", BABYLON / "first-turn.json", BABYLON / "second-turn.json",
                       "--player", "blue", "--no-physics", "--json")
    assert code == 0
    verdict = json.loads(out)
    assert verdict["legal"] and verdict["first_round"] and len(verdict["placed"]) == 4
    code, out, _ = run(capsys, "babylon", "check-turn", BABYLON / "first-turn.json", BABYLON / "second-turn.json",
                       "--player", "green", "--no-physics")
    assert code == 0
    assert "illegal turn" in out and "not-yours" in out


@pytest.mark.parametrize("args, message", [
    (["score", "first-turn.json", "--mode", "slow"], "--mode: expected tactical or fast"),
    (["score", "fast-example.json", "--mode", "fast", "--knock", "green"], "--knock: expected COLOUR:ID"),
    (["score", "fast-example.json", "--mode", "fast", "--knock", "green:nope"], "\"nope\", which is not a piece"),
    (["score", "fast-example.json", "--knock", "green:gr-c2"], "only in the fast game"),
    (["check-turn", "first-turn.json", "second-turn.json", "--player", "pink", "--no-physics"],
     "expected one of red, blue, green, yellow"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    args = [str(BABYLON / a) if a.endswith(".json") else a for a in args]
    code = main(["babylon", *args, "--no-physics"] if args[0] == "score" else ["babylon", *args])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_scene_without_players_is_refused(capsys, tmp_path):
    path = save_scene(babylon_scene([tower("t", 0, 0)], ()), tmp_path / "no-players.json")
    assert main(["babylon", "score", str(path), "--no-physics"]) == 2
    assert "players: required" in capsys.readouterr().err


@pytest.mark.slow
def test_check_turn_finds_a_building_that_falls(capsys, tmp_path):
    first = load_scene(BABYLON / "first-turn.json")
    overhang = [bridge("u-bridge", 50, 0, 2, owner="blue"), *(tower(f"u{x}", x, 0, 3, owner="blue")
                                                               for x in (25, 50, 75))]
    after = save_scene(first.with_pieces([*first.pieces, *overhang]), tmp_path / "after.json")
    code, out, _ = run(capsys, "babylon", "check-turn", BABYLON / "first-turn.json", after, "--player", "blue",
                       "--json")
    verdict = json.loads(out)
    assert code == 0 and not verdict["legal"]
    unstable = [v for v in verdict["violations"] if v["rule"] == "unstable"]
    assert unstable and "u-bridge" in unstable[0]["pieces"]


@pytest.mark.slow
def test_score_settles_the_scene_first(capsys):
    code, out, _ = run(capsys, "babylon", "score", BABYLON / "fast-example.json", "--mode", "fast", "--json")
    data = json.loads(out)
    assert code == 0 and data["settled"]
    assert data["players"]["green"]["areas"] == {"red": 10, "blue": 6}


def test_an_empty_score_names_no_winner(capsys, tmp_path):
    empty = tmp_path / "empty.json"
    save_scene(babylon_scene([], ("red", "blue", "green")), empty)
    code, out, _ = run(capsys, "babylon", "score", empty, "--no-physics")
    assert code == 0 and "Winner:" not in out
    assert "No winner: red, blue and green tie on -6 points and none of them scored a level" in out


def test_an_illegal_position_is_reported_next_to_the_score(capsys, tmp_path):
    from sim.games.babylon.construct import noble

    t = tower("t", 0, 0, owner="red")
    scene = tmp_path / "two-red.json"
    save_scene(babylon_scene([t, noble("r1", t, "small", "red", (-6.2, 0)), noble("r2", t, "small", "red", (6.2, 0))],
                             ("red", "blue", "green")), scene)
    code, out, _ = run(capsys, "babylon", "score", scene, "--no-physics")
    assert code == 0 and "- noble-colour: tower t holds 2 red nobles; one of a colour per tower" in out
    code, out, _ = run(capsys, "babylon", "score", scene, "--no-physics", "--json")
    assert [v["rule"] for v in json.loads(out)["violations"]] == ["noble-colour"]


def test_check_turn_never_cuts_a_sentence_off(capsys):
    code, out, _ = run(capsys, "babylon", "check-turn", BABYLON / "tactical-example.json",
                       BABYLON / "tactical-example.json", "--player", "yellow", "--no-physics")
    assert code == 0 and "- too-few: 0 pieces placed; a turn places 4 or 5, and yellow can place at least 4" in out
    assert not out.rstrip().endswith(" can")
