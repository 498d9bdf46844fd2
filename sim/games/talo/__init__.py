"""Talo: 55 blocks on a 10 × 10 grid, a ten-sided die, and pawns climbing to level 10.

Split by concept: :mod:`.board` (building sites), :mod:`.stock` (blocks and
dice), :mod:`.layout` (a scene read off the grid), :mod:`.placement` (building
rules), :mod:`.surfaces` and :mod:`.movement` (where pawns stand and go),
:mod:`.turns`, :mod:`.game` and :mod:`.fantasy` (the games), :mod:`.report`
(a scene judged as a whole, :func:`referee`). The physics verdict comes in as a
:class:`sim.games.contract.Verdict`; nothing here runs an engine.
"""

from sim.games.contract import Verdict, Violation
from sim.games.talo.board import MAX_LEVEL, PAWN_ROOM, TaloBoard, TaloError, talo_board
from sim.games.talo.layout import GridBlock, GridPawn, Layout, layout_of
from sim.games.talo.movement import Reach, blockaded, free_starts, is_blocked, reachable, steps
from sim.games.talo.placement import check_layout, placement_violations
from sim.games.talo.report import TaloReport, physics_scene, referee, talo_report
from sim.games.talo.stock import Stock, Throws, roll_die, throw_for_blocks
from sim.games.talo.surfaces import Stand, Terrain
from sim.games.talo.turns import IllegalMoveError, Outcome

__all__ = [
    "MAX_LEVEL", "PAWN_ROOM", "GridBlock", "GridPawn", "IllegalMoveError", "Layout", "Outcome", "Reach", "Stand",
    "Stock", "TaloBoard", "TaloError", "TaloReport", "Terrain", "Throws", "Verdict", "Violation",
    "blockaded", "check_layout", "free_starts", "is_blocked", "layout_of", "physics_scene", "placement_violations",
    "reachable", "referee", "roll_die", "steps", "talo_board", "talo_report", "throw_for_blocks",
]
