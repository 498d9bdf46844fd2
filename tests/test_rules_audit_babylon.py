"""Held-out checks of Babylon's rule readings, written from the rulebook's statements (the rules audit).

Each test states the rulebook's rule in its own words and builds the smallest position that tells a right reading
from a wrong one; the numbers are the rulebook's where it gives some.
"""

from __future__ import annotations

import pytest

from sim.games.babylon import check_turn, read_layout, round_over, score_fast, score_tactical
from sim.games.babylon.construct import babylon_scene, bridge, noble, nobles_on, tower
from sim.games.babylon.fast import FastPlayer, nobles_placed, round_winners
from sim.games.babylon.supply import allotment

TACTICAL_PLAYERS = ("green", "yellow", "red")
FAST_PLAYERS = ("red", "blue", "green")  # red and blue share the south-west wedge of the table
SW = (-200.0, -150.0)


def column(name: str, x: float, y: float, height: int) -> list:
    """``height`` towers stacked on the cell at (x, y) mm."""
    return [tower(f"{name}{k}", x, y, k) for k in range(height)]


@pytest.mark.parametrize(("mode", "players", "towers", "bridges"), [
    ("tactical", 3, 27, 6), ("tactical", 4, 21, 5), ("tactical", 5, 16, 4),
    ("fast", 3, 27, 6), ("fast", 4, 21, 5), ("fast", 5, 15, 4),  # the fast game's table gives five players 15
])
def test_each_player_gets_the_rulebooks_building_parts(mode, players, towers, bridges):
    got = allotment(mode, players)
    assert (got.towers, got.bridges) == (towers, bridges)


def test_the_tactical_example_rebuilt_from_the_rulebooks_numbers():
    # Green: one noble alone on level 3 (3 points); two on level 5 against one yellow and one red (5 points);
    # one large and two small on level 7 against three red and one yellow (a tie: nobody scores); one bridge
    # left over. 3 + 5 - 1 = 7.
    cols = {name: column(f"col-{name}-", 60.0 * k, 0.0, h)
            for k, (name, h) in enumerate([("a", 3), ("b", 5), ("c", 5), ("d", 7), ("e", 7), ("f", 7), ("g", 7)])}
    top = {name: c[-1] for name, c in cols.items()}
    nobles = [noble("g3", top["a"], "small", "green"),
              *nobles_on(top["b"], [("g5a", "small", "green"), ("y5", "small", "yellow")]),
              *nobles_on(top["c"], [("g5b", "small", "green"), ("r5", "small", "red")]),
              noble("g7L", top["d"], "large", "green"),
              *nobles_on(top["e"], [("g7a", "small", "green"), ("r7a", "small", "red")]),
              *nobles_on(top["f"], [("g7b", "small", "green"), ("r7b", "small", "red")]),
              *nobles_on(top["g"], [("r7c", "small", "red"), ("y7", "small", "yellow")])]
    green_bridges = [bridge(f"gb{k}", 60.0 * k, 200.0, owner="green") for k in range(5)]  # 6 given, 5 placed
    pieces = [p for c in cols.values() for p in c] + nobles + green_bridges
    result = score_tactical(read_layout(babylon_scene(pieces, TACTICAL_PLAYERS)), TACTICAL_PLAYERS)
    by_level = {r.level: (dict(r.counts), r.winner) for r in result.levels}
    assert by_level == {3: ({"green": 1}, "green"), 5: ({"green": 2, "yellow": 1, "red": 1}, "green"),
                        7: ({"green": 3, "yellow": 1, "red": 3}, None)}
    green = result.players["green"]
    assert green.total == 3 + 5 - 1 == 7
    assert result.players["red"].total == 0 - 6 and result.players["yellow"].total == 0 - 6
    assert result.winners == ("green",)


def test_the_tactical_game_ends_when_every_noble_is_placed():
    # Every player's eight nobles (two large, six small), each large one alone on a tower, the small ones in
    # pairs of two colours; red's last four come in the last turn.
    players = ("red", "blue", "green")
    towers = [tower(f"t{k}", 30.0 * k, 0.0) for k in range(15)]
    nobles = [noble(f"{c}-L{k}", towers[2 * i + k], "large", c) for i, c in enumerate(players) for k in range(2)]
    smalls = [f"{c}-s{k}" for k in range(6) for c in players]  # red, blue, green, red, ...
    for k in range(9):
        pair = smalls[2 * k:2 * k + 2]
        nobles += nobles_on(towers[6 + k], [(i, "small", i.split("-")[0]) for i in pair])
    last = [n for n in nobles if n.id in ("red-L1", "red-s3", "red-s4", "red-s5")]
    before = [*towers, *(n for n in nobles if n not in last)]
    verdict = check_turn(read_layout(babylon_scene(before, players)),
                         read_layout(babylon_scene([*before, *last], players)), "red", first_round=False)
    assert verdict.game_over == "all nobles are placed"
    one_short = check_turn(read_layout(babylon_scene(before, players)),
                           read_layout(babylon_scene([*before, *last[:3]], players)), "red", first_round=False)
    assert one_short.game_over is None


def _red_nobles_with_one_on_a_bridge():
    """Red's eight nobles placed: seven on towers, the eighth upright on a bridge (placed, scoring nothing)."""
    towers = [tower(f"t{k}", SW[0] + 30.0 * k, SW[1], owner="red") for k in range(7)]
    sizes = ["large"] * 2 + ["small"] * 5
    on_towers = [noble(f"n{k}", t, s, "red") for k, (t, s) in enumerate(zip(towers, sizes))]
    b = bridge("b", SW[0] + 30.0, SW[1] - 40.0, owner="red")
    return [*towers, b, *on_towers, noble("n7", b, "small", "red")]


def test_a_noble_set_down_on_a_bridge_is_placed_for_calling_stop():
    # The fast game lets a noble stand on a bridge (it then scores nothing, condition 1) and never lets it be
    # moved again; "stop" is for a player who has placed all their nobles, so that noble counts as placed.
    lay = read_layout(babylon_scene(_red_nobles_with_one_on_a_bridge(), FAST_PLAYERS))
    assert "n7" in nobles_placed(lay, "red") and len(nobles_placed(lay, "red")) == 8
    assert round_over(lay, FAST_PLAYERS) == "red has placed all nobles"
    fewer = read_layout(babylon_scene(_red_nobles_with_one_on_a_bridge()[:-1], FAST_PLAYERS))
    assert round_over(fewer, FAST_PLAYERS) is None


def test_fast_unplaced_pieces_are_every_piece_of_the_allotment_not_on_the_table():
    # The tie-break counts unplaced pieces; a large noble set aside after a round win still counts as unplaced,
    # so the count is against the whole allotment: 27 towers, 6 bridges and 8 nobles with three players.
    t = tower("t", *SW, owner="red")
    result = score_fast(read_layout(babylon_scene([t, noble("n", t, "large", "red")], FAST_PLAYERS)), FAST_PLAYERS)
    assert result.players["red"].unplaced == 27 + 6 + 8 - 2
    assert result.players["blue"].unplaced == 27 + 6 + 8


def test_the_fast_round_score_is_the_smaller_total_less_the_knocked_down_parts():
    # The rulebook: 10 with one neighbour and 6 with the other make 6; each part knocked down is a minus point
    # on that final score (not on one of the two totals).
    assert FastPlayer("green", {"red": 10, "blue": 6}, 0, False, 0, ()).score == 6
    assert FastPlayer("green", {"red": 10, "blue": 6}, 2, False, 0, ()).score == 6 - 2
    # the highest score wins; equal scores go to fewer unplaced pieces, then all of them win
    a = FastPlayer("red", {"x": 6, "y": 6}, 0, False, 3, ())
    b = FastPlayer("blue", {"x": 6, "y": 9}, 0, False, 1, ())
    c = FastPlayer("green", {"x": 7, "y": 6}, 0, False, 1, ())
    assert round_winners([a, b, c]) == ("blue", "green")
    assert round_winners([a, FastPlayer("blue", {"x": 6, "y": 6}, 0, False, 4, ())]) == ("red",)
