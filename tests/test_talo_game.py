"""The Talo game: turns, taking blocks, moving between placements, counterweights, blockades, collapse, winning."""

import numpy as np
import pytest

from sim.games.talo import GridBlock, GridPawn, IllegalMoveError, Stock, TaloError, Verdict, talo_board
from sim.games.talo import game as g
from sim.games.talo.layout import block_piece, pawn_piece
from sim.scene import Scene

GREEN = talo_board("talo-green")
STANDS = Verdict.standing()


def state_of(blocks, pawns, players=None, stock=None, phase="throw", hand=()):
    """A game in progress: blocks as (id, length, cell, layer, axis), pawns colour -> (cell, level)."""
    pieces = [block_piece(GridBlock(*b), GREEN) for b in blocks]
    pieces += [pawn_piece(GridPawn(g.pawn_id(c), c, cell, lv), GREEN) for c, (cell, lv) in pawns.items()]
    players = tuple(players or pawns)
    scene = Scene("talo", "talo-green", tuple(pieces), players=players)
    return g.TaloState(scene, players, stock or Stock.full(), phase=phase, hand=tuple(hand), placed=len(blocks))


def test_new_game_places_pawns_on_start_fields():
    s = g.new_game({"red": (2, 2), "blue": (7, 7)})
    assert s.players == ("red", "blue") and s.player == "red" and s.phase == "throw"
    assert s.levels() == {"red": 0, "blue": 0} and s.stock.total == 55
    with pytest.raises(TaloError, match="cannot start"):
        g.new_game({"red": (4, 4)}, board="talo-island")  # the middle island is no start
    with pytest.raises(TaloError, match="two pawns"):
        g.new_game({"red": (0, 0), "blue": (0, 0)})
    with pytest.raises(TaloError, match="colour"):
        g.new_game({"purple": (0, 0)})


def test_a_throw_of_five_allows_exactly_the_three_combinations():
    s = g.throw(g.new_game({"red": (2, 2)}), rolls=[5])
    assert s.phase == "take" and s.options == ((5,), (1, 4), (2, 3))
    with pytest.raises(IllegalMoveError, match="not allowed"):
        g.take(s, (5, 1))
    with pytest.raises(IllegalMoveError, match="not allowed"):
        g.take(s, (1, 1, 3))  # never more than two
    t = g.take(s, (4, 1))
    assert t.hand == (1, 4) and t.stock.count(1) == 9 and t.stock.count(4) == 6 and t.phase == "build"


def test_nothing_matches_after_three_throws_no_building_no_moving():
    s = g.new_game({"red": (2, 2), "blue": (7, 7)}, stock=Stock.of({10: 1, 1: 0}))
    t = g.throw(s, rolls=[3, 4, 5])
    assert t.player == "blue" and t.phase == "throw" and t.stock == s.stock
    assert [e.action for e in t.log if e.turn] == ["throw", "pass"]
    with pytest.raises(IllegalMoveError, match="not now"):
        g.move(t, (3, 2), 1)


def test_seeded_games_are_identical():
    def play(seed):
        rng = np.random.default_rng(seed)
        s = g.new_game({"red": (2, 2), "blue": (7, 7)})
        for _ in range(4):
            s = g.throw(s, rng)
            s = g.end_turn(g.take(s, s.options[0]))
        return [e.to_json() for e in s.log], s.stock

    assert play(11) == play(11)
    assert play(11) != play(12)


def test_move_before_between_and_after_placements():
    s = g.take(g.throw(g.new_game({"red": (2, 2)}), rolls=[5]), (1, 4))
    with pytest.raises(IllegalMoveError, match="cannot reach"):
        g.move(s, (3, 2), 1)  # nothing to climb yet
    s = g.place(s, [g.Put(1, (3, 2), 0, "z")], STANDS)
    s = g.move(s, (3, 2), 1)  # between the two placements
    assert s.levels() == {"red": 1} and s.hand == (4,)
    s = g.place(s, [g.Put(4, (4, 2), 0, "z")], STANDS)
    with pytest.raises(IllegalMoveError, match="cannot reach"):
        g.move(s, (4, 2), 4)  # a step of three
    s = g.end_turn(s)
    assert [e.action for e in s.log] == ["start", "throw", "take", "place", "move", "place", "end"]
    assert {b.id: b.owner for b in s.layout.blocks} == {"b1": "red", "b2": "red"}


def test_only_blocks_in_hand_and_only_on_legal_fields():
    s = g.take(g.throw(g.new_game({"red": (2, 2)}), rolls=[3]), (3,))
    with pytest.raises(IllegalMoveError, match="no block of length 2"):
        g.place(s, [g.Put(2, (0, 0), 0, "x")], STANDS)
    with pytest.raises(IllegalMoveError, match="protrusion"):
        g.place(s, [g.Put(3, (8, 0), 0, "x")], STANDS)
    with pytest.raises(IllegalMoveError, match="pawn"):
        g.place(s, [g.Put(3, (2, 2), 0, "z")], STANDS)  # onto the red pawn's field


def test_balance_rule_refuses_what_would_fall_and_keeps_the_blocks_in_hand():
    s = state_of([("post", 1, (4, 4), 0, "z")], {"red": ((0, 0), 0)}, phase="build", hand=(4,))
    four = g.Put(4, (2, 4), 1, "x")  # centred on the post: a knife edge
    with pytest.raises(IllegalMoveError, match="balance") as err:
        g.place(s, [four], Verdict(False, 0.0, frozenset({"b2"})))
    assert err.value.violations[0].pieces == ("b2",)
    assert s.hand == (4,) and len(s.layout.blocks) == 1  # still in hand, to be placed elsewhere
    assert g.place(s, [g.Put(4, (0, 9), 0, "x")], STANDS).hand == ()


def test_four_and_one_placed_together_on_a_one_keep_the_balance():
    # the rulebook's counterweight: the 1 on the 4's end holds it; the judge sees both at once, no pawn
    s = state_of([("post", 1, (4, 4), 0, "z")], {"red": ((7, 4), 0)}, phase="build", hand=(1, 4))
    puts = [g.Put(4, (2, 4), 1, "x"), g.Put(1, (2, 4), 2, "z")]
    building = g.building_after(s, puts)
    assert sorted(p.id for p in building.pieces) == ["b2", "b3", "post"]  # no pawn
    t = g.place(s, puts, STANDS)
    assert t.hand == () and [e.action for e in t.log] == ["place"]  # one action: no move in between
    assert [b["length"] for b in t.log[-1].data["blocks"]] == [4, 1]


def test_a_collapse_ends_the_game_the_culprit_loses_the_highest_wins():
    blocks = [("t", 3, (0, 0), 0, "z"), ("u", 2, (5, 5), 0, "z"), ("v", 1, (9, 9), 0, "z")]
    pawns = {"red": ((0, 0), 3), "blue": ((5, 5), 2), "green": ((9, 9), 1)}
    s = state_of(blocks, pawns, phase="build", hand=(2,))
    over = g.place(s, [g.Put(2, (0, 1), 0, "x")], Verdict(False, 0.0, frozenset({"t", "b4"})))
    assert over.phase == "over"
    assert over.outcome.reason == "collapse" and over.outcome.loser == "red" and over.outcome.winners == ("blue",)
    assert over.log[-1].data["fallen"] == ["t"]
    with pytest.raises(IllegalMoveError, match="over"):
        g.end_turn(over)


def test_a_reported_collapse_can_be_blamed_on_another_player_and_ties_share():
    pawns = {"red": ((0, 0), 0), "blue": ((5, 5), 0), "green": ((9, 9), 0)}
    over = g.collapse(state_of([], pawns), caused_by="blue")
    assert over.outcome.loser == "blue" and over.outcome.winners == ("red", "green")


def test_reaching_level_10_wins():
    blocks = [("ten", 10, (4, 4), 0, "z"), ("nine", 9, (5, 4), 0, "z")]
    s = state_of(blocks, {"red": ((5, 4), 9), "blue": ((0, 0), 0)}, phase="build", hand=(1,))
    won = g.move(s, (4, 4), 10)
    assert won.phase == "over" and won.outcome.winners == ("red",) and won.outcome.reason == "level 10"


def test_a_blocked_pawn_restarts_on_a_free_field():
    walls = [("e", 3, (1, 0), 0, "z"), ("n", 3, (0, 1), 0, "z")]
    s = state_of(walls, {"red": ((0, 0), 0), "blue": ((5, 5), 0)})
    assert g.blocked(s)
    with pytest.raises(IllegalMoveError, match="not a free start"):
        g.restart(s, (5, 5))  # blue stands there
    t = g.restart(s, (7, 7))
    assert t.levels()["red"] == 0 and t.layout.pawn("red").cell == (7, 7) and t.phase == "throw"
    free = state_of(walls[:1], {"red": ((0, 0), 0)})
    with pytest.raises(IllegalMoveError, match="not blockaded"):
        g.restart(free, (7, 7))


def test_the_game_ends_when_the_blocks_are_used_up():
    s = g.new_game({"red": (2, 2), "blue": (7, 7)}, stock=Stock.of({1: 1}))
    s = g.take(g.throw(s, rolls=[1]), (1,))
    s = g.end_turn(g.place(s, [g.Put(1, (0, 0), 0, "z")], STANDS))
    assert s.phase == "over" and s.outcome.reason == "blocks used up" and s.outcome.winners == ("red", "blue")


def test_unplaced_blocks_go_back_to_the_stock():
    s = g.take(g.throw(g.new_game({"red": (2, 2)}), rolls=[5]), (2, 3))
    t = g.end_turn(s)
    assert t.stock == Stock.full() and t.log[-1].data["returned"] == [2, 3]
