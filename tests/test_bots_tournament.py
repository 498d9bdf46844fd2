"""``towerlab tournament``: the same games from a seed on one core and on two, the standings and Elo, every game a
recording the replay opens, Ctrl-C keeping the finished games, bad input one line."""

from __future__ import annotations

import csv
import json

import pytest

from sim.bots import tournament as tour
from sim.cli import main

ARGS = ["tournament", "talo", "--bots", "1,2", "-n", "4", "--seed", "9", "--max-actions", "14"]


def _csv(path):
    with open(path, newline="") as f:
        return [{k: v for k, v in row.items() if k != "cpu_max_s"} for row in csv.DictReader(f)]


def test_the_same_seed_plays_the_same_games_on_one_core_and_on_two(tmp_path, capsys):
    assert main([*ARGS, "-j", "1", "-o", str(tmp_path / "one.csv"), "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert main([*ARGS, "-j", "2", "-o", str(tmp_path / "two.csv"), "--json"]) == 0
    two = json.loads(capsys.readouterr().out)
    rows = _csv(tmp_path / "one.csv")
    assert rows == _csv(tmp_path / "two.csv") and len(rows) == 4
    assert one["levels"] == two["levels"] and one["games"] == 4
    assert [r["levels"] for r in rows] == ["1;2", "2;1", "1;2", "2;1"]  # every level from every seat
    assert all(r["refused"] == "0" for r in rows)
    assert (tmp_path / "one.png").read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == [f"game-{k:04d}.tlrec" for k in range(4)]
    assert main(["replay", str(tmp_path / "one" / "game-0000.tlrec"), "--summary"]) == 0
    assert "session recording of talo (green)" in capsys.readouterr().out


def test_a_different_seed_plays_other_games():
    a = [e.seed for e in tour.schedule("talo", None, [1, 2], 4, 9)]
    b = [e.seed for e in tour.schedule("talo", None, [1, 2], 4, 10)]
    assert len(set(a)) == 4 and set(a).isdisjoint(b)


def test_a_babylon_schedule_seats_three_levels_and_turns_them():
    entries = tour.schedule("babylon", None, [1, 2, 3], 3, 0)
    assert [list(e.levels.values()) for e in entries] == [[1, 2, 3], [2, 3, 1], [3, 1, 2]]


def _result(levels: dict, winners: list, scores: dict) -> dict:
    return {"game": "talo", "variant": "green", "players": list(levels), "levels": levels, "seed": 0,
            "outcome": {"winners": winners, "loser": None, "scores": scores}, "ended": "over", "moves": []}


def test_standings_count_wins_draws_and_losses_and_rate_the_stronger_higher():
    games = [_result({"a": 1, "b": 2}, ["b"], {"a": 0, "b": 10})] * 8 + \
        [_result({"a": 2, "b": 1}, ["b"], {"a": 0, "b": 10})] * 2 + [_result({"a": 1, "b": 2}, [], {"a": 5, "b": 5})]
    table = tour.standings(games, [1, 2], seed=3)
    one, two = table["levels"]
    assert (one["wins"], one["draws"], one["losses"]) == (2, 1, 8)
    assert (two["wins"], two["draws"], two["losses"]) == (8, 1, 2)
    assert one["elo"] == 1000.0 and two["elo_low"] < two["elo"] < two["elo_high"]
    # Bradley-Terry on 8.5 of 11 points: the odds 8.5/2.5, 400 log10 of it (less a little for the ridge)
    assert two["elo"] == pytest.approx(1000 + 400 * 0.5315, abs=15)
    assert table["head_to_head"][0]["won"] == 8 and table["head_to_head"][0]["drawn"] == 1


def test_ctrl_c_keeps_the_finished_games_and_prints_the_standings(monkeypatch, tmp_path, capsys):
    real = tour.play_entry
    calls = []

    def interrupted(entry):
        calls.append(entry["index"])
        if len(calls) > 2:
            raise KeyboardInterrupt
        return real(entry)

    monkeypatch.setattr(tour, "play_entry", interrupted)
    assert main([*ARGS, "-j", "1", "-o", str(tmp_path / "r.csv"), "--json"]) == 130
    out = json.loads(capsys.readouterr().out)
    assert out["interrupted"] and out["games"] == 2 and out["planned"] == 4
    assert len(_csv(tmp_path / "r.csv")) == 2


@pytest.mark.parametrize(("args", "message"), [
    (["chess", "-n", "2"], "game: expected one of tohuwabohu, talo, babylon, got 'chess'"),
    (["talo", "-n", "0"], "-n: expected at least 1 game, got 0"),
    (["talo", "-n", "2", "--bots", "1,7"], "level: expected one of 1, 2, 3, got 7"),
    (["talo", "-n", "2", "--bots", "1,1"], "--bots: a level given twice in 1,1"),
    (["talo", "-n", "2", "--bots", "1,x"], "--bots: expected levels such as 1,2,3, got '1,x'"),
    (["talo", "-n", "2", "-o", "r.txt"], "-o: expected a .csv file"),
])
def test_bad_input_is_one_line_exit_2(args, message, capsys):
    assert main(["tournament", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
