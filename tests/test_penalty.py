"""The collapse penalty of each game, from a recorded live session in which a player knocks something down."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sim.cli import main
from sim.physics.live import LiveWorld
from sim.replay import Recorder, ReplayError, load_recording
from sim.replay.penalty import settle
from sim.replay.script import play_script
from sim.scene import from_dict


def scene(game, board, players, pieces):
    return from_dict({"format": "towerlab-scene/1", "game": game, "board": board, "players": players,
                      "pieces": pieces}, f"<{game} penalty test>")


def record(path, s, steps, **game):
    with LiveWorld(s) as lw, Recorder(path, sync=False) as rec:
        rec.start_live(lw, **game)
        play_script(lw, steps, rec)
    return load_recording(path)


def carry(piece, player, start, through, height, seconds=0.5):
    """Grab ``piece``, lift it to ``height`` (m) above ``start`` (x, y), sweep it to ``through``, let go."""
    return [{"kind": "grab", "piece": piece, "hand": "right", "player": player},
            {"kind": "carry", "hand": "right", "to": [*start, height], "seconds": 0.3},
            {"kind": "carry", "hand": "right", "to": [*through, height], "seconds": seconds},
            {"kind": "release", "hand": "right", "player": player},
            {"kind": "wait", "seconds": 1.2}]


# --- Tohuwabohu ------------------------------------------------------------------------------------

TOHUWABOHU = scene("tohuwabohu", "tohuwabohu-area", ["ana", "ben"], [
    *({"id": f"t{k}", "kind": "tohuwabohu.brick", "size": "small", "color": "red", "pos": [0, 0, 10 + 20 * k]}
      for k in range(4)),
    {"id": "loose", "kind": "tohuwabohu.brick", "size": "small", "color": "blue", "pos": [-100, 0, 10]}])

FULFILLED = [{"kind": "event", "event": "card_fulfilled", "data": {"player": "ana", "card": "cross-red"}},
             {"kind": "event", "event": "card_fulfilled", "data": {"player": "ben", "card": "tower-blue"}},
             {"kind": "event", "event": "card_fulfilled", "data": {"player": "ana", "card": "four-red"}}]


@pytest.fixture(scope="module")
def tohuwabohu(tmp_path_factory):
    """Ana, who has fulfilled two cards, sweeps a brick through the tower; the players then choose (or not)."""
    folder = tmp_path_factory.mktemp("tohuwabohu")
    steps = FULFILLED + carry("loose", "ana", (-0.1, 0.0), (0.08, 0.0), 0.06)
    return {choice: record(folder / f"{choice}.tlrec", TOHUWABOHU, steps + extra, game="tohuwabohu",
                           players=["ana", "ben"], variant="pro")
            for choice, extra in (("punish", [{"kind": "event", "event": "collapse_choice",
                                               "data": {"choice": "punish"}}]),
                                  ("undecided", []),
                                  ("continue", [{"kind": "event", "event": "collapse_choice",
                                                 "data": {"choice": "continue"}}]))}


def test_tohuwabohu_pro_the_culprit_puts_the_last_fulfilled_card_back_when_the_players_punish(tohuwabohu):
    p = settle(tohuwabohu["punish"])
    c = p.collapses[0]
    assert p.game == "tohuwabohu" and p.variant == "pro" and p.variant_note is None
    assert c.culprit == "ana" and c.cause.piece == "loose" and c.cause.hand == "right"
    assert {"t2", "t3"} <= set(c.pieces) and "loose" not in c.pieces
    out = p.consequence
    assert out["choice"] == "punish" and out["card_back"] == "four-red"
    assert out["fulfilled_before"] == ["cross-red", "four-red"] and out["fulfilled_after"] == ["cross-red"]
    assert "ana puts four-red back under their draw pile" in p.lines[0]


def test_tohuwabohu_pro_without_a_recorded_choice_the_choice_is_the_players(tohuwabohu):
    p = settle(tohuwabohu["undecided"])
    assert p.consequence["penalty"] == "players_choose" and p.consequence["card_back"] == "four-red"
    assert "the choice is the players'" in p.lines[0] and "ana chooses" in p.lines[0]
    assert settle(tohuwabohu["continue"]).consequence == {"culprit": "ana", "choice": "continue",
                                                           "fulfilled_before": ["cross-red", "four-red"],
                                                           "penalty": None}


def test_tohuwabohu_basic_game_has_no_collapse_penalty(tohuwabohu):
    p = settle(tohuwabohu["punish"], "basic")
    assert p.consequence == {"penalty": None} and p.variant_note == "recorded as pro, judged as basic as asked"
    assert "may extend, rebuild or destroy" in p.rule and "no penalty" in p.lines[0]


def test_a_game_state_recorded_before_the_collapse_is_what_the_penalty_starts_from(tmp_path):
    from sim.games.tohuwabohu import pro

    state = pro.new_pro_game(["ana", "ben"], np.random.default_rng(4))
    first = state.hand("ana").open[0]
    state, _ = pro.stop(state, "ana", [first])
    steps = [{"kind": "event", "event": "game_state", "data": {"state": state.to_json()}},
             *carry("loose", "ana", (-0.1, 0.0), (0.08, 0.0), 0.06),
             {"kind": "event", "event": "collapse_choice", "data": {"choice": "punish", "card": first}}]
    r = record(tmp_path / "state.tlrec", TOHUWABOHU, steps, game="tohuwabohu", players=["ana", "ben"],
               variant="pro")
    out = settle(r).consequence
    assert out["card_back"] == first and out["fulfilled_after"] == []


# --- Talo ------------------------------------------------------------------------------------------

TALO = scene("talo", "talo-green", ["red", "blue", "green"], [
    {"id": "tall", "kind": "talo.block", "length": 5, "cell": [5, 5], "layer": 0, "axis": "z"},
    {"id": "step-a", "kind": "talo.block", "length": 1, "cell": [2, 2], "layer": 0, "axis": "z"},
    {"id": "step-b", "kind": "talo.block", "length": 1, "cell": [2, 8], "layer": 0, "axis": "z"},
    {"id": "b9", "kind": "talo.block", "length": 1, "cell": [8, 5], "layer": 0, "axis": "z"},
    {"id": "pawn-red", "kind": "talo.pawn", "color": "red", "cell": [1, 2], "layer": 0},
    {"id": "pawn-blue", "kind": "talo.pawn", "color": "blue", "cell": [2, 2], "layer": 1},
    {"id": "pawn-green", "kind": "talo.pawn", "color": "green", "cell": [2, 8], "layer": 1}])


@pytest.fixture(scope="module")
def talo(tmp_path_factory):
    b9, tall = TALO.piece("b9").pos, TALO.piece("tall").pos
    steps = carry("b9", "red", b9[:2], (tall[0] - 0.02, tall[1]), 0.07, 0.6)
    return record(tmp_path_factory.mktemp("talo") / "talo.tlrec", TALO, steps, game="talo",
                  players=["red", "blue", "green"], variant="talo")


def test_talo_the_culprit_loses_and_the_pawns_highest_before_the_collapse_win_together(talo):
    p = settle(talo)
    c = p.collapses[0]
    assert c.culprit == "red" and c.pieces == ("tall",) and c.cause.piece == "b9"
    out = p.consequence
    assert out["game_over"] and out["loser"] == "red" and out["winners"] == ["blue", "green"]
    assert out["levels_before"] == {"red": 0, "blue": 1, "green": 1}
    stood = out["stood_before"][0]
    assert stood["piece"] == "tall" and stood["on"] == ["board"]
    np.testing.assert_allclose(stood["pos_mm"], np.asarray(TALO.piece("tall").pos) * 1000, atol=1e-6)
    assert "red brought it down and loses; blue, green win" in p.lines[0]


def test_talo_fantasy_ends_the_game_with_no_winner(talo):
    p = settle(talo, "fantasy")
    assert p.consequence == {"culprit": "red", "game_over": True, "loser": "red", "winners": []}


# --- Babylon ---------------------------------------------------------------------------------------

BABYLON = scene("babylon", "babylon-table", ["red", "blue"], [
    {"id": "r1", "kind": "babylon.tower", "pos": [0, 0, 10], "owner": "red"},
    {"id": "r2", "kind": "babylon.tower", "pos": [0, 0, 30], "owner": "red"},
    {"id": "blue-1", "kind": "babylon.noble", "size": "small", "color": "blue", "pos": [0, 0, 49]},
    {"id": "bb", "kind": "babylon.tower", "pos": [80, 80, 10], "owner": "blue"},
    {"id": "rb", "kind": "babylon.bridge", "pos": [-120, 0, 10], "owner": "red"}])


@pytest.fixture(scope="module")
def babylon(tmp_path_factory):
    """Red sweeps a bridge through their own two towers, which carry a blue noble."""
    return record(tmp_path_factory.mktemp("babylon") / "babylon.tlrec", BABYLON,
                  carry("rb", "red", (-0.12, 0.0), (0.06, 0.0), 0.035, 0.4), game="babylon",
                  players=["red", "blue"], variant="fast")


def test_babylon_fast_a_point_per_building_part_and_out_of_the_round_for_another_players_noble(babylon):
    p = settle(babylon)
    c = p.collapses[0]
    assert c.culprit == "red" and set(c.pieces) == {"r2", "blue-1"}
    red = p.consequence["players"]["red"]
    assert red == {"minus_points": 1, "parts_out_of_round": ["r2"], "nobles_of_others": ["blue-1"],
                   "out_of_round": True}
    assert p.lines == ("red: -1 (knocked down r2: it leaves the round); out of the round for knocking down "
                       "blue-1 of another player",)


def test_babylon_tactical_the_pieces_go_back_where_they_stood(babylon):
    p = settle(babylon, "tactical")
    back = {b["piece"]: b for b in p.consequence["put_back"]}
    assert set(back) == {"r2", "blue-1"} and back["r2"]["on"] == ["r1"] and back["blue-1"]["on"] == ["r2"]
    for pid in back:
        np.testing.assert_allclose(back[pid]["pos_mm"], np.asarray(BABYLON.piece(pid).pos) * 1000, atol=1e-3)
    assert p.lines[0].startswith("put r2 back at (0.0, 0.0, 30.0) mm")


# --- every game --------------------------------------------------------------------------------------

@pytest.mark.parametrize("s, game", [(TOHUWABOHU, "tohuwabohu"), (TALO, "talo"), (BABYLON, "babylon")])
def test_no_collapse_is_a_verdict_too(tmp_path, s, game):
    r = record(tmp_path / "calm.tlrec", s, [{"kind": "wait", "seconds": 0.3}], game=game)
    p = settle(r)
    assert not p.collapsed and p.lines[0] == "nothing was knocked down: no penalty"
    assert p.variant_note.startswith("the recording names no variant")
    with pytest.raises(ReplayError, match="--variant"):
        settle(r, "no-such-variant")  # (Babylon has an expert game: judged as tactical)


def test_the_penalty_command_prints_the_verdict_and_its_json(babylon, capsys):
    assert main(["penalty", str(babylon.path)]) == 0
    out = capsys.readouterr().out
    assert "collapse at" in out and "caused by: red: move hand of rb (right hand)" in out and "-1" in out
    assert main(["penalty", str(babylon.path), "--json", "--variant", "tactical"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["culprit"] == "red" and data["variant"] == "tactical" and data["collapse"]
    assert {b["piece"] for b in data["consequence"]["put_back"]} == {"r2", "blue-1"}
