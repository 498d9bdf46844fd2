"""Talo-Fantasy: everyone builds one construction together with the die and the stock; no pawns, no grid."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from sim.games.contract import Verdict, Violation
from sim.games.talo import turns
from sim.games.talo.board import TaloError
from sim.games.talo.stock import Stock
from sim.games.talo.turns import BUILD, OVER, IllegalMoveError, Outcome, TurnState
from sim.pieces import boards
from sim.pieces.talo import BLOCK
from sim.scene import Piece, Scene

SITES = ("talo-green", "talo-island", "table")
"""Where Fantasy may be built: either side of the board, or the table."""

MIN_PLAYERS, MAX_PLAYERS = 2, 4
"""The variant's box gives it 2 to 4 players (the main game has pawns for six)."""


@dataclass(frozen=True)
class FreeBlock:
    """A block placed anywhere, any way round.

    Attributes:
        length: 1..10.
        pos: (3,) centre (m).
        quat: (4,) orientation, xyzw.
    """

    length: int
    pos: tuple[float, float, float]
    quat: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)


@dataclass(frozen=True)
class FantasyState(TurnState):
    """A Talo-Fantasy game at one moment: the scene holds the construction, ``players`` are names."""

    VARIANT: ClassVar[str] = "fantasy"


def new_fantasy(players: Sequence[str], site: str = "table", stock: Stock | None = None) -> FantasyState:
    """A Fantasy game about to begin.

    Args:
        players: names in turn order.
        site: ``table`` or one of the two boards.
        stock: the blocks to play with (default: all 55).

    Raises:
        TaloError: not 2 to 4 players (the variant's player count), repeated names, or an
            unknown building site.
    """
    players = tuple(players)
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise TaloError(f"players: Talo-Fantasy is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(players)}")
    if len(set(players)) != len(players):
        raise TaloError(f"players: names must differ, got {', '.join(players)}")
    if site not in SITES or site not in boards.BOARDS:
        raise TaloError(f"Fantasy is built on {', '.join(SITES)}, not \"{site}\"")
    scene = Scene("talo", site, (), title="Talo-Fantasy", players=players)
    return FantasyState(scene, players, Stock.full() if stock is None else stock)


throw = turns.throw
take = turns.take


def new_pieces(state: FantasyState, blocks: Sequence[FreeBlock]) -> tuple[Piece, ...]:
    """The scene pieces ``blocks`` would add."""
    return tuple(Piece(f"f{state.placed + k + 1}", BLOCK, {"length": int(b.length)},
                       tuple(float(x) for x in b.pos), tuple(float(x) for x in b.quat), owner=state.player)
                 for k, b in enumerate(blocks))


def building_after(state: FantasyState, blocks: Sequence[FreeBlock]) -> Scene:
    """The construction once ``blocks`` are placed: what the physics verdict is asked about."""
    return state.scene.with_pieces(state.scene.pieces + new_pieces(state, blocks))


def precheck(state: FantasyState, blocks: Sequence[FreeBlock]) -> tuple[int, ...]:
    """Every rule of a placement but balance (free building has no other: the hand must hold the blocks).

    Returns:
        The hand once they are placed.

    Raises:
        IllegalMoveError: not the time to build, or the hand lacks the blocks.
    """
    turns.require(state, BUILD)
    if not blocks:
        raise IllegalMoveError("place at least one block")
    return turns.from_hand(state, [int(b.length) for b in blocks])


def place(state: FantasyState, blocks: Sequence[FreeBlock], verdict: Verdict) -> FantasyState:
    """Place one or two blocks from the hand, anywhere, together.

    Args:
        state: in the ``build`` phase.
        blocks: where they go.
        verdict: the physics verdict on :func:`building_after` ``(state, blocks)``.

    Returns:
        The state with the blocks placed; or the game over if blocks that stood
        before fall (the player who placed loses; nobody wins).

    Raises:
        IllegalMoveError: the hand lacks the blocks, or the new blocks alone would fall.
    """
    hand = precheck(state, blocks)
    pieces = new_pieces(state, blocks)
    stood = {p.id for p in state.scene.pieces} & verdict.knocked_down
    if not verdict.stable and stood:
        state = turns.logged(state, "collapse", fallen=sorted(stood), caused_by=state.player)
        return replace(state, phase=OVER, outcome=Outcome("collapse", (), state.player))
    if not verdict.stable:
        ids = tuple(p.id for p in pieces)
        raise IllegalMoveError(Violation("balance", tuple(sorted(verdict.knocked_down)) or ids,
                                    "the new blocks would not stay where they are put"))
    state = replace(state, scene=building_after(state, blocks), hand=hand, placed=state.placed + len(pieces))
    return turns.logged(state, "place", blocks=[{"id": p.id, "length": p.params["length"],
                                                 "pos_mm": [round(x * 1000, 3) for x in p.pos]} for p in pieces])


def end_turn(state: FantasyState) -> FantasyState:
    """End the turn; once every block is built the construction is complete."""
    state = turns.end_turn(state)
    if state.stock.total == 0:
        return replace(state, phase=OVER, outcome=Outcome("blocks used up", state.players))
    return state


def collapse(state: FantasyState, caused_by: str | None = None, fallen: Sequence[str] = ()) -> FantasyState:
    """The construction collapsed, seen from outside (the viewer's physics, a replay): the game ends, the player
    who brought it down loses and nobody wins (as :func:`place` rules a placement that brings blocks down).

    Raises:
        IllegalMoveError: the game is over already.
    """
    if state.phase == OVER:
        raise IllegalMoveError("the game is over")
    culprit = caused_by or state.player
    state = turns.logged(state, "collapse", fallen=sorted(fallen), caused_by=culprit)
    return replace(state, phase=OVER, outcome=Outcome("collapse", (), culprit))


def finish(state: FantasyState) -> FantasyState:
    """End the game together: the building goal is reached."""
    if state.phase == OVER:
        raise IllegalMoveError("the game is over")
    return replace(turns.logged(state, "end"), phase=OVER, outcome=Outcome("goal reached", state.players))
