"""One game between computer players (and the table's own moves), from the set-up to the end or a limit.

:func:`play_game` asks the player whose turn it is for a move
(:meth:`sim.bots.players.Bot.decide`), applies it through the one game
interface and goes on. Time is a person's: a move takes the seconds a hand
needs (:mod:`sim.bots.pace`), so that

- in a game with a turn timer (Tohuwabohu's 15 s, 10 s advanced) the clock
  runs while the hand carries the piece (a ``wait`` of those seconds, then the
  placement), and a player never begins a move the turn has no time left for;
- where everyone builds at once (Babylon's fast game, Tohuwabohu's professional
  variant) each player has a clock of their own: the player whose hands are
  free first moves next (the table's ``seat`` gives them the hands), the game's
  clock follows the moves, and a round that ends by time ends between moves;
- in the turn-based games without a clock (Talo, Babylon's tactical game) the
  seconds only pace the recording.

The table's own moves are the driver's: the hot seat, the next round once one
is scored. A game that reaches :data:`MAX_ACTIONS` or :data:`MAX_SECONDS` of
game time ends there and is scored as it stands (``ended: limit``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from sim.bots.players import Bot, make_bot
from sim.bots.risk import HAND, HandNoise
from sim.games.play.state import PlayState, Step

MAX_ACTIONS = 4000
"""Most actions (the players' and the table's) a game may take before it is scored as it stands."""
MAX_SECONDS = 3600.0
"""Most game time (s) a game with a clock may take before it is scored as it stands."""
HOT_SEAT = {("babylon", "fast"), ("babylon", "fast-expert"), ("tohuwabohu", "pro")}
"""Variants in which everyone builds at once."""
TIMED = {("tohuwabohu", "basic"), ("tohuwabohu", "advanced")}
"""Turn-based variants with a turn timer."""
SPARE_S = 0.05
"""Seconds of a turn a move must leave over (a move the clock would cut short is not begun)."""


@dataclass(frozen=True)
class Move:
    """One action of a game, as it was applied.

    Attributes:
        time: the game's time (s) when it was done (its hand motion over).
        player: who made it (None: the table: a wait, the hot seat, a new round).
        action: the one game interface's action.
        seconds: how long the hand took.
        refused: the rule that refused it (None: accepted).
        changes: id -> (7,) pose of each piece it moved (the referee's effects included).
        gone: pieces that left the table.
        events: the referee's journal entries it caused (JSON).
        decision: the player's decision (JSON), None for the table's moves.
        cpu: CPU seconds the decision took.
    """

    time: float
    player: str | None
    action: Mapping
    seconds: float
    refused: str | None = None
    changes: Mapping = field(default_factory=dict)
    gone: tuple[str, ...] = ()
    events: tuple = ()
    decision: Mapping | None = None
    cpu: float = 0.0

    def to_json(self) -> dict:
        """JSON data."""
        return {"time": self.time, "player": self.player, "action": dict(self.action), "seconds": self.seconds,
                "refused": self.refused, "changes": {k: list(v) for k, v in self.changes.items()},
                "gone": list(self.gone), "events": list(self.events), "decision": self.decision, "cpu": self.cpu}


@dataclass(frozen=True)
class Played:
    """A finished game.

    Attributes:
        game, variant: what was played.
        players: in seat order.
        levels: player -> level.
        seed: the game's seed (the set-up, the die, the deal).
        moves: every action, in order.
        outcome: ``{winners, loser, scores}`` as the game ended (or stood at the limit).
        ended: ``over`` (the game's own end) or ``limit``.
        state: the final state's JSON form (``towerlab-play/1``: the game again, action by action).
    """

    game: str
    variant: str
    players: tuple[str, ...]
    levels: Mapping[str, int]
    seed: int
    moves: tuple[Move, ...]
    outcome: Mapping
    ended: str
    state: Mapping

    @property
    def winners(self) -> tuple[str, ...]:
        """The winners: the game's own; in a game nobody won that one player lost (Talo-Fantasy's collapse: the
        player who brought the construction down) the others, who did not lose; at the limit the players with the
        highest score (all tied: none)."""
        loser = self.outcome.get("loser")
        if not self.outcome["winners"] and loser in self.players and len(self.players) > 1:
            return tuple(p for p in self.players if p != loser)
        if self.outcome["winners"] or self.ended == "over":
            return tuple(self.outcome["winners"])
        scores = self.outcome["scores"]
        if not scores:
            return ()
        best = max(scores.values())
        top = tuple(p for p in self.players if scores.get(p) == best)
        return () if len(top) == len(self.players) else top

    def cpu(self, player: str) -> list[float]:
        """CPU seconds of each of ``player``'s decisions."""
        return [m.cpu for m in self.moves if m.player == player and m.decision is not None]

    def refusals(self) -> list[Move]:
        """The players' moves the referee refused."""
        return [m for m in self.moves if m.refused is not None and m.player is not None]

    def to_json(self) -> dict:
        """JSON data (what a tournament's worker sends back)."""
        return {"game": self.game, "variant": self.variant, "players": list(self.players),
                "levels": dict(self.levels), "seed": self.seed, "moves": [m.to_json() for m in self.moves],
                "outcome": dict(self.outcome), "ended": self.ended, "state": dict(self.state)}

    @classmethod
    def from_json(cls, d: Mapping) -> Played:
        """The inverse of :meth:`to_json`."""
        moves = tuple(Move(m["time"], m["player"], m["action"], m["seconds"], m["refused"],
                           {k: tuple(v) for k, v in m["changes"].items()}, tuple(m["gone"]), tuple(m["events"]),
                           m["decision"], m["cpu"]) for m in d["moves"])
        return cls(d["game"], d["variant"], tuple(d["players"]), dict(d["levels"]), int(d["seed"]), moves,
                   dict(d["outcome"]), d["ended"], dict(d["state"]))


def game_streams(seed: int, seats: int) -> tuple[int, list[np.random.Generator]]:
    """A game's set-up seed and one random stream per seat, all from ``seed`` (``SeedSequence.spawn``)."""
    sequence = np.random.SeedSequence(seed)
    table, *bots = sequence.spawn(seats + 1)
    return int(table.generate_state(1)[0] % (2 ** 31)), [np.random.default_rng(s) for s in bots]


def play_game(game: str, variant: str | None, levels: Mapping[str, int], seed: int, *,
              noise: HandNoise = HAND, bots: Mapping[str, Bot] | None = None, max_actions: int = MAX_ACTIONS,
              max_seconds: float = MAX_SECONDS, on_move: Callable[[Move, PlayState], None] | None = None) -> Played:
    """Play one game between computer players.

    Args:
        game: the game.
        variant: its variant (None: the game's first).
        levels: player -> level, in seat order (the game's players).
        seed: the game's seed: its set-up seed and each seat's random stream come from it (:func:`game_streams`).
        noise: the hand's noise the players assume.
        bots: players to use instead of new ones of ``levels`` (the same keys).
        max_actions, max_seconds: the limits (see the module docstring).
        on_move: called after every move with it and the game after it.

    Raises:
        PlayError: an unknown game, variant, player or level.
    """
    from sim.games.registry import new_state

    players = tuple(levels)
    table_seed, streams = game_streams(seed, len(players))
    state = new_state(game, variant, players, table_seed)
    variant = state.variant.name
    if bots is None:
        bots = {p: make_bot(int(levels[p]), game, variant, rng, noise) for p, rng in zip(players, streams)}
    driver = _Driver(state, bots, (game, variant) in HOT_SEAT, (game, variant) in TIMED, on_move)
    ended = driver.run(max_actions, max_seconds)
    state = driver.state
    return Played(game, variant, players, {p: int(levels[p]) for p in players}, int(seed), tuple(driver.moves),
                  state.outcome(), ended, state.to_json())


class _Driver:
    """Plays one game (see the module docstring)."""

    def __init__(self, state: PlayState, bots: Mapping[str, Bot], hot_seat: bool, timed: bool, on_move):
        self.state = state
        self.bots = bots
        self.hot_seat, self.timed = hot_seat, timed
        self.on_move = on_move
        self.moves: list[Move] = []
        self.clock = 0.0  # the recording's time (s)
        self.free = {p: 0.0 for p in state.players}  # hot seat: when each player's hands are free

    def run(self, max_actions: int, max_seconds: float) -> str:
        while not self.state.is_terminal:
            if len(self.state.history) >= max_actions or self.clock >= max_seconds:
                return "limit"
            if self.hot_seat:
                self._hot_seat_move()
            else:
                self._turn_move()
        return "over"

    # --- turn by turn ---

    def _turn_move(self) -> None:
        player = self.state.current_player
        decision, cpu = self._decide(player)
        action = decision.action
        if self.timed:
            left = float(self.state.view().get("time_left", 0.0))
            if action["action"] == "wait" or decision.seconds > left - SPARE_S:
                self._apply({"action": "wait", "seconds": left}, None, left)
                return
            if decision.seconds > 0 and self._wait(decision.seconds):
                return  # the clock moved the game on (it should not have): ask again
            self._apply(action, player, decision.seconds, decision, cpu, waited=True)
            return
        self._apply(action, player, decision.seconds, decision, cpu)

    # --- everyone at once ---

    def _hot_seat_move(self) -> None:
        view = self.state.view()
        if view.get("stopped"):
            self._apply({"action": "next-round"}, None, 0.0)
            return
        if view.get("prompt"):
            self._apply({"action": "continue"}, None, 0.0)
            return
        busy = {p["color"] if "color" in p else p["name"]: p for p in view.get("players", ())}
        ready = [p for p in self.state.players if not busy.get(p, {}).get("done") and not busy.get(p, {}).get("out")]
        if not ready:
            self._apply({"action": "wait", "seconds": 1.0}, None, 1.0)
            return
        player = min(ready, key=lambda p: (self.free[p], self.state.players.index(p)))
        if self.state.current_player != player:
            self._apply({"action": "seat", "player": player}, None, 0.0)
            if self.state.is_terminal:
                return
        decision, cpu = self._decide(player)
        action = decision.action
        if action["action"] == "wait":
            self.free[player] += max(1.0, float(action.get("seconds", 1.0)))
            self.moves.append(Move(self.clock, player, action, 0.0, None, {}, (), (), decision.to_json(), cpu))
            return
        at = max(self.free[player] + decision.seconds, self.clock)
        if at > self.clock and self._wait(at - self.clock):
            return
        self._apply(action, player, decision.seconds, decision, cpu, waited=True)
        self.free[player] = self.clock

    # --- helpers ---

    def _decide(self, player: str):
        start = time.thread_time()
        decision = self.bots[player].decide(self.state)
        return decision, time.thread_time() - start

    def _wait(self, seconds: float) -> bool:
        """Let ``seconds`` of game time pass (the hand at work); True when a turn or round ended meanwhile."""
        step = self._apply({"action": "wait", "seconds": float(seconds)}, None, float(seconds))
        return any(e.kind in ("turn_changed", "round_ended", "game_over") for e in step.events)

    def _apply(self, action, player, seconds, decision=None, cpu=0.0, waited=False) -> Step:
        before = self.state.table_json()["poses"]
        step = self.state.apply(action)
        self.state = step.state
        after = self.state.table_json()["poses"]
        if not waited or action["action"] == "wait":
            self.clock += seconds
        if action["action"] == "wait":
            self.clock = max(self.clock, float(self.state.session_json().get("time", self.clock)))
        changes = {k: tuple(v) for k, v in after.items() if before.get(k) != v}
        gone = tuple(k for k in before if k not in after)
        refusal = step.refusal
        kept = None if decision is None else _kept(decision.to_json())
        move = Move(self.clock, player, dict(action), float(seconds), None if refusal is None else
                    refusal.data.get("rule"), changes, gone, tuple(e.to_json() for e in step.events), kept, cpu)
        self.moves.append(move)
        if self.on_move is not None:
            self.on_move(move, self.state)
        return step


KEPT_CANDIDATES = 5
"""Candidates of a decision a game's record keeps (the best ones)."""


def _kept(decision: dict) -> dict:
    decision["candidates"] = decision["candidates"][:KEPT_CANDIDATES]
    return decision


__all__ = ["HOT_SEAT", "MAX_ACTIONS", "MAX_SECONDS", "TIMED", "Move", "Played", "game_streams", "play_game"]
