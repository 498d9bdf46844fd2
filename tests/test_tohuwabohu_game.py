"""Tohuwabohu game flow: dealing, turn order and timing, the swap limit, the winner, the professional variant."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from sim.games.tohuwabohu import CARDS, analyze, game, pro
from sim.games.tohuwabohu.examples import EXAMPLES
from sim.games.tohuwabohu.game import GameError, LogEntry, deal
from sim.games.tohuwabohu.pro import OPEN_CARDS, ROUND_SECONDS, removable, removal_problems


def rng(seed: int = 7) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.mark.parametrize(("players", "each"), [(2, 6), (3, 4), (4, 3)])
def test_dealing_gives_each_player_the_same_number_of_each_colour(players, each):
    names = [f"p{i}" for i in range(players)]
    piles = deal(names, rng())
    dealt = [c for pile in piles.values() for c in pile]
    assert len(dealt) == len(set(dealt)) == 36  # every card once: 2×18, 3×12, 4×9
    for pile in piles.values():
        assert Counter(CARDS[c].color for c in pile) == {"blue": each, "red": each, "green": each}


def test_dealing_is_determined_by_the_seed_and_shuffles_colours_together():
    a, b, c = deal(["x", "y"], rng(1)), deal(["x", "y"], rng(1)), deal(["x", "y"], rng(2))
    assert a == b and a != c
    colours = [CARDS[card].color for card in a["x"]]
    assert colours != sorted(colours, key=["blue", "red", "green"].index)


@pytest.mark.parametrize("players", [[], ["solo"], ["a", "b", "c", "d", "e"], ["a", "a"]])
def test_dealing_needs_two_to_four_different_players(players):
    with pytest.raises(GameError):
        deal(players, rng())


def test_turns_pass_in_seating_order_every_15_seconds():
    g = game.new_game(["ann", "bob", "cy"], rng(), starter="bob")
    assert g.turn_seconds == 15.0
    seen = [g.active]
    for _ in range(4):
        g = game.tick(g, 15.0)
        seen.append(g.active)
    assert seen == ["bob", "cy", "ann", "bob", "cy"]
    g = game.tick(g, 14.0)
    assert g.active == "cy" and g.time_left == pytest.approx(1.0)
    g = game.tick(g, 2.0)  # the leftover second carries into the next turn
    assert g.active == "ann" and g.clock == pytest.approx(1.0) and g.time == pytest.approx(76.0)


def test_advanced_players_get_10_seconds():
    g = game.tick(game.new_game(["ann", "bob"], rng(), advanced=True), 10.0)
    assert g.turn_seconds == 10.0 and g.active == "bob"


def test_time_runs_forward_only():
    g = game.new_game(["ann", "bob"], rng())
    with pytest.raises(GameError, match="forward"):
        game.tick(g, -1.0)
    with pytest.raises(GameError, match="forward"):
        pro.tick(pro.new_pro_game(["ann", "bob"], rng()), -1.0)


def test_each_turn_begins_with_a_revealed_order_card():
    g = game.new_game(["ann", "bob"], rng())
    first = g.order_card()
    assert first is not None and first not in g.hand("ann").pile
    assert len(g.hand("ann").pile) == 17
    assert g.order_card("bob") is None
    g = game.tick(g, 15.0)
    assert g.order_card("bob") is not None
    g = game.tick(g, 15.0)
    assert g.order_card("ann") == first  # an unfulfilled card stays face up


def test_swap_once_per_turn_puts_the_card_under_the_pile():
    g = game.new_game(["ann", "bob"], rng())
    old = g.order_card()
    g = game.swap(g)
    assert g.order_card() != old and g.hand("ann").pile[-1] == old
    with pytest.raises(GameError, match="already swapped"):
        game.swap(g)
    g = game.tick(g, 30.0)  # bob's turn, then ann's again
    assert g.active == "ann"
    game.swap(g)


def test_fulfilled_cards_are_set_aside_during_ones_own_turn_only():
    g = game.new_game(["ann", "bob"], rng())
    ann_card = g.order_card()
    assert game.fulfil(g, ["not-" + ann_card]) == g
    g = game.fulfil(g, [ann_card, "something-else"])
    assert g.hand("ann").done == (ann_card,)
    assert g.order_card() not in (None, ann_card)  # the next one is revealed at once
    g = game.tick(g, 15.0)
    assert game.fulfil(g, [ann_card]) == g  # bob's card is not ann's


def test_the_first_player_to_fulfil_every_card_wins():
    g = game.new_game(["ann", "bob"], rng())
    while not g.over:
        g = game.fulfil(g, [g.order_card()])
    assert g.winner == "ann" and len(g.hand("ann").done) == 18
    assert g.log[-1].action == "win"
    with pytest.raises(GameError, match="over"):
        game.swap(g)


def test_an_unknown_player_is_named():
    with pytest.raises(GameError, match="no player 'zed'"):
        game.new_game(["ann", "bob"], rng()).hand("zed")


# --- the professional variant -----------------------------------------------------


def test_pro_variant_reveals_three_cards_and_runs_4_minute_rounds():
    g = pro.new_pro_game(["ann", "bob", "cy"], rng())
    assert all(len(g.open_cards(p)) == OPEN_CARDS for p in g.players)
    assert ROUND_SECONDS == 240.0
    g = pro.tick(g, 239.0)
    assert g.round == 1
    g = pro.tick(g, 1.0)
    assert g.round == 2 and g.clock == 0.0


def test_a_stop_claim_is_checked_and_others_may_set_aside_too():
    g = pro.new_pro_game(["ann", "bob", "cy"], rng())
    ann, cy = g.open_cards("ann"), g.open_cards("cy")
    g, r = pro.stop(g, "bob", fulfilled=[ann[0], cy[1]])
    assert not r.accepted  # bob shows nothing
    assert r.set_aside == {"bob": (), "cy": (cy[1],), "ann": (ann[0],)}
    assert list(r.set_aside) == ["bob", "cy", "ann"]  # from the caller, round the table
    g, r = pro.stop(g, "ann", fulfilled=[ann[1]])
    assert r.accepted and g.hand("ann").done == (ann[0], ann[1])
    assert not r.round_over and g.round == 1


def test_a_round_ends_when_a_player_clears_their_three_open_cards():
    g = pro.new_pro_game(["ann", "bob"], rng())
    bob_open = g.open_cards("bob")
    g, r = pro.stop(g, "ann", fulfilled=g.open_cards("ann"))
    assert r.accepted and r.round_over and g.round == 2
    assert len(g.open_cards("ann")) == 3 and g.open_cards("bob") == bob_open  # topped up to three


def test_the_pro_game_ends_when_a_player_has_fulfilled_everything():
    g = pro.new_pro_game(["ann", "bob"], rng())
    while not g.over:
        g, _ = pro.stop(g, "bob", fulfilled=g.open_cards("bob"))
    assert g.winner == "bob" and len(g.hand("bob").done) == 18
    with pytest.raises(GameError):
        pro.stop(g, "ann", [])


def test_the_collapse_penalty_comes_with_a_new_round_only():
    g = pro.new_pro_game(["ann", "bob"], rng())
    first, second = g.open_cards("ann")[:2]
    g, _ = pro.stop(g, "ann", [first])
    g, _ = pro.stop(g, "ann", [second])
    going_on = pro.collapse(g, "ann", new_round=False)  # the players continue the round: no penalty
    assert going_on.hand("ann") == g.hand("ann") and going_on.round == 1
    assert going_on.log[-1] == LogEntry(g.time, "ann", "collapse")
    g = pro.collapse(g, "ann", new_round=True)  # a new round, and the culprit is punished
    assert g.hand("ann").done == (first,) and g.hand("ann").pile[-1] == second and g.round == 2
    assert [e.action for e in g.log[-3:]] == ["collapse", "penalty", "round"]  # by default the one fulfilled last
    with pytest.raises(GameError, match="not fulfilled"):
        pro.collapse(g, "ann", new_round=True, card=second)
    g = pro.collapse(g, "ann", new_round=True, card=first)
    assert g.hand("ann").pile[-1] == first and g.round == 3
    assert pro.collapse(g, "bob", new_round=True).hand("bob") == g.hand("bob")  # nothing to give back


def test_only_the_highest_level_may_be_dismantled():
    a = analyze(EXAMPLES["three-levels-1-2"]().scene())
    s = a.structures[0]
    top = s.numbered(2)[0]
    may = removable(a, 0)
    assert top.id in may and {f.id for f in top.figures} <= may
    assert s.numbered(1)[0].id not in may
    assert not any(p.id in may for p in top.pillars)  # they hold level 2 up: level 1 is not the highest
    assert removal_problems(a, [top.id, *(f.id for f in top.figures)]) == []
    (problem,) = removal_problems(a, [s.numbered(1)[0].id])
    assert "highest level" in problem
    (problem,) = removal_problems(a, s.pieces)
    assert "demolished completely" in problem
