"""Computer players at three levels, for every game and variant, all through the one game interface.

- **Level 1, random**: a random legal move. The kind of move first (place a
  piece, end the turn, take blocks ...), each kind alike, then one of that
  kind: a piece of a random kind at a random legal place (a piece from the
  supply while one may be taken, else one on the table), or one of the
  action's choices. What gives up rather than plays (taking this turn's pieces
  back, saying "done" in Babylon's fast game, letting a turn's time run out)
  is a way out only, when nothing else is left.
- **Level 2, greedy**: the move with the best immediate score or progress,
  each game's own (:mod:`sim.bots.talo`, :mod:`sim.bots.babylon`,
  :mod:`sim.bots.tohuwabohu` ...): the game's tactic lists the moves worth
  weighing with a quick score, the best few are tried with the referee, and
  the one whose position is worth most is made.
- **Level 3, planning**: the tactic's best few, each looked at further (the
  rest of the turn and the opponents' replies, :meth:`Tactic.lookahead`) and
  weighed by its risk of collapse under a hand's placement noise
  (:mod:`sim.bots.risk`).

Every move a player makes is one the referee accepts: it is tried first
(:meth:`Position.after`, the referee's own answer to the same state and
action), except the moves of chance (a throw), which the game lists only when
they are accepted. A player is a function of the game and its random stream
(injected: the same stream and the same game give the same move).
docs/bots.md explains each level's method and what it assumes.
"""

from __future__ import annotations

import numpy as np

from sim.bots.decision import Candidate, Decision
from sim.bots.position import CHANCE, Position
from sim.bots.risk import HAND, HandNoise, RiskJudge
from sim.bots.tactic import WIN, Option, Tactic
from sim.games.play.session import PlayError
from sim.games.play.state import PlayState

LEVELS = {1: "random", 2: "greedy", 3: "planning"}
"""The levels, by number."""

WAY_OUT = frozenset({"take-back", "done", "wait"})
"""Moves a random player makes only when nothing else is left (they undo or give up, they do not play)."""
TRIES = 4
"""Options a greedy or planning player tries with the referee, per option it means to weigh, before it weighs
those it has (each try is a referee's answer: a Babylon building's statics, tenths of a second)."""
RESCUE = 48
"""Further options a greedy or planning player tries, when every move it weighed loses at once, for one that does
not."""
SPOT_TRIES = 12
"""Places of one piece a random player tries with the referee before it turns to another piece."""


class Bot:
    """A computer player (see the module docstring).

    Args:
        tactic: the game's tactic (levels 2 and 3; level 1 uses none).
        rng: its random stream (the tie-breaks, the random player's every choice, the risk's samples).
        noise: the hand's placement noise it assumes (level 3 weighs its moves by it).

    Attributes:
        level: 1, 2 or 3.
    """

    level = 0

    def __init__(self, tactic: Tactic | None, rng: np.random.Generator, noise: HandNoise = HAND):
        self.tactic = tactic
        self.rng = rng
        self.noise = noise
        self._plan: tuple[int, list[dict]] | None = None  # (moves in the game when the next is due, the moves)

    def decide(self, state: PlayState) -> Decision:
        """The move of the player whose turn it is (or whose hands are at work).

        Raises:
            PlayError: the game is over.
        """
        if state.current_player is None:
            raise PlayError("the game is over: nobody is to move")
        pos = Position(state)
        planned = self._planned(pos)
        return planned if planned is not None else self._decide(pos)

    def _planned(self, pos: Position) -> Decision | None:
        """The next move of the plan made earlier this turn, while the game is where the plan left it and the
        referee accepts the move (else the plan is dropped)."""
        plan, self._plan = self._plan, None
        if plan is None or plan[0] != len(pos.state.history) or not plan[1]:
            return None
        action, rest = plan[1][0], plan[1][1:]
        if not pos.accepts(action):
            return None
        if rest:
            self._plan = (plan[0] + 1, rest)
        return self._made(pos, action, "the plan made this turn goes on")

    def _decide(self, pos: Position) -> Decision:
        raise NotImplementedError

    def _made(self, pos: Position, action, why: str, candidates=(), then=()) -> Decision:
        if then:
            self._plan = (len(pos.state.history) + 1, list(then))
        return Decision(action, pos.player, self.level, pos.seconds(action), why, tuple(candidates))


class RandomBot(Bot):
    """Level 1: a random legal move (see the module docstring)."""

    level = 1

    def _decide(self, pos: Position) -> Decision:
        opt = None if self.tactic is None else self.tactic.random_option(pos, self.rng)
        if opt is not None:
            return self._made(pos, opt.action, f"a random {opt.label}", (Candidate(opt.action, opt.label, 0.0),),
                              opt.then)
        action = random_move(pos, self.rng)
        return self._made(pos, action, f"a random {action['action']}", (Candidate(action, action["action"], 0.0),))


def random_move(pos: Position, rng: np.random.Generator) -> dict:
    """A random move the referee accepts (see the module docstring).

    Raises:
        PlayError: nothing is accepted (a game that lists no move while it goes on).
    """
    groups: dict[str, list] = {}
    for a in pos.actions:
        groups.setdefault(a["action"], []).append(a)
    supply = [p for p in pos.pieces if p in pos.supply]
    kinds = pos.kinds(supply or pos.pieces)
    if kinds:
        groups["place"] = []  # its options are asked only when chosen (a list costs tenths of a second)
    while groups:
        playing = [k for k in groups if k not in WAY_OUT] or list(groups)
        kind = playing[int(rng.integers(len(playing)))]
        if kind == "place":
            action = _random_placement(pos, kinds, rng)
            if action is not None:
                return action
        else:
            choices = groups[kind]
            for k in rng.permutation(len(choices)):
                if pos.accepts(choices[k]):
                    return choices[k]
        del groups[kind]
    raise PlayError(f"{pos.state.game}: the referee accepts no move of {pos.player}'s")


def _random_placement(pos: Position, kinds: list[str], rng: np.random.Generator) -> dict | None:
    kinds = list(kinds)
    while kinds:
        piece = kinds.pop(int(rng.integers(len(kinds))))
        spots = pos.placements(piece)
        for k in rng.permutation(len(spots))[:SPOT_TRIES]:
            action = spots[k].action()
            if pos.accepts(action):
                return action
    return None


class GreedyBot(Bot):
    """Level 2: the move whose position is worth most now (see the module docstring)."""

    level = 2

    def _decide(self, pos: Position) -> Decision:
        weighed, losing = [], []
        ordered = self._ordered(pos)
        tried = 0
        for tried, opt in enumerate(ordered):
            if len(weighed) >= self.tactic.greedy_width or tried >= TRIES * self.tactic.greedy_width:
                break
            if not pos.accepts(opt.action):
                continue
            chance = opt.action["action"] in CHANCE
            value = opt.quick if chance else self.tactic.value(pos.after(opt.action).state, pos.player, pos)
            (losing if value <= -WIN / 2 else weighed).append((value, opt))
        if not weighed and losing:
            weighed = self._rescue(pos, ordered[tried:])
        return self._chosen(pos, weighed or losing, "the best position now")

    def _rescue(self, pos: Position, rest: list[Option]) -> list:
        """When every move weighed loses at once (Talo: a long block after a throw that brings the building down
        wherever the best few lie), the first of up to :data:`RESCUE` further options whose position does not
        lose, by :meth:`Tactic.value` ([(value, option)], empty when none)."""
        for opt in rest[:RESCUE]:
            if opt.action["action"] in CHANCE or not pos.accepts(opt.action):
                continue
            value = self.tactic.value(pos.after(opt.action).state, pos.player, pos)
            if value > -WIN / 2:
                return [(value, opt)]
        return []

    def _ordered(self, pos: Position) -> list[Option]:
        """The tactic's options, best quick score first, ties in random order."""
        opts = self._options(pos)
        keys = self.rng.random(len(opts))
        return [opts[k] for k in sorted(range(len(opts)), key=lambda k: (-opts[k].quick, keys[k]))]

    def _options(self, pos: Position) -> list[Option]:
        return self.tactic.options(pos)

    def _chosen(self, pos: Position, weighed, why: str, risks=None) -> Decision:
        if not weighed:
            action = random_move(pos, self.rng)
            return self._made(pos, action, "none of the moves weighed is accepted: a random one")
        best = max(range(len(weighed)), key=lambda k: weighed[k][0])  # the first of equals: the random order's
        candidates = [Candidate(opt.action, opt.label, value, None if risks is None else risks[k],
                                dict(opt.detail)) for k, (value, opt) in enumerate(weighed)]
        order = sorted(range(len(candidates)), key=lambda k: (k != best, -candidates[k].score))
        chosen = weighed[best][1]
        return self._made(pos, chosen.action, f"{why}: {chosen.label}", [candidates[k] for k in order], chosen.then)


class PlanningBot(GreedyBot):
    """Level 3: the tactic's best few looked at further and weighed by their risk (see the module docstring)."""

    level = 3
    bound = True
    """Measure the risk only of the moves that can still be chosen (False: of every move weighed, as the
    reference the bench and the tests compare the bound against)."""

    def _options(self, pos: Position) -> list[Option]:
        return self.tactic.plan_options(pos)

    def _decide(self, pos: Position) -> Decision:
        weighed, losing = [], []
        seed = int(self.rng.integers(2 ** 31))
        ordered = self._ordered(pos)
        tried = 0
        for tried, opt in enumerate(ordered):
            if len(weighed) >= self.tactic.plan_width or tried >= TRIES * self.tactic.plan_width:
                break
            if not pos.accepts(opt.action):
                continue
            if opt.action["action"] in CHANCE:
                weighed.append((opt.quick, opt))
                continue
            value = self.tactic.lookahead(pos, pos.after(opt.action).state, pos.player, self.rng)
            (losing if value <= -WIN / 2 else weighed).append((value, opt))
        if not weighed and losing:
            weighed = self._rescue(pos, ordered[tried:])
        if not weighed:
            return self._chosen(pos, losing, "every move weighed loses")
        weighed, risks = self._weigh_risks(pos, weighed, seed)
        return self._chosen(pos, weighed, "the best after the replies, less its risk", risks)

    def _weigh_risks(self, pos: Position, weighed: list, seed: int) -> tuple[list, list]:
        """``weighed`` (value, option) less each placement's risk, and the risks (None: not measured).

        A risk only lowers a value, so the risks are measured best value first, and a placement whose value
        without its risk is no better than the best found with its risk cannot be chosen: its risk is not
        measured (:attr:`bound`; the move chosen is the same, ties go to the first weighed as before)."""
        judges: dict[str, RiskJudge] = {}
        out = [list(w) for w in weighed]
        risks: list[float | None] = [None] * len(weighed)
        best = None  # (value less risk, index) of the best so far
        for k in sorted(range(len(weighed)), key=lambda k: (-weighed[k][0], k)):
            value, opt = weighed[k]
            if self.bound and best is not None and (value < best[0] or (value == best[0] and k > best[1])):
                continue
            if self.tactic.risky(opt.action) and not pos.after(opt.action).state.is_terminal:
                piece = opt.action["piece"]
                key = piece if piece not in pos.supply else ""  # from the supply: the same building for all
                if key not in judges:
                    judges[key] = RiskJudge(self.tactic.building(pos, piece), self.noise, self.tactic.local_risk)
                risks[k] = judges[key].risk(self.tactic.aimed(pos, opt.action), seed).p
                out[k][0] = value - self.tactic.risk_weight * risks[k]
            if best is None or out[k][0] > best[0] or (out[k][0] == best[0] and k < best[1]):
                best = (out[k][0], k)
        return [tuple(w) for w in out], risks


def make_bot(level: int, game: str, variant: str, rng: np.random.Generator, noise: HandNoise = HAND) -> Bot:
    """A computer player of ``level`` for ``game`` in ``variant``.

    Raises:
        PlayError: an unknown level, game or variant.
    """
    from sim.games.registry import variant as lookup

    if isinstance(level, bool) or level not in LEVELS:
        raise PlayError(f"level: expected one of {', '.join(map(str, LEVELS))}, got {level!r}")
    from sim.bots.tactics import tactic_for

    variant = lookup(game, variant).name
    tactic = tactic_for(game, variant)
    return {1: RandomBot, 2: GreedyBot, 3: PlanningBot}[level](tactic, rng, noise)


__all__ = ["LEVELS", "Bot", "GreedyBot", "PlanningBot", "RandomBot", "make_bot", "random_move"]
