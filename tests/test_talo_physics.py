"""Talo's balance rule decided by the physics verdict: the rulebook's cases and the example scenes."""

import json

import pytest

from sim.cli import main
from sim.cli.talo import physics_verdict
from sim.games.talo import GridBlock, GridPawn, IllegalMoveError, Stock, talo_board
from sim.games.talo import game as g
from sim.games.talo.layout import block_piece, pawn_piece
from sim.scene import Scene
from tests.helpers import SCENES


def building(hand, *blocks, pawns=(("red", (0, 9), 0),)):
    """A game in its build phase holding ``hand``; ``blocks`` (length, cell, layer, axis) and ``pawns`` in place."""
    site = talo_board("talo-green")
    pieces = [block_piece(GridBlock(f"old{k}", *b), site) for k, b in enumerate(blocks)]
    pieces += [pawn_piece(GridPawn(g.pawn_id(c), c, cell, level), site) for c, cell, level in pawns]
    players = tuple(c for c, _, _ in pawns)
    return g.TaloState(Scene("talo", "talo-green", tuple(pieces), players=players), players, Stock.full(),
                       phase="build", hand=tuple(hand), placed=len(blocks))


def place(state, *puts):
    puts = [g.Put(*p) for p in puts]
    return g.place(state, puts, physics_verdict(g.building_after(state, puts)))


@pytest.mark.slow
@pytest.mark.parametrize("length", [3, 5])
def test_an_odd_block_centred_across_a_standing_block_stands(length):
    s = building((length,), (2, (4, 4), 0, "z"))
    t = place(s, (length, (4 - length // 2, 4), 2, "x"))
    assert [b.id for b in t.layout.blocks] == ["old0", "b2"]


@pytest.mark.slow
@pytest.mark.parametrize("length", [2, 4])
def test_an_even_block_on_a_standing_block_is_refused(length):
    s = building((length,), (2, (4, 4), 0, "z"))
    with pytest.raises(IllegalMoveError, match="balance"):
        place(s, (length, (4 - length // 2 + 1, 4), 2, "x"))


@pytest.mark.slow
def test_the_counterweight_a_four_and_a_one_together_on_a_one():
    s = building((1, 4), (1, (4, 4), 0, "z"))
    with pytest.raises(IllegalMoveError, match="balance"):
        place(s, (4, (2, 4), 1, "x"))  # the 4 alone: its middle over the 1's edge
    t = place(s, (4, (2, 4), 1, "x"), (1, (5, 4), 2, "z"))
    assert t.hand == () and [b.id for b in t.layout.blocks] == ["old0", "b2", "b3"]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["spiral-staircase", "bridge", "island-bridges", "counterweight"])
def test_example_scenes_are_legal_and_stand(name, capsys):
    assert main(["talo", "check", str(SCENES / "talo" / f"{name}.json"), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["violations"] == [] and r["balance"]["stable"] is True


@pytest.mark.slow
def test_the_example_game_replays_under_the_physics(capsys):
    assert main(["talo", "play", str(SCENES / "talo/games/first-climb.talo-game"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["levels"] == {"red": 3, "blue": 3}


@pytest.mark.slow
def test_a_placement_that_brings_the_tower_down_ends_the_game():
    s = building((8,), (5, (4, 4), 0, "z"), (4, (5, 4), 0, "z"), pawns=(("red", (0, 9), 0), ("blue", (5, 4), 4)))
    over = place(s, (8, (4, 4), 5, "y"))  # an 8 with one end on the 5: it tips and takes the 5 along
    assert over.phase == "over" and over.outcome.reason == "collapse" and over.outcome.loser == "red"
    assert "old0" in over.log[-1].data["fallen"] and over.outcome.winners == ("blue",)
