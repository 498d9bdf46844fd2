"""What a computer player knows of one game: the moves worth weighing, what a position is worth, how it looks
ahead (pure; each game's own module fills it in).

A :class:`Tactic` is asked, for the player to move, for its :class:`Option` s:
the moves it would consider, each with a *quick* score (cheap: each game's
rules on the table as it would be, without asking the referee). The greedy
player (level 2) tries the best few with the referee and keeps the one whose
position is worth most (:meth:`Tactic.value`); the planning player (level 3)
looks further ahead from each (:meth:`Tactic.lookahead`) and weighs it by its
risk of collapse. Values are in each game's own units, from the point of view
of the player named (docs/bots.md lists them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from sim.bots.position import Position
from sim.games.play.state import PlayState
from sim.scene import Piece, Scene

WIN = 1000.0
"""What a won game is worth (a lost one is worth minus this): more than any position of a game under way."""


@dataclass(frozen=True)
class Option:
    """A move a tactic would consider.

    Attributes:
        action: the one game interface's action.
        quick: its quick score (higher is better; the tactic's units).
        label: the move in a few words.
        detail: the terms of the quick score (JSON data).
        then: the moves that follow it in the same turn, when the option is a whole plan (a legal turn the
            tactic has put together: Babylon's first round): the player makes them next, one a decision, each
            tried with the referee again.
    """

    action: Mapping
    quick: float
    label: str
    detail: Mapping = field(default_factory=dict)
    then: tuple = ()


class Tactic:
    """One game's knowledge for its computer players (see the module docstring).

    Args:
        game: the game.
        variant: its variant.

    Attributes:
        greedy_width: options the greedy player tries with the referee (the best by quick score).
        plan_width: options the planning player looks further ahead from.
        risk_weight: what a certain collapse costs the planning player, in the tactic's units (P(collapse) times
            this is taken off a move's value).
        local_risk: the risk is judged on the pieces the noise moves alone (:class:`~sim.bots.risk.RiskJudge`:
            large buildings).
    """

    greedy_width = 3
    plan_width = 4
    risk_weight = 50.0
    local_risk = False

    def __init__(self, game: str, variant: str):
        self.game = game
        self.variant = variant

    def options(self, pos: Position) -> list[Option]:
        """The moves worth weighing for the player to move, best quick score first (at least one when the game
        lists any)."""
        raise NotImplementedError

    def plan_options(self, pos: Position) -> list[Option]:
        """The moves the planning player weighs (default: :meth:`options`)."""
        return self.options(pos)

    def value(self, state: PlayState, player: str, pos: Position) -> float:
        """What ``state`` is worth to ``player`` (``pos``: the position the move was weighed from)."""
        if state.is_terminal:
            return terminal_value(state, player)
        return 0.0

    def lookahead(self, pos: Position, state: PlayState, player: str, rng: np.random.Generator) -> float:
        """What ``state`` (after one of ``player``'s moves from ``pos``) is worth once the rest of the turn and the
        opponents' replies are played as the tactic expects them (default: :meth:`value`)."""
        return self.value(state, player, pos)

    def random_option(self, pos: Position, rng: np.random.Generator) -> Option | None:
        """A random legal move, when the game needs more than :func:`sim.bots.players.random_move` (a move that
        is legal only as part of a legal turn, Babylon's); None: the generic random move."""
        return None

    def risky(self, action: Mapping) -> bool:
        """Whether ``action`` sets a piece down (its risk of collapse is measured)."""
        return action.get("action") == "place"

    def building(self, pos: Position, piece: str) -> Scene:
        """What the statics judge a placement of ``piece`` on: the game's physics scene of the pieces built,
        ``piece`` left out."""
        built = pos.built.with_pieces(p for p in pos.built.pieces if p.id != piece)
        return pos.state.variant.rules.physics_scene(built)

    def aimed(self, pos: Position, action: Mapping) -> Piece:
        """The piece a placement sets down, where it aims to."""
        pose = action["pose"]
        return pos.scene.piece(action["piece"]).moved(tuple(pose[:3]), tuple(pose[3:]))


def terminal_value(state: PlayState, player: str) -> float:
    """A finished game's worth to ``player``: :data:`WIN` for a sole winner, less for a shared win, minus
    :data:`WIN` for a loss, 0 for a game nobody won."""
    o = state.outcome()
    winners = list(o["winners"])
    if player in winners:
        return WIN / len(winners)
    if not winners and o.get("loser") != player:
        return 0.0
    return -WIN


__all__ = ["WIN", "Option", "Tactic", "terminal_value"]
