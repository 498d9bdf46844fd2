"""Tohuwabohu order cards: every card holds on its example construction and fails on a near miss of it."""

from __future__ import annotations

import pytest

from sim.games.tohuwabohu import CARDS, Verdict, cards_of, judgement
from sim.games.tohuwabohu.construct import Construction
from sim.games.tohuwabohu.examples import (
    EXAMPLES,
    RGB,
    Storey,
    arch_on,
    cross,
    four_of,
    join,
    levels,
    one_pillar,
    rails,
    stacked,
    tower,
    two_structures,
)
from sim.scene.io import from_dict

IDS = {
    "blue": ["cross-red", "cross-green", "cross-blue", "arch-red-green", "arch-red-blue", "arch-green-blue",
             "join-quad-quad", "join-tri-quad", "join-tri-tri", "tower-red", "tower-green", "tower-blue"],
    "red": ["tri-level-4", "tri-level-5", "quad-level-4", "quad-level-5", "level4-three-pillars", "five-levels",
            "two-structures", "levels-1-3-one-pillar", "seq-tri-tri-quad", "seq-quad-quad-tri",
            "seq-tri-quad-quad", "seq-quad-tri-quad"],
    "green": ["figures-4-level3up", "figure-level5", "figures-exactly-8", "figures-exactly-10", "four-red",
              "four-green", "four-blue", "three-levels-1-2", "three-level-4", "quad-levels-three-figures",
              "tri-levels-three-figures", "two-levels-2-3"],
}

q, t = "quad", "tri"

# One step short of each card's example: still built by the rules, but not fulfilling the card.
NEAR_MISS = {
    **{f"cross-{c}": (lambda c=c: cross(c, on_level=1)) for c in RGB},
    **{f"tower-{c}": (lambda c=c: tower(c, ("large", "small"))) for c in RGB},
    "arch-red-green": lambda: arch_on("red", "green", on_level=1),
    "arch-red-blue": lambda: arch_on("red", "green"),
    "arch-green-blue": lambda: arch_on("green", "blue", on_level=1),
    "join-quad-quad": lambda: join(t, q),
    "join-tri-quad": lambda: join(q, q),
    "join-tri-tri": lambda: join(t, q),
    "tri-level-4": lambda: levels("", q, q, t, q),
    "tri-level-5": lambda: levels("", q, q, q, t, q),
    "quad-level-4": lambda: levels("", t, q, t, t),
    "quad-level-5": lambda: levels("", q, q, t, q, t),
    "level4-three-pillars": lambda: levels("", q, q, q, q),
    "five-levels": lambda: levels("", q, q, q, q),
    "two-structures": lambda: two_structures(2, 1),
    "levels-1-3-one-pillar": lambda: one_pillar((1, 2, 1)),
    "seq-tri-tri-quad": lambda: levels("", t, q, t),
    "seq-quad-quad-tri": lambda: levels("", q, t, q),
    "seq-tri-quad-quad": lambda: levels("", t, q, t),
    "seq-quad-tri-quad": lambda: levels("", q, q, t),
    "figures-4-level3up": lambda: levels("", q, q, q, q, figures={2: ("red",), 3: RGB}),
    "figure-level5": lambda: levels("", q, q, q, q, q, figures={4: ("green",)}),
    "figures-exactly-8": lambda: levels("", q, q, q, figures={1: RGB, 2: RGB, 3: ("red",)}),
    "figures-exactly-10": lambda: levels("", q, q, q, figures={1: RGB, 2: RGB, 3: RGB}),
    **{f"four-{c}": (lambda c=c: four_of(c, 3)) for c in RGB},
    "three-levels-1-2": lambda: levels("", q, q, figures={1: RGB, 2: ("red", "green")}),
    "three-level-4": lambda: levels("", q, q, q, q, figures={4: ("red", "green")}),
    "quad-levels-three-figures": lambda: levels("", q, q, q, figures={2: RGB, 3: ("red", "blue")}),
    "tri-levels-three-figures": lambda: levels("", t, t, figures={1: RGB, 2: ("red", "green")}),
    "two-levels-2-3": lambda: levels("", q, q, q, figures={2: ("red", "green"), 3: ("green",)}),
}


def test_the_36_cards_have_the_listed_ids_and_colours():
    assert len(CARDS) == 36
    for color, ids in IDS.items():
        assert [c.id for c in cards_of(color)] == ids
    assert set(EXAMPLES) == set(CARDS) == set(NEAR_MISS)


@pytest.mark.parametrize("card_id", list(CARDS))
def test_card_holds_on_its_example(card_id):
    j = judgement(EXAMPLES[card_id]().scene(), Verdict.standing())
    assert j.violations == ()
    assert card_id in j.fulfilled


@pytest.mark.parametrize("card_id", list(CARDS))
def test_card_fails_on_a_near_miss(card_id):
    j = judgement(NEAR_MISS[card_id]().scene(), Verdict.standing())
    assert j.violations == (), [v.to_json() for v in j.violations]
    assert card_id not in j.fulfilled
    assert not CARDS[card_id].holds(j.position)


def test_nothing_is_fulfilled_by_a_construction_that_falls():
    scene = EXAMPLES["five-levels"]().scene()
    assert "five-levels" in judgement(scene, Verdict.standing()).fulfilled
    assert judgement(scene, Verdict.falling()).fulfilled == ()


def test_a_card_is_fulfilled_only_by_a_legal_structure():
    c = levels("", q, q, q, figures={3: ("red",)})
    d = c.to_dict()
    fig = next(p for p in d["pieces"] if p["kind"] == "tohuwabohu.figure")
    fig["color"] = "blue"  # now on the red point: the structure breaks a rule
    j = judgement(from_dict(d), Verdict.standing())
    assert [v.rule for v in j.violations] == ["figure-on-point"]
    assert j.position.structures == []
    assert j.fulfilled == ()


def test_two_structures_counts_every_structure_on_the_area():
    c = two_structures(2, 2)
    c.brick("small", "neutral", "x", (0, 110))  # a third structure, alone
    assert "two-structures" not in judgement(c.scene(), Verdict.standing()).fulfilled


def test_a_cross_needs_arms_on_both_sides():
    assert "cross-red" in judgement(cross("red", offset=20.0).scene(), Verdict.standing()).fulfilled
    assert "cross-red" not in judgement(cross("red", offset=25.0).scene(), Verdict.standing()).fulfilled


def _two_towers_of_three(figures_left, figures_right):
    """Two structures of three levels at x = ±70 mm (the right one topped by a triangle), figures on level 3."""
    c = Construction("Two structures, figures on their third levels")
    stacked(c, [Storey("quad", rails("quad", "large", ("red", "red"))),
                Storey("quad", rails("quad", "large", ("green", "green"))),
                Storey("quad", rails("quad", "small", ("red", "red")), figures_left)], at=(-70.0, 0.0))
    stacked(c, [Storey("quad", rails("quad", "large", ("blue", "blue"))),
                Storey("quad", rails("quad", "small", ("blue", "blue"))),
                Storey("tri", rails("tri", "small", ("neutral", "neutral")), figures_right)], at=(70.0, 0.0))
    return c.scene()


def test_figures_on_level_3_and_up_count_over_every_structure():
    # the card names no single structure (unlike "exactly 8 figures ... in one structure")
    j = judgement(_two_towers_of_three(("red", "green"), ("blue", "red")), Verdict.standing())
    assert j.violations == () and len(j.analysis.structures) == 2
    assert "figures-4-level3up" in j.fulfilled
    three = judgement(_two_towers_of_three(("red", "green"), ("blue",)), Verdict.standing())
    assert "figures-4-level3up" not in three.fulfilled


def test_two_levels_with_three_figures_may_stand_in_two_structures():
    c = Construction("Two quadrilaterals with three figures, one in each structure")
    stacked(c, [Storey("quad", rails("quad", "large", ("red", "red")), RGB)], at=(-70.0, 0.0))
    stacked(c, [Storey("quad", rails("quad", "large", ("blue", "blue")), RGB)], at=(70.0, 0.0))
    j = judgement(c.scene(), Verdict.standing())
    assert j.violations == () and len(j.analysis.structures) == 2
    assert "quad-levels-three-figures" in j.fulfilled and "tri-levels-three-figures" not in j.fulfilled
