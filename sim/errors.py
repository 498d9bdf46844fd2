"""Typed errors for bad user input; the CLI turns them into one line and exit code 2."""

from __future__ import annotations


class TowerlabError(Exception):
    """Base class of every error caused by the user's input rather than by a bug."""


class SceneError(TowerlabError):
    """A scene file that cannot be used.

    Args:
        source: the file (or other origin) the scene came from.
        field: path of the offending field, e.g. ``pieces[3].length``; empty for the whole file.
        reason: what was expected and what came.
    """

    def __init__(self, source: str, field: str, reason: str):
        self.source = source
        self.field = field
        self.reason = reason
        where = f"{source}: {field}" if field else source
        super().__init__(f"{where}: {reason}")


class UnknownKindError(TowerlabError):
    """A piece kind or parameter combination the catalogue does not know."""


class ShapeError(TowerlabError):
    """A piece whose geometry cannot be built: a hull of points in one plane, a mesh file that is not closed.

    The scene loader turns it into a :class:`SceneError` naming the file and the piece's field.

    Args:
        field: the parameter at fault (``vertices``, ``file``, ``decomposition``).
        reason: what is wrong, in one line.
    """

    def __init__(self, field: str, reason: str):
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on or cannot show escaped, as Python writes it.

    Control characters (ESC, newline, ...), format characters (the bidirectional
    overrides), lone surrogates and the like become ``\\x1b``, ``\\n``, ``\\ud800``, so a
    message stays one line, and a value cannot recolour or rewrite the terminal.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in text)
