"""One decision's view of a game: what is legal now, asked of the one game interface once and kept.

A computer player reads a game only through the one game interface
(:class:`~sim.games.play.state.PlayState`): the legal actions, the pieces a
hand may take, where each may be set down, the table, the panels' view. A
:class:`Position` asks each of these at most once per decision (a legal
placement list costs 0.02-0.4 s). Pieces that are alike (the same kind,
parameters and owner: Babylon's 27 towers of a player, Talo's nine 2s) have
the same places, so only one of each, the first the table lists, is asked
about (:meth:`Position.kinds`).

Some actions are the table's, not a player's choice: whose hands work in the
hot seat (``seat``), the next round once one is scored (``next-round``); the
game driver (:mod:`sim.bots.match`) makes those. ``finish`` (Talo-Fantasy's goal
declared reached) is the players' agreement, never a computer's move.
"""

from __future__ import annotations

import json
from functools import cached_property

import numpy as np

from sim.bots.pace import action_seconds, place_seconds
from sim.games.play.spots import Placement
from sim.games.play.state import PlayState, Step
from sim.scene import Piece, Scene

DRIVER_ACTIONS = frozenset({"seat", "next-round", "continue", "punish", "select-pawn"})
"""Actions the game's driver makes, not a player (the hot seat, a new round, a collapse's choice)."""
NEVER = frozenset({"finish", "select-pawn"})
"""Actions no computer player makes (Talo-Fantasy's goal is the players' to declare; Talo's ``select-pawn`` only
shows a pawn's routes in a window)."""
CHANCE = frozenset({"throw", "swap"})
"""Moves whose answer is chance or hidden: the die thrown (Talo), the next order card of a pile (Tohuwabohu's
swap). A player decides them on what it knows; it never tries one out first (:meth:`Position.after`)."""


def piece_kind(piece: Piece) -> tuple:
    """What makes two pieces alike: kind, parameters and owner."""
    return piece.kind, tuple(sorted((k, str(v)) for k, v in piece.params.items())), piece.owner


class Position:
    """A game at the moment a player decides (see the module docstring).

    Args:
        state: the game.
    """

    def __init__(self, state: PlayState):
        self.state = state
        self.player = state.current_player
        self._placements: dict[str, list[Placement]] = {}
        self._after: dict[str, Step] = {}
        self._memo: dict[str, object] = {}

    @cached_property
    def view(self) -> dict:
        """The panels' view of the game (:meth:`PlayState.view`)."""
        return self.state.view()

    @cached_property
    def scene(self) -> Scene:
        """The table now."""
        return self.state.scene()

    @cached_property
    def supply(self) -> frozenset[str]:
        """The pieces waiting in the supply."""
        return self.state.supply

    @cached_property
    def built(self) -> Scene:
        """The table without the supply."""
        return self.scene.with_pieces(p for p in self.scene.pieces if p.id not in self.supply)

    @cached_property
    def actions(self) -> list[dict]:
        """The game actions a player may choose now (the driver's and :data:`NEVER` left out)."""
        return [a for a in self.state.legal_actions() if a["action"] not in DRIVER_ACTIONS | NEVER]

    @cached_property
    def pieces(self) -> list[str]:
        """The pieces a hand may take now."""
        return self.state.placeable()

    @cached_property
    def time(self) -> float:
        """The game's clock (s since it began)."""
        return float(self.state.session_json().get("time", 0.0))

    def kinds(self, pieces=None) -> list[str]:
        """One piece of each kind among ``pieces`` (default :attr:`pieces`), the first of each in table order."""
        seen, out = set(), []
        for pid in self.pieces if pieces is None else pieces:
            key = piece_kind(self.scene.piece(pid))
            if key not in seen:
                seen.add(key)
                out.append(pid)
        return out

    def placements(self, piece: str) -> list[Placement]:
        """Where ``piece`` may be set down now (asked once)."""
        if piece not in self._placements:
            self._placements[piece] = self.state.legal_placements(piece)
        return self._placements[piece]

    def after(self, action) -> Step:
        """What the referee answers ``action`` with (the one game interface's :meth:`~PlayState.apply`; the game
        itself is unchanged: a state is frozen). Asked once per action.

        A player asks this of every move it makes before it makes it, so that it never makes one the referee
        refuses: the answer is the referee's own, and the same when the move is made (the same state, the same
        action). It is never asked about a chance move (a throw of the die): that would read the die before it
        is thrown; :attr:`CHANCE` lists them.
        """
        if action.get("action") in CHANCE:
            raise ValueError(f"{action['action']}: a chance move is not tried out before it is made")
        key = json.dumps(action, sort_keys=True)
        if key not in self._after:
            self._after[key] = self.state.apply(action)
        return self._after[key]

    def memo(self, key: str, make):
        """``make()``, made once per position (what a tactic reads of the position more than once)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def accepts(self, action) -> bool:
        """The referee accepts ``action`` now (a chance move is accepted when the game lists it)."""
        if action.get("action") in CHANCE:
            return any(a == action for a in self.state.legal_actions())
        return self.after(action).accepted

    def seconds(self, action) -> float:
        """How long a hand at a person's pace takes for ``action`` (:mod:`sim.bots.pace`)."""
        if action.get("action") == "place":
            piece = self.scene.piece(action["piece"])
            start, end = piece.pos, action["pose"][:3]
            return place_seconds(start, end, self._over(start, end))
        if action.get("action") == "move-pawn":
            return action_seconds(action) + 0.25 * max(1, _steps(self.view, action))
        return action_seconds(action)

    def _over(self, start, end) -> float:
        """The highest top (m) of what is built near the straight way from ``start`` to ``end`` (the hand lifts the
        piece over it)."""
        a, b = np.asarray(start[:2], dtype=float), np.asarray(end[:2], dtype=float)
        top = max(float(start[2]), float(end[2]))
        d = b - a
        length = float(np.hypot(*d))
        for p in self.built.pieces:
            c = np.asarray(p.pos[:2], dtype=float)
            t = 0.0 if length < 1e-9 else float(np.clip(np.dot(c - a, d) / length ** 2, 0.0, 1.0))
            if np.hypot(*(a + t * d - c)) < 0.05:
                top = max(top, float(p.pos[2]) + float(p.shape.extent.max()) / 2)
        return top


def _steps(view: dict, action) -> int:
    """Steps of a pawn's walk to ``action``'s spot, as far as the view knows (Manhattan distance on the grid)."""
    me = next((p for p in view.get("players", ()) if p.get("active")), None)
    if not me or not me.get("cell"):
        return 1
    return abs(me["cell"][0] - action["cell"][0]) + abs(me["cell"][1] - action["cell"][1]) + 1


__all__ = ["CHANCE", "DRIVER_ACTIONS", "NEVER", "Position", "piece_kind"]
