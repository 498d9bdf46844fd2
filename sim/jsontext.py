"""JSON text for files people read and diff: a record's fields one a line, and its list one item a line.

Scene files (one piece a line) and Talo game scripts (one turn a line) are
written this way: a change to one piece or one turn is a change to one line.
"""

from __future__ import annotations

import json

from sim.limits import FileRefusedError, check_depth, read_text, too_deep


def dumps_one_per_line(data: dict, key: str) -> str:
    """A JSON object as text: each field on a line of its own, the list under ``key`` last, one item a line.

    Args:
        data: the object (JSON-serialisable values); ``data[key]`` a list, or absent for an empty one.
        key: the field whose items each get a line.

    Returns:
        The text, ending in a newline; ``json.loads`` of it equals ``data`` (with ``key`` last). Non-ASCII
        characters are written as they are.
    """
    items = data.get(key, [])
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in data.items() if k != key]
    if items:
        lines.append(f"  {json.dumps(key)}: [")
        last = len(items) - 1
        lines += [f"    {json.dumps(x, ensure_ascii=False)}{',' if i < last else ''}" for i, x in enumerate(items)]
        lines.append("  ]")
    else:
        lines.append(f"  {json.dumps(key)}: []")
    lines.append("}")
    return "\n".join(lines) + "\n"


READ_ERRORS = (ValueError, RecursionError)
"""What ``json.loads`` (or a decoder's ``raw_decode``) raises for text it cannot read: a ``JSONDecodeError``
(a ``ValueError``), a ``RecursionError`` for lists or objects nested thousands deep, a ``ValueError`` for an
integer of more digits than Python converts (4300)."""


def unreadable(e: Exception) -> str:
    """Why JSON text could not be read, in one line (``e`` one of :data:`READ_ERRORS`)."""
    if isinstance(e, json.JSONDecodeError):
        return f"not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}"
    if isinstance(e, RecursionError):
        return "not valid here: lists or objects nested too deeply to read"
    return f"not valid here: a number with too many digits ({str(e).split(';')[0]})"


class JSONFileError(ValueError):
    """A JSON file that cannot be read: why, in words that follow its name."""


def read_json_file(path, kind: str):
    """The parsed content of a JSON file that came from outside, read by the one policy for users' files
    (:func:`sim.limits.read_text`: a regular file of at most its kind's size, UTF-8), nested at most
    :data:`sim.limits.MAX_DEPTH` deep.

    Args:
        path: the file.
        kind: what it is (a key of :data:`sim.limits.LIMITS`: ``game``, ``seats``).

    Raises:
        JSONFileError: why not (``cannot read the file (no such file)``, ``is a FIFO (named pipe), not a regular
            file``, too large, not UTF-8, not JSON, nested too deeply).
    """
    try:
        text = read_text(path, kind)
    except FileRefusedError as e:
        raise JSONFileError(e.reason) from None
    try:
        value = json.loads(text)
    except READ_ERRORS as e:
        raise JSONFileError(unreadable(e)) from None
    if check_depth(value) is not None:
        raise JSONFileError(f"not valid here: {too_deep()}")
    return value
