"""Babylon's fast game: the rulebook's example, each scoring condition alone, knocks, rounds and the game."""

from __future__ import annotations

import pytest

from sim.games.babylon import FastGame, Knock, read_layout, round_over, score_fast
from sim.games.babylon.construct import babylon_scene, bridge, noble, nobles_on, tower
from sim.games.babylon.examples import fast_example
from sim.games.babylon.fast import FastPlayer, round_winners

PLAYERS = ("red", "blue", "green")  # red at -y; red and blue share the wedge at the south-west
SW = (-200.0, -150.0)


def beam(prefix: str, x: float, y: float, owner: str = "red", facing=(0, 0, 0)) -> list:
    """A bridge on the table with a tower on each of its spots (tower tops at level 2)."""
    return [bridge(f"{prefix}b", x, y, 0, owner=owner),
            *(tower(f"{prefix}{k}", x + 25 * (k - 1), y, 1, facing=f, owner=owner) for k, f in enumerate(facing))]


def fast(pieces, knocks=(), expert=False):
    return score_fast(read_layout(babylon_scene(pieces, PLAYERS)), PLAYERS, knocks, expert=expert)


def red_noble(result, nid="n"):
    return next(n for n in result.players["red"].nobles if n.id == nid)


@pytest.fixture(scope="module")
def example():
    return score_fast(read_layout(fast_example()), ("green", "red", "blue"))


def test_rulebook_example_ten_with_one_neighbour_six_with_the_other(example):
    green = example.players["green"]
    assert dict(green.areas) == {"red": 2 + 0 + 3 + 5, "blue": 6}
    assert green.score == min(10, 6) == 6
    assert example.winners == ("green",)


def test_rulebook_example_the_noble_beside_a_large_one_scores_nothing(example):
    nobles = {n.id: n for n in example.players["green"].nobles}
    assert nobles["green-4"].points == 0
    assert nobles["green-4"].reasons == ("a large noble (red) stands on tower gr-e3",)
    assert [nobles[i].points for i in ("green-2", "green-3", "green-5L")] == [2, 3, 5]


def scoring_building(*extra):
    """Red's noble n on a tower of a building on which blue also has a noble: n scores 2."""
    b = beam("x", *SW)
    return [*b, noble("n", b[1], "small", "red"), noble("m", b[3], "small", "blue"), *extra]


def test_a_noble_meeting_every_condition_scores_the_levels_beneath_it():
    result = fast(scoring_building())
    assert red_noble(result).points == 2 and red_noble(result).reasons == ()
    assert result.players["red"].areas["blue"] == 2


def test_condition_1_a_noble_on_a_bridge_scores_nothing():
    b = beam("x", *SW)
    top = bridge("top", SW[0], SW[1], 2)  # on the outer towers x0 and x2
    t = tower("t", SW[0] + 25, SW[1], 3)
    pieces = [b[0], b[1], b[3], top, t, noble("n", top, "small", "red"), noble("m", t, "small", "blue")]
    assert red_noble(fast(pieces)).reasons == ("does not stand upright on a tower",)


def test_condition_2_two_of_one_colour_on_a_tower_score_nothing():
    b = beam("x", *SW)
    pieces = [*b, *nobles_on(b[1], [("n", "small", "red"), ("n2", "small", "red")]),
              noble("m", b[3], "small", "blue")]
    assert red_noble(fast(pieces)).reasons == ("another red noble stands on tower x0",)


def test_condition_3_a_large_noble_beside_it_scores_nothing():
    b = beam("x", *SW)
    pieces = [*b, *nobles_on(b[1], [("n", "small", "red"), ("m", "large", "blue")])]
    result = fast(pieces)
    assert red_noble(result).reasons == ("a large noble (blue) stands on tower x0",)
    assert next(n for n in result.players["blue"].nobles).points == 2  # the large one itself scores


def test_condition_4_no_other_colour_on_its_building_scores_nothing():
    b, c = beam("x", *SW), beam("y", SW[0], SW[1] - 100)
    pieces = [*b, *c, noble("n", b[1], "small", "red"), noble("m", c[1], "small", "blue")]
    assert red_noble(fast(pieces)).reasons == ("no noble of another colour stands on its building",)


def test_condition_4_a_noble_of_another_colour_on_a_bridge_of_the_building_counts():
    b = beam("x", *SW)
    top = bridge("top", SW[0], SW[1], 2)  # on the outer towers x0 and x2
    pieces = [*b, top, noble("n", b[2], "small", "red"), noble("m", top, "small", "blue")]
    assert red_noble(fast(pieces)).reasons == ()
    assert red_noble(fast(pieces)).points == 2


def test_condition_4_a_fallen_noble_of_another_colour_does_not_count():
    from sim.geometry.transforms import euler_to_quat

    b = beam("x", *SW)
    lying = noble("m", b[3], "small", "blue")
    lying = lying.moved((lying.pos[0], lying.pos[1], b[3].pos[2] + 0.01 + 0.0055), euler_to_quat((90, 0, 0)))
    assert "no noble of another colour" in red_noble(fast([*b, noble("n", b[1], "small", "red"), lying])).reasons[0]


def test_a_noble_outside_its_players_areas_scores_nothing():
    b = beam("x", 200.0, 200.0)  # the north-east: blue and green's area
    pieces = [*b, noble("n", b[1], "small", "red"), noble("m", b[3], "small", "blue")]
    assert red_noble(fast(pieces)).reasons == ("stands outside red's construction areas",)


def test_knocked_down_parts_cost_a_point_each_and_leave_the_round():
    pieces = scoring_building(*beam("k", SW[0], SW[1] - 100))
    result = fast(pieces, [Knock("red", ("k0", "k1"))])
    assert result.players["red"].knocked_parts == 2
    assert result.players["red"].score == 0 - 2  # its area with green is empty


def test_a_knocked_down_tower_takes_its_noble_out_of_scoring():
    result = fast(scoring_building(), [Knock("green", ("x0",))])
    assert red_noble(result).reasons == ("does not stand upright on a tower",)
    assert result.players["green"].knocked_parts == 1


def test_knocking_down_a_tower_that_carries_another_players_noble_puts_a_player_out():
    result = fast(scoring_building(), [Knock("green", ("x0",))])  # x0 carries red's noble n
    assert result.players["green"].out and result.players["green"].score is None
    own = fast(scoring_building(), [Knock("red", ("x0",))])  # red's own noble falls: no exclusion
    assert not own.players["red"].out and own.players["red"].knocked_parts == 1


def test_what_stands_on_a_knocked_down_part_falls_with_it():
    b = beam("x", *SW)
    result = fast([*b, noble("m", b[3], "small", "blue")], [Knock("red", ("xb",))])  # the bridge under them all
    assert result.players["red"].knocked_parts == 4 and result.players["red"].out  # 3 towers, and blue's m


def test_knocking_down_another_players_noble_puts_a_player_out():
    result = fast(scoring_building(), [Knock("red", ("m",))])
    assert result.players["red"].out and result.players["red"].score is None
    assert "out of the round" in red_noble(result).reasons[-1]
    own = fast(scoring_building(), [Knock("red", ("n",))])
    assert not own.players["red"].out  # a player's own nobles may fall and be placed again


def test_expert_variant_doubles_one_noble_on_a_building_of_one_orientation():
    b = beam("x", *SW, facing=(90, 90, 90))
    pieces = [*b, noble("n", b[1], "small", "red"), noble("n2", b[2], "small", "red"),
              noble("m", b[3], "small", "blue")]
    result = fast(pieces, expert=True)
    assert sorted(n.points for n in result.players["red"].nobles) == [2, 4]
    assert sum(n.doubled for n in result.players["red"].nobles) == 1
    mixed = [*beam("x", *SW, facing=(90, 0, 90)), *pieces[4:]]
    assert [n.points for n in fast(mixed, expert=True).players["red"].nobles] == [2, 2]


def test_round_ties_go_to_fewer_unplaced_pieces_then_are_shared():
    def player(color, score, unplaced):
        return FastPlayer(color, {"x": score, "y": score}, 0, False, unplaced, ())

    assert round_winners([player("red", 5, 10), player("blue", 5, 8), player("green", 4, 0)]) == ("blue",)
    assert round_winners([player("red", 5, 8), player("blue", 5, 8)]) == ("red", "blue")
    out = FastPlayer("green", {"x": 9, "y": 9}, 0, True, 0, ())
    assert round_winners([player("red", 1, 8), out]) == ("red",)


def test_a_round_ends_when_a_player_has_placed_all_nobles():
    towers = [tower(f"t{k}", -200 + 50 * k, -150, 0) for k in range(8)]
    sizes = ["large"] * 2 + ["small"] * 6
    nobles = [noble(f"n{k}", t, s, "red") for k, (t, s) in enumerate(zip(towers, sizes))]
    lay = read_layout(babylon_scene([*towers, *nobles], PLAYERS))
    assert round_over(lay, PLAYERS) == "red has placed all nobles"
    fewer = read_layout(babylon_scene([*towers[1:], *nobles[1:]], PLAYERS))
    assert round_over(fewer, PLAYERS) is None
    assert round_over(fewer, PLAYERS, set_aside={"red": 1}) == "red has placed all nobles"
    assert round_over(fewer, PLAYERS, time_up=True) == "the time is up"
    assert round_over(fewer, PLAYERS, out=("red", "blue", "green")) == "nobody can build any further"


def test_three_round_wins_win_the_game_and_each_win_sets_a_large_noble_aside():
    game = FastGame(PLAYERS)
    for winners in (("red",), ("red", "blue"), ("green",)):
        game = game.after_round(winners)
    assert game.set_aside("red") == 2 and game.set_aside("blue") == 1 and game.winners == ()
    assert game.after_round(("red",)).winners == ("red",)


def test_parts_outside_their_players_areas_are_reported():
    result = fast([*beam("x", *SW), tower("far", 200, 200, owner="red")])
    assert [(v.rule, v.pieces) for v in result.violations] == [("area", ("far",))]
    assert fast(scoring_building()).violations == ()
