"""The 55 blocks still to be built, the ten-sided die and what a throw lets a player take."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from sim.games.talo.board import TaloError
from sim.pieces import dimensions as dim

DIE_FACES = 10
"""The die shows 1..10."""

MAX_THROWS = 3
"""Throws a player gets in one turn when no blocks match: three in all, then no building."""


@dataclass(frozen=True)
class Stock:
    """How many blocks of each length are left to take.

    Attributes:
        counts: length (1..10) -> blocks left; lengths with none are absent.
    """

    counts: tuple[tuple[int, int], ...]

    @classmethod
    def full(cls) -> Stock:
        """The whole set: 11 − n blocks of length n, 55 in all."""
        return cls.of(dim.TALO_COUNT)

    @classmethod
    def of(cls, counts: Mapping[int, int]) -> Stock:
        """A stock with the given counts per length (zero counts dropped)."""
        return cls(tuple(sorted((int(n), int(c)) for n, c in counts.items() if c > 0)))

    def count(self, length: int) -> int:
        """Blocks of ``length`` left."""
        return dict(self.counts).get(length, 0)

    @property
    def total(self) -> int:
        """Blocks left in all."""
        return sum(c for _, c in self.counts)

    def has(self, lengths: Iterable[int]) -> bool:
        """Whether every block of ``lengths`` (a multiset) can be taken."""
        need = Counter(lengths)
        return all(self.count(n) >= c for n, c in need.items())

    def choices(self, roll: int) -> list[tuple[int, ...]]:
        """What a throw of ``roll`` lets a player take from this stock.

        One block of the rolled length, or two whose lengths add up to it, each
        only if the stock still holds them.

        Returns:
            Length combinations, ascending within each, the single block first:
            for 5 on a full stock ``[(5,), (1, 4), (2, 3)]``.
        """
        combos = [(roll,)] + [(a, roll - a) for a in range(1, roll // 2 + 1)]
        return [c for c in combos if self.has(c)]

    def take(self, lengths: Iterable[int]) -> Stock:
        """The stock without ``lengths``.

        Raises:
            TaloError: some of them are no longer there.
        """
        lengths = list(lengths)
        if not self.has(lengths):
            raise TaloError(f"the stock has no {' + '.join(map(str, lengths))} left")
        left = Counter(dict(self.counts))
        left.subtract(lengths)
        return Stock.of(left)

    def give_back(self, lengths: Iterable[int]) -> Stock:
        """The stock with ``lengths`` returned."""
        left = Counter(dict(self.counts))
        left.update(lengths)
        return Stock.of(left)


def roll_die(rng: np.random.Generator) -> int:
    """One throw of the ten-sided die: 1..10, uniform."""
    return int(rng.integers(1, DIE_FACES + 1))


@dataclass(frozen=True)
class Throws:
    """A turn's throws.

    Attributes:
        rolls: the numbers thrown, in order (one to three).
        options: what the last throw lets the player take (empty: no building this turn).
    """

    rolls: tuple[int, ...]
    options: tuple[tuple[int, ...], ...]

    @property
    def can_build(self) -> bool:
        """Whether some blocks match."""
        return bool(self.options)


def throw_for_blocks(stock: Stock, rng: np.random.Generator) -> Throws:
    """Throw until some blocks match, at most :data:`MAX_THROWS` times in all.

    Args:
        stock: what is left.
        rng: the die's randomness.

    Returns:
        The rolls and the options of the last one; no options means the
        player neither builds nor moves this turn.
    """
    rolls: list[int] = []
    options: list[tuple[int, ...]] = []
    while len(rolls) < MAX_THROWS and not options:
        rolls.append(roll_die(rng))
        options = stock.choices(rolls[-1])
    return Throws(tuple(rolls), tuple(options))


def recorded_throws(stock: Stock, rolls) -> Throws:
    """The throws of a turn played at a real table, as the die fell.

    Args:
        stock: what was left.
        rolls: the numbers thrown, in order.

    Raises:
        TaloError: a number is not on the die, there are more than
            :data:`MAX_THROWS`, or the player threw again although blocks matched.
    """
    rolls = tuple(int(r) for r in rolls)
    if not rolls or len(rolls) > MAX_THROWS:
        raise TaloError(f"a turn has 1 to {MAX_THROWS} throws, got {len(rolls)}")
    for at, r in enumerate(rolls):
        if not 1 <= r <= DIE_FACES:
            raise TaloError(f"the die shows 1..{DIE_FACES}, got {r}")
        if stock.choices(r) and at < len(rolls) - 1:
            raise TaloError(f"throw {at + 1} ({r}) already matched blocks; no further throw is allowed")
    return Throws(rolls, tuple(stock.choices(rolls[-1])))
