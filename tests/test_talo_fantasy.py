"""Talo-Fantasy: the die and the stock, free building without grid or pawns, until the blocks run out."""

import numpy as np
import pytest

from sim.games.talo import IllegalMoveError, Stock, TaloError, Verdict
from sim.games.talo import fantasy as f


def test_a_fantasy_game_has_no_pawns_and_builds_off_the_grid():
    s = f.new_fantasy(["ann", "ben"])
    assert s.scene.board == "table" and s.scene.pieces == ()
    s = f.take(f.throw(s, rolls=[5]), (2, 3))
    turned = (0.0, 0.0, np.sin(np.pi / 8), np.cos(np.pi / 8))  # 45° about z: diagonal is fine here
    s = f.place(s, [f.FreeBlock(2, (0.013, -0.007, 0.01), turned)], Verdict.standing())
    s = f.end_turn(f.place(s, [f.FreeBlock(3, (0.2, 0.2, 0.01))], Verdict.standing()))
    assert s.player == "ben" and len(s.scene.pieces) == 2
    assert s.scene.piece("f1").quat == pytest.approx(turned) and s.scene.piece("f2").owner == "ann"


def test_fantasy_uses_the_same_throws():
    s = f.new_fantasy(["ann", "ben"], stock=Stock.of({10: 1}))
    rng = np.random.default_rng(5)
    for _ in range(20):
        s = f.throw(s, rng)
        if s.phase == "take":
            break
    throws = [e.data["rolls"] for e in s.log if e.action == "throw"]
    assert all(1 <= len(r) <= 3 for r in throws) and throws[-1][-1] == 10 and s.options == ((10,),)
    assert all(len(r) == 3 for r in throws[:-1])


def test_a_block_that_would_fall_is_refused_a_collapse_ends_it():
    s = f.take(f.throw(f.new_fantasy(["ann", "ben"]), rolls=[2]), (2,))
    s = f.place(s, [f.FreeBlock(2, (0, 0, 0.01))], Verdict.standing())
    s = f.end_turn(s)
    s = f.take(f.throw(s, rolls=[1]), (1,))
    with pytest.raises(IllegalMoveError, match="would not stay"):
        f.place(s, [f.FreeBlock(1, (0.019, 0, 0.03))], Verdict.falling({"f2"}))
    over = f.place(s, [f.FreeBlock(1, (0.019, 0, 0.03))], Verdict.falling({"f1", "f2"}))
    assert over.outcome.reason == "collapse" and over.outcome.loser == "ben" and over.outcome.winners == ()


def test_fantasy_ends_when_the_goal_is_reached_or_the_blocks_are_used_up():
    s = f.new_fantasy(["ann", "ben"], site="talo-island", stock=Stock.of({1: 1}))
    assert f.finish(s).outcome.winners == ("ann", "ben")
    s = f.end_turn(f.place(f.take(f.throw(s, rolls=[1]), (1,)), [f.FreeBlock(1, (0, 0, 0.01))],
                           Verdict.standing()))
    assert s.phase == "over" and s.outcome.reason == "blocks used up"
    with pytest.raises(TaloError, match="built on"):
        f.new_fantasy(["ann", "ben"], site="babylon-table")


@pytest.mark.parametrize("players", [["ann"], ["a", "b", "c", "d", "e"], ["a", "b", "c", "d", "e", "f"]])
def test_fantasy_is_for_two_to_four_players(players):
    with pytest.raises(TaloError, match="2 to 4 players"):
        f.new_fantasy(players)
    assert len(f.new_fantasy(["a", "b", "c", "d"]).players) == 4
    with pytest.raises(TaloError, match="names must differ"):
        f.new_fantasy(["ann", "ann"])
