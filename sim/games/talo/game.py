"""The Talo game: pawns climb a building raised together on the grid; first on level 10 wins.

Pure and seeded: a state is frozen data, each action returns the next state,
the die's randomness comes in as a generator and the balance verdict on each
placement comes in as a :class:`~sim.verdict.Verdict`. The judge is the caller's: the
play session (:mod:`sim.games.play.talo`, which the viewer's play mode and the one
game interface run) asks the exact statics (:func:`sim.games.play.judge.statics_judge`),
``towerlab talo`` and a scripted game (:mod:`sim.games.talo.script`) the physics
(:func:`sim.physics.judge.judge`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import ClassVar

from sim.games.contract import Verdict
from sim.games.talo import turns
from sim.games.talo.board import MAX_LEVEL, TaloBoard, TaloError, talo_board
from sim.games.talo.layout import GridBlock, GridPawn, Layout, block_piece, layout_of, pawn_piece
from sim.games.talo.movement import free_starts, is_blocked, reachable
from sim.games.talo.placement import placement_violations
from sim.games.talo.report import physics_scene
from sim.games.talo.stock import Stock
from sim.games.talo.surfaces import Terrain
from sim.games.talo.turns import BUILD, OVER, THROW, IllegalMoveError, Outcome, TurnEvent, TurnState
from sim.pieces import dimensions as dim
from sim.scene import Scene


@dataclass(frozen=True)
class Put:
    """A block to place on the grid.

    Attributes:
        length: 1..10.
        cell: (i, j) of its first field.
        layer: the level of its bottom.
        axis: ``x``/``y`` lying, ``z`` standing.
    """

    length: int
    cell: tuple[int, int]
    layer: int
    axis: str


@dataclass(frozen=True)
class TaloState(TurnState):
    """A Talo game at one moment: the scene holds the building and the pawns, ``players`` are pawn colours."""

    VARIANT: ClassVar[str] = "talo"

    @cached_property
    def board(self) -> TaloBoard:
        """The building site."""
        return talo_board(self.scene.board)

    @cached_property
    def layout(self) -> Layout:
        """The scene on the grid."""
        return layout_of(self.scene)

    @cached_property
    def terrain(self) -> Terrain:
        """Where pawns can stand."""
        return Terrain(self.layout)

    def levels(self) -> dict[str, int]:
        """Player -> the level their pawn stands on."""
        return {p.color: p.level for p in self.layout.pawns}


def pawn_id(color: str) -> str:
    """The scene id of a player's pawn."""
    return f"pawn-{color}"


def new_game(starts: Mapping[str, Sequence[int]], board: str = "talo-green",
             stock: Stock | None = None) -> TaloState:
    """A game about to begin.

    Args:
        starts: player colour -> start field (i, j), in turn order (the youngest first).
        board: ``talo-green`` or ``talo-island``.
        stock: the blocks to play with (default: all 55).

    Raises:
        TaloError: an unknown colour, or a start off the start fields or shared.
    """
    site = talo_board(board)
    if not starts:
        raise TaloError("a game needs at least one player")
    pieces, seen = [], set()
    for color, cell in starts.items():
        if color not in dim.TALO_PAWN_COLORS:
            raise TaloError(f"pawn colour \"{color}\" unknown; expected one of {', '.join(dim.TALO_PAWN_COLORS)}")
        cell = (int(cell[0]), int(cell[1]))
        if cell not in site.starts:
            raise TaloError(f"the {color} pawn cannot start on field {list(cell)} of {board}")
        if cell in seen:
            raise TaloError(f"two pawns start on field {list(cell)}")
        seen.add(cell)
        pieces.append(pawn_piece(GridPawn(pawn_id(color), color, cell, 0), site))
    players = tuple(starts)
    scene = Scene("talo", board, tuple(pieces), title="Talo", players=players)
    log = tuple(TurnEvent(0, p.params["color"], "start", {"cell": list(p.grid.cell)}) for p in pieces)
    return TaloState(scene, players, Stock.full() if stock is None else stock, log=log)


throw = turns.throw
take = turns.take


def new_blocks(state: TaloState, puts: Sequence[Put]) -> tuple[GridBlock, ...]:
    """The blocks ``puts`` would add, with their ids and owner."""
    return tuple(GridBlock(f"b{state.placed + k + 1}", int(p.length), (int(p.cell[0]), int(p.cell[1])),
                           int(p.layer), p.axis, state.player) for k, p in enumerate(puts))


def building_after(state: TaloState, puts: Sequence[Put]) -> Scene:
    """The building (no pawns) once ``puts`` are placed: what the balance verdict is asked about."""
    site = state.board
    added = [block_piece(b, site) for b in new_blocks(state, puts)]
    return physics_scene(state.scene.with_pieces(state.scene.pieces + tuple(added)))


def precheck(state: TaloState, puts: Sequence[Put]) -> tuple[int, ...]:
    """Every rule of a placement but balance, so that the judge is asked only about legal ones (and the legal
    placements are listed without it: :func:`sim.games.play.talo_moves.grid_placements`).

    Returns:
        The hand once the blocks are placed.

    Raises:
        IllegalMoveError: not the time, the hand lacks the blocks, or a building rule is broken.
    """
    turns.require(state, BUILD)
    if not puts:
        raise IllegalMoveError("place at least one block")
    hand = turns.from_hand(state, [p.length for p in puts])
    broken = placement_violations(state.layout, new_blocks(state, puts), None)
    if broken:
        raise IllegalMoveError(broken)
    return hand


def place(state: TaloState, puts: Sequence[Put], verdict: Verdict) -> TaloState:
    """Place one block, or two at once, from the hand.

    Blocks placed in one call go on together: the balance is judged once both
    are on, and the pawn cannot move in between (the rulebook's 4 + 1 on a 1).

    Args:
        state: in the ``build`` phase.
        puts: the blocks and where they go.
        verdict: the judge's verdict on :func:`building_after` ``(state, puts)`` (the statics', or the
            physics').

    Returns:
        The state with the blocks placed; or, if the verdict has blocks that
        stood before fall, the game over by collapse: the player loses, and
        whoever stood highest before it wins.

    Raises:
        IllegalMoveError: a building rule is broken, the hand lacks the blocks, or
            the new blocks alone would fall (nothing else moves, so the
            building is as before and the player must place them otherwise).
    """
    hand = precheck(state, puts)
    blocks = new_blocks(state, puts)
    stood = {b.id for b in state.layout.blocks} & verdict.knocked_down
    if not verdict.stable and stood:
        return _collapse(state, sorted(stood), blocks=[_put_json(b) for b in blocks])
    broken = placement_violations(state.layout, blocks, verdict)
    if broken:
        raise IllegalMoveError(broken)
    site = state.board
    pieces = state.scene.pieces + tuple(block_piece(b, site) for b in blocks)
    state = replace(state, scene=state.scene.with_pieces(pieces), hand=hand, placed=state.placed + len(blocks))
    return turns.logged(state, "place", blocks=[_put_json(b) for b in blocks])


def _put_json(b: GridBlock) -> dict:
    return {"id": b.id, "length": b.length, "cell": list(b.cell), "layer": b.layer, "axis": b.axis}


def move(state: TaloState, cell: Sequence[int], level: int) -> TaloState:
    """Move the current player's pawn, step by step, to ``cell`` at ``level``.

    Allowed once the blocks are taken: before, between and after placements.
    Reaching level 10 wins the game.

    Raises:
        IllegalMoveError: not the time, or the spot is out of reach.
    """
    turns.require(state, BUILD)
    reach = reachable(state.terrain, state.player)
    route = reach.route(cell, level)
    if route is None:
        raise IllegalMoveError(f"the {state.player} pawn cannot reach field {list(cell)} at level {level}")
    pawn = reach.pawn
    moved = pawn_piece(GridPawn(pawn.id, pawn.color, (int(cell[0]), int(cell[1])), int(level)), state.board)
    scene = state.scene.with_pieces(moved if p.id == pawn.id else p for p in state.scene.pieces)
    state = turns.logged(replace(state, scene=scene), "move", route=[list(s) for s in route])
    if level >= MAX_LEVEL:
        state = turns.logged(state, "win", level=level)
        return replace(state, phase=OVER, outcome=Outcome(f"level {MAX_LEVEL}", (state.player,)))
    return state


def restart(state: TaloState, cell: Sequence[int]) -> TaloState:
    """Start the blockaded pawn again on a free start field, at the beginning of its player's turn.

    Raises:
        IllegalMoveError: the pawn is not blockaded, or the field is not free.
    """
    turns.require(state, THROW)
    if not is_blocked(state.terrain, state.player):
        raise IllegalMoveError(f"the {state.player} pawn is not blockaded; it may not restart")
    cell = (int(cell[0]), int(cell[1]))
    if cell not in free_starts(state.terrain):
        raise IllegalMoveError(f"field {list(cell)} is not a free start field")
    moved = pawn_piece(GridPawn(pawn_id(state.player), state.player, cell, 0), state.board)
    scene = state.scene.with_pieces(moved if p.id == moved.id else p for p in state.scene.pieces)
    return turns.logged(replace(state, scene=scene), "restart", cell=list(cell))


def end_turn(state: TaloState) -> TaloState:
    """End the turn (unplaced blocks go back); the game ends when the stock is used up."""
    state = turns.end_turn(state)
    if state.stock.total == 0:
        levels = state.levels()
        return _over(state, "blocks used up", _highest(levels, state.players))
    return state


def collapse(state: TaloState, caused_by: str | None = None, fallen: Sequence[str] = ()) -> TaloState:
    """A collapse that cannot be rebuilt, reported from outside (the viewer, a replay).

    Args:
        state: the game before it.
        caused_by: the player who brought it down (default: whose turn it is).
        fallen: the pieces knocked down.
    """
    if state.phase == OVER:
        raise IllegalMoveError("the game is over")
    if caused_by is not None and caused_by not in state.players:
        raise TaloError(f"no player \"{caused_by}\"")
    return _collapse(state, list(fallen), caused_by or state.player)


def _collapse(state: TaloState, fallen: list[str], loser: str | None = None, blocks=None) -> TaloState:
    loser = loser or state.player
    levels = {c: lv for c, lv in state.levels().items() if c != loser}
    extra = {} if blocks is None else {"blocks": blocks}
    state = turns.logged(state, "collapse", fallen=fallen, caused_by=loser, **extra)
    return _over(state, "collapse", _highest(levels, state.players), loser)


def _highest(levels: Mapping[str, int], players: Sequence[str]) -> tuple[str, ...]:
    if not levels:
        return ()
    top = max(levels.values())
    return tuple(p for p in players if levels.get(p) == top)


def _over(state: TaloState, reason: str, winners: tuple[str, ...], loser: str | None = None) -> TaloState:
    return replace(state, phase=OVER, outcome=Outcome(reason, winners, loser))


def blocked(state: TaloState) -> bool:
    """Whether the current player's pawn is blockaded (and may restart)."""
    return is_blocked(state.terrain, state.player)


__all__ = ["Put", "TaloState", "blocked", "building_after", "collapse", "end_turn", "move", "new_game",
           "new_blocks", "pawn_id", "place", "precheck", "restart", "take", "throw"]
