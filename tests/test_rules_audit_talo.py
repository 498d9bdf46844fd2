"""Held-out checks of Talo's rule readings, written from the rulebook's statements (the rules audit)."""

from __future__ import annotations

import pytest

from sim.games.talo import GridBlock, GridPawn, IllegalMoveError, Stock, talo_board
from sim.games.talo import game as g
from sim.games.talo.layout import block_piece, pawn_piece
from sim.pieces import dimensions as dim
from sim.scene import Scene


def _islands(land: frozenset) -> list[frozenset]:
    """The land fields grouped into islands (fields joined through their sides)."""
    left, out = set(land), []
    while left:
        seen, stack = set(), [left.pop()]
        while stack:
            i, j = stack.pop()
            seen.add((i, j))
            for n in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
                if n in left:
                    left.discard(n)
                    stack.append(n)
        out.append(frozenset(seen))
    return out


def test_the_set_is_55_blocks_of_lengths_1_to_10_and_six_pawns():
    assert dim.TALO_COUNT == {1: 10, 2: 9, 3: 8, 4: 7, 5: 6, 6: 5, 7: 4, 8: 3, 9: 2, 10: 1}
    assert sum(dim.TALO_COUNT.values()) == 55
    assert set(dim.TALO_PAWN_COLORS) == {"yellow", "red", "blue", "green", "pink", "orange"}


def test_the_green_board_is_10_by_10_and_every_field_is_a_start():
    board = talo_board("talo-green")
    assert len(board.fields()) == 100 and board.land == board.starts == frozenset(board.fields())


def test_the_island_board_has_40_island_fields_on_five_islands_and_the_middle_one_is_no_start():
    board = talo_board("talo-island")
    water = [f for f in board.fields() if board.is_water(f)]
    assert len(board.land) == 40 and len(water) == 60
    islands = _islands(board.land)
    assert len(islands) == 5
    edge = [isl for isl in islands if any(i in (0, 9) or j in (0, 9) for i, j in isl)]
    (middle,) = [isl for isl in islands if isl not in edge]
    assert not middle & board.starts  # built on, never started from
    assert board.starts == frozenset().union(*edge)  # the four islands next to the edge


@pytest.mark.parametrize("roll", range(1, 11))
def test_a_throw_allows_one_block_of_its_number_or_two_that_add_up_to_it(roll):
    options = Stock.full().choices(roll)
    assert all(len(o) <= 2 and sum(o) == roll for o in options)  # never more than two blocks
    pairs = {tuple(sorted((a, roll - a))) for a in range(1, roll)}
    assert set(options) == {(roll,)} | pairs  # two of one length too (2 + 2 for a four)


def _state(blocks, pawns, phase):
    board = talo_board("talo-green")
    pieces = [block_piece(GridBlock(*b), board) for b in blocks]
    pieces += [pawn_piece(GridPawn(g.pawn_id(c), c, cell, lv), board) for c, (cell, lv) in pawns.items()]
    scene = Scene("talo", "talo-green", tuple(pieces), players=tuple(pawns))
    return g.TaloState(scene, tuple(pawns), Stock.full(), phase=phase, placed=len(blocks))


def test_a_blockaded_pawn_starts_over_on_its_next_turn_not_in_the_middle_of_one():
    walls = [("e", 3, (1, 0), 0, "z"), ("n", 3, (0, 1), 0, "z")]
    pawns = {"red": ((0, 0), 0), "blue": ((5, 5), 0)}
    assert g.restart(_state(walls, pawns, "throw"), (7, 7)).layout.pawn("red").cell == (7, 7)
    with pytest.raises(IllegalMoveError, match="not now"):
        g.restart(_state(walls, pawns, "build"), (7, 7))


def test_the_pawn_moves_once_the_blocks_are_taken_not_before():
    # the turn: throw and take the blocks, then build and move (before, between or after the building)
    blocks = [("one", 1, (3, 2), 0, "z")]
    s = g.throw(_state(blocks, {"red": ((2, 2), 0)}, "throw"), rolls=[5])
    with pytest.raises(IllegalMoveError, match="not now"):
        g.move(s, (3, 2), 1)
    s = g.take(s, (5,))
    assert g.move(s, (3, 2), 1).levels() == {"red": 1}

