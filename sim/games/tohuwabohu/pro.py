"""Tohuwabohu's professional variant: 4-minute rounds, three open cards, "Stop" claims, collapse penalty.

Everyone builds at once. A player calls "Stop" and must show that at least one
of their open cards is fulfilled; then, in seating order from the caller's
left, the others set aside their fulfilled open cards too. Only the currently
highest level of a structure may be taken apart, and never a whole structure.
After a collapse the players choose between going on and a new round in which
whoever caused it puts one fulfilled card back under their pile.

Choices where the rulebook leaves room:
- a "Stop" whose caller shows no fulfilled card is rejected, but the other
  players still set aside their fulfilled cards (the building has stopped anyway);
- after a collapse the players pick one of two ways on: the same round goes on
  with no penalty, or a fresh round starts and whoever brought the structure
  down pays for it (so the penalty belongs to the fresh round only);
- the penalty card is the player's choice; by default the one fulfilled last;
- the "highest level" of a structure is its highest-numbered level plate with
  everything standing on it; a structure with no level yet may be taken apart
  freely, short of removing all of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from sim.games.tohuwabohu.state import GameError, TohuwabohuState
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
    set_aside: Mapping[str, tuple[str, ...]]
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


@dataclass(frozen=True)
class ProState(TohuwabohuState):
    """The professional variant at one moment.

    Attributes:
        round: the round under way, from 1.
        running: the round's clock runs (it stops once the game is won).
    """

    VARIANT: ClassVar[str] = "pro"

    round: int = 0
    running: bool = False

    @property
    def time_left(self) -> float:
        """Seconds left in the round."""
        return ROUND_SECONDS - self.clock

    def open_cards(self, player: str) -> tuple[str, ...]:
        """The player's open order cards."""
        return self.hand(player).open


def new_pro_game(players: Sequence[str], rng: np.random.Generator) -> ProState:
    """A game whose first round has just begun: cards dealt, three open for everyone.

    Raises:
        GameError: not 2 to 4 players, or a name twice.
    """
    return _new_round(ProState.dealt(players, rng))


def tick(state: ProState, seconds: float) -> ProState:
    """Let the round's clock run (while not stopped); when the round runs out, the next one begins.

    Raises:
        GameError: ``seconds`` is negative.
    """
    if seconds < 0:
        raise GameError(f"time runs forward, got {seconds} s")
    if not state.running or state.over:
        return state
    if state.clock + seconds >= ROUND_SECONDS:
        return _new_round(replace(state, time=state.time + ROUND_SECONDS - state.clock))
    return replace(state, clock=state.clock + seconds, time=state.time + seconds)


def stop(state: ProState, caller: str, fulfilled: Iterable[str]) -> tuple[ProState, StopResult]:
    """A player calls "Stop": building halts, claims are checked, the clock resumes.

    Args:
        state: the game.
        caller: who called.
        fulfilled: ids of the cards the playing area fulfils (from the referee).

    Returns:
        The next state, and what the call came to.

    Raises:
        GameError: the game is over, or the caller does not play.
    """
    state.require_playing()
    fulfilled = set(fulfilled)
    start = state.players.index(state.hand(caller).name)
    order = state.players[start:] + state.players[:start]
    state = state.logged("stop", caller)
    set_aside = {}
    for p in order:
        hand = state.hand(p)
        cards = tuple(c for c in hand.open if c in fulfilled)
        state = state.with_hand(replace(hand, open=tuple(c for c in hand.open if c not in cards),
                                        done=hand.done + cards))
        for c in cards:
            state = state.logged("fulfil", p, c)
        set_aside[p] = cards
    accepted = bool(set_aside[caller])
    finished = [p for p in order if state.hand(p).finished]
    if finished:
        state = replace(state, winner=finished[0], running=False).logged("win", finished[0])
        return state, StopResult(caller, accepted, set_aside, True)
    round_over = any(set_aside[p] and not state.hand(p).open for p in order)
    if round_over:
        state = _new_round(state)
    return state, StopResult(caller, accepted, set_aside, round_over)


def collapse(state: ProState, culprit: str, new_round: bool, card: str | None = None) -> ProState:
    """A structure collapsed while being built: the players choose how to go on.

    The rulebook offers two ways on, chosen together: the same round goes on, or
    a fresh round starts and whoever brought the structure down pays by putting
    one fulfilled card back under their pile (to fulfil it once more). The
    penalty belongs to the fresh round only.

    Args:
        state: the game.
        culprit: the player who caused it (from the physics' collapse events).
        new_round: the players chose a new round and the penalty (else the round continues, unpunished).
        card: the fulfilled card the culprit gives back; default the one fulfilled last.

    Returns:
        The next state. The collapse is logged; the card put back is logged as a
        ``penalty`` (none when the culprit had fulfilled none).

    Raises:
        GameError: the game is over, ``card`` is not one the culprit has fulfilled, or the culprit does not play.
    """
    state.require_playing()
    hand = state.hand(culprit)
    state = state.logged("collapse", culprit)
    if not new_round:
        return state
    if hand.done:
        back = hand.done[-1] if card is None else card
        if back not in hand.done:
            raise GameError(f"{culprit} has not fulfilled {back!r}")
        done = list(hand.done)
        done.remove(back)
        state = state.with_hand(replace(hand, done=tuple(done), pile=hand.pile + (back,)))
        state = state.logged("penalty", culprit, back)
    return _new_round(state)


def _new_round(state: ProState) -> ProState:
    state = replace(state, round=state.round + 1, clock=0.0, running=True)
    for p in state.players:
        state = state.with_hand(state.hand(p).revealed(OPEN_CARDS))
    return state.logged("round", state.players[0])
