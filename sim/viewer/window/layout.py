"""How the window's texts fit the room their panel gets: lines broken at a status line's separators or between
words, to a width measured by the font, and cut to a number of rows.

Pure: the width of a text is a function handed in (the panel's ``TextNode.calc_width`` times its scale in
the window; a test's own in the tests), so that the same breaking decides what the window shows and what a
test expects.
"""

from __future__ import annotations

from collections.abc import Callable

SEPARATOR = " | "
"""Between the parts of a status line."""
MORE = " ..."
"""Ends a text cut short."""


def fit(text: str, room: float, width: Callable[[str], float], rows: int | None = None,
        separator: str | None = None, indent: str = "  ") -> list[str]:
    """``text``'s lines broken to fit ``room``, each no wider than it.

    Args:
        text: the text; its own line breaks are kept.
        room: the width a line may take (the units of ``width``).
        width: the width of a line of text.
        rows: at most this many lines (the last one ending in :data:`MORE` when there was more), or None.
        separator: break a line between its parts (a status line's " | ") before breaking between words.
        indent: what a continued line begins with.

    Returns:
        The lines (a word wider than ``room`` alone is cut).
    """
    out: list[str] = []
    for line in text.split("\n"):
        out += _fit_line(line, room, width, separator, indent)
    if rows is not None and len(out) > rows:
        out = out[:rows]
        out[-1] = _cut(out[-1] + MORE, room, width)
    return out


def _fit_line(line: str, room: float, width, separator: str | None, indent: str) -> list[str]:
    if width(line) <= room:
        return [line]
    if separator and separator in line:
        out, current = [], ""
        for part in line.split(separator):
            joined = part if not current else current + separator + part
            if width(joined) <= room or not current:
                current = joined
            else:
                out.append(current)
                current = indent + part.lstrip()
        return [piece for text in out + [current] for piece in _fit_line(text, room, width, None, indent)]
    out, current = [], ""
    for word in line.split(" "):
        joined = word if not current else current + " " + word
        if width(joined) <= room or not current.strip():
            current = joined
        else:
            out.append(current)
            current = indent + word
    out.append(current)
    return [_cut(piece, room, width) for piece in out]


def _cut(line: str, room: float, width) -> str:
    """``line``, or as much of it as fits with :data:`MORE` after it."""
    if width(line) <= room:
        return line
    keep = len(line)
    while keep > 0 and width(line[:keep] + MORE) > room:
        keep -= 1
    return line[:keep].rstrip() + MORE
