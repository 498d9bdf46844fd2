"""``towerlab talo check / moves / play`` (grid rules only: the physics verdict is tested in test_talo_physics)."""

import json

import pytest

from sim.cli import main
from sim.games.talo.script import GAME_FORMAT, ScriptError, play_script
from tests.helpers import SCENES

STAIRS = {"format": "towerlab-scene/1", "game": "talo", "pieces": [
    {"id": "a", "kind": "talo.block", "length": 1, "cell": [3, 4], "layer": 0, "axis": "z"},
    {"id": "b", "kind": "talo.block", "length": 2, "cell": [4, 4], "layer": 0, "axis": "z"},
    {"id": "c", "kind": "talo.block", "length": 4, "cell": [5, 4], "layer": 0, "axis": "z"},
    {"id": "out", "kind": "talo.block", "length": 3, "cell": [8, 0], "layer": 0, "axis": "x"},
    {"id": "p", "kind": "talo.pawn", "color": "red", "cell": [2, 4], "layer": 0},
    {"id": "q", "kind": "talo.pawn", "color": "blue", "cell": [0, 0], "layer": 0}]}


def run(tmp_path, capsys, *args, scene=STAIRS):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scene))
    code = main([a if a != "SCENE" else str(path) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_check_json_reports_violations_heights_and_pawns(tmp_path, capsys):
    code, out, _ = run(tmp_path, capsys, "talo", "check", "SCENE", "--no-physics", "--json")
    assert code == 0
    r = json.loads(out)
    assert r["violations"] == [{"rule": "protrusion", "pieces": ["out"], "reason": r["violations"][0]["reason"]}]
    assert len(r["heights"]) == 10 and all(len(row) == 10 for row in r["heights"])
    assert r["heights"][5][4] == 4 and r["heights"][3][4] == 1 and r["heights"][8][0] == 1
    assert r["pawns"] == {"red": {"cell": [2, 4], "level": 0, "max_reachable_level": 2},
                          "blue": {"cell": [0, 0], "level": 0, "max_reachable_level": 0}}
    assert r["legal"] is False and r["balance"] is None


def test_check_text_shows_a_height_map(tmp_path, capsys):
    code, out, _ = run(tmp_path, capsys, "talo", "check", "SCENE", "--no-physics")
    assert code == 0 and "protrusion" in out and "R0" in out and "can reach level 2" in out


def test_moves_json_lists_fields_levels_and_routes(tmp_path, capsys):
    code, out, _ = run(tmp_path, capsys, "talo", "moves", "SCENE", "--pawn", "red", "--json")
    r = json.loads(out)
    assert code == 0 and r["max_reachable_level"] == 2 and r["blocked"] is False
    assert r["reachable"] == [
        {"cell": [3, 4], "level": 1, "steps": 1, "route": [[2, 4, 0], [3, 4, 1]]},
        {"cell": [4, 4], "level": 2, "steps": 2, "route": [[2, 4, 0], [3, 4, 1], [4, 4, 2]]}]


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    code, _, err = run(tmp_path, capsys, "talo", "moves", "SCENE", "--pawn", "green")
    assert code == 2 and err.count("\n") == 1 and "no green pawn" in err
    bad = dict(STAIRS, board="table", pieces=[])
    code, _, err = run(tmp_path, capsys, "talo", "check", "SCENE", "--no-physics", scene=bad)
    assert code == 2 and err.count("\n") == 1 and "s.json: board:" in err and "no Talo grid" in err


def test_play_replays_the_example_game(capsys, tmp_path):
    out_scene = tmp_path / "final.json"
    code = main(["talo", "play", str(SCENES / "talo/games/first-climb.talo-game"), "--no-physics", "--json",
                 "--out", str(out_scene)])
    r = json.loads(capsys.readouterr().out)
    assert code == 0 and r["levels"] == {"red": 3, "blue": 3} and r["stock_left"] == 46
    assert main(["talo", "check", str(out_scene), "--no-physics", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["legal"] is True


SCRIPT = {"format": GAME_FORMAT, "starts": {"red": [2, 2]}, "turns": [
    {"rolls": [5], "take": [1, 4], "actions": [
        {"place": [{"length": 1, "cell": [3, 2], "layer": 0, "axis": "z"}]},
        {"move": {"cell": [3, 2], "level": 1}}]}]}


def test_a_script_names_where_it_goes_wrong():
    assert play_script(SCRIPT).levels() == {"red": 1}
    bad = json.loads(json.dumps(SCRIPT))
    bad["turns"][0]["actions"][1]["move"]["level"] = 2
    with pytest.raises(ScriptError, match=r"turns\[0\]\.actions\[1\]: turn: the red pawn cannot reach"):
        play_script(bad, source="g")
    bad = json.loads(json.dumps(SCRIPT))
    bad["turns"][0]["actions"][0]["place"][0] = {"length": 4, "cell": [8, 2], "layer": 0, "axis": "x"}
    with pytest.raises(ScriptError, match="protrusion"):
        play_script(bad)
    with pytest.raises(ScriptError, match=r"turns\[0\]\.rolls: required without a seed"):
        play_script({**SCRIPT, "turns": [{"take": [5]}]})
    with pytest.raises(ScriptError, match=r"turns\[0\]\.colour: unknown field"):
        play_script({**SCRIPT, "turns": [{"colour": 1}]})


def test_a_seeded_script_throws_its_own_dice():
    assert play_script({**SCRIPT, "seed": 4, "turns": []}).turn == 1
    with pytest.raises(ScriptError, match="not allowed for a throw"):
        play_script({**SCRIPT, "seed": 4, "turns": [{"take": [11]}]})


def test_the_judge_sees_each_placement_without_pawns():
    seen = []

    def judge(building):
        seen.append(sorted(p.id for p in building.pieces))
        from sim.games.talo import Verdict
        return Verdict.standing()

    play_script(SCRIPT, judge)
    assert seen == [["b1"]]


def test_auto_plays_a_seeded_game_and_writes_a_replayable_script(tmp_path, capsys):
    script = tmp_path / "g.talo-game"
    assert main(["talo", "auto", "--no-physics", "--seed", "2", "--players", "red,blue", "--script", str(script),
                 "--json"]) == 0
    played = json.loads(capsys.readouterr().out)
    assert main(["talo", "play", str(script), "--no-physics", "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["levels"] == played["levels"] and replayed["outcome"] == played["outcome"]
    assert main(["talo", "auto", "--no-physics", "--players", "red,red"]) == 2
    assert main(["talo", "auto", "--no-physics", "--players", "red,purple"]) == 2
    assert "purple" in capsys.readouterr().err


TOP = {"format": "towerlab-scene/1", "game": "talo", "players": ["red", "blue"], "pieces": [
    {"id": "ten", "kind": "talo.block", "length": 10, "cell": [3, 3], "layer": 0, "axis": "z"},
    {"id": "nine", "kind": "talo.block", "length": 9, "cell": [4, 3], "layer": 0, "axis": "z"},
    {"id": "steps", "kind": "talo.block", "length": 10, "cell": [4, 4], "layer": 0, "axis": "z"},
    {"id": "pawn-red", "kind": "talo.pawn", "color": "red", "cell": [3, 3], "layer": 10},
    {"id": "pawn-blue", "kind": "talo.pawn", "color": "blue", "cell": [4, 3], "layer": 9}]}


@pytest.mark.parametrize("args", [("talo", "check", "SCENE", "--no-physics"), ("talo", "moves", "SCENE", "--pawn",
                                                                                 "blue")])
def test_height_maps_keep_their_columns_with_a_pawn_on_level_10(tmp_path, capsys, args):
    code, out, _ = run(tmp_path, capsys, *args, scene=TOP)
    lines = out.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("0 ") and "(i →" in line)
    rows = [line for line in lines if line[:2].strip().isdigit() and line is not header][:10]
    width = len(header.split("(")[0].rstrip())
    assert code == 0 and all(len(r.rstrip()) == width for r in rows), rows
    row3 = next(r for r in rows if r.startswith(" 3 "))
    column = {i: header.index(f" {i} ") + 1 for i in range(10)}  # where each column's number ends
    assert row3[column[3] - 2:column[3] + 1] == "R10" and row3[column[4] - 1:column[4] + 1] == "B9"
