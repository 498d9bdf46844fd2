"""Reference structures whose statics are known in closed form: harmonic overhang stacks, a block on a slope.

Tests and benchmarks (statics and physics alike) build them here, so that
every check of the two methods looks at the same geometry.
"""

from __future__ import annotations

import math

from sim.scene import Scene, from_dict

FORMAT = "towerlab-scene/1"
HARMONIC_BLOCK = (200.0, 50.0, 20.0)  # mm: length, depth, height of a harmonic stack's boxes
TABLE_BOX = (400.0, 100.0, 20.0)  # mm: the fixed table box the stack overhangs


def harmonic_offsets(n: int, scale: float = 1.0, length: float = HARMONIC_BLOCK[0]) -> list[float]:
    """Right-edge positions (mm) of a harmonic stack's boxes, bottom first, the table edge at 0.

    Counted from the top, box k overhangs the box below it by ``scale · L / (2k)``,
    the bottom box (k = n) overhangs the table's edge. At scale 1 the centre of
    mass of the k top boxes lies exactly above the edge of the box under them:
    every sub-stack balances on a knife edge.
    """
    edges, x = [], 0.0
    for k in range(n, 0, -1):
        x += scale * length / (2 * k)
        edges.append(x)
    return edges


def harmonic_stack(n: int, scale: float = 1.0) -> Scene:
    """n boxes of 200 × 50 × 20 mm in a harmonic overhang stack on a fixed table box (free scene).

    The table box is ``table`` (its top at z = 20 mm, its right edge at x = 0);
    the boxes are ``b1`` (top) … ``bn`` (bottom). Stable for scale < 1, on a
    knife edge at 1, falling beyond; the margin is ``(1 - scale) · L / (n · h)``.
    """
    length, depth, height = HARMONIC_BLOCK
    tx, ty, tz = TABLE_BOX
    pieces = [{"id": "table-box", "kind": "box", "size": [tx, ty, tz], "pos": [-tx / 2, 0.0, tz / 2], "fixed": True}]
    for i, right in enumerate(harmonic_offsets(n, scale)):
        k = n - i
        z = tz + height * i + height / 2
        pieces.append({"id": f"b{k}", "kind": "box", "size": [length, depth, height],
                       "pos": [right - length / 2, 0.0, z]})
    return from_dict({"format": FORMAT, "game": "free", "title": f"harmonic stack n={n} scale={scale:g}",
                      "pieces": pieces})


def harmonic_margin(n: int, scale: float) -> float:
    """Closed-form margin (g) of :func:`harmonic_stack` for scale ≤ 1 while friction holds.

    Every sub-stack's centre of mass lies ``(1 - scale) · L / 2`` inside the
    edge under it, at height ``k · h / 2`` above it; the whole stack (k = n)
    tips first.
    """
    length, _, height = HARMONIC_BLOCK
    return (1.0 - scale) * length / (n * height)


def block_on_slope(angle_deg: float, block=(40.0, 40.0, 20.0), plank=(300.0, 100.0, 20.0)) -> Scene:
    """A box ``block`` resting on a fixed plank tilted by ``angle_deg`` about y (free scene).

    The plank (``plank``) is centred at the origin; the block (``block``) sits
    on its top face, square to it, at its middle. Both are generic boxes
    (friction 0.5 against each other): the block holds while
    ``tan(angle) ≤ 0.5`` and slides beyond.
    """
    a = math.radians(angle_deg)
    normal = (math.sin(a), 0.0, math.cos(a))  # the plank's top normal after rotating by a about y
    lift = plank[2] / 2 + block[2] / 2
    centre = [normal[0] * lift, 0.0, normal[2] * lift + 200.0]
    return from_dict({"format": FORMAT, "game": "free", "title": f"block on a {angle_deg:g}° slope", "pieces": [
        {"id": "plank", "kind": "box", "size": list(plank), "pos": [0.0, 0.0, 200.0], "rot": [0, angle_deg, 0],
         "fixed": True},
        {"id": "block", "kind": "box", "size": list(block), "pos": centre, "rot": [0, angle_deg, 0]},
    ]})
