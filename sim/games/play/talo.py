"""Talo played on the table: start fields, the die, the blocks taken from the stock boards, placements judged on
release, the 4 + 1 placed together, pawns walking their routes, blockade and restart, collapse and level 10.

The game is :mod:`sim.games.talo.game` (its state keeps the building on the
grid: blocks ``b1``, ``b2`` ... in the order placed, pawns ``pawn-<colour>``);
the table's blocks keep their set-up ids (``b4-2``: the second 4 of the
stock), so the session maps one to the other. Readings made here:

- **Start fields**: before the first throw, the players put their pawns on
  start fields in turn order (``start``).
- The die, taking blocks, declining, two blocks placed together and the turn's
  end are :mod:`.talo_turns`' (shared with Talo-Fantasy).
- **On release** a block is read off the grid where it would land (the
  viewer's hand snaps it to the fields) and judged by every building rule
  (:func:`sim.games.talo.game.place`): the grid, diagonal, protrusion,
  water, level 10, support, and the balance by the injected judge (the
  statics on the building with the new block, without pawns: a knife edge
  does not stand). A refused block goes back where it was picked up, with
  the reason, and stays in the player's hand.
- **Together** (``together``): the rulebook's 4 + 1 on a 1 (:mod:`.talo_turns`);
  the pawn cannot move in between.
- **Pawns** move by their routes only (:func:`sim.games.talo.reachable`):
  ``select-pawn`` shows every spot the pawn can reach and the shortest route
  to each; ``move-pawn`` walks it there step by step, once the blocks are
  taken (before, between or after the placements).
- **Collapse**: blocks of the building knocked down (the physics' events)
  end the game: the player whose action came last loses, the highest pawn
  before it wins (:func:`sim.games.talo.game.collapse`). A knocked-down pawn
  alone is put back on its spot.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sim.games.contract import Judge
from sim.games.play.session import Effect, Place, PlayError, Refused, Say, Seat, Table, Walk
from sim.games.play.talo_moves import grid_placements, talo_actions
from sim.games.play.talo_turns import StockTurns, reason
from sim.games.talo import TaloError, free_starts, layout_of, reachable, talo_board
from sim.games.talo import game as talo
from sim.games.talo.layout import GridPawn, pawn_piece
from sim.games.talo.turns import OVER, THROW, IllegalMoveError
from sim.pieces import dimensions as dim
from sim.pieces.talo import BLOCK, PAWN
from sim.scene import Piece, Scene

BOARDS = {"green": "talo-green", "island": "talo-island"}


class TaloSession(StockTurns):
    """Talo on the table (see the module docstring).

    Args:
        players: pawn colours in turn order (the youngest first), 1 to 6.
        rng: the die.
        judge: the balance verdict on a building (``Scene -> Verdict``; the play mode gives the statics').
        variant: ``green`` or ``island`` (the board).

    Raises:
        PlayError: an unknown colour or variant, or a colour twice.
    """

    ACTIONS = ("start", "throw", "take", "together", "select-pawn", "move-pawn", "restart", "end-turn")
    VIEW_ACTIONS = ("select-pawn",)
    AT_REST = ()
    RULES = talo

    def __init__(self, players, rng: np.random.Generator, judge: Judge, variant: str = "green"):
        if variant not in BOARDS:
            raise PlayError(f"--variant: Talo plays on {' or '.join(BOARDS)}, got {variant!r}")
        players = tuple(players)
        bad = [p for p in players if p not in dim.TALO_PAWN_COLORS]
        if bad or not players or len(set(players)) != len(players):
            raise PlayError(f"--players: Talo's pawns are {', '.join(dim.TALO_PAWN_COLORS)} (each once), "
                            f"got {', '.join(players) or 'none'}")
        super().__init__("talo", variant, players, rng, judge)
        self.board = talo_board(BOARDS[variant])
        self.starts: dict[str, tuple[int, int]] = {}
        self.selected = None  # the Reach of the pawn whose routes are shown

    # --- reading --------------------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        """``start`` (pawns going onto their fields), then the game's: ``throw``, ``take``, ``build``, ``over``."""
        return "start" if self.state is None else self.state.phase

    @property
    def current(self) -> str:
        """Whose turn it is (or who puts their pawn on a start field)."""
        if self.state is None:
            return self.players[len(self.starts)]
        return self.state.player

    def view(self) -> dict:
        """``{game, variant, phase, current, players: [{color, level, cell, active}], rolls, throws, options, hand,
        stock: {length: left}, together, pending, selected: {pawn, destinations: [{cell, level, route}]},
        outcome, free_starts}``."""
        s = self.state
        levels = s.levels() if s is not None else {}
        players = [{"color": p, "level": levels.get(p, 0), "cell": list(self._cell_of(p)) if self._cell_of(p) else None,
                    "active": p == self.current} for p in self.players]
        selected = None
        if self.selected is not None:
            dests = self.selected.destinations()
            selected = {"pawn": self.selected.pawn.color,
                        "destinations": [{"cell": list(d[:2]), "level": d[2],
                                          "route": [list(x) for x in self.selected.routes[d]]} for d in dests]}
        blocked = s is not None and s.phase == THROW and talo.blocked(s)
        return {"game": "talo", "variant": self.variant, "phase": self.phase, "current": self.current,
                "players": players, **self.stock_view(), "selected": selected, "blocked": blocked,
                "free_starts": [list(c) for c in free_starts(s.terrain)] if blocked else []}

    def to_json(self) -> dict:
        return {"game": "talo", "variant": self.variant, "players": list(self.players), "time": self.time,
                "starts": {c: list(v) for c, v in self.starts.items()}, "live_of": dict(self.live_of),
                **self.turn_json(), "selected": None if self.selected is None else self.selected.pawn.color,
                "state": None if self.state is None else self.state.to_json()}

    def scores(self) -> dict[str, int]:
        levels = self.state.levels() if self.state is not None else {}
        return {p: levels.get(p, 0) for p in self.players}

    def legal_actions(self, table: Table) -> list[dict]:
        return talo_actions(self)

    def placements(self, piece: str, table: Table) -> list:
        return grid_placements(self, piece, table)

    def _cell_of(self, color: str):
        if self.state is None:
            return self.starts.get(color)
        pawn = self.state.layout.pawn(color)
        return None if pawn is None else pawn.cell

    def _pawn_pose(self, color: str, cell, level: int) -> tuple[float, ...]:
        p = pawn_piece(GridPawn(talo.pawn_id(color), color, (int(cell[0]), int(cell[1])), int(level)), self.board)
        return (*p.pos, *p.quat)

    def _game(self):
        if self.state is None:
            raise Refused("start", f"first every pawn goes onto a start field: {self.current}'s turn to choose one")
        return self.state

    # --- actions --------------------------------------------------------------------------------------

    def _act_start(self, args: Mapping, table: Table) -> list[Effect]:
        if self.state is not None:
            raise Refused("start", "every pawn is on the board already")
        cell = _cell(args)
        color = self.current
        if cell not in self.board.starts:
            raise Refused("start", f"field {list(cell)} is not a start field of this board")
        if cell in self.starts.values():
            raise Refused("start", f"field {list(cell)} is taken")
        self.starts[color] = cell
        out: list[Effect] = [Place(talo.pawn_id(color), self._pawn_pose(color, cell, 0))]
        if len(self.starts) < len(self.players):  # the next player chooses: theirs are the hands (and the turn)
            return out + [Seat(self.current), Say(f"{color} starts on {list(cell)}; {self.current}: choose a start "
                                                  "field")]
        try:
            self.state = talo.new_game(self.starts, self.board.name)
        except TaloError as e:
            raise PlayError(str(e)) from None
        self.log("turn_changed", player=self.current)
        self.log("game_state", state=self.state.to_json())
        return out + [Seat(self.current), Say(f"{self.current}'s turn: throw the die (X)", "turn")]

    def _next_turn(self, said: str) -> list[Effect]:
        self.selected = None
        return super()._next_turn(said)

    def _turn_hint(self) -> str:
        return " (the pawn is blockaded: it may restart on a free start field)" if talo.blocked(self.state) else ""

    def _act_select_pawn(self, args: Mapping, table: Table) -> list[Effect]:
        s = self._game()
        color = args.get("player") or s.player
        if color not in self.players:
            raise PlayError(f"player: no pawn {color!r} plays; players are {', '.join(self.players)}")
        self.selected = reachable(s.terrain, color)
        n = len(self.selected.destinations())
        return [Say(f"the {color} pawn can reach {n} spot(s), up to level {self.selected.max_level}")]

    def _act_move_pawn(self, args: Mapping, table: Table) -> list[Effect]:
        s = self._game()
        cell, level = _cell(args), int(args["level"])
        if self.pending is not None:
            raise Refused("together", "the pawn may move only before or after placing two blocks together")
        pawn = s.layout.pawn(s.player)
        if pawn is not None and (*cell, level) == pawn.spot:
            raise Refused("move", f"the {s.player} pawn stands on field {list(cell)} at level {level} already")
        try:
            self.state = talo.move(s, cell, level)
        except (IllegalMoveError, TaloError) as e:
            raise Refused("move", reason(e)) from None
        route = [tuple(x) for x in self.state.log[-1 if self.state.phase != OVER else -2].data["route"]]
        self.selected = None
        color = s.player
        walk = Walk(talo.pawn_id(color), tuple(self._pawn_pose(color, r[:2], r[2]) for r in route[1:]))
        self.log("game_state", state=self.state.to_json())
        out: list[Effect] = [walk, Say(f"{color} walks {len(route) - 1} step(s) to {list(cell)} at level {level}")]
        if self.over:
            out += self._ended()
        return out

    def _act_restart(self, args: Mapping, table: Table) -> list[Effect]:
        s = self._game()
        cell = _cell(args)
        try:
            self.state = talo.restart(s, cell)
        except (IllegalMoveError, TaloError) as e:
            raise Refused("restart", reason(e)) from None
        return [Place(talo.pawn_id(s.player), self._pawn_pose(s.player, cell, 0)),
                Say(f"the blockaded {s.player} pawn starts again on {list(cell)}")]

    # --- the table ------------------------------------------------------------------------------------

    def _pick(self, piece: str, table: Table, player: str) -> list[Effect]:
        p = table.scene().piece(piece)
        if self.over:
            raise Refused("over", "the game is over")
        if p.kind == PAWN:
            raise Refused("pawn", "a pawn walks its routes: select it (click it) and click where it goes")
        if p.kind != BLOCK:
            raise Refused("kind", f"{piece} is no Talo piece")
        self._game()
        return self._pick_block(piece, int(p.params["length"]), table)

    def _put(self, piece: str, length: int, pose) -> talo.Put:
        """The grid placement of a block landing at ``pose``; a pose off the grid is refused with its reason."""
        probe = Piece(piece, BLOCK, {"length": length}, tuple(pose[:3]), tuple(pose[3:]))
        layout = layout_of(Scene("talo", self.board.name, (probe,)))
        if layout.problems:
            v = layout.problems[0]
            raise Refused(v.rule, f"{piece} {v.reason}")
        b = layout.blocks[0]
        return talo.Put(length, b.cell, b.layer, b.axis)

    def _new_ids(self, state, puts) -> list[str]:
        return [b.id for b in talo.new_blocks(state, puts)]

    def _where(self, pieces, puts) -> str:
        return " and ".join(f"{pid} on {list(u.cell)} at level {u.layer}" for pid, u in zip(pieces, puts))

    def _knocked(self, pieces, player: str | None, table: Table) -> list[Effect]:
        if self.state is None:
            return []
        game_of = {v: k for k, v in self.live_of.items()}
        fallen = [game_of[p] for p in pieces if p in game_of]
        pawns = [p for p in pieces if p.startswith("pawn-") and p[5:] in self.players]
        out: list[Effect] = []
        if not fallen or self.over:
            for pid in pawns:  # a pawn knocked off alone goes back to its spot
                pawn = self.state.layout.pawn(pid[5:])
                if pawn is not None:
                    out.append(Place(pid, self._pawn_pose(pawn.color, pawn.cell, pawn.level)))
            return out
        return self._collapsed(fallen, player, pieces)


def _cell(args: Mapping) -> tuple[int, int]:
    cell = args["cell"]
    return int(cell[0]), int(cell[1])


__all__ = ["BOARDS", "TaloSession"]
