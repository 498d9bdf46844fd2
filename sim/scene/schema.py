"""The file schema of ``towerlab-scene/1`` (pydantic), with one-line messages for every error.

Each field's check raises a message that says what was expected and what came;
:func:`first_error` turns pydantic's report into ``(field path, message)``. The
piece models are made from the catalogue (``sim.pieces.KINDS``): a kind and its
parameters are defined there once, and this module only says how a file spells
them.
"""

from __future__ import annotations

import math
import reprlib
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, create_model
from pydantic_core import PydanticCustomError

from sim.errors import printable
from sim.pieces import KINDS, KindSpec
from sim.pieces import dimensions as dim
from sim.pieces.custom import MAX_HULL_POINTS
from sim.scene.grid import SHORTHAND_KINDS

FORMAT = "towerlab-scene/1"
MAX_PIECES = 5000
MAX_COORD_MM = 100_000.0  # 100 m: anything further is a typo, not a scene
MAX_GRID = 1000
GAMES = ("tohuwabohu", "talo", "babylon", "free")

MIN_SIZE_MM = dim.MIN_SIZE
"""The smallest side of a box and the smallest radius or height of a cylinder (mm).

Five times the interpenetration the contact layer tolerates (``tol.overlap``, 0.2 mm) and
twenty times its contact gap (``tol.coplanar``, 0.05 mm): a piece any thinner could sink
into another unnoticed, and its opposite faces would touch the same neighbour."""
MAX_SIZE_MM = dim.MAX_SIZE
"""The largest side, radius or height (mm): 10 m, a tenth of the 100 m a position may reach."""
MIN_DENSITY = 0.001
"""The lowest density (g/cm³, = 1 kg/m³): the lightest aerogels; no solid one can build with is lighter."""
MAX_DENSITY = 25.0
"""The highest density (g/cm³, = 25,000 kg/m³): above osmium's 22.59, the densest element."""
MAX_FRICTION = 10.0
"""The largest Coulomb coefficient: rubber on rubber is about 1–2, so 10 grips like glue; more is a typo."""

_SHOW = reprlib.Repr()
_SHOW.maxlevel, _SHOW.maxlist, _SHOW.maxdict, _SHOW.maxstring, _SHOW.maxother = 2, 4, 3, 20, 20


def got(v: Any) -> str:
    """A value from a file as a message shows it: short, one line, printable (deep or huge values too)."""
    if isinstance(v, str):
        v = printable(v)
        return f'"{v}"' if len(v) < 40 else f'"{v[:37]}..."'
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, int) and v.bit_length() > 64:
        try:
            return f"an integer of {len(str(abs(v)))} digits"
        except ValueError:  # past Python's digit limit for conversions
            return "an integer too long to print"
    if isinstance(v, (list, dict)):
        return printable(_SHOW.repr(v))  # reprlib stops at depth 2: a deep list cannot recurse
    return printable(repr(v))


def _fail(expected: str, value: Any):
    raise PydanticCustomError("expected", "expected {expected}, got {got}",
                              {"expected": expected, "got": got(value)})


def _number(v: Any, what: str = "a number") -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        _fail(what, v)
    if isinstance(v, int) and v.bit_length() > 1023:  # beyond any float
        _fail("a finite number", v)
    if not math.isfinite(v):
        _fail("a finite number", v)
    return float(v)


def finite(v: Any) -> float:
    """A finite JSON number."""
    return _number(v)


def bounded(lo: float, hi: float, what: str, unit: str = ""):
    """Validator of a number in lo..hi (both included), e.g. a size or a density."""
    expected = f"{what} {lo:g}..{hi:g}{' ' + unit if unit else ''}"

    def check(v: Any) -> float:
        x = _number(v, expected)
        if not lo <= x <= hi:
            _fail(expected, v)
        return x
    return check


size_mm = bounded(MIN_SIZE_MM, MAX_SIZE_MM, "a size", "mm")
"""A box side or a cylinder's radius or height (mm)."""
density_g_cm3 = bounded(MIN_DENSITY, MAX_DENSITY, "a density", "g/cm³")
coulomb = bounded(0.0, MAX_FRICTION, "a friction coefficient")


def int_range(lo: int, hi: int):
    """Validator of an integer in lo..hi."""
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            _fail(f"an integer {lo}..{hi}", v)
        return v
    return check


def one_of(*choices):
    """Validator of a string among ``choices``."""
    def check(v: Any):
        if not isinstance(v, str) or v not in choices:
            _fail("one of " + ", ".join(str(c) for c in choices), v)
        return v
    return check


def _printable(v: Any, expected: str, allowed: str = "") -> str:
    """``v`` if it is a string of printable characters (or ones in ``allowed``); else an error naming another."""
    if not isinstance(v, str):
        _fail("a string", v)
    bad = next((printable(c) for c in v if not c.isprintable() and c not in allowed), None)
    if bad is not None:
        _fail(f"{expected} (no {bad})", v)
    return v


def text(v: Any) -> str:
    """One line of text (a title): printable characters only."""
    return _printable(v, "one line of printable text")


def free_text(v: Any) -> str:
    """Text over several lines (notes): printable characters, newlines and tabs."""
    return _printable(v, "printable text, newlines and tabs", allowed="\n\t")


def identifier(v: Any) -> str:
    """A name reports print (an id, an owner, a player): non-empty, printable, no surrounding spaces."""
    if not isinstance(v, str) or not v or v != v.strip():
        _fail("a non-empty string without surrounding spaces", v)
    return _printable(v, "a name of printable characters")


def boolean(v: Any) -> bool:
    """true or false."""
    if not isinstance(v, bool):
        _fail("true or false", v)
    return v


def vector(n: int, item, what: str):
    """Validator of a list of n numbers, each checked by ``item``."""
    def check(v: Any):
        if not isinstance(v, list) or len(v) != n:
            _fail(f"a list of {n} {what}", v)
        return tuple(item(x) for x in v)
    return check


def coordinate(v: Any) -> float:
    """A finite coordinate within 100 m of the origin (mm)."""
    x = _number(v)
    if abs(x) > MAX_COORD_MM:
        _fail(f"a coordinate within {MAX_COORD_MM:g} mm", v)
    return x


def grid_cell(v: Any):
    """A Talo field ``[i, j]``."""
    if (not isinstance(v, list) or len(v) != 2
            or any(isinstance(x, bool) or not isinstance(x, int) or abs(x) > MAX_GRID for x in v)):
        _fail("a field [i, j] of two integers", v)
    return tuple(v)


def unit_quat(v: Any):
    """A quaternion [x, y, z, w], not all zero (normalised on load)."""
    q = vector(4, finite, "numbers [x, y, z, w]")(v)
    if not any(q):
        _fail("a quaternion of non-zero length", v)
    return q


def player_list(v: Any):
    """A list of distinct player names."""
    if not isinstance(v, list):
        _fail("a list of player names", v)
    names = tuple(identifier(x) for x in v)
    if len(set(names)) != len(names):
        _fail("distinct player names", v)
    return names


def V(fn):
    """Annotate a field with a validator."""
    return Annotated[Any, BeforeValidator(fn)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PieceCommon(_Strict):
    """Fields every piece has."""

    id: V(identifier)
    kind: V(one_of(*KINDS))
    pos: V(vector(3, coordinate, "numbers [x, y, z] in mm")) = None
    rot: V(vector(3, finite, "angles [rx, ry, rz] in degrees")) = None
    quat: V(unit_quat) = None
    owner: V(identifier) = None
    fixed: V(boolean) = False
    friction: V(coulomb) = None
    density: V(density_g_cm3) = None


class GridFields(_Strict):
    """The Talo grid shorthand: instead of pos/rot."""

    cell: V(grid_cell) = None
    layer: V(int_range(0, 4 * dim.TALO_MAX_LEVEL)) = None


class GridAxis(_Strict):
    """How a Talo block given on the grid lies (``x``, ``y``) or stands (``z``)."""

    axis: V(one_of("x", "y", "z")) = None


def point_list(v: Any):
    """A hull's points: a list of at least four ``[x, y, z]`` (mm), each coordinate within 100 m."""
    expected = f"a list of 4 to {MAX_HULL_POINTS} points [x, y, z] in mm"
    if not isinstance(v, list) or not 4 <= len(v) <= MAX_HULL_POINTS:
        _fail(expected, v)
    point = vector(3, coordinate, "numbers [x, y, z] in mm")
    return tuple(point(x) for x in v)


def file_name(v: Any) -> str:
    """A file's path (relative to the scene file, or absolute): a non-empty name of printable characters."""
    if not isinstance(v, str) or not v.strip():
        _fail("a file name", v)
    return _printable(v, "a file name of printable characters")


def _param_check(param):
    """The validator of a kind's parameter, from its catalogue entry."""
    if param.choices:
        if all(isinstance(c, int) for c in param.choices):
            return int_range(min(param.choices), max(param.choices))
        return one_of(*param.choices)
    if param.value == "points":
        return point_list
    if param.value == "file":
        return file_name
    if param.value == "number":
        return bounded(*param.bounds, "a number")
    return size_mm if param.count == 1 else vector(param.count, size_mm, f"sizes {param.description}")


def _piece_model(spec: KindSpec) -> type[PieceCommon]:
    bases = (PieceCommon,)
    if spec.kind in SHORTHAND_KINDS:
        bases += (GridFields, GridAxis) if SHORTHAND_KINDS[spec.kind] else (GridFields,)
    fields = {p.name: (V(_param_check(p)), ... if p.required else p.default) for p in spec.params}
    name = "".join(w.capitalize() for w in spec.kind.replace(".", " ").split())
    return create_model(name, __base__=bases, __doc__=spec.summary, **fields)


PIECE_MODELS: dict[str, type[PieceCommon]] = {kind: _piece_model(spec) for kind, spec in KINDS.items()}
"""One model per catalogue kind: its own parameters on top of the common (and grid) fields."""


class SceneHeader(_Strict):
    """The top level of a scene file; ``pieces`` is checked piece by piece afterwards."""

    format: V(one_of(FORMAT))
    game: V(one_of(*GAMES))
    board: V(text) = None
    title: V(text) = None
    notes: V(free_text) = None
    players: V(player_list) = None
    pieces: list[Any]


def _path(loc) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def first_error(err: ValidationError, prefix: str = "") -> tuple[str, str]:
    """The first error of a pydantic report as ``(field path, message)``."""
    e = err.errors(include_url=False)[0]
    loc = _path(e["loc"])
    field = f"{prefix}.{loc}" if prefix and loc else (prefix or loc)
    kind = e["type"]
    if kind == "missing":
        return field, "required field is missing"
    if kind == "extra_forbidden":
        return field, "unknown field (see the scene format in docs/scene-format.md)"
    if kind in ("list_type", "model_type", "dict_type"):
        return field, f"expected {'a list' if kind == 'list_type' else 'an object'}, got {got(e.get('input'))}"
    return field, e["msg"]
