"""Babylon's tactical scoring: the rulebook's example, level majorities, ties, leftover bridges, the tie-break."""

from __future__ import annotations

import pytest

from sim.games.babylon import BabylonError, read_layout, score_tactical
from sim.games.babylon.construct import babylon_scene, bridge, noble, tower
from sim.games.babylon.examples import tactical_example

PLAYERS = ("red", "blue", "green")


def column(name: str, x: float, height: int, owner: str | None = None) -> list:
    """A stack of ``height`` towers at (x, 0) mm."""
    return [tower(f"{name}{k}", x, 0, k, owner=owner) for k in range(height)]


def score(pieces, players=PLAYERS):
    return score_tactical(read_layout(babylon_scene(pieces, players)), players)


def test_rulebook_example_green_scores_seven():
    result = score_tactical(read_layout(tactical_example()), ("green", "yellow", "red"))
    green = result.players["green"]
    assert dict(green.levels) == {3: 3, 5: 5, 7: 0}
    assert green.bridges_left == 1
    assert green.total == 3 + 5 - 1 == 7
    assert result.winners == ("green",)
    reasons = {n.id: n.reason for n in green.nobles}
    assert reasons["green-7L"] == "level 7: tie between green and red (3 each)"
    assert reasons["green-3"] is None


def test_levels_count_across_separate_towers_and_sizes_do_not_matter():
    a, b, c = column("a", 0, 2), column("b", 100, 2), column("c", 200, 2)
    pieces = [*a, *b, *c, noble("r1", a[-1], "small", "red"), noble("r2", b[-1], "small", "red"),
              noble("blue-1", c[-1], "large", "blue")]
    result = score(pieces)
    assert result.players["red"].levels == {2: 2}
    assert result.players["blue"].levels == {2: 0}
    assert result.players["blue"].nobles[0].reason == "level 2: red has more nobles (2 to 1)"


def test_a_tie_scores_nothing_whatever_the_sizes():
    a, b = column("a", 0, 3), column("b", 100, 3)
    result = score([*a, *b, noble("r", a[-1], "large", "red"), noble("g", b[-1], "small", "green")])
    assert result.players["red"].total == result.players["green"].total == -6
    assert result.levels[0].winner is None


def test_each_unplaced_bridge_costs_a_point():
    pieces = [tower("t1", 0, 0, owner="red"), tower("t2", 50, 0, owner="red"),
              bridge("b1", 25, 0, 1, owner="red"), bridge("b2", 25, 50, 0, owner="blue")]
    result = score(pieces)
    assert [result.players[p].bridges_left for p in PLAYERS] == [5, 5, 6]
    assert result.players["green"].total == -6


def test_more_bridges_than_the_game_gives_is_an_error():
    pieces = [bridge(f"b{k}", 0, 50 * k, 0, owner="red") for k in range(7)]
    with pytest.raises(BabylonError, match="red placed 7 bridges, more than the 6"):
        score(pieces)


def test_a_tie_on_points_goes_to_the_highest_scoring_level():
    red, b2, b3 = column("r", 0, 5), column("p", 100, 2), column("q", 200, 3)
    pieces = [*red, *b2, *b3, noble("r5", red[-1], "small", "red"),
              noble("b2", b2[-1], "small", "blue"), noble("b3", b3[-1], "small", "blue")]
    result = score(pieces)
    assert result.players["red"].total == result.players["blue"].total == 5 - 6
    assert result.players["red"].best_level == 5 and result.players["blue"].best_level == 3
    assert result.winners == ("red",)


def test_a_noble_off_the_towers_scores_nothing_and_says_why():
    gate = [tower("a", 0, 0), tower("b", 50, 0), bridge("x", 25, 0, 1)]
    result = score([*gate, noble("n", gate[2], "small", "red")])
    assert result.players["red"].nobles[0].reason == "does not stand upright on a tower"
    assert result.levels == ()


def test_an_illegal_position_is_scored_and_reported_beside_the_score():
    a = column("a", 0, 2)
    two_red = [noble("r1", a[-1], "small", "red", (-6.2, 0)), noble("r2", a[-1], "small", "red", (6.2, 0))]
    result = score([*a, *two_red])
    assert result.players["red"].levels == {2: 2}  # counted as it stands
    (v,) = result.violations
    assert v.rule == "noble-colour" and v.pieces == ("r1", "r2")
    assert result.to_json()["violations"] == [v.to_json()]


def test_a_legal_position_reports_no_violation():
    result = score_tactical(read_layout(tactical_example()), ("green", "yellow", "red"))
    assert result.violations == ()


def test_a_tie_the_tie_break_cannot_part_names_no_winner():
    result = score([])
    assert result.winners == () and result.tied == PLAYERS
    assert result.to_json()["winners"] == [] and result.to_json()["tied"] == list(PLAYERS)
