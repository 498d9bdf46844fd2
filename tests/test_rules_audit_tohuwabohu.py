"""Held-out checks of Tohuwabohu's rule readings, written from the rulebook's statements (the rules audit).

Each test states the rule in its own words and builds the smallest position that tells a right reading from a wrong
one (an "exactly" read as "at least", a level number not checked, a pile that runs out).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from sim.games.tohuwabohu import Verdict, judgement, pro
from sim.games.tohuwabohu.construct import Construction
from sim.games.tohuwabohu.examples import RGB, base, levels, stacked, tower
from sim.pieces import dimensions as dim

q, t = "quad", "tri"


def fulfilled(construction: Construction) -> tuple[str, ...]:
    """The cards a legal construction fulfils, the physics taken as standing."""
    j = judgement(construction.scene(), Verdict.standing())
    assert j.violations == (), [v.to_json() for v in j.violations]
    return j.fulfilled


def test_the_box_holds_the_rulebooks_components():
    box = dim.TOHU_BOX
    blocks = {k: n for k, n in box.items() if k[0] in ("brick", "arch")}
    assert sum(blocks.values()) == 19
    assert box[("brick", "small", "neutral")] == 4 and box[("brick", "large", "neutral")] == 1
    for c in RGB:
        assert box[("brick", "small", c)] == box[("brick", "large", c)] == 2
        assert box[("figure", c)] == 5
    assert box[("arch",)] == 2
    assert (box[("level", "quad")], box[("level", "tri")]) == (5, 3)


def test_exactly_eight_or_ten_figures_is_not_at_least():
    nine = levels("", q, q, q, figures={1: RGB, 2: RGB, 3: RGB})
    got = fulfilled(nine)
    assert "figures-exactly-8" not in got and "figures-exactly-10" not in got


def test_exactly_four_figures_of_a_colour_is_not_at_least():
    # five red figures in one structure: one on each of five levels (the upper two on the two arches)
    five = levels("", q, q, q, q, q, figures={n: ("red",) for n in range(1, 6)}, pillars={4: "arch", 5: "arch"})
    assert "four-red" not in fulfilled(five)
    four = levels("", q, q, q, q, q, figures={n: ("red",) for n in range(1, 5)}, pillars={4: "arch", 5: "arch"})
    assert "four-red" in fulfilled(four)


def test_a_structure_of_exactly_five_levels_is_not_one_of_six():
    assert "five-levels" not in fulfilled(levels("", q, q, q, q, q, t))
    assert "five-levels" in fulfilled(levels("", q, q, q, q, t))


def test_at_least_four_figures_on_level_3_and_up_are_satisfied_by_five():
    five = levels("", q, q, q, q, figures={3: RGB, 4: ("red", "green")})
    assert "figures-4-level3up" in fulfilled(five)


def test_a_tower_of_bricks_must_stand_on_level_2_or_higher():
    assert "tower-red" in fulfilled(tower("red", on_level=2))
    assert "tower-red" not in fulfilled(tower("red", on_level=1))


def test_the_shape_of_an_arch_s_pillars_does_not_matter():
    # a large brick and a small one, both lying, under the arch on level 2
    def arch_on_lying(a: str, b: str) -> Construction:
        c = Construction("Arch on two lying bricks")
        top = stacked(c, base(colors=("blue", "blue")))[-1]
        left = c.brick("large", a, "y", (-30, 0), on=top)
        right = c.brick("small", b, "y", (30, 0), on=top)
        c.arch((0, 0), on=[left, right])
        return c

    assert "arch-red-green" in fulfilled(arch_on_lying("red", "green"))
    assert "arch-red-green" in fulfilled(arch_on_lying("green", "red"))
    assert "arch-red-green" not in fulfilled(arch_on_lying("red", "red"))


def test_pro_rounds_open_fewer_than_three_cards_when_the_pile_runs_short():
    # four players get 3 cards of each colour: 9 each
    g = pro.new_pro_game(["ann", "bob", "cy", "dee"], np.random.default_rng(3))
    assert Counter(len(h.pile) + len(h.open) for h in g.hands) == {9: 4}
    g, _ = pro.stop(g, "ann", g.open_cards("ann")[:1])  # one card done; the round runs out
    g = pro.tick(g, pro.ROUND_SECONDS)
    assert g.round == 2 and len(g.open_cards("ann")) == 3 and len(g.hand("ann").pile) == 5
    for _ in range(2):  # two rounds cleared: three cards each time
        g, r = pro.stop(g, "ann", g.open_cards("ann"))
        assert r.round_over
    assert g.round == 4 and g.open_cards("ann") == g.hand("ann").open and len(g.open_cards("ann")) == 2
    assert g.hand("ann").pile == () and not g.over
    g, r = pro.stop(g, "ann", g.open_cards("ann"))
    assert g.winner == "ann"  # every card fulfilled ends the game
