"""Tohuwabohu game flow: dealing, turn order and timing, the swap limit, the winner, the professional variant."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from sim.games.tohuwabohu import CARDS, analyze
from sim.games.tohuwabohu.examples import EXAMPLES
from sim.games.tohuwabohu.game import Game, GameError, deal
from sim.games.tohuwabohu.pro import OPEN_CARDS, ROUND_SECONDS, ProGame, removable, removal_problems


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
    g = Game(["ann", "bob", "cy"], rng(), starter="bob")
    assert g.turn_seconds == 15.0
    seen = [g.active]
    for _ in range(4):
        g.tick(15.0)
        seen.append(g.active)
    assert seen == ["bob", "cy", "ann", "bob", "cy"]
    g.tick(14.0)
    assert g.active == "cy" and g.time_left == pytest.approx(1.0)
    g.tick(2.0)  # the leftover second carries into the next turn
    assert g.active == "ann" and g.clock == pytest.approx(1.0) and g.time == pytest.approx(76.0)


def test_advanced_players_get_10_seconds():
    g = Game(["ann", "bob"], rng(), advanced=True)
    g.tick(10.0)
    assert g.turn_seconds == 10.0 and g.active == "bob"


def test_each_turn_begins_with_a_revealed_order_card():
    g = Game(["ann", "bob"], rng())
    first = g.order_card()
    assert first is not None and first not in g.state["ann"].pile
    assert len(g.state["ann"].pile) == 17
    assert g.order_card("bob") is None
    g.tick(15.0)
    assert g.order_card("bob") is not None
    g.tick(15.0)
    assert g.order_card("ann") == first  # an unfulfilled card stays face up


def test_swap_once_per_turn_puts_the_card_under_the_pile():
    g = Game(["ann", "bob"], rng())
    old = g.order_card()
    new = g.swap()
    assert new != old and g.state["ann"].pile[-1] == old
    with pytest.raises(GameError, match="already swapped"):
        g.swap()
    g.tick(30.0)  # bob's turn, then ann's again
    assert g.active == "ann"
    g.swap()


def test_fulfilled_cards_are_set_aside_during_ones_own_turn_only():
    g = Game(["ann", "bob"], rng())
    ann_card = g.order_card()
    assert not g.fulfil(["not-" + ann_card])
    assert g.fulfil([ann_card, "something-else"])
    assert g.state["ann"].done == [ann_card]
    assert g.order_card() not in (None, ann_card)  # the next one is revealed at once
    g.tick(15.0)
    assert not g.fulfil([ann_card])  # bob's card is not ann's


def test_the_first_player_to_fulfil_every_card_wins():
    g = Game(["ann", "bob"], rng())
    while not g.over:
        g.fulfil([g.order_card()])
    assert g.winner == "ann" and len(g.state["ann"].done) == 18
    assert g.history[-1].action == "win"
    with pytest.raises(GameError, match="over"):
        g.swap()


# --- the professional variant -----------------------------------------------------


def test_pro_variant_reveals_three_cards_and_runs_4_minute_rounds():
    g = ProGame(["ann", "bob", "cy"], rng())
    assert all(len(g.open_cards(p)) == OPEN_CARDS for p in g.players)
    assert ROUND_SECONDS == 240.0
    assert not g.tick(239.0) and g.round == 1
    assert g.tick(1.0) and g.round == 2 and g.clock == 0.0


def test_a_stop_claim_is_checked_and_others_may_set_aside_too():
    g = ProGame(["ann", "bob", "cy"], rng())
    ann, cy = g.open_cards("ann"), g.open_cards("cy")
    r = g.stop("bob", fulfilled=[ann[0], cy[1]])
    assert not r.accepted  # bob shows nothing
    assert r.set_aside == {"bob": [], "cy": [cy[1]], "ann": [ann[0]]}
    assert list(r.set_aside) == ["bob", "cy", "ann"]  # from the caller, round the table
    r = g.stop("ann", fulfilled=[ann[1]])
    assert r.accepted and g.state["ann"].done == [ann[0], ann[1]]
    assert not r.round_over and g.round == 1


def test_a_round_ends_when_a_player_clears_their_three_open_cards():
    g = ProGame(["ann", "bob"], rng())
    bob_open = g.open_cards("bob")
    r = g.stop("ann", fulfilled=g.open_cards("ann"))
    assert r.accepted and r.round_over and g.round == 2
    assert len(g.open_cards("ann")) == 3 and g.open_cards("bob") == bob_open  # topped up to three


def test_the_pro_game_ends_when_a_player_has_fulfilled_everything():
    g = ProGame(["ann", "bob"], rng())
    while not g.over:
        g.stop("bob", fulfilled=g.open_cards("bob"))
    assert g.winner == "bob" and len(g.state["bob"].done) == 18
    with pytest.raises(GameError):
        g.stop("ann", [])


def test_the_collapse_penalty_puts_a_fulfilled_card_back_under_the_pile():
    g = ProGame(["ann", "bob"], rng())
    first, second = g.open_cards("ann")[:2]
    g.stop("ann", [first])
    g.stop("ann", [second])
    assert g.collapse("ann", new_round=False) == second  # by default the one fulfilled last
    assert g.state["ann"].done == [first] and g.state["ann"].pile[-1] == second and g.round == 1
    with pytest.raises(GameError, match="not fulfilled"):
        g.collapse("ann", new_round=False, card=second)
    assert g.collapse("ann", new_round=True, card=first) == first and g.round == 2
    assert g.collapse("bob", new_round=False) is None  # nothing to give back


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
