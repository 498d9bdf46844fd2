"""Example constructions for the 36 order cards, from the box's pieces, by the building rules.

Each card's example is made by one of a few parametrised recipes, so that a
near miss (the same construction one step short of the card) is the same recipe
with another argument. ``tools/build_tohuwabohu_cards.py`` writes them to
``sim/data/cards/tohuwabohu/<id>.json`` (package data).

Layouts (mm, relative to a level's centre), chosen to keep pillars clear of
the figure points (a quadrilateral's points lie 36–42 mm out at 90°, 210° and
330°; a triangle's 48.5 mm out towards its corners):
- *rails*: two bricks lying side by side, 20 mm tall — for levels with no
  figures beneath;
- *posts*: three small bricks on end, 40 mm tall — room for figures (22 mm)
  on the level below (and open gaps that show the levels apart).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sim.games.tohuwabohu.construct import Construction, ConstructionError, PillarSpec, arch_pillar, pillar

QUAD_POSTS = ((-35.0, 25.0), (35.0, 25.0), (0.0, -35.0))
TRI_POSTS = ((0.0, -25.0), (-22.0, 12.0), (22.0, 12.0))


def rails(shape: str, size: str = "large", colors: Sequence[str] = ("neutral", "neutral")) -> list[PillarSpec]:
    """Two lying bricks under a level: along y at x = ±35 (quad), along x at y = −22/+18 (triangle)."""
    if shape == "quad":
        return [pillar(size, colors[0], "y", -35, 0), pillar(size, colors[1], "y", 35, 0)]
    return [pillar(size, colors[0], "x", 0, -22), pillar("small", colors[1], "x", 0, 18)]


def posts(shapes: Sequence[str], colors: Sequence[str] = ("neutral", "neutral", "neutral")) -> list[PillarSpec]:
    """Three small bricks on end between levels of ``shapes`` (below, above), clear of the figure points below.

    Spread wide between two quadrilaterals, close to the centre when either is a triangle.
    """
    spots = QUAD_POSTS if all(s == "quad" for s in shapes) else TRI_POSTS
    return [pillar("small", c, "up", x, y) for c, (x, y) in zip(colors, spots)]


@dataclass(frozen=True)
class Storey:
    """One level of a stacked structure.

    Attributes:
        shape: ``quad`` or ``tri``.
        pillars: what it stands on (offsets from its centre).
        figures: colours of the figures placed on it.
    """

    shape: str
    pillars: list[PillarSpec]
    figures: tuple[str, ...] = field(default=())


def stack(title: str, storeys: Sequence[Storey], at=(0.0, 0.0)) -> Construction:
    """One structure of levels stacked centre on centre, each with its pillars and figures."""
    c = Construction(title)
    stacked(c, storeys, at)
    return c


def stacked(c: Construction, storeys: Sequence[Storey], at=(0.0, 0.0)) -> list[str]:
    """Add a stacked structure to ``c``; returns its level ids, bottom first."""
    below, ids = None, []
    for s in storeys:
        below = c.storey(s.shape, s.pillars, on=below, at=at)
        for color in s.figures:
            c.figure(color, below)
        ids.append(below)
    return ids


RGB = ("red", "green", "blue")


def base(exclude: str = "", colors: Sequence[str] | None = None) -> list[Storey]:
    """Levels 1 and 2 (quads) on large then small rails, for the blue cards built on level 2.

    Args:
        exclude: a colour the rails must not use (the card needs its bricks).
        colors: the large rails' colours (default: a colour other than ``exclude``).
    """
    if colors is None:
        other = next(c for c in RGB if c != exclude)
        colors = (other, other)
    return [Storey("quad", rails("quad", "large", colors)), Storey("quad", rails("quad", "small"))]


def cross(bar: str, on_level: int = 2, offset: float = 0.0) -> Construction:
    """A cross on level ``on_level``: a large brick on end, a lying large ``bar`` across, a small one on top.

    ``offset`` moves the bar along its length (mm), off the middle of the stem.
    """
    c = Construction(f"Cross with a {bar} crossbar")
    top = stacked(c, base(bar)[:on_level])[-1]
    s = c.brick("large", "neutral", "up", (0, 0), on=top, id="stem")
    b = c.brick("large", bar, "x", (offset, 0), on=s, id="crossbar")
    c.brick("small", "neutral", "up", (0, 0), on=b, id="head")
    return c


def arch_on(a: str, b: str, on_level: int = 2) -> Construction:
    """An arch on a small ``a`` and a small ``b`` brick on end, standing on level ``on_level``."""
    c = Construction(f"Arch on a {a} and a {b} pillar")
    rest = next(x for x in RGB if x not in (a, b))
    levels = stacked(c, base(colors=(rest, rest))[:on_level])
    left = c.brick("small", a, "up", (-30, 0), on=levels[-1], id="pillar-left")
    right = c.brick("small", b, "up", (30, 0), on=levels[-1], id="pillar-right")
    c.arch((0, 0), on=[left, right], id="arch")
    return c


def join(left: str, right: str) -> Construction:
    """Two one-level structures side by side, their levels joined by an arch."""
    c = Construction(f"{left} and {right} joined by an arch")
    colors = {"left": ("red", "green"), "right": ("blue", "red" if left == right == "quad" else "green")}
    tops = []
    for side, shape_name, sign in (("left", left, -1), ("right", right, 1)):
        if shape_name == "quad":
            centre, turn = (sign * 70.0, 0.0), 0.0
            pills = [pillar("large", colors[side][0], "y", sign * 70 - 35, 0),
                     pillar("large", colors[side][1], "y", sign * 70 + 35, 0)]
        else:
            # a corner points away from the gap, so the flat side faces the other structure
            centre, turn = (sign * 50.4, 0.0), (90.0 if sign < 0 else -90.0)
            pills = [pillar("large", colors[side][0], "y", sign * 30.4, 0),
                     pillar("small", colors[side][1], "y", sign * 80.4, 0)]
        ids = [c.brick(p.size, p.color, p.pose, (p.dx, p.dy)) for p in pills]
        tops.append(c.level(shape_name, centre, ids, turn=turn, id=f"level-{side}"))
    c.arch((0, 0), on=tops, id="arch")
    return c


def tower(color: str, bricks: Sequence[str] = ("large", "large"), on_level: int = 2) -> Construction:
    """A tower of ``color`` bricks on end (sizes bottom up) standing on level ``on_level``."""
    c = Construction(f"Tower of {color} bricks")
    below = stacked(c, base(color)[:on_level])[-1]
    for i, size in enumerate(bricks):
        below = c.brick(size, color, "up", (0, 0), on=below, id=f"tower-{i + 1}")
    return c


class _Stock:
    """The bricks of one box not yet used, handed out as pillars for stacked levels."""

    def __init__(self):
        self.large = ["red", "red", "green", "green", "blue", "blue"]
        self.small = ["neutral"] * 4 + ["red", "red", "green", "green", "blue", "blue"]

    def take(self, which: list[str]) -> str:
        if not which:
            raise ConstructionError("the box has no more bricks for this construction")
        return which.pop(0)

    def pillars(self, layout: str, shape: str, below: str | None) -> list[PillarSpec]:
        """Pillars of ``layout`` (``rails``, ``posts`` or ``arch``) for a level of ``shape`` over ``below``."""
        if layout == "arch":
            return [arch_pillar("x")]
        if layout == "posts":
            return posts((below or shape, shape), [self.take(self.small) for _ in range(3)])
        kind = "tri" if "tri" in (shape, below) else "quad"
        if len(self.large) >= (2 if kind == "quad" else 1):
            second = self.large if kind == "quad" else self.small  # a triangle's second rail is small
            return rails(kind, "large", [self.take(self.large), self.take(second)])
        return rails(kind, "small", [self.take(self.small), self.take(self.small)])


def _levels(*shapes: str, figures: dict[int, tuple[str, ...]] | None = None,
            pillars: dict[int, str] | None = None) -> list[Storey]:
    """Stacked storeys of these shapes, figures per level number, pillar layouts where given.

    Otherwise a level stands on posts when the level below holds figures, else
    on rails: large bricks while the box has them, then small ones.
    """
    figures, pillars = figures or {}, pillars or {}
    stock = _Stock()
    out = []
    for n, s in enumerate(shapes, start=1):
        below = shapes[n - 2] if n > 1 else None
        layout = pillars.get(n) or ("posts" if figures.get(n - 1) else "rails")
        out.append(Storey(s, stock.pillars(layout, s, below), figures.get(n, ())))
    return out


def levels(title: str, *shapes: str, figures=None, pillars=None) -> Construction:
    """One structure with levels of these shapes (bottom first), figures and pillar layouts per level number."""
    return stack(title, _levels(*shapes, figures=figures, pillars=pillars))


def two_structures(levels_left: int = 2, levels_right: int = 2) -> Construction:
    """Two structures of quadrilateral levels, 20 mm apart."""
    c = Construction("Two structures")
    for n, x, colors in ((levels_left, -70.0, ("red", "green")), (levels_right, 70.0, ("blue", "neutral"))):
        storeys = [Storey("quad", rails("quad", "large", (colors[0], colors[0])))]
        storeys += [Storey("quad", rails("quad", "small", (colors[1], colors[1])))] * (n - 1)
        stacked(c, storeys, at=(x, 0.0))
    return c


def one_pillar(pillars_per_level: Sequence[int] = (1, 1, 1)) -> Construction:
    """Levels 1–3 (quads), each on one pillar — an arch, a crossing arch, a small brick on end — or on rails."""
    singles = ([arch_pillar("x")], [arch_pillar("y")], [pillar("small", "red", "up")])
    colors = ("red", "green", "blue")
    storeys = [Storey("quad", singles[n] if count == 1 else rails("quad", "large", (colors[n], colors[n])))
               for n, count in enumerate(pillars_per_level)]
    return stack("Levels 1, 2 and 3 on one pillar each", storeys)


def four_of(color: str, count: int = 4) -> Construction:
    """Four quadrilateral levels, the lowest ``count`` of them with one figure of ``color``, the top on an arch."""
    figs = {n: (color,) for n in range(1, count + 1)}
    return levels(f"Exactly 4 {color} figures", "quad", "quad", "quad", "quad", figures=figs, pillars={4: "arch"})


def _cards() -> dict[str, Callable[[], Construction]]:
    q, t = "quad", "tri"
    ex: dict[str, Callable[[], Construction]] = {}
    for col in RGB:
        ex[f"cross-{col}"] = lambda col=col: cross(col)
        ex[f"tower-{col}"] = lambda col=col: tower(col)
    for a, b in (("red", "green"), ("red", "blue"), ("green", "blue")):
        ex[f"arch-{a}-{b}"] = lambda a=a, b=b: arch_on(a, b)
    for a, b in ((q, q), (t, q), (t, t)):
        ex[f"join-{a}-{b}"] = lambda a=a, b=b: join(a, b)
    ex["tri-level-4"] = lambda: levels("Triangle as level 4", q, q, q, t)
    ex["tri-level-5"] = lambda: levels("Triangle as level 5", q, q, q, q, t)
    ex["quad-level-4"] = lambda: levels("Quadrilateral as level 4", t, q, t, q)
    ex["quad-level-5"] = lambda: levels("Quadrilateral as level 5", q, q, t, q, q)
    ex["level4-three-pillars"] = lambda: levels("Level 4 on exactly 3 pillars", q, q, q, q,
                                                pillars={4: "posts"})
    ex["five-levels"] = lambda: levels("Exactly 5 levels", q, q, q, q, q)
    ex["two-structures"] = two_structures
    ex["levels-1-3-one-pillar"] = one_pillar
    for seq in ((t, t, q), (q, q, t), (t, q, q), (q, t, q)):
        ex["seq-" + "-".join(seq)] = lambda seq=seq: levels("", *seq, pillars=dict.fromkeys((1, 2, 3), "posts"))
    ex["figures-4-level3up"] = lambda: levels("4 figures on level 3 and up", q, q, q, q,
                                              figures={3: RGB, 4: ("red",)})
    ex["figure-level5"] = lambda: levels("A figure on level 5", q, q, q, q, q, figures={5: ("green",)})
    ex["figures-exactly-8"] = lambda: levels("Exactly 8 figures", q, q, q,
                                             figures={1: RGB, 2: RGB, 3: ("red", "blue")})
    ex["figures-exactly-10"] = lambda: levels("Exactly 10 figures", q, q, q, q,
                                              figures={1: RGB, 2: RGB, 3: RGB, 4: ("blue",)})
    for col in RGB:
        ex[f"four-{col}"] = lambda col=col: four_of(col)
    ex["three-levels-1-2"] = lambda: levels("3 figures each on levels 1 and 2", q, q, figures={1: RGB, 2: RGB})
    ex["three-level-4"] = lambda: levels("3 figures on level 4", q, q, q, q, figures={4: RGB})
    ex["quad-levels-three-figures"] = lambda: levels("Two quadrilaterals with 3 figures each", q, q, q,
                                                     figures={2: RGB, 3: RGB})
    ex["tri-levels-three-figures"] = lambda: levels("Two triangles with 3 figures each", t, t,
                                                    figures={1: RGB, 2: RGB})
    ex["two-levels-2-3"] = lambda: levels("2 figures each on levels 2 and 3", q, q, q,
                                          figures={2: ("red", "green"), 3: ("green", "blue")})
    return ex


EXAMPLES: dict[str, Callable[[], Construction]] = _cards()
