"""The file schema of ``towerlab-scene/1`` (pydantic), with one-line messages for every error.

Each field's check raises a message that says what was expected and what came;
:func:`first_error` turns pydantic's report into ``(field path, message)``.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError
from pydantic_core import PydanticCustomError

from sim.pieces import dimensions as dim

FORMAT = "towerlab-scene/1"
MAX_PIECES = 5000
MAX_COORD_MM = 100_000.0  # 100 m: anything further is a typo, not a scene
MAX_GRID = 1000
GAMES = ("tohuwabohu", "talo", "babylon", "free")


def _got(v: Any) -> str:
    if isinstance(v, str):
        return f'"{v}"' if len(v) < 40 else f'"{v[:37]}..."'
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, (list, dict)):
        text = repr(v)
        return text if len(text) < 40 else text[:37] + "..."
    return repr(v)


def _fail(expected: str, value: Any):
    raise PydanticCustomError("expected", "expected {expected}, got {got}",
                              {"expected": expected, "got": _got(value)})


def _number(v: Any, what: str = "a number") -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        _fail(what, v)
    if not math.isfinite(v):
        _fail("a finite number", v)
    return float(v)


def finite(v: Any) -> float:
    """A finite JSON number."""
    return _number(v)


def positive(v: Any) -> float:
    """A finite number > 0."""
    x = _number(v, "a positive number")
    if x <= 0:
        _fail("a positive number", v)
    return x


def non_negative(v: Any) -> float:
    """A finite number >= 0."""
    x = _number(v, "a number >= 0")
    if x < 0:
        _fail("a number >= 0", v)
    return x


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
        if v not in choices or not isinstance(v, str):
            _fail("one of " + ", ".join(str(c) for c in choices), v)
        return v
    return check


def text(v: Any) -> str:
    """A string."""
    if not isinstance(v, str):
        _fail("a string", v)
    return v


def identifier(v: Any) -> str:
    """A non-empty string without surrounding spaces."""
    if not isinstance(v, str) or not v or v != v.strip():
        _fail("a non-empty string", v)
    return v


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
    """A quaternion [x, y, z, w] of non-zero length."""
    q = vector(4, finite, "numbers [x, y, z, w]")(v)
    if math.fsum(x * x for x in q) < 1e-12:
        _fail("a quaternion of non-zero length", v)
    return q


def player_list(v: Any):
    """A list of distinct player names."""
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
        _fail("a list of player names", v)
    if len(set(v)) != len(v):
        _fail("distinct player names", v)
    return tuple(v)


def V(fn):
    """Annotate a field with a validator."""
    return Annotated[Any, BeforeValidator(fn)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PieceCommon(_Strict):
    """Fields every piece has."""

    id: V(identifier)
    kind: V(text)
    pos: V(vector(3, coordinate, "numbers [x, y, z] in mm")) = None
    rot: V(vector(3, finite, "angles [rx, ry, rz] in degrees")) = None
    quat: V(unit_quat) = None
    owner: V(identifier) = None
    fixed: V(boolean) = False
    friction: V(non_negative) = None
    density: V(positive) = None


class TaloGridFields(_Strict):
    """The Talo grid shorthand: instead of pos/rot."""

    cell: V(grid_cell) = None
    layer: V(int_range(0, 4 * dim.TALO_MAX_LEVEL)) = None


# one model per kind: the kind's own parameters on top of the common fields
class TohuBrick(PieceCommon):
    size: V(one_of("small", "large"))
    color: V(one_of(*dim.TOHU_BRICK_COLORS))


class TohuArch(PieceCommon):
    pass


class TohuLevel(PieceCommon):
    shape: V(one_of("quad", "tri"))


class TohuFigure(PieceCommon):
    color: V(one_of(*dim.TOHU_FIGURE_COLORS))


class TaloBlock(PieceCommon, TaloGridFields):
    length: V(int_range(1, dim.TALO_MAX_LENGTH))
    axis: V(one_of("x", "y", "z")) = None


class TaloPawn(PieceCommon, TaloGridFields):
    color: V(one_of(*dim.TALO_PAWN_COLORS))


class BabylonTower(PieceCommon):
    pass


class BabylonBridge(PieceCommon):
    pass


class BabylonNoble(PieceCommon):
    size: V(one_of("small", "large"))
    color: V(one_of(*dim.BABYLON_NOBLE_COLORS))


class GenericBox(PieceCommon):
    size: V(vector(3, positive, "positive sizes [x, y, z] in mm"))


class GenericCylinder(PieceCommon):
    radius: V(positive)
    height: V(positive)


PIECE_MODELS: dict[str, type[PieceCommon]] = {
    "tohuwabohu.brick": TohuBrick,
    "tohuwabohu.arch": TohuArch,
    "tohuwabohu.level": TohuLevel,
    "tohuwabohu.figure": TohuFigure,
    "talo.block": TaloBlock,
    "talo.pawn": TaloPawn,
    "babylon.tower": BabylonTower,
    "babylon.bridge": BabylonBridge,
    "babylon.noble": BabylonNoble,
    "box": GenericBox,
    "cylinder": GenericCylinder,
}

COMMON_FIELDS = frozenset(PieceCommon.model_fields) | frozenset(TaloGridFields.model_fields) | {"axis"}


class SceneHeader(_Strict):
    """The top level of a scene file; ``pieces`` is checked piece by piece afterwards."""

    format: V(one_of(FORMAT))
    game: V(one_of(*GAMES))
    board: V(text) = None
    title: V(text) = None
    notes: V(text) = None
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
        return field, f"expected {'a list' if kind == 'list_type' else 'an object'}, got {_got(e.get('input'))}"
    return field, e["msg"]
