"""Tohuwabohu structure analysis: structures, level numbers, pillars and heights, figures on points."""

from __future__ import annotations

import pytest

from sim.games.tohuwabohu import analyze
from sim.games.tohuwabohu.construct import Construction, ConstructionError, arch_pillar, pillar
from sim.games.tohuwabohu.examples import posts, rails
from sim.scene.io import from_dict


def _three_storeys() -> Construction:
    c = Construction("three storeys")
    l1 = c.storey("quad", rails("quad", "large", ("red", "blue")), id="L1")
    c.figures(l1)
    l2 = c.storey("tri", posts(("quad", "quad"), ("neutral", "green", "red")), on=l1, id="L2")
    c.storey("quad", [arch_pillar("x")], on=l2, id="L3")
    return c


def test_levels_are_numbered_from_the_bottom_with_pillars_and_heights():
    a = analyze(_three_storeys().scene())
    assert len(a.structures) == 1
    s = a.structures[0]
    assert [(lv.id, lv.number, lv.shape) for lv in s.levels] == [("L1", 1, "quad"), ("L2", 2, "tri"),
                                                                   ("L3", 3, "quad")]
    l1, l2, l3 = s.levels
    assert [(p.color, p.size) for p in l1.pillars] == [("red", "large"), ("blue", "large")]
    assert [p.height for p in l1.pillars] == pytest.approx([20.0, 20.0])
    assert sorted(p.color for p in l2.pillars) == ["green", "neutral", "red"]
    assert [p.height for p in l2.pillars] == pytest.approx([40.0] * 3)
    assert [p.part for p in l3.pillars] == ["arch"] and l3.pillars[0].height == pytest.approx(40.0)
    assert l1.top == pytest.approx(23.0) and l2.top == pytest.approx(66.0) and l3.top == pytest.approx(109.0)
    assert l2.below == ("L1",) and l3.below == ("L2",) and l1.below == ()


def test_figures_report_the_point_they_touch():
    a = analyze(_three_storeys().scene())
    l1 = a.level("L1")
    assert sorted((f.color, f.point) for f in l1.figures) == [("blue", "blue"), ("green", "green"), ("red", "red")]
    assert all(f.upright for f in l1.figures)


@pytest.mark.parametrize(("shift_mm", "touches"), [(0.0, True), (13.0, True), (14.5, False), (30.0, False)])
def test_touching_the_point_circle_suffices(shift_mm, touches):
    """Base radius 6 + point radius 7.5: the circles touch up to 13.5 mm apart (0.5 mm slack)."""
    c = Construction()
    lv = c.storey("quad", rails("quad"), id="L")
    c.figure("red", lv, id="f")
    d = c.to_dict()
    fig = next(p for p in d["pieces"] if p["id"] == "f")
    fig["pos"][0] += shift_mm  # sideways, away from every other point
    a = analyze(from_dict(d))
    (f,) = a.level("L").figures
    assert f.point == ("red" if touches else None)


def test_a_figure_near_another_colours_point_reports_that_point():
    c = Construction()
    lv = c.storey("quad", rails("quad"), id="L")
    c.figure("green", lv, point="red", id="g")
    (f,) = analyze(c.scene()).level("L").figures
    assert (f.color, f.point) == ("green", "red")


def test_separate_stacks_and_a_lone_brick_are_separate_structures():
    c = Construction()
    c.storey("quad", rails("quad", "large", ("red", "red")), at=(-70, 0), id="left")
    c.storey("quad", rails("quad", "large", ("blue", "blue")), at=(70, 0), id="right")
    c.brick("small", "green", "x", (0, 100), id="lone")
    a = analyze(c.scene())
    assert [[lv.id for lv in s.levels] for s in a.structures] == [["left"], ["right"], []]
    assert a.structures[2].pieces == ("lone",)
    assert a.structure_of("left") == 0 and a.structure_of("lone") == 2


def test_an_arch_joining_two_levels_keeps_two_structures():
    c = Construction()
    for x, name in ((-70, "A"), (70, "B")):
        c.storey("quad", [pillar("large", "red", "y", -35, 0), pillar("large", "blue", "y", 35, 0)],
                 at=(x, 0), id=name)
    c.arch((0, 0), on=["A", "B"], id="bridge")
    a = analyze(c.scene())
    assert len(a.structures) == 2
    (j,) = a.joins
    assert j.piece == "bridge" and set(j.levels) == {"A", "B"} and set(j.structures) == {0, 1}
    assert a.structure_of("bridge") in (0, 1)


def test_stacked_bricks_between_levels_still_number_the_level_above():
    c = Construction()
    l1 = c.storey("quad", rails("quad"), id="L1")
    low = c.brick("small", "red", "y", (-35, 0), on=l1)
    high = c.brick("small", "red", "y", (-35, 0), on=low)
    other_low = c.brick("small", "blue", "y", (35, 0), on=l1)
    other_high = c.brick("small", "blue", "y", (35, 0), on=other_low)
    c.level("quad", (0, 0), [high, other_high], id="L2")
    a = analyze(c.scene())
    l2 = a.level("L2")
    assert l2.number == 2 and l2.below == ("L1",)
    assert [p.id for p in l2.pillars] == [high, other_high]


def test_pieces_off_the_playing_area_are_marked():
    c = Construction()
    c.brick("small", "red", "x", (0, 0), id="in")
    c.brick("small", "red", "x", (130, 0), id="over-edge")  # reaches to x = 150 > 140
    a = analyze(c.scene())
    assert a.pieces["in"].on_area and not a.pieces["over-edge"].on_area


def test_the_construction_language_refuses_impossible_placements():
    c = Construction()
    lv = c.storey("tri", rails("tri"), id="T")
    with pytest.raises(ConstructionError, match="does not fit"):
        c.brick("large", "red", "x", (0, 60), on=lv)  # beyond the triangle's top corner
    b1 = c.brick("small", "red", "up", (-60, 100))
    b2 = c.brick("small", "red", "x", (60, 100))
    with pytest.raises(ConstructionError, match="different heights"):
        c.level("quad", (0, 100), [b1, b2])
