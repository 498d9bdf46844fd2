"""The analytic cases the physics settings are tuned and tested against, as scenes (pure, no engine).

Each builder returns a validated :class:`~sim.scene.Scene` whose answer is
known in closed form or from a rulebook: harmonic overhang stacks, a block on
a tilted plank, Talo's balance rule, a Tohuwabohu level on one brick, and the
larger structures of the drift tests and benchmarks.
"""

from __future__ import annotations

import math

from sim.pieces import dimensions as dim
from sim.scene import Scene, from_dict

HARMONIC_BLOCK = (200.0, 50.0, 20.0)
"""Size (mm) of a harmonic stack's blocks."""

HARMONIC_TABLE = (300.0, 100.0, 40.0)
"""Size (mm) of the fixed table box the stacks stand on; its +x edge is at x = 0."""


def harmonic_offsets(n: int, scale: float = 1.0, length: float = HARMONIC_BLOCK[0]) -> list[float]:
    """Centre x (mm) of each block of a harmonic stack, bottom first.

    Block k from the top reaches ``scale · L / (2k)`` beyond the block under
    it, and the bottom block (k = n) beyond the table's edge at x = 0. At
    scale 1 the centre of mass of every top part of the stack lies exactly
    above the edge it rests on; at scale s it lies ``(s - 1) · L / 2`` beyond.

    Args:
        n: number of blocks.
        scale: factor on the critical offsets.
        length: block length L (mm).
    """
    x = -length / 2 + scale * length / (2 * n)
    xs = [x]
    for k in range(n - 1, 0, -1):
        x += scale * length / (2 * k)
        xs.append(x)
    return xs


def harmonic_stack(n: int, scale: float) -> Scene:
    """A harmonic overhang stack of ``n`` blocks 200 × 50 × 20 mm on a fixed table box.

    Stands for ``scale < 1`` (margin ``(1 - scale) · L / (2 · 20 mm · k)`` g for
    the top k blocks) and falls for ``scale > 1``.
    """
    tx, ty, tz = HARMONIC_TABLE
    bx, by, bz = HARMONIC_BLOCK
    pieces = [{"id": "table-box", "kind": "box", "size": [tx, ty, tz], "pos": [-tx / 2, 0, tz / 2], "fixed": True}]
    for i, x in enumerate(harmonic_offsets(n, scale)):
        pieces.append({"id": f"b{i + 1}", "kind": "box", "size": [bx, by, bz],
                       "pos": [x, 0, tz + bz * (i + 0.5)]})
    return from_dict({"format": "towerlab-scene/1", "game": "free", "title": f"harmonic stack n={n} x{scale}",
                      "pieces": pieces}, f"<harmonic stack n={n} x{scale:g}>")


def friction_angle(mu: float) -> float:
    """The slope (degrees) at which a block starts to slide: atan μ."""
    return math.degrees(math.atan(mu))


def tilted_plank(angle_deg: float, mu: float | None = None) -> Scene:
    """A 40 × 40 × 20 mm box resting on a fixed plank tilted by ``angle_deg`` about y.

    Both have the generic wood's friction (0.5) unless ``mu`` overrides it on
    both, so the contact's coefficient is μ; the box is squat, so it slides
    (at atan μ) long before it could tip (at 63°).
    """
    plank = (300.0, 100.0, 10.0)
    block = (40.0, 40.0, 20.0)
    a = math.radians(angle_deg)
    up = (plank[2] + block[2]) / 2
    centre = [up * math.sin(a), 0.0, 100.0 + up * math.cos(a)]
    extra = {} if mu is None else {"friction": mu}
    pieces = [
        {"id": "plank", "kind": "box", "size": list(plank), "pos": [0, 0, 100.0], "rot": [0, angle_deg, 0],
         "fixed": True, **extra},
        {"id": "block", "kind": "box", "size": list(block), "pos": centre, "rot": [0, angle_deg, 0], **extra},
    ]
    return from_dict({"format": "towerlab-scene/1", "game": "free", "title": f"plank at {angle_deg:g} deg",
                      "pieces": pieces}, f"<tilted plank {angle_deg:g} deg>")


def talo_balance(length: int, support: int = 2) -> Scene:
    """A Talo block of ``length`` lying on the grid across one standing block of ``support``.

    The lying block covers its fields symmetrically about the support when
    ``length`` is odd; when even it cannot, and its centre of mass lies exactly
    above the support's edge (the rulebook's "turns over").
    """
    i0 = 4
    pieces = [
        {"id": "post", "kind": "talo.block", "length": support, "cell": [i0, 4], "layer": 0, "axis": "z"},
        {"id": "beam", "kind": "talo.block", "length": length, "cell": [i0 - (length - 1) // 2, 4],
         "layer": support, "axis": "x"},
    ]
    return from_dict({"format": "towerlab-scene/1", "game": "talo", "title": f"balance {length} on {support}",
                      "pieces": pieces}, f"<talo balance {length}>")


def talo_counterweight() -> Scene:
    """The rulebook's exception: a 4 and a 1 put on a standing 1 together keep their balance.

    The 4 lies with its centre above the edge of the standing 1; the second
    1 on its short end brings the pair's centre of mass 6 mm inside.
    """
    pieces = [
        {"id": "post", "kind": "talo.block", "length": 1, "cell": [4, 4], "layer": 0, "axis": "z"},
        {"id": "four", "kind": "talo.block", "length": 4, "cell": [3, 4], "layer": 1, "axis": "x"},
        {"id": "weight", "kind": "talo.block", "length": 1, "cell": [3, 4], "layer": 2, "axis": "z"},
    ]
    return from_dict({"format": "towerlab-scene/1", "game": "talo", "title": "4 + 1 counterweight",
                      "pieces": pieces}, "<talo counterweight>")


def tohu_plate(under: str) -> Scene:
    """A quadrilateral Tohuwabohu level on one small brick, under its ``centre`` or its ``corner``."""
    side = dim.TOHU_QUAD_SIDE
    brick_h = dim.TOHU_BRICK["small"][2]
    offset = {"centre": 0.0, "corner": side / 2 - 20.0}[under]
    pieces = [
        {"id": "brick", "kind": "tohuwabohu.brick", "size": "small", "color": "red", "pos": [0, 0, brick_h / 2]},
        {"id": "plate", "kind": "tohuwabohu.level", "shape": "quad",
         "pos": [-offset, -offset, brick_h + dim.TOHU_LEVEL_THICKNESS / 2]},
    ]
    return from_dict({"format": "towerlab-scene/1", "game": "tohuwabohu", "title": f"plate, brick under its {under}",
                      "pieces": pieces}, f"<tohuwabohu plate {under}>")


def cube_tower(n: int = 10) -> Scene:
    """``n`` Talo 1-blocks stacked on one field."""
    pieces = [{"id": f"c{k}", "kind": "talo.block", "length": 1, "cell": [4, 4], "layer": k, "axis": "z"}
              for k in range(n)]
    return from_dict({"format": "towerlab-scene/1", "game": "talo", "title": f"{n}-cube tower", "pieces": pieces},
                     f"<cube tower {n}>")


_TALO_ROWS = [
    [10], [9, 1], [9, 1], [8, 2], [8, 2], [8, 2], [7, 3], [7, 3], [7, 3], [7, 3],
    [6, 4], [6, 4], [6, 4], [6, 4], [6, 4], [5, 5], [5, 5], [5, 5],
    [4, 4, 2], [3, 3, 3, 1], [3, 2, 2, 2, 1], [2, 2, 1, 1, 1, 1, 1, 1],
]


def talo_all_blocks() -> Scene:
    """All 55 Talo blocks as a three-layer mat: 10 rows along x, 10 rows along y, 2 rows along x.

    Every block lies fully on the layer below; each row of 10 fields is made
    of blocks whose lengths add up to 10.
    """
    pieces = []
    for r, row in enumerate(_TALO_ROWS):
        layer, line = divmod(r, 10)
        if layer == 2:
            line += 4
        along = 0
        for length in row:
            axis = "y" if layer == 1 else "x"
            cell = [line, along] if axis == "y" else [along, line]
            pieces.append({"id": f"r{r}-{along}", "kind": "talo.block", "length": length, "cell": cell,
                           "layer": layer, "axis": axis})
            along += length
    return from_dict({"format": "towerlab-scene/1", "game": "talo", "title": "all 55 blocks", "pieces": pieces},
                     "<talo 55 blocks>")


def babylon_city() -> Scene:
    """150 Babylon pieces: 40 columns of 3 towers, 10 bridges and 20 nobles on top.

    Five rows of eight columns (touching along x, 5 mm apart along y); in each
    row two bridges span columns 0-2 and 3-5, with a noble on each bridge's
    centre and on the towers of columns 6 and 7.
    """
    t = dim.BABYLON_TOWER["size"]
    level = dim.BABYLON_LEVEL
    small = dim.BABYLON_NOBLE["small"]["height"]
    colors = dim.BABYLON_NOBLE_COLORS
    pieces = []
    for row in range(5):
        y = (row - 2) * (t[1] + 5.0)
        xs = [(c - 3.5) * t[0] for c in range(8)]
        for c, x in enumerate(xs):
            for k in range(3):
                pieces.append({"id": f"t{row}{c}{k}", "kind": "babylon.tower", "pos": [x, y, level * (k + 0.5)]})
        for b, c in enumerate((1, 4)):
            pieces.append({"id": f"br{row}{b}", "kind": "babylon.bridge", "pos": [xs[c], y, level * 3.5]})
            pieces.append({"id": f"nb{row}{b}", "kind": "babylon.noble", "size": "small", "color": colors[row],
                           "pos": [xs[c], y, level * 4 + small / 2]})
        for c in (6, 7):
            pieces.append({"id": f"nt{row}{c}", "kind": "babylon.noble", "size": "small", "color": colors[row],
                           "pos": [xs[c], y, level * 3 + small / 2]})
    return from_dict({"format": "towerlab-scene/1", "game": "babylon", "title": "city of 150 pieces",
                      "pieces": pieces}, "<babylon city>")
