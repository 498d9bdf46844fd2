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


def listing(ids, first: int = 6, none: str = "") -> str:
    """Piece ids for a line of text: the first ``first`` and how many more (``none`` when there are none)."""
    ids = list(ids)
    if not ids:
        return none
    return ", ".join(ids[:first]) + (f" and {len(ids) - first} more" if len(ids) > first else "")
