"""The reserved names of what lies under the pieces, one definition for every layer.

A scene's pieces may not take these ids: the support graph, the contact
interfaces, the physics world and the renderer use them for the board's top
and the table around a board's slab (on the endless ``table`` board, the table
top is the board).
"""

BOARD = "board"
"""The board's top (or the endless table, on the ``table`` board)."""

TABLE = "table"
"""The table around a board's slab."""

GROUND = frozenset({BOARD, TABLE})
"""Both: what a piece that has fallen all the way lies on."""

RESERVED_IDS = GROUND
"""Ids no piece may take."""
