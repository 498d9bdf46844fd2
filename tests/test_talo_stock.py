"""Talo's stock and die: 55 blocks, what a throw lets a player take, three throws at most."""

import numpy as np
import pytest

from sim.games.talo import Stock, TaloError, roll_die, throw_for_blocks
from sim.games.talo.stock import MAX_THROWS, recorded_throws


def test_full_stock_has_eleven_minus_n_of_each_length():
    s = Stock.full()
    assert s.total == 55
    assert [s.count(n) for n in range(1, 11)] == [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]


def test_a_five_gives_five_or_one_and_four_or_two_and_three():
    # the rulebook's example
    assert Stock.full().choices(5) == [(5,), (1, 4), (2, 3)]


def test_a_one_gives_only_a_one_and_a_ten_gives_six_ways():
    assert Stock.full().choices(1) == [(1,)]
    assert Stock.full().choices(10) == [(10,), (1, 9), (2, 8), (3, 7), (4, 6), (5, 5)]


def test_only_what_is_left_can_be_taken():
    s = Stock.of({1: 1, 4: 1, 2: 1})  # no 5, no 3, a single 2
    assert s.choices(5) == [(1, 4)]
    assert s.choices(4) == [(4,)]  # 2 + 2 needs two 2s
    assert Stock.of({2: 2}).choices(4) == [(2, 2)]
    assert s.choices(9) == []


def test_take_and_give_back():
    s = Stock.full().take((1, 4))
    assert s.count(1) == 9 and s.count(4) == 6 and s.total == 53
    assert s.give_back((1, 4)) == Stock.full()
    with pytest.raises(TaloError, match="no 10"):
        Stock.full().take((10,)).take((10,))


def test_die_shows_one_to_ten_uniformly():
    rng = np.random.default_rng(0)
    rolls = np.array([roll_die(rng) for _ in range(5000)])
    assert rolls.min() == 1 and rolls.max() == 10
    counts = np.bincount(rolls, minlength=11)[1:]
    assert np.all(np.abs(counts - 500) < 100)


def test_throws_are_reproducible_with_the_same_seed():
    a = [throw_for_blocks(Stock.full(), np.random.default_rng(7)).rolls for _ in range(3)]
    assert a[0] == a[1] == a[2]


def test_throws_stop_at_the_first_match():
    got = throw_for_blocks(Stock.full(), np.random.default_rng(1))
    assert len(got.rolls) == 1 and got.can_build  # every number matches a full stock


def test_three_throws_then_no_building():
    only_ten = Stock.of({10: 1})
    rng = np.random.default_rng(3)
    seen = [throw_for_blocks(only_ten, rng) for _ in range(50)]
    assert all(1 <= len(t.rolls) <= MAX_THROWS for t in seen)
    failed = [t for t in seen if not t.can_build]
    assert failed and all(len(t.rolls) == MAX_THROWS and 10 not in t.rolls for t in failed)
    assert all(t.rolls[-1] == 10 and t.options == ((10,),) for t in seen if t.can_build)


def test_recorded_throws_follow_the_same_rule():
    only_ten = Stock.of({10: 1})
    assert recorded_throws(only_ten, [3, 4, 5]).options == ()
    assert recorded_throws(only_ten, [3, 10]).options == ((10,),)
    with pytest.raises(TaloError, match="already matched"):
        recorded_throws(Stock.full(), [3, 4])
    with pytest.raises(TaloError, match="1 to 3 throws"):
        recorded_throws(only_ten, [1, 2, 3, 4])
    with pytest.raises(TaloError, match="1..10"):
        recorded_throws(only_ten, [11])
