"""Tactical turns: how many pieces, whose, where; the special move; the first round; the end."""

from __future__ import annotations

import pytest

from sim.games.babylon import BabylonError, Verdict, check_turn, read_layout
from sim.games.babylon.capacity import placeable
from sim.games.babylon.construct import NOBLE_SPOTS, babylon_scene, bridge, noble, tower
from sim.games.babylon.examples import first_turn
from sim.games.babylon.supply import Pieces
from sim.geometry.transforms import euler_to_quat

PLAYERS = ("red", "blue", "green")
L, R = (-6.2, 0.0), (6.2, 0.0)  # two nobles side by side on a tower
T1, T2 = tower("t1", 0, 0, owner="red"), tower("t2", 50, 0, owner="red")
T3, T4 = tower("t3", 0, 0, 2, owner="blue"), tower("t4", 50, 0, 2, owner="blue")
T5 = tower("t5", 25, 0, 2, owner="green")
PARTS = [T1, T2, bridge("b1", 25, 0, 1, owner="red"), T3, T4, T5]
BASE = [*PARTS, noble("nr", T5, "small", "red", L), noble("nb", T4, "small", "blue", L)]
G1 = tower("g1", 0, 0, 3, owner="green")
G2 = tower("g2", 0, 0, 4, owner="green")
GREEN_TURN = [G1, G2, noble("ng", G2, "small", "green"), noble("ng2", T4, "small", "green", R)]
# a turn of green building parts only: four towers on t3
GREEN_PARTS = [G1, G2, tower("g3", 0, 0, 5, owner="green"), tower("g4", 0, 0, 6, owner="green")]


def judge(before, after, player="green", players=PLAYERS, **kw):
    return check_turn(read_layout(babylon_scene(before, players)), read_layout(babylon_scene(after, players)),
                      player, **kw)


def rules(verdict):
    return [v.rule for v in verdict.violations]


@pytest.fixture(scope="module")
def before():
    return read_layout(babylon_scene(BASE, PLAYERS))


def test_four_correct_pieces_make_a_legal_turn(before):
    verdict = check_turn(before, read_layout(babylon_scene([*BASE, *GREEN_TURN], PLAYERS)), "green")
    assert verdict.legal, verdict.violations
    assert verdict.placed == ("g1", "g2", "ng", "ng2") and not verdict.first_round


def test_fewer_than_four_pieces_when_four_are_possible_is_refused():
    assert rules(judge(BASE, [*BASE, *GREEN_TURN[:3]])) == ["too-few"]


def test_more_than_five_pieces_is_refused():
    extra = [tower(f"x{k}", 50, 0, 3 + k, owner="green") for k in range(2)]
    assert "too-many" in rules(judge(BASE, [*BASE, *GREEN_TURN[:3], *extra, tower("x2", 25, 0, 3)]))


def test_placing_another_players_piece_is_refused():
    turn = [*GREEN_TURN[:3], tower("r", 50, 0, 3, owner="red")]
    assert rules(judge(BASE, [*BASE, *turn])) == ["not-yours"]


def test_taking_a_piece_back_is_refused():
    assert "taken-back" in rules(judge(BASE, [*BASE[:-1], *GREEN_TURN[:3], tower("x", 50, 0, 3)]))


def test_moving_a_placed_piece_is_refused():
    moved = [tower("t1", 0, 2, owner="red"), *BASE[1:]]
    assert rules(judge(BASE, [*moved, *GREEN_TURN[:3], tower("x", 50, 0, 3)])) == ["relocated"]


def test_the_building_must_stay_connected():
    turn = [*GREEN_TURN[:3], tower("far", 200, 0, owner="green")]
    verdict = judge(BASE, [*BASE, *turn])
    assert rules(verdict) == ["not-connected"] and verdict.violations[0].pieces == ("far",)


def test_placement_rules_apply_to_the_pieces_placed():
    turn = [G1, tower("off", 0, 5, 4, owner="green"), tower("on-off", 0, 5, 5, owner="green"), GREEN_TURN[3]]
    verdict = judge(BASE, [*BASE, *turn])
    assert rules(verdict) == ["tower-top"] and verdict.violations[0].pieces == ("off", "g1")


def test_a_player_has_only_the_pieces_the_game_gives():
    full = [bridge(f"gb{k}", 200, 50 * k, owner="green") for k in range(6)]
    verdict = judge([*BASE, *full], [*BASE, *full, *GREEN_TURN[:3], bridge("gb6", 25, 100, 0)])
    assert "no-supply" in rules(verdict)


def test_a_player_has_only_the_nobles_of_their_colour():
    towers = [tower(f"gt{k}", 200 + 50 * k, 0, owner="green") for k in range(7)]
    placed = [noble(f"gs{k}", t, "small", "green") for k, t in enumerate(towers[:6])]  # all six small ones
    verdict = judge([*BASE, *towers, *placed], [*BASE, *towers, *placed, *GREEN_TURN[:2],
                                                noble("gs6", GREEN_TURN[1], "small", "green"), tower("x", 50, 0, 3)])
    assert "no-supply" in rules(verdict) and "small" in next(v.reason for v in verdict.violations
                                                             if v.rule == "no-supply")


def swapped(before_nobles, moves):
    """The nobles after a special move: ``moves`` maps a noble id to its new (tower, spot)."""
    out = []
    for n in before_nobles:
        tower_piece, spot = moves.get(n.id, (None, None))
        if tower_piece is None:
            out.append(n)
        else:
            out.append(noble(n.id, tower_piece, n.params["size"], n.params["color"], spot))
    return out


def test_the_special_move_swaps_two_nobles_after_a_turn_without_nobles():
    after = [*PARTS, *swapped(BASE[6:], {"nr": (T4, L), "nb": (T5, L)}), *GREEN_PARTS]
    verdict = judge(BASE, after)
    assert verdict.legal, verdict.violations
    assert verdict.swapped == ("nr", "nb")


def test_the_special_move_is_not_for_a_turn_that_placed_a_noble():
    after = [*PARTS, *swapped(BASE[6:], {"nr": (T4, L), "nb": (T5, L)}), *GREEN_PARTS[:3],
             noble("ng", T3, "small", "green")]
    assert rules(judge(BASE, after)) == ["special-move-after-noble"]


def test_the_special_move_swaps_nobles_of_one_size():
    before = [*PARTS, noble("nr", T5, "small", "red", L), noble("nb", T4, "large", "blue")]
    after = [*PARTS, *swapped(before[6:], {"nr": (T4, (0, 0)), "nb": (T5, (0, 0))}), *GREEN_PARTS]
    assert rules(judge(before, after)) == ["special-move-size"]


def test_the_special_move_may_not_put_two_of_a_colour_on_a_tower():
    before = [*BASE, noble("r2", T4, "small", "red", R)]  # t4: blue nb and red r2; t5: red nr
    after = [*PARTS, *swapped(before[6:], {"nr": (T4, L), "nb": (T5, L)}), *GREEN_PARTS]
    assert rules(judge(before, after)) == ["noble-colour"]


def test_nobles_that_move_without_swapping_places_are_relocated():
    after = [*PARTS, *swapped(BASE[6:], {"nr": (T3, L)}), *GREEN_PARTS]
    assert rules(judge(BASE, after)) == ["relocated"]


def turned(piece, yaw):
    return piece.moved(piece.pos, tuple(euler_to_quat((0, 0, yaw))))


def test_expert_special_move_swaps_only_between_towers_of_one_orientation():
    t4 = turned(T4, 90)
    parts = [*PARTS[:4], t4, T5]
    before = [*parts, noble("nr", T5, "small", "red", L), noble("nb", t4, "small", "blue", L)]
    after = [*parts, *swapped(before[6:], {"nr": (t4, L), "nb": (T5, L)}), *GREEN_PARTS]
    assert rules(judge(before, after, expert=True)) == ["special-move-orientation"]
    assert rules(judge(before, after)) == []


def test_expert_special_move_may_turn_a_tower_with_its_nobles():
    t5 = turned(T5, 90)
    after = [*PARTS[:5], t5, noble("nr", t5, "small", "red", (0, -6.2)), BASE[7], *GREEN_PARTS]
    verdict = judge(BASE, after, expert=True)
    assert verdict.legal, verdict.violations
    assert verdict.rotated == "t5"
    assert set(rules(judge(BASE, after))) == {"relocated"}  # only the expert game turns towers
    twice = [*PARTS[:3], turned(T3, 90), T4, t5, *after[6:]]
    assert set(rules(judge(BASE, twice, expert=True))) == {"relocated"}


def test_first_round_first_player_builds_five_pieces_two_levels_high():
    scene = first_turn()
    players = scene.players
    verdict = judge([], list(scene.pieces), "red", players)
    assert verdict.legal and verdict.first_round


def test_first_round_first_player_may_not_build_higher_than_two_levels():
    pieces = [*first_turn().pieces[:4], tower("t", 25, 0, 1, owner="red"), tower("high", 25, 0, 2, owner="red")]
    pieces = [p for p in pieces if p.id != "t-south"]
    assert rules(judge([], pieces, "red", first_turn().players)) == ["first-round-height"]


def test_first_round_no_nobles():
    pieces = [*first_turn().pieces[:4], noble("n", first_turn().pieces[3], "small", "red")]
    assert rules(judge([], pieces, "red", first_turn().players)) == ["first-round-noble"]


def test_first_round_every_later_player_widens_the_base():
    before = list(first_turn().pieces)
    players = first_turn().players
    on_top = [tower(f"u{k}", 25, 0, 2 + k, owner="blue") for k in range(4)]
    verdict = judge(before, [*before, *on_top], "blue", players)
    assert verdict.first_round and rules(verdict) == ["first-round-base"]
    wider = [tower("u0", 75, 0, 0, owner="blue"), tower("u1", 75, 0, 1, owner="blue"),
             bridge("u2", 50, 0, 2, owner="blue"), tower("u3", 75, 0, 3, owner="blue")]
    verdict = judge(before, [*before, *wider], "blue", players)
    assert verdict.legal, verdict.violations


def end_game_building():
    """A 5-player building holding every piece green has: 16 towers, 4 bridges, 8 nobles."""
    p = [bridge("b-s", 25, 0, 0, owner="green"), bridge("b-n", 25, 50, 0, owner="green")]
    p += [tower(f"l1-{x}-{y}", x, y, 1, owner="green") for y in (0, 50) for x in (0, 25, 50)]
    p += [bridge("b-w", 0, 25, 2, along="y", owner="green"), bridge("b-e", 50, 25, 2, along="y", owner="green")]
    p += [tower(f"l3-{x}-{y}", x, y, 3, owner="green") for x in (0, 50) for y in (0, 25, 50)]
    p += [tower(f"l{k}-{x}-25", x, 25, k, owner="green") for x in (0, 50) for k in (4, 5)]
    tops = [q for q in p if q.id in ("l1-25-0", "l1-25-50", "l3-0-0", "l3-0-50", "l3-50-0", "l3-50-50",
                                     "l5-0-25", "l5-50-25")]
    sizes = ["large", "large"] + ["small"] * 6
    p += [noble(f"n{k}", t, s, "green") for k, (t, s) in enumerate(zip(tops, sizes))]
    return p


def test_a_player_who_cannot_place_four_pieces_places_none_and_the_game_ends():
    players = ("green", "red", "blue", "yellow", "white")
    building = end_game_building()
    verdict = judge(building, building, "green", players)  # green has nothing left
    assert verdict.legal and verdict.game_over == "green cannot place 4 pieces"
    # red holds every piece, but every tower top carries a noble that leaves no room beside it and no
    # bridge spot is free: red truly cannot place four, so red's empty turn ends the game too
    verdict = judge(building, building, "red", players)
    assert verdict.legal and verdict.game_over == "red cannot place 4 pieces"


def test_an_empty_turn_of_a_player_who_can_place_four_is_refused_in_a_whole_sentence():
    (v,) = judge(BASE, BASE, "green").violations
    assert v.rule == "too-few" and v.pieces == ()
    assert v.reason == "0 pieces placed; a turn places 4 or 5, and green can place at least 4"


def test_how_many_pieces_fit_in_a_turn(before):
    assert placeable(read_layout(babylon_scene([], PLAYERS)), "red", Pieces(27, 6, 6, 2), 3, True) == 5
    assert placeable(read_layout(babylon_scene([], PLAYERS)), "red", Pieces(27, 0, 6, 2), 3, True) == 2
    assert placeable(before, "green", Pieces(0, 0, 2, 0), 3, False) == 2  # room on t3 and t4 only
    assert placeable(before, "green", Pieces(3, 0, 0, 0), 3, False) == 3
    assert placeable(before, "green", Pieces(2, 0, 2, 0), 3, False) == 4


def test_a_falling_building_is_not_a_legal_turn(before):
    after = read_layout(babylon_scene([*BASE, *GREEN_TURN], PLAYERS))
    verdict = check_turn(before, after, "green", verdict=Verdict.falling({"g2"}))
    assert rules(verdict) == ["unstable"]


def test_a_player_who_does_not_play_is_an_error(before):
    with pytest.raises(BabylonError, match="expected one of red, blue, green"):
        check_turn(before, before, "white")


def test_a_third_small_noble_on_a_tower_needs_five_players():
    before = [*PARTS, noble("nr", T5, "small", "red", NOBLE_SPOTS[3][0]), noble("nb", T5, "small", "blue",
                                                                                   NOBLE_SPOTS[3][1])]
    after = [*before, noble("ng", T5, "small", "green", NOBLE_SPOTS[3][2]), *GREEN_PARTS[:3]]
    assert rules(judge(before, after)) == ["noble-count"]


def test_expert_special_move_may_swap_and_then_turn_a_tower_of_the_swap():
    t5 = turned(T5, 90)
    after = [*PARTS[:5], t5, noble("nr", T4, "small", "red", L), noble("nb", t5, "small", "blue", (0, -6.2)),
             *GREEN_PARTS]
    verdict = judge(BASE, after, expert=True)
    assert verdict.legal, verdict.violations
    assert verdict.swapped == ("nr", "nb") and verdict.rotated == "t5"


def test_turning_a_tower_that_carries_parts_is_refused():
    t3 = turned(T3, 90)
    before = [*BASE, G1]
    after = [*PARTS[:3], t3, *PARTS[4:], *BASE[6:], G1, *GREEN_PARTS[1:], tower("g5", 0, 0, 7, owner="green")]
    assert "rotated-carries" in rules(judge(before, after, expert=True))
