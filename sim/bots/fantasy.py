"""Talo-Fantasy for computer players: build the one construction low and wide, never be the one who brings it
down (pure).

Everyone builds one construction from the stock; the game ends well for all
when the blocks are used up (every player wins) and badly for one when a
block brings down what stood: that player loses and nobody wins. The goal
declared reached (``finish``) is the players' agreement, never a computer's
move (:data:`~sim.bots.position.NEVER`). So a player's aim is the blocks
placed and, above all, a construction that goes on standing.

A position is worth to a player its blocks placed less the most any other
player placed, less :data:`HIGH` a metre of the construction's top (a high
construction is one the next block may bring down); a collapse it caused is
a lost game (:data:`~sim.bots.tactic.WIN`).

- **Greedy** weighs every listed place of the blocks in hand by how low the
  block's top comes to lie and whether it lies on the table (quick), tries the
  best few with the referee (whose statics refuse a block that would not stay
  and end the game on one that brings the construction down) and keeps the one
  worth most; after a throw it takes the combination of the fewest levels of
  block (short blocks are the easy ones to place), and ends its turn once its
  hand is empty.
- **Planning** weighs the best few the same way, less each placement's risk of
  collapse under the hand's noise (:mod:`sim.bots.risk`, the exact statics of
  the whole construction: it is small), at the price of a lost game
  (:attr:`FantasyTactic.risk_weight`).
"""

from __future__ import annotations

import numpy as np

from sim.bots.position import Position
from sim.bots.tactic import Option, Tactic, terminal_value
from sim.games.play.state import PlayState

HIGH = 10.0
"""What a metre of the construction's top costs (a block placed 2 cm higher costs a fifth of a block)."""
ON_TABLE = 0.3
"""What a block set on the table rather than on the construction is worth more (nothing to bring down)."""


class FantasyTactic(Tactic):
    """Talo-Fantasy (see the module docstring)."""

    greedy_width = 3
    plan_width = 4
    risk_weight = 400.0  # a collapse loses the game: a sure one costs this much

    def options(self, pos: Position) -> list[Option]:
        out = []
        for a in pos.actions:
            name = a["action"]
            if name == "throw":
                out.append(Option(a, 0.0, "throw the die"))
            elif name == "take":
                blocks = list(a.get("blocks", ()))
                out.append(Option(a, -0.1 * sum(blocks), f"take {blocks}", {"blocks": blocks}))
            elif name == "end-turn":
                # a hand that still holds blocks: ending gives them back (declined); last of the moves
                out.append(Option(a, -1.0 if pos.view.get("hand") else 0.0, "end the turn"))
        for piece in pos.kinds(pos.pieces):
            probe = pos.scene.piece(piece)
            for spot in pos.placements(piece):
                top = top_of(probe, spot.pose)
                w = 1.0 - HIGH * top + (ON_TABLE if spot.rule == "table" else 0.0)
                out.append(Option(spot.action(), w, f"{piece} ({spot.rule}) top at {1000 * top:.0f} mm",
                                  {"top_mm": round(1000 * top, 1), "rule": spot.rule}))
        return sorted(out, key=lambda o: -o.quick)

    def value(self, state: PlayState, player: str, pos: Position) -> float:
        if state.is_terminal:
            return terminal_value(state, player)
        placed = {p["name"]: p["placed"] for p in state.view()["players"]}
        rivals = [n for c, n in placed.items() if c != player]
        return placed[player] - (max(rivals) if rivals else 0) - HIGH * construction_top(state)


def top_of(piece, pose) -> float:
    """The height (m) of the top of ``piece``'s box set at ``pose`` (x, y, z, quaternion xyzw)."""
    from sim.geometry.transforms import quat_to_matrix

    r = quat_to_matrix(pose[3:7])
    return float(pose[2]) + 0.5 * float(np.abs(r[2]) @ np.asarray(piece.shape.extent, dtype=float))


def construction_top(state: PlayState) -> float:
    """The height (m) of the construction's highest point (0 for none)."""
    scene = state.scene()
    return max((top_of(p, (*p.pos, *p.quat)) for p in scene.pieces if p.id not in state.supply), default=0.0)


__all__ = ["FantasyTactic", "construction_top", "top_of"]
