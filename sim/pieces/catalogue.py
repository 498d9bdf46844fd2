"""The registry of piece kinds: parameters, builders and every fixed variant."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from sim.errors import UnknownKindError
from sim.pieces import babylon, boards, custom, generic, talo, tohuwabohu
from sim.pieces import dimensions as dim
from sim.pieces.model import PieceShape
from sim.pieces.talo import BLOCK, PAWN


@dataclass(frozen=True)
class Param:
    """A kind's parameter; the scene schema (``sim.scene.schema``) checks every one from these fields.

    Attributes:
        name: the field name in scene files.
        description: what it means, for ``towerlab pieces``.
        choices: the allowed values when they are few; empty for the other values.
        count: how many sizes a ``size`` parameter takes (3 for a box's ``[x, y, z]``).
        value: what a parameter without choices holds: ``size`` (mm, or ``count`` of them),
            ``points`` (a list of ``[x, y, z]`` mm), ``file`` (a path, relative to the scene file),
            ``number`` (within ``bounds``).
        bounds: (least, greatest) of a ``number``.
        required: whether a piece must give it; else ``default`` is what the builder takes.
        default: the value of an optional parameter that is left out (not written back).
    """

    name: str
    description: str
    choices: tuple = ()
    count: int = 1
    value: str = "size"
    bounds: tuple = ()
    required: bool = True
    default: object = None


@dataclass(frozen=True)
class KindSpec:
    """A piece kind of the scene format.

    Attributes:
        kind: the scene file's ``kind``.
        game: ``tohuwabohu``, ``talo``, ``babylon`` or ``generic``.
        summary: one line about the piece.
        params: its parameters.
        build: makes the :class:`PieceShape` from keyword parameters.
        examples: parameter sets listed by ``towerlab pieces`` and written to
            ``sim/data/meshes/`` (every combination when all parameters have choices).
    """

    kind: str
    game: str
    summary: str
    params: tuple[Param, ...]
    build: Callable[..., PieceShape]
    examples: tuple[dict, ...] = ()

    def variants(self) -> list[dict]:
        """Every fixed parameter set of this kind, or its examples for free-sized kinds."""
        if self.examples:
            return [dict(e) for e in self.examples]
        names = [p.name for p in self.params]
        return [dict(zip(names, combo)) for combo in itertools.product(*(p.choices for p in self.params))]


KINDS: dict[str, KindSpec] = {k.kind: k for k in [
    KindSpec("tohuwabohu.brick", "tohuwabohu", "wooden brick, 40 or 80 long, 20 x 20",
             (Param("size", "small (40 x 20 x 20) or large (80 x 20 x 20)", ("small", "large")),
              Param("color", "brick colour", dim.TOHU_BRICK_COLORS)),
             tohuwabohu.brick),
    KindSpec("tohuwabohu.arch", "tohuwabohu", "80 x 20 x 40 arch, half-round opening r 20, two feet",
             (), tohuwabohu.arch),
    KindSpec("tohuwabohu.level", "tohuwabohu",
             "cardboard level plate with red, green and blue areas and figure points",
             (Param("shape", "quad (120 x 120) or tri (equilateral, side 140)", ("quad", "tri")),),
             tohuwabohu.level),
    KindSpec("tohuwabohu.figure", "tohuwabohu", "figure, base 12, height 22",
             (Param("color", "figure colour", dim.TOHU_FIGURE_COLORS),), tohuwabohu.figure),
    KindSpec(BLOCK, "talo", "beech block 20 x 20 x 20n",
             (Param("length", "length in grid fields", tuple(range(1, dim.TALO_MAX_LENGTH + 1))),),
             talo.block),
    KindSpec(PAWN, "talo", "halma pawn, base 14, height 32",
             (Param("color", "pawn colour", dim.TALO_PAWN_COLORS),), talo.pawn),
    KindSpec("babylon.tower", "babylon", "hollow tower 25 x 25 x 20, side opening and top slit",
             (), babylon.tower),
    KindSpec("babylon.bridge", "babylon", "hollow bridge 75 x 25 x 20 over three tower spots",
             (), babylon.bridge),
    KindSpec("babylon.noble", "babylon", "noble, small (base 11, h 18) or large (base 15, h 28)",
             (Param("size", "small or large", ("small", "large")),
              Param("color", "player colour", dim.BABYLON_NOBLE_COLORS)),
             babylon.noble),
    KindSpec("box", "generic", "solid box of any size (density 0.7)",
             (Param("size", "[x, y, z] in mm", count=3),), generic.box,
             examples=({"size": (200.0, 50.0, 20.0)}, {"size": (20.0, 20.0, 20.0)})),
    KindSpec("cylinder", "generic", "solid upright cylinder (density 0.7)",
             (Param("radius", "mm"), Param("height", "mm")), generic.cylinder,
             examples=({"radius": 10.0, "height": 40.0},)),
    KindSpec("hull", "generic", "convex block: the convex hull of its vertices (density 0.7)",
             (Param("vertices", "[[x, y, z], ...] mm, at least four not in one plane", value="points"),),
             custom.hull, examples=({"vertices": ((0.0, 0.0, 0.0), (100.0, 0.0, 0.0), (0.0, 100.0, 0.0),
                                                  (0.0, 0.0, 100.0))},)),
    KindSpec("mesh", "generic", "block read from a closed mesh file: OBJ, STL, PLY or glTF (density 0.7)",
             (Param("file", "the mesh file, relative to the scene file", value="file"),
              Param("scale", "mm per unit of the file", value="number", bounds=(1e-6, 1e6), required=False,
                    default=1.0),
              Param("decomposition", "how a mesh not made of convex bodies becomes convex parts: none "
                    "(refused), exact (cut along its reflex edges), coacd (approximate)",
                    choices=custom.DECOMPOSITIONS, required=False, default="none"),
              Param("threshold", "CoACD's concavity threshold (with decomposition coacd)", value="number",
                    bounds=(0.01, 1.0), required=False, default=custom.COACD_THRESHOLD)),
             custom.mesh),
]}


def _freeze(value):
    return tuple(_freeze(v) for v in value) if isinstance(value, (list, tuple)) else value


@cache
def _shape_cached(kind: str, frozen_params: tuple) -> PieceShape:
    return KINDS[kind].build(**dict(frozen_params))


def shape(kind: str, **params) -> PieceShape:
    """The built piece of ``kind`` with ``params`` (cached: equal arguments give the same object).

    Raises:
        UnknownKindError: the kind does not exist.
    """
    if kind not in KINDS:
        raise UnknownKindError(f"unknown piece kind {kind!r}; known: {', '.join(KINDS)}")
    return _shape_cached(kind, tuple(sorted((k, _freeze(v)) for k, v in params.items())))


def all_variants() -> list[PieceShape]:
    """Every fixed variant of every kind (and the examples of free-sized kinds)."""
    return [shape(spec.kind, **params) for spec in KINDS.values() for params in spec.variants()]


@cache
def board(name: str) -> boards.Board:
    """The board called ``name``.

    Raises:
        UnknownKindError: no such board.
    """
    if name not in boards.BOARDS:
        raise UnknownKindError(f"unknown board {name!r}; known: {', '.join(boards.BOARDS)}")
    return boards.BOARDS[name]()
