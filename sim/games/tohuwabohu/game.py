"""Tohuwabohu's basic game flow: dealing, timed turns, the once-per-turn swap, the winner.

Pure and deterministic: a :class:`GameState` is frozen data and each action
returns the next state; shuffles come from an injected
``numpy.random.Generator`` at the deal and time advances only through
:func:`tick`, so a viewer (or a test) drives the clock. Whether a card is
fulfilled is decided elsewhere (the referee,
:func:`sim.games.tohuwabohu.referee.referee`); the game is told the ids of the
cards the playing area fulfils.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from sim.games.tohuwabohu.state import DEAL_PER_COLOR, GameError, Hand, LogEntry, TohuwabohuState, deal

TURN_SECONDS = 15.0
ADVANCED_TURN_SECONDS = 10.0


@dataclass(frozen=True)
class GameState(TohuwabohuState):
    """The basic game at one moment: one open card each, timed turns in seating order.

    Attributes:
        turn_seconds: 15 s, or 10 s in the advanced variant.
        turn: index into ``players`` of whose turn it is.
        swapped: the active player has swapped a card this turn.
    """

    VARIANT: ClassVar[str] = "basic"

    turn_seconds: float = TURN_SECONDS
    turn: int = 0
    swapped: bool = False

    @property
    def active(self) -> str:
        """The player whose turn it is."""
        return self.players[self.turn]

    @property
    def time_left(self) -> float:
        """Seconds left in the current turn."""
        return self.turn_seconds - self.clock

    def order_card(self, player: str | None = None) -> str | None:
        """The face-up order card of ``player`` (default: the active player)."""
        hand = self.hand(player or self.active)
        return hand.open[0] if hand.open else None


def new_game(players: Sequence[str], rng: np.random.Generator, advanced: bool = False,
             starter: str | None = None) -> GameState:
    """A game whose first turn has just begun: cards dealt, the starter's first card face up.

    Args:
        players: 2 to 4 names in seating order; turns pass to the next in the list (the left).
        rng: the shuffles' source.
        advanced: the advanced variant (10 s turns instead of 15 s).
        starter: who begins (the most disorderly player); default the first.

    Raises:
        GameError: not 2 to 4 players, a name twice, or an unknown starter.
    """
    state = GameState.dealt(players, rng, turn_seconds=ADVANCED_TURN_SECONDS if advanced else TURN_SECONDS)
    first = 0 if starter is None else state.players.index(state.hand(starter).name)
    return _begin_turn(replace(state, turn=first))


def tick(state: GameState, seconds: float) -> GameState:
    """Let time pass; whenever a turn's time runs out the next player's turn begins at once.

    Raises:
        GameError: ``seconds`` is negative.
    """
    if seconds < 0:
        raise GameError(f"time runs forward, got {seconds} s")
    while not state.over and state.clock + seconds >= state.turn_seconds:
        rest = state.turn_seconds - state.clock
        seconds -= rest
        state = _begin_turn(replace(state, time=state.time + rest, turn=(state.turn + 1) % len(state.players)))
    if not state.over:
        state = replace(state, clock=state.clock + seconds, time=state.time + seconds)
    return state


def swap(state: GameState) -> GameState:
    """Put the open card under the pile and reveal the next (once per turn).

    Raises:
        GameError: the game is over, already swapped this turn, or no other card to reveal.
    """
    state.require_playing()
    hand = state.hand(state.active)
    if state.swapped:
        raise GameError(f"{state.active} has already swapped a card this turn")
    if not hand.pile:
        raise GameError(f"{state.active} has no other card to swap in")
    old = hand.open[0]
    state = replace(state.with_hand(replace(hand, pile=hand.pile + (old,), open=hand.open[1:])), swapped=True)
    return state.logged("swap", state.active, old).revealing(state.active, 1)


def fulfil(state: GameState, fulfilled: Iterable[str]) -> GameState:
    """The active player shows the playing area; if it fulfils their card, it is set aside and the next revealed.

    Args:
        state: the game.
        fulfilled: ids of the cards the playing area fulfils (from the referee).

    Returns:
        The next state (the same state when the active player's card is not among ``fulfilled``).

    Raises:
        GameError: the game is over.
    """
    state.require_playing()
    hand = state.hand(state.active)
    if not hand.open or hand.open[0] not in set(fulfilled):
        return state
    card = hand.open[0]
    hand = replace(hand, open=hand.open[1:], done=hand.done + (card,))
    state = state.with_hand(hand).logged("fulfil", state.active, card)
    if hand.finished:
        return replace(state, winner=state.active).logged("win", state.active)
    return state.revealing(state.active, 1)


def _begin_turn(state: GameState) -> GameState:
    state = replace(state, clock=0.0, swapped=False).logged("turn", state.active)
    return state.revealing(state.active, 1)


__all__ = ["ADVANCED_TURN_SECONDS", "DEAL_PER_COLOR", "TURN_SECONDS", "GameError", "GameState", "Hand", "LogEntry",
           "deal", "fulfil", "new_game", "swap", "tick"]
