"""Talo-Fantasy played on the table: everyone builds one construction with the die and the stock, anywhere,
any way round, no pawns, no grid; it ends when the blocks are used up, when the players call their goal reached,
or when the construction collapses.

The game is :mod:`sim.games.talo.fantasy` (its blocks ``f1``, ``f2`` ... in the order placed); the die, taking
blocks, declining, two blocks placed together and the turn's end are :mod:`.talo_turns`' (as in Talo). Readings
made here:

- **The site** is the table (the rulebook allows either board or the table; on the table nothing suggests a
  grid): the stock lies where Talo's set-up puts it, the middle of the table is free.
- **On release** a block is placed where it lands, as it lands. The balance is the injected judge's (the
  statics on the construction with the new block): a block that would not stay where it is put is refused
  and goes back, with the reason (the player may try again); a block that would bring down what stood ends
  the game (:func:`sim.games.talo.fantasy.place`).
- **A collapse** the physics sees (a careless hand, a poke) ends the game: the player whose action came last
  loses and nobody wins.
- **The goal reached** (``finish``): the players end the game together, all of them winning.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sim.games.contract import Judge
from sim.games.play.session import Effect, PlayError, Refused, Table
from sim.games.play.talo_moves import fantasy_actions, free_placements
from sim.games.play.talo_turns import StockTurns, reason
from sim.games.talo import fantasy
from sim.games.talo.board import TaloError
from sim.pieces.talo import BLOCK

SITE = "table"
"""Where the construction is built."""


class FantasySession(StockTurns):
    """Talo-Fantasy on the table (see the module docstring).

    Args:
        players: names in turn order, 2 to 4.
        rng: the die.
        judge: the balance verdict on a construction (``Scene -> Verdict``; the play mode gives the statics').

    Raises:
        PlayError: not 2 to 4 players, or a name twice.
    """

    ACTIONS = ("throw", "take", "together", "end-turn", "finish")
    AT_REST = ()
    RULES = fantasy

    def __init__(self, players, rng: np.random.Generator, judge: Judge):
        try:
            state = fantasy.new_fantasy(tuple(players), SITE)
        except TaloError as e:
            raise PlayError(f"--players: {str(e).removeprefix('players: ')}") from None
        super().__init__("talo", "fantasy", players, rng, judge)
        self.state = state
        self.seat = self.current
        self.log("turn_changed", player=self.current)
        self.log("game_state", state=self.state.to_json())

    def view(self) -> dict:
        """``{game, variant, phase, current, players: [{name, placed, active}], built, rolls, throws, options, hand,
        stock: {length: left}, together, pending, outcome}``."""
        placed = self.scores()
        players = [{"name": p, "placed": placed[p], "active": p == self.current} for p in self.players]
        return {"game": "talo", "variant": "fantasy", "phase": self.phase, "current": self.current,
                "players": players, "built": len(self.state.scene.pieces), **self.stock_view()}

    def to_json(self) -> dict:
        return {"game": "talo", "variant": "fantasy", "players": list(self.players), "time": self.time,
                "live_of": dict(self.live_of), **self.turn_json(), "state": self.state.to_json()}

    def scores(self) -> dict[str, int]:
        placed = {p: 0 for p in self.players}
        for piece in self.state.scene.pieces:
            placed[piece.owner] = placed.get(piece.owner, 0) + 1
        return placed

    def legal_actions(self, table: Table) -> list[dict]:
        return fantasy_actions(self)

    def placements(self, piece: str, table: Table) -> list:
        return free_placements(self, piece, table)

    # --- actions --------------------------------------------------------------------------------------

    def _act_finish(self, args: Mapping, table: Table) -> list[Effect]:
        if self.pending is not None:
            raise Refused("together", f"{self.pending[0]} waits for the block placed with it (or call it off: G)")
        try:
            self.state = fantasy.finish(self.state)
        except TaloError as e:
            raise Refused("finish", reason(e)) from None
        self.log("game_state", state=self.state.to_json())
        return self._ended()

    # --- the table ------------------------------------------------------------------------------------

    def _pick(self, piece: str, table: Table, player: str) -> list[Effect]:
        p = table.scene().piece(piece)
        if self.over:
            raise Refused("over", "the game is over")
        if p.kind != BLOCK:
            raise Refused("kind", f"{piece} is no Talo block")
        return self._pick_block(piece, int(p.params["length"]), table)

    def _put(self, piece: str, length: int, pose) -> fantasy.FreeBlock:
        return fantasy.FreeBlock(length, tuple(float(x) for x in pose[:3]), tuple(float(x) for x in pose[3:]))

    def _new_ids(self, state, puts) -> list[str]:
        return [p.id for p in fantasy.new_pieces(state, puts)]

    def _knocked(self, pieces, player: str | None, table: Table) -> list[Effect]:
        game_of = {v: k for k, v in self.live_of.items()}
        fallen = [game_of[p] for p in pieces if p in game_of]
        if not fallen or self.over:
            return []
        return self._collapsed(fallen, player, pieces)


__all__ = ["SITE", "FantasySession"]
