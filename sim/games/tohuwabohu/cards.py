"""The 36 Tohuwabohu order cards as predicates on a judged playing area.

Blue cards ask for building blocks, red cards for levels, green cards for
figures. A predicate sees only the structures that obey the building rules (a
:class:`Position`); whether the construction stands is decided before any
predicate is asked (see :mod:`sim.games.tohuwabohu.referee`). Where the rulebook
leaves room, each card's ``choice`` says how it is read here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from sim.games.tohuwabohu.structure import ARCH, BRICK, LEVEL, Analysis, Join, Level, PieceInfo, Structure
from sim.pieces import MM
from sim.pieces import dimensions as dim
from sim.tol import tol

CARD_COLORS = ("blue", "red", "green")
TOWER_HEIGHT = 4 * dim.TOHU_BRICK["small"][0]  # "four small bricks" on end: 160 mm
CROSS_ARM = 10.0  # mm a crossbar must reach past its stem on each side to form a cross
CROSS_ALIGN = 10.0  # mm the head of a cross may stand off its stem's axis
MIN_LEVEL_BLUE = 2  # blue cards' crosses, pillars and towers stand on level 2 or higher


@dataclass(frozen=True)
class Position:
    """The playing area as the cards see it: the analysis and which structures are legal.

    Attributes:
        analysis: every structure and join of the scene.
        legal: indices of the structures that break no building rule.
    """

    analysis: Analysis
    legal: frozenset[int]

    @property
    def structures(self) -> list[Structure]:
        """The legal structures."""
        return [s for s in self.analysis.structures if s.index in self.legal]

    @property
    def joins(self) -> list[Join]:
        """Joins whose joining piece and joined levels all belong to legal structures."""
        a = self.analysis
        return [j for j in a.joins
                if a.structure_of(j.piece) in self.legal and all(s in self.legal for s in j.structures)]

    def levels(self) -> Iterator[tuple[Structure, Level]]:
        """Every level of every legal structure, with its structure."""
        for s in self.structures:
            for lv in s.levels:
                yield s, lv

    def info(self, piece_id: str) -> PieceInfo:
        """What the analysis knows of a piece."""
        return self.analysis.pieces[piece_id]

    def in_legal(self, piece_id: str) -> bool:
        """Whether the piece belongs to a legal structure."""
        return self.analysis.structure_of(piece_id) in self.legal


@dataclass(frozen=True)
class Card:
    """An order card.

    Attributes:
        id: stable identifier (``cross-red``).
        color: ``blue`` (building blocks), ``red`` (levels) or ``green`` (figures).
        title: short title, as printed on the card illustration.
        choice: how an ambiguous rulebook text is read here ('' when it is not ambiguous).
        holds: the predicate: whether a position fulfils the card.
    """

    id: str
    color: str
    title: str
    choice: str
    holds: Callable[[Position], bool]


# --- blue: building blocks -----------------------------------------------------


def _on_level(p: Position, info: PieceInfo, minimum: int) -> bool:
    """Rests on level plates only, each numbered ``minimum`` or higher."""
    levels = [s for s in info.rests_on if s in p.analysis.pieces and p.info(s).part == LEVEL]
    return (bool(levels) and len(levels) == len(info.rests_on)
            and all(p.analysis.level(lid).number >= minimum for lid in levels))


def _cross(color: str) -> Callable[[Position], bool]:
    def holds(p: Position) -> bool:
        for bar in p.analysis.pieces.values():
            if not (bar.part == BRICK and bar.size == "large" and bar.color == color
                    and not bar.on_end and p.in_legal(bar.id) and len(bar.rests_on) == 1):
                continue
            stem = p.info(bar.rests_on[0]) if bar.rests_on[0] in p.analysis.pieces else None
            if stem is None or not (stem.part == BRICK and stem.size == "large" and stem.on_end
                                    and _on_level(p, stem, MIN_LEVEL_BLUE)):
                continue
            offset = abs(sum((s - b) * u for s, b, u in zip(stem.center[:2], bar.center[:2], bar.axis[:2])))
            half_bar, half_stem = dim.TOHU_BRICK["large"][0] / 2, dim.TOHU_BRICK["large"][1] / 2
            if half_bar - offset - half_stem < CROSS_ARM:
                continue
            for hid in bar.carries:
                head = p.info(hid)
                if (head.part == BRICK and head.size == "small" and head.on_end and head.rests_on == (bar.id,)
                        and _dist2(head.center, stem.center) <= CROSS_ALIGN):
                    return True
        return False
    return holds


def _arch_on(colors: tuple[str, str]) -> Callable[[Position], bool]:
    def holds(p: Position) -> bool:
        for arch in p.analysis.pieces.values():
            if arch.part != ARCH or not p.in_legal(arch.id) or len(arch.rests_on) != 2:
                continue
            under = [p.info(s) for s in arch.rests_on if s in p.analysis.pieces]
            if (len(under) == 2 and all(u.part == BRICK for u in under)
                    and sorted(u.color for u in under) == sorted(colors)
                    and all(_on_level(p, u, MIN_LEVEL_BLUE) for u in under)):
                return True
        return False
    return holds


def _join(shapes: tuple[str, str]) -> Callable[[Position], bool]:
    def holds(p: Position) -> bool:
        for j in p.joins:
            arch = p.info(j.piece)
            if (arch.part == ARCH and len(j.levels) == 2 and len(set(j.structures)) == 2
                    and len(arch.rests_on) == 2
                    and sorted(p.analysis.level(lid).shape for lid in j.levels) == sorted(shapes)):
                return True
        return False
    return holds


def _tower(color: str) -> Callable[[Position], bool]:
    def is_block(info: PieceInfo) -> bool:
        return info.part == BRICK and info.color == color and info.on_end

    def tallest(p: Position, bid: str) -> float:
        """Height (mm) of the tallest stack of such bricks starting at ``bid`` and going up."""
        info = p.info(bid)
        above = [tallest(p, c) for c in info.carries if is_block(p.info(c)) and p.info(c).rests_on == (bid,)]
        return info.height + max(above, default=0.0)

    def holds(p: Position) -> bool:
        need = TOWER_HEIGHT - tol.tohu_height / MM
        return any(is_block(b) and p.in_legal(b.id) and _on_level(p, b, MIN_LEVEL_BLUE) and tallest(p, b.id) >= need
                   for b in p.analysis.pieces.values())
    return holds


def _dist2(a, b) -> float:
    return ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5


# --- red: levels ------------------------------------------------------------------


def _level_shape(number: int, shape: str) -> Callable[[Position], bool]:
    return lambda p: any(lv.number == number and lv.shape == shape for _, lv in p.levels())


def _level_pillars(number: int, count: int) -> Callable[[Position], bool]:
    return lambda p: any(lv.number == number and len(lv.pillars) == count for _, lv in p.levels())


def _exactly_levels(count: int) -> Callable[[Position], bool]:
    return lambda p: any(len(s.levels) == count for s in p.structures)


def _two_structures(p: Position) -> bool:
    everything = p.analysis.structures
    return (len(everything) == 2 and len(p.structures) == 2
            and all(len(s.levels) >= 2 for s in p.structures))


def _chains(s: Structure, length: int) -> Iterator[list[Level]]:
    """Runs of ``length`` levels of one structure, each resting (through its pillars) on the one before."""
    by_id = {lv.id: lv for lv in s.levels}

    def extend(chain: list[Level]) -> Iterator[list[Level]]:
        if len(chain) == length:
            yield chain
            return
        for lv in s.levels:
            if chain[-1].id in lv.below and lv.number == chain[-1].number + 1:
                yield from extend([*chain, lv])

    for lv in by_id.values():
        yield from extend([lv])


def _sequence(shapes: tuple[str, ...]) -> Callable[[Position], bool]:
    return lambda p: any([lv.shape for lv in chain] == list(shapes)
                         for s in p.structures for chain in _chains(s, len(shapes)))


def _lowest_one_pillar(p: Position) -> bool:
    return any(chain[0].number == 1 and all(len(lv.pillars) == 1 for lv in chain)
               for s in p.structures for chain in _chains(s, 3))


# --- green: figures ---------------------------------------------------------------


def _figures_from(number: int, at_least: int) -> Callable[[Position], bool]:
    return lambda p: sum(len(lv.figures) for _, lv in p.levels() if lv.number >= number) >= at_least


def _figure_on(number: int) -> Callable[[Position], bool]:
    return lambda p: any(lv.number == number and lv.figures for _, lv in p.levels())


def _exactly_figures(count: int, color: str | None = None) -> Callable[[Position], bool]:
    return lambda p: any(sum(len(lv.placed(color)) for lv in s.levels) == count for s in p.structures)


def _full_chain(numbers: tuple[int, ...], at_least: int) -> Callable[[Position], bool]:
    def holds(p: Position) -> bool:
        return any(chain[0].number == numbers[0] and all(len(lv.figures) >= at_least for lv in chain)
                   for s in p.structures for chain in _chains(s, len(numbers)))
    return holds


def _full_levels_of_shape(shape: str, count: int) -> Callable[[Position], bool]:
    return lambda p: sum(1 for _, lv in p.levels() if lv.shape == shape and len(lv.figures) == 3) >= count


_SHAPE_NAMES = {"quad": "quadrilateral", "tri": "triangle"}


def _build() -> dict[str, Card]:
    cards: list[Card] = []
    on_level2 = ("Stands on level 2 or higher: every brick at its foot rests on level plates only, "
                 "each numbered 2 or more.")
    for c in ("red", "green", "blue"):
        cards.append(Card(f"cross-{c}", "blue", f"Cross with a {c} crossbar",
                          "The crossbar is a lying large brick of the colour; it rests on one large brick on end "
                          "(the stem) and carries one small brick on end (the head) above the stem; the bar reaches "
                          f"at least {CROSS_ARM:.0f} mm past the stem on both sides. " + on_level2, _cross(c)))
    for a, b in (("red", "green"), ("red", "blue"), ("green", "blue")):
        cards.append(Card(f"arch-{a}-{b}", "blue", f"Arch on a {a} and a {b} pillar",
                          "The arch rests on exactly two bricks, one of each colour, in any size or pose; each "
                          "brick rests directly on level plates numbered 2 or more.", _arch_on((a, b))))
    for a, b in (("quad", "quad"), ("tri", "quad"), ("tri", "tri")):
        cards.append(Card(f"join-{a}-{b}", "blue",
                          f"{_SHAPE_NAMES[a].capitalize()} and {_SHAPE_NAMES[b]} joined by an arch",
                          "An arch rests on exactly two levels of the named shapes that belong to two different "
                          "structures (any level number, as every level is at least level 1).", _join((a, b))))
    for c in ("red", "green", "blue"):
        cards.append(Card(f"tower-{c}", "blue", f"Tower of {c} bricks",
                          f"A stack of {c} bricks on end, each resting on the one below only, at least "
                          f"{TOWER_HEIGHT:.0f} mm tall (four small bricks on end); taller stacks count. "
                          + on_level2, _tower(c)))
    for shape in ("tri", "quad"):
        for n in (4, 5):
            cards.append(Card(f"{shape}-level-{n}", "red", f"{_SHAPE_NAMES[shape].capitalize()} as level {n}",
                              "", _level_shape(n, shape)))
    cards.append(Card("level4-three-pillars", "red", "Level 4 on exactly 3 pillars",
                      "Pillars are the bricks and arches the level rests on directly.", _level_pillars(4, 3)))
    cards.append(Card("five-levels", "red", "A structure of exactly 5 levels",
                      "Counts the level plates of one structure.", _exactly_levels(5)))
    cards.append(Card("two-structures", "red", "Two structures of 2+ levels each",
                      "The playing area holds exactly two structures (a lone piece is a structure too), both "
                      "legal, each with at least two levels.", _two_structures))
    cards.append(Card("levels-1-3-one-pillar", "red", "Levels 1, 2, 3 on one pillar each",
                      "Levels 1, 2 and 3, each resting on the one before, rest on exactly one brick or arch each.",
                      _lowest_one_pillar))
    for seq in (("tri", "tri", "quad"), ("quad", "quad", "tri"), ("tri", "quad", "quad"), ("quad", "tri", "quad")):
        names = ", ".join(_SHAPE_NAMES[x] for x in seq)
        cards.append(Card("seq-" + "-".join(seq), "red", names.capitalize(),
                          "Three levels of one structure, each resting (through its pillars) on the one before "
                          "and numbered one higher, have these shapes from the bottom up.", _sequence(seq)))
    one = "Counts the correctly placed figures of one structure."
    cards.append(Card("figures-4-level3up", "green", "4 figures on level 3 and up",
                      "Counts the correctly placed figures on every level numbered 3 or more, in all legal "
                      "structures together: unlike the cards that count figures, this one names no single "
                      "structure.", _figures_from(3, 4)))
    cards.append(Card("figure-level5", "green", "A figure on level 5", "", _figure_on(5)))
    for n in (8, 10):
        cards.append(Card(f"figures-exactly-{n}", "green", f"Exactly {n} figures", one, _exactly_figures(n)))
    for c in ("red", "green", "blue"):
        cards.append(Card(f"four-{c}", "green", f"Exactly 4 {c} figures", one, _exactly_figures(4, c)))
    cards.append(Card("three-levels-1-2", "green", "3 figures each on levels 1 and 2",
                      "Level 2 rests (through its pillars) on the level 1 it is paired with.",
                      _full_chain((1, 2), 3)))
    cards.append(Card("three-level-4", "green", "Exactly 3 figures on level 4", "", _full_chain((4,), 3)))
    for shape in ("quad", "tri"):
        cards.append(Card(f"{shape}-levels-three-figures", "green",
                          f"Two {_SHAPE_NAMES[shape]} levels with 3 figures each",
                          "At least two such levels, each with a red, a green and a blue figure, at any "
                          "height, in one structure or in two: the card names no single structure.",
                          _full_levels_of_shape(shape, 2)))
    cards.append(Card("two-levels-2-3", "green", "2+ figures each on levels 2 and 3",
                      "Level 3 rests (through its pillars) on the level 2 it is paired with.",
                      _full_chain((2, 3), 2)))
    return {c.id: c for c in cards}


CARDS: dict[str, Card] = _build()


def cards_of(color: str) -> list[Card]:
    """The twelve cards of one colour, in the rulebook's order."""
    return [c for c in CARDS.values() if c.color == color]
