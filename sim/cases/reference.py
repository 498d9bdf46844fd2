"""Reference structures whose answer is known in closed form or from a rulebook, as scenes (pure, no engine).

One definition for every method and every test: the statics and the
simulation are tested, tuned and benchmarked on the very same geometry.
Harmonic overhang stacks (any block proportions), a block on a slope, Talo's
balance rule and counterweight, a Tohuwabohu level on one brick, a cube
tower and all 55 Talo blocks as a mat. (The 140-piece Babylon bench is a
game's position: :func:`sim.games.babylon.examples.bench_city`.)
Importing this module loads no engine.
"""

from __future__ import annotations

import math

from sim.pieces import dimensions as dim
from sim.pieces.talo import BLOCK
from sim.scene import Scene, from_dict

FORMAT = "towerlab-scene/1"

HARMONIC_BLOCK = (200.0, 50.0, 20.0)
"""Size (mm) of a harmonic stack's boxes by default: length, depth, height."""

TABLE_BOX = (400.0, 100.0, 20.0)
"""Size (mm) of the fixed table box a harmonic stack overhangs: its top at z = 20 mm, its +x edge at x = 0."""


def harmonic_offsets(n: int, scale: float = 1.0, length: float = HARMONIC_BLOCK[0]) -> list[float]:
    """Right-edge positions (mm) of a harmonic stack's boxes, bottom first, the table's edge at x = 0.

    Counted from the top, box k overhangs the box below it by ``scale · L / (2k)``,
    the bottom box (k = n) the table's edge. At scale 1 the centre of mass of
    the k top boxes lies exactly above the edge of the box under them: every
    sub-stack balances on a knife edge; at scale s it lies ``(s - 1) · L / 2`` beyond.

    Args:
        n: number of boxes.
        scale: factor on the critical overhangs.
        length: box length L (mm).
    """
    edges, x = [], 0.0
    for k in range(n, 0, -1):
        x += scale * length / (2 * k)
        edges.append(x)
    return edges


def harmonic_stack(n: int, scale: float = 1.0, block=HARMONIC_BLOCK, table=TABLE_BOX) -> Scene:
    """n boxes in a harmonic overhang stack on a fixed table box (free scene).

    The table box is ``table-box`` (its top at z = ``table[2]``, its +x edge at
    x = 0); the boxes are ``b1`` (top) … ``bn`` (bottom). Stable for scale < 1,
    on a knife edge at 1, falling beyond; the margin is :func:`harmonic_margin`.

    Args:
        n: number of boxes.
        scale: factor on the critical overhangs.
        block: (length, depth, height) of the boxes (mm).
        table: (length, depth, height) of the table box (mm).
    """
    length, depth, height = block
    tx, ty, tz = table
    pieces = [{"id": "table-box", "kind": "box", "size": [tx, ty, tz], "pos": [-tx / 2, 0.0, tz / 2], "fixed": True}]
    for i, right in enumerate(harmonic_offsets(n, scale, length)):
        pieces.append({"id": f"b{n - i}", "kind": "box", "size": [length, depth, height],
                       "pos": [right - length / 2, 0.0, tz + height * i + height / 2]})
    return from_dict({"format": FORMAT, "game": "free", "title": f"harmonic stack n={n} scale={scale:g}",
                      "pieces": pieces}, f"<harmonic stack n={n} x{scale:g}>")


def harmonic_margin(n: int, scale: float, block=HARMONIC_BLOCK) -> float:
    """Closed-form margin (g) of :func:`harmonic_stack` for scale ≤ 1 while friction holds.

    Every sub-stack of the k top boxes has its centre of mass ``(1 - scale) · L / 2``
    inside the edge under it, at height ``k · h / 2`` above it; the whole stack
    (k = n) tips first: ``(1 - scale) · L / (n · h)``.
    """
    length, _, height = block
    return (1.0 - scale) * length / (n * height)


def friction_angle(mu: float) -> float:
    """The slope (degrees) at which a block starts to slide: atan μ."""
    return math.degrees(math.atan(mu))


def block_on_slope(angle_deg: float, mu: float | None = None, block=(40.0, 40.0, 20.0),
                   plank=(300.0, 100.0, 20.0)) -> Scene:
    """A box ``block`` resting on a fixed plank tilted by ``angle_deg`` about y (free scene).

    The plank (``plank``, id ``plank``) is centred 200 mm above the origin; the
    block (id ``block``) sits on its top face, square to it, at its middle. Both
    have the generic wood's friction (0.5) unless ``mu`` sets it on both, so the
    contact's coefficient is μ: the block holds while ``tan(angle) ≤ μ`` and
    slides beyond (the default block is squat: it would tip only at 63°).
    """
    a = math.radians(angle_deg)
    normal = (math.sin(a), 0.0, math.cos(a))  # the plank's top normal after rotating by a about y
    lift = plank[2] / 2 + block[2] / 2
    centre = [normal[0] * lift, 0.0, normal[2] * lift + 200.0]
    extra = {} if mu is None else {"friction": mu}
    return from_dict({"format": FORMAT, "game": "free", "title": f"block on a {angle_deg:g}° slope", "pieces": [
        {"id": "plank", "kind": "box", "size": list(plank), "pos": [0.0, 0.0, 200.0], "rot": [0, angle_deg, 0],
         "fixed": True, **extra},
        {"id": "block", "kind": "box", "size": list(block), "pos": centre, "rot": [0, angle_deg, 0], **extra},
    ]}, f"<block on a {angle_deg:g} deg slope>")


def masonry_wall(courses: int, bricks: int, brick=(200.0, 60.0, 50.0), mu: float = 0.6) -> Scene:
    """A wall of ``courses`` courses of ``bricks`` boxes in running bond on the table (free scene).

    Every other course starts and ends with a half brick, so the head joints of one course lie over
    the middles of the bricks below; the wall is ``bricks · L`` long (along x), ``b`` thick (along y),
    ``courses · h`` tall. Pieces ``c{course}-{k}``, course 0 at the bottom; every piece has friction ``mu``.
    """
    length, thick, height = brick
    pieces = []
    for c in range(courses):
        shift = 0.5 * length * (c % 2)  # odd courses: half a brick first
        edges = [0.0, *(shift + length * k for k in range(1 - c % 2, bricks)), bricks * length]
        for k, (x0, x1) in enumerate(zip(edges[:-1], edges[1:])):
            pieces.append({"id": f"c{c}-{k}", "kind": "box", "size": [x1 - x0, thick, height],
                           "pos": [(x0 + x1) / 2, 0.0, height * (c + 0.5)], "friction": mu})
    return from_dict({"format": FORMAT, "game": "free", "board": "table", "title": f"wall {courses}x{bricks}",
                      "pieces": pieces}, f"<wall {courses}x{bricks}>")


def wall_margin(courses: int, brick=(200.0, 60.0, 50.0)) -> float:
    """Closed-form margin (g) of :func:`masonry_wall` while friction holds: the whole wall turns over
    an edge of its base, its centre of mass ``b / 2`` inside it and ``H / 2`` above: ``b / H``; any part
    of it that could turn over alone has its centre of mass as far inside and no higher above its base."""
    return brick[1] / (courses * brick[2])


def talo_balance(length: int, support: int = 2) -> Scene:
    """A Talo block of ``length`` lying on the grid across one standing block of ``support``.

    The lying block covers its fields symmetrically about the support when
    ``length`` is odd; when even it cannot, and its centre of mass lies exactly
    above the support's edge (the rulebook's "turns over").
    """
    i0 = 4
    pieces = [
        {"id": "post", "kind": BLOCK, "length": support, "cell": [i0, 4], "layer": 0, "axis": "z"},
        {"id": "beam", "kind": BLOCK, "length": length, "cell": [i0 - (length - 1) // 2, 4],
         "layer": support, "axis": "x"},
    ]
    return from_dict({"format": FORMAT, "game": "talo", "title": f"balance {length} on {support}",
                      "pieces": pieces}, f"<talo balance {length}>")


def talo_counterweight() -> Scene:
    """The rulebook's exception: a 4 and a 1 put on a standing 1 together keep their balance.

    The 4 lies with its centre above the edge of the standing 1; the second
    1 on its short end brings the pair's centre of mass 6 mm inside.
    """
    pieces = [
        {"id": "post", "kind": BLOCK, "length": 1, "cell": [4, 4], "layer": 0, "axis": "z"},
        {"id": "four", "kind": BLOCK, "length": 4, "cell": [3, 4], "layer": 1, "axis": "x"},
        {"id": "weight", "kind": BLOCK, "length": 1, "cell": [3, 4], "layer": 2, "axis": "z"},
    ]
    return from_dict({"format": FORMAT, "game": "talo", "title": "4 + 1 counterweight",
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
    return from_dict({"format": FORMAT, "game": "tohuwabohu", "title": f"plate, brick under its {under}",
                      "pieces": pieces}, f"<tohuwabohu plate {under}>")


def cube_tower(n: int = 10) -> Scene:
    """``n`` Talo 1-blocks stacked on one field."""
    pieces = [{"id": f"c{k}", "kind": BLOCK, "length": 1, "cell": [4, 4], "layer": k, "axis": "z"}
              for k in range(n)]
    return from_dict({"format": FORMAT, "game": "talo", "title": f"{n}-cube tower", "pieces": pieces},
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
            pieces.append({"id": f"r{r}-{along}", "kind": BLOCK, "length": length, "cell": cell,
                           "layer": layer, "axis": axis})
            along += length
    return from_dict({"format": FORMAT, "game": "talo", "title": "all 55 blocks", "pieces": pieces},
                     "<talo 55 blocks>")
