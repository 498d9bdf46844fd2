"""How the fields of actions are checked: small validators shared by the viewer's, the replay window's
and the games' actions (each returns the value, normalised, or raises ValueError saying what was expected
and what came)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sim.limits import finite

REQUIRED = object()
"""The default of a field that must be given."""


@dataclass(frozen=True)
class Field:
    """One field of an action: how it is checked, and its default (``REQUIRED`` when it must be given)."""

    check: Callable[[Any], Any]
    default: Any = None
    help: str = ""


def got(v: Any) -> str:
    """A value as an error message shows it: JSON where it is JSON and short; a long, deep or odd value shortened
    (one printable line, never the whole of a huge list)."""
    from sim.scene.schema import got as shortened

    if isinstance(v, (str, int, float, bool, type(None), list, dict)):
        try:
            text = json.dumps(v)
        except (ValueError, RecursionError):  # nested too deeply, or an integer too long to print
            return shortened(v)
        if len(text) <= 80 and text.isprintable():
            return text
    return shortened(v)


def text(v):
    """A non-empty string."""
    if not isinstance(v, str) or not v:
        raise ValueError(f"expected a non-empty string, got {got(v)}")
    return v


def text_or_none(v):
    """A non-empty string, or null."""
    return None if v is None else text(v)


def number(lo: float = -math.inf, hi: float = math.inf, what: str = "a number"):
    """A finite number lo..hi, as a float."""
    def check(v):
        if not finite(v) or not lo <= v <= hi:
            raise ValueError(f"expected {what}, got {got(v)}")
        return float(v)
    return check


def flag(v):
    """true or false."""
    if not isinstance(v, bool):
        raise ValueError(f"expected true or false, got {got(v)}")
    return v


def one_of(*choices):
    """One of ``choices``."""
    def check(v):
        if v not in choices:
            raise ValueError(f"expected one of {', '.join(got(c) for c in choices)}, got {got(v)}")
        return v
    return check


def vector(sizes: tuple[int, ...], what: str, lo: float = -math.inf, hi: float = math.inf):
    """A list of finite numbers lo..hi, of one of the lengths ``sizes``, as a tuple of floats."""
    def check(v):
        ok = isinstance(v, list) and len(v) in sizes and all(finite(x) and lo <= x <= hi for x in v)
        if not ok:
            raise ValueError(f"expected {what}, got {got(v)}")
        return tuple(float(x) for x in v)
    return check


def pixels(lo: int, hi: int, what: str = "[width, height] pixels"):
    """Two whole numbers lo..hi (a picture's width and height), as a tuple of ints."""
    def check(v):
        ok = isinstance(v, list) and len(v) == 2 and all(finite(x) and lo <= x <= hi and x == int(x) for x in v)
        if not ok:
            raise ValueError(f"expected {what}, whole numbers {lo}..{hi}, got {got(v)}")
        return (int(v[0]), int(v[1]))
    return check
