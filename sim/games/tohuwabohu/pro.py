"""Tohuwabohu's professional variant: 4-minute rounds, three open cards, "Stop" claims, collapse penalty.

Everyone builds at once. A player calls "Stop" and must show that at least one
of their open cards is fulfilled; then, in seating order from the caller's
left, the others set aside their fulfilled open cards too. Only the currently
highest level of a structure may be taken apart, and never a whole structure.
Whoever causes a collapse puts one fulfilled card back under their pile.

Choices where the rulebook leaves room:
- a "Stop" whose caller shows no fulfilled card is rejected, but the other
  players still set aside their fulfilled cards (the building has stopped anyway);
- the penalty card is the player's choice; by default the one fulfilled last;
- the "highest level" of a structure is its highest-numbered level plate with
  everything standing on it; a structure with no level yet may be taken apart
  freely, short of removing all of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from sim.games.tohuwabohu.game import Event, GameError, PlayerState, deal
from sim.games.tohuwabohu.structure import Analysis

ROUND_SECONDS = 240.0
OPEN_CARDS = 3


@dataclass(frozen=True)
class StopResult:
    """What a "Stop" call came to.

    Attributes:
        caller: who called it.
        accepted: the caller showed at least one fulfilled open card.
        set_aside: player -> the cards they set aside, in seating order from the caller.
        round_over: a player has fulfilled all their open cards, so the round ended.
    """

    caller: str
    accepted: bool
    set_aside: dict[str, list[str]]
    round_over: bool


def removable(analysis: Analysis, structure: int) -> set[str]:
    """Ids of the pieces that may be taken away from a structure: its highest level and what stands on it.

    Args:
        analysis: the playing area's analysis.
        structure: index of the structure.
    """
    s = analysis.structures[structure]
    if not s.levels:
        return set(s.pieces)
    top = max(lv.number for lv in s.levels)
    out: set[str] = set()
    stack = [lv.id for lv in s.levels if lv.number == top]
    while stack:
        pid = stack.pop()
        if pid not in out:
            out.add(pid)
            stack.extend(analysis.pieces[pid].carries)
    return out


def removal_problems(analysis: Analysis, removed: Iterable[str]) -> list[str]:
    """Why taking away these pieces breaks the variant's dismantling rule (empty when it does not).

    Args:
        analysis: the playing area before the removal.
        removed: ids of the pieces taken away.
    """
    removed = set(removed)
    problems = []
    for s in analysis.structures:
        taken = removed & set(s.pieces)
        if not taken:
            continue
        if taken == set(s.pieces):
            problems.append(f"structure {s.index + 1} would be demolished completely")
            continue
        wrong = sorted(taken - removable(analysis, s.index), key=list(s.pieces).index)
        if wrong:
            problems.append(f"{', '.join(wrong)} not part of the highest level of structure {s.index + 1}")
    return problems


class ProGame:
    """The professional variant.

    Args:
        players: 2 to 4 names in seating order.
        rng: the shuffles' source.
    """

    def __init__(self, players: Sequence[str], rng: np.random.Generator):
        piles = deal(players, rng)
        self.players = list(players)
        self.state = {p: PlayerState(p, piles[p]) for p in self.players}
        self.round = 0
        self.time = 0.0
        self.clock = 0.0  # seconds into the current round
        self.running = False
        self.winner: str | None = None
        self.history: list[Event] = []
        self._new_round()

    @property
    def over(self) -> bool:
        """Someone has won."""
        return self.winner is not None

    @property
    def time_left(self) -> float:
        """Seconds left in the round."""
        return ROUND_SECONDS - self.clock

    def open_cards(self, player: str) -> list[str]:
        """The player's open order cards."""
        return list(self._state(player).open)

    def tick(self, seconds: float) -> bool:
        """Let the round's clock run (while not stopped); returns True when the round ran out and a new one began."""
        if seconds < 0:
            raise GameError(f"time runs forward, got {seconds} s")
        if not self.running or self.over:
            return False
        if self.clock + seconds >= ROUND_SECONDS:
            self.time += ROUND_SECONDS - self.clock
            self._new_round()
            return True
        self.clock += seconds
        self.time += seconds
        return False

    def stop(self, caller: str, fulfilled: Iterable[str]) -> StopResult:
        """A player calls "Stop": building halts, claims are checked, the clock resumes.

        Args:
            caller: who called.
            fulfilled: ids of the cards the playing area fulfils (from the referee).
        """
        if self.over:
            raise GameError(f"the game is over: {self.winner} has won")
        fulfilled = set(fulfilled)
        start = self.players.index(self._name(caller))
        order = self.players[start:] + self.players[:start]
        self._log("stop", caller)
        set_aside = {}
        accepted = False
        for p in order:
            s = self.state[p]
            cards = [c for c in s.open if c in fulfilled]
            if p == caller:
                accepted = bool(cards)
            for c in cards:
                s.open.remove(c)
                s.done.append(c)
                self._log("fulfil", p, c)
            set_aside[p] = cards
        finished = [p for p in order if self.state[p].finished]
        if finished:
            self.winner = finished[0]
            self._log("win", self.winner)
            self.running = False
            return StopResult(caller, accepted, set_aside, True)
        round_over = any(set_aside[p] and not self.state[p].open for p in order)
        if round_over:
            self._new_round()
        return StopResult(caller, accepted, set_aside, round_over)

    def collapse(self, culprit: str, new_round: bool, card: str | None = None) -> str | None:
        """A structure collapsed: the culprit puts a fulfilled card back under their pile.

        Args:
            culprit: the player who caused it (from the physics' collapse events).
            new_round: the players chose to begin a new round (else the round continues).
            card: the fulfilled card the culprit gives back; default the one fulfilled last.

        Returns:
            The card put back (None when the culprit had fulfilled none).

        Raises:
            GameError: ``card`` is not one the culprit has fulfilled.
        """
        s = self._state(culprit)
        back = None
        if s.done:
            back = s.done[-1] if card is None else card
            if back not in s.done:
                raise GameError(f"{culprit} has not fulfilled {back!r}")
            s.done.remove(back)
            s.pile.append(back)
            self._log("penalty", culprit, back)
        if new_round:
            self._new_round()
        return back

    def _new_round(self) -> None:
        self.round += 1
        self.clock = 0.0
        self.running = True
        for p in self.players:
            self.state[p].reveal(OPEN_CARDS)
        self._log("round", self.players[0])

    def _name(self, player: str) -> str:
        if player not in self.players:
            raise GameError(f"no player {player!r}; players are {', '.join(self.players)}")
        return player

    def _state(self, player: str) -> PlayerState:
        return self.state[self._name(player)]

    def _log(self, action: str, player: str, card: str | None = None) -> None:
        self.history.append(Event(self.time, player, action, card))
