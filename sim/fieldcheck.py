"""Reading JSON data that came from a file, field by field: each value checked as it is read, an error naming its path.

A file a user receives is hostile until checked (docs/contracts.md). :class:`Field` wraps parsed JSON and
reads it the way a schema with ``additionalProperties: false`` would: every value's type, range and size,
numbers finite (or, where asked, the infinities written ``"inf"`` / ``"-inf"``: JSON has none), no unknown
keys. A wrong value raises :class:`FieldError` with the path (``world.hands[0].target``), what was expected
and what came, which a command turns into its one line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable

import numpy as np

INFINITIES = {"inf": math.inf, "-inf": -math.inf}
"""How data written by :func:`number_json` holds an infinite number."""


class FieldError(ValueError):
    """A field is not what it must be.

    Attributes:
        path: where (``world.hands[0].target``; empty for the whole).
        message: what was expected, and what came.
    """

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


def shown(v) -> str:
    """A value as an error shows it: JSON, cut short."""
    try:
        text = json.dumps(v)
    except (TypeError, ValueError):
        text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def number_json(x: float) -> float | str:
    """A float as data :meth:`Field.number` reads back exactly (an infinity as ``"inf"`` / ``"-inf"``).

    Raises:
        ValueError: not a number (NaN).
    """
    x = float(x)
    if math.isnan(x):
        raise ValueError("NaN has no place in the data")
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


class Field:
    """One value of parsed JSON and where it is (see the module docstring).

    Args:
        value: the parsed JSON value.
        path: its path, for errors.
    """

    def __init__(self, value, path: str = ""):
        self.value = value
        self.path = path

    def fail(self, message: str) -> FieldError:
        """The error of this field: ``message`` (what was expected) and what came."""
        return FieldError(self.path, f"{message}, got {shown(self.value)}")

    def _at(self, key) -> str:
        if isinstance(key, int):
            return f"{self.path}[{key}]"
        return f"{self.path}.{key}" if self.path else str(key)

    # --- structure ---------------------------------------------------------------------------------

    def object(self, required: Iterable[str] = (), optional: Iterable[str] = ()) -> Field:
        """This field as an object with the ``required`` keys, maybe the ``optional`` ones, and no other."""
        required, optional = tuple(required), tuple(optional)
        if not isinstance(self.value, dict):
            raise self.fail("expected an object")
        missing = [k for k in required if k not in self.value]
        if missing:
            raise FieldError(self._at(missing[0]), "missing")
        unknown = sorted(k for k in self.value if k not in required and k not in optional)
        if unknown:
            raise FieldError(self._at(unknown[0]), f"unknown field (expected {', '.join(required + optional)})")
        return self

    def __getitem__(self, key) -> Field:
        """A key of an object (checked by :meth:`object` first) or an item of a list."""
        return Field(self.value[key], self._at(key))

    def is_null(self) -> bool:
        """Whether the value is ``null``."""
        return self.value is None

    def items(self, most: int, least: int = 0) -> list[Field]:
        """This field as a list of ``least`` to ``most`` items."""
        if not isinstance(self.value, list) or not least <= len(self.value) <= most:
            raise self.fail(f"expected a list of {least} to {most} items")
        return [Field(v, self._at(k)) for k, v in enumerate(self.value)]

    def entries(self, most: int) -> list[tuple[str, Field]]:
        """This field as an object of at most ``most`` keys, each with its field."""
        if not isinstance(self.value, dict) or len(self.value) > most:
            raise self.fail(f"expected an object of at most {most} keys")
        return [(k, Field(v, self._at(k))) for k, v in self.value.items()]

    # --- values ------------------------------------------------------------------------------------

    def number(self, lo: float = -math.inf, hi: float = math.inf, infinite: bool = False) -> float:
        """A number ``lo``..``hi`` (finite, or with ``infinite`` also ``"inf"`` / ``"-inf"``), as a float."""
        v = self.value
        if infinite and v in INFINITIES:
            v = INFINITIES[v]
        elif isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise self.fail("expected a " + ("number (or \"inf\", \"-inf\")" if infinite else "finite number"))
        if not lo <= v <= hi:
            raise self.fail(f"expected a number from {lo:g} to {hi:g}")
        return float(v)

    def integer(self, lo: int, hi: int) -> int:
        """An integer ``lo``..``hi``."""
        v = self.value
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise self.fail(f"expected an integer from {lo} to {hi}")
        return v

    def flag(self) -> bool:
        """true or false."""
        if not isinstance(self.value, bool):
            raise self.fail("expected true or false")
        return self.value

    def text(self, most: int = 200) -> str:
        """A non-empty string of at most ``most`` characters."""
        if not isinstance(self.value, str) or not 0 < len(self.value) <= most:
            raise self.fail(f"expected a text of 1 to {most} characters")
        return self.value

    def one_of(self, choices: Iterable) -> object:
        """One of ``choices``."""
        choices = tuple(choices)
        if self.value not in choices:
            raise self.fail(f"expected one of {', '.join(shown(c) for c in choices)}")
        return self.value

    def ids(self, known, most: int | None = None) -> list[str]:
        """A list of distinct ids, each one of ``known``."""
        known = set(known)
        out = []
        for f in self.items(len(known) if most is None else most):
            if not isinstance(f.value, str) or f.value not in known:
                raise f.fail("expected the id of a piece of the game")
            out.append(f.value)
        if len(set(out)) != len(out):
            raise self.fail("expected each id once")
        return out

    def floats(self, shape: tuple[int, ...], infinite: bool = False) -> np.ndarray:
        """Nested lists of numbers of ``shape`` (its first length -1: any number of rows, up to 10**5), as a
        float array: finite, or with ``infinite`` also the infinities."""
        def read(f: Field, dims: tuple[int, ...]):
            if not dims:
                return f.number(infinite=infinite)
            n = dims[0]
            return [read(g, dims[1:]) for g in (f.items(10**5) if n < 0 else f.items(n, n))]
        rows = read(self, shape)
        return np.array(rows, dtype=float).reshape((len(rows), *shape[1:]))


__all__ = ["INFINITIES", "Field", "FieldError", "number_json", "shown"]
