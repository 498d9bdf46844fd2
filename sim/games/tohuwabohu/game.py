"""Tohuwabohu's basic game flow: dealing, timed turns, the once-per-turn swap, the winner.

Pure and deterministic: shuffles come from an injected ``numpy.random.Generator``
and time advances only through :meth:`Game.tick`, so a viewer (or a test)
drives the clock. Whether a card is fulfilled is decided elsewhere (the
referee, :func:`sim.games.tohuwabohu.referee.referee`); the game is told the ids of
the cards the playing area fulfils.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from sim.errors import TowerlabError
from sim.games.tohuwabohu.cards import CARD_COLORS, cards_of

DEAL_PER_COLOR = {2: 6, 3: 4, 4: 3}  # cards of each colour per player, by player count
TURN_SECONDS = 15.0
ADVANCED_TURN_SECONDS = 10.0


class GameError(TowerlabError):
    """An action the rules do not allow now (a second swap in a turn, an unknown player …)."""


@dataclass(frozen=True)
class Event:
    """Something that happened in a game.

    Attributes:
        time: game time (s) since the start.
        player: who did it.
        action: ``turn``, ``reveal``, ``swap``, ``fulfil``, ``win``, ``stop``, ``penalty``, ``round``.
        card: the card concerned, if any.
    """

    time: float
    player: str
    action: str
    card: str | None = None


@dataclass
class PlayerState:
    """One player's cards.

    Attributes:
        name: the player.
        pile: face-down draw pile, top first.
        open: face-up order cards (one in the basic game, up to three in the professional variant).
        done: fulfilled cards, set aside, in the order fulfilled.
    """

    name: str
    pile: list[str]
    open: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        """Every order fulfilled."""
        return not self.pile and not self.open

    def reveal(self, up_to: int = 1) -> list[str]:
        """Turn over cards from the pile until ``up_to`` are open (fewer when the pile runs out)."""
        new = []
        while len(self.open) + len(new) < up_to and self.pile:
            new.append(self.pile.pop(0))
        self.open.extend(new)
        return new


def deal(players: Sequence[str], rng: np.random.Generator) -> dict[str, list[str]]:
    """Deal the order cards: each player gets the same number of each colour, then shuffles them.

    Args:
        players: 2 to 4 player names, in seating order.
        rng: the source of every shuffle.

    Returns:
        Each player's draw pile, top first.

    Raises:
        GameError: not 2 to 4 players, or a name twice.
    """
    if len(players) not in DEAL_PER_COLOR:
        raise GameError(f"players: Tohuwabohu is for 2 to 4 players, got {len(players)}")
    if len(set(players)) != len(players):
        raise GameError(f"players: names must differ, got {', '.join(players)}")
    n = DEAL_PER_COLOR[len(players)]
    hands: dict[str, list[str]] = {p: [] for p in players}
    for color in CARD_COLORS:
        stack = [c.id for c in cards_of(color)]
        stack = [stack[i] for i in rng.permutation(len(stack))]
        for k, p in enumerate(players):
            hands[p].extend(stack[k * n:(k + 1) * n])
    return {p: [hand[i] for i in rng.permutation(len(hand))] for p, hand in hands.items()}


class Game:
    """The basic game: one open card each, timed turns in seating order, first to finish wins.

    Args:
        players: 2 to 4 names in seating order; turns pass to the next in the list (the left).
        rng: the shuffles' source.
        advanced: the advanced variant (10 s turns instead of 15 s).
        starter: who begins (the most disorderly player); default the first.
    """

    def __init__(self, players: Sequence[str], rng: np.random.Generator, advanced: bool = False,
                 starter: str | None = None):
        piles = deal(players, rng)
        self.players = list(players)
        self.state = {p: PlayerState(p, piles[p]) for p in self.players}
        self.turn_seconds = ADVANCED_TURN_SECONDS if advanced else TURN_SECONDS
        self.time = 0.0
        self.clock = 0.0  # seconds into the current turn
        self.swapped = False
        self.winner: str | None = None
        self.history: list[Event] = []
        self._turn = self.players.index(self._player(starter)) if starter is not None else 0
        self._begin_turn()

    @property
    def active(self) -> str:
        """The player whose turn it is."""
        return self.players[self._turn]

    @property
    def over(self) -> bool:
        """Someone has won."""
        return self.winner is not None

    @property
    def time_left(self) -> float:
        """Seconds left in the current turn."""
        return self.turn_seconds - self.clock

    def order_card(self, player: str | None = None) -> str | None:
        """The face-up order card of ``player`` (default: the active player)."""
        s = self.state[self._player(player or self.active)]
        return s.open[0] if s.open else None

    def tick(self, seconds: float) -> None:
        """Let time pass; whenever a turn's time runs out the next player's turn begins at once."""
        if seconds < 0:
            raise GameError(f"time runs forward, got {seconds} s")
        while not self.over and self.clock + seconds >= self.turn_seconds:
            seconds -= self.turn_seconds - self.clock
            self.time += self.turn_seconds - self.clock
            self._next_turn()
        if not self.over:
            self.clock += seconds
            self.time += seconds

    def swap(self) -> str:
        """Put the open card under the pile and reveal the next (once per turn).

        Returns:
            The newly revealed card.

        Raises:
            GameError: already swapped this turn, or no other card to reveal.
        """
        self._playing()
        s = self.state[self.active]
        if self.swapped:
            raise GameError(f"{self.active} has already swapped a card this turn")
        if not s.pile:
            raise GameError(f"{self.active} has no other card to swap in")
        old = s.open.pop(0)
        s.pile.append(old)
        self.swapped = True
        self._log("swap", old)
        self._reveal()
        return s.open[0]

    def fulfil(self, fulfilled: Iterable[str]) -> bool:
        """The active player shows the playing area; if it fulfils their card, it is set aside.

        Args:
            fulfilled: ids of the cards the playing area fulfils (from the referee).

        Returns:
            Whether the active player's card was fulfilled (then the next is revealed).
        """
        self._playing()
        s = self.state[self.active]
        if not s.open or s.open[0] not in set(fulfilled):
            return False
        card = s.open.pop(0)
        s.done.append(card)
        self._log("fulfil", card)
        if s.finished:
            self.winner = self.active
            self._log("win")
        else:
            self._reveal()
        return True

    def _player(self, name: str) -> str:
        if name not in self.players:
            raise GameError(f"no player {name!r}; players are {', '.join(self.players)}")
        return name

    def _playing(self) -> None:
        if self.over:
            raise GameError(f"the game is over: {self.winner} has won")

    def _begin_turn(self) -> None:
        self.clock = 0.0
        self.swapped = False
        self._log("turn")
        self._reveal()

    def _next_turn(self) -> None:
        self._turn = (self._turn + 1) % len(self.players)
        self._begin_turn()

    def _reveal(self) -> None:
        for card in self.state[self.active].reveal(1):
            self._log("reveal", card)

    def _log(self, action: str, card: str | None = None, player: str | None = None) -> None:
        self.history.append(Event(self.time, player or self.active, action, card))
