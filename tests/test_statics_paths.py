"""Which program decides a structure, and that both give the same answer to the stated precision.

Structures of at least ``CONE_POINTS`` contact points are posed as cone programs (Clarabel, the
circular Coulomb cone in one solve a direction), smaller ones as the warm kinematic LP (HiGHS,
friction refined by cutting planes). On the scenes where the LP's search needs many solves
the cone programs are the faster (docs/statics.md); these tests pin that both agree.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sim.contact import find_interfaces
from sim.scene import load_scene
from sim.statics import analyze, cone, search
from sim.statics.model import equilibrium
from sim.statics.problem import Problem

pytest.importorskip("clarabel")

ROOT = Path(__file__).resolve().parents[1]
GAME_55 = ROOT / "tests" / "data" / "statics" / "talo-game-55.json"


def _both(scene, monkeypatch):
    """(the analysis as it is, the analysis with the LP for every structure)."""
    interfaces = find_interfaces(scene)
    ours = analyze(scene, interfaces)
    with monkeypatch.context() as m:
        m.setattr(cone, "CONE_POINTS", math.inf)
        lp = analyze(scene, interfaces)
    return ours, lp


def test_a_structure_of_cone_points_contacts_is_a_cone_program_and_a_smaller_one_an_lp():
    scene = load_scene(ROOT / "scenes" / "babylon" / "tactical-example.json")
    eq = equilibrium(scene, find_interfaces(scene))
    part = max((eq.subset(g) for g in eq.structures()), key=lambda p: len(p.points))
    assert len(part.points) >= cone.CONE_POINTS
    assert isinstance(cone.problem_for(part), cone.ConeProblem)
    small = equilibrium(load_scene(ROOT / "scenes" / "talo" / "counterweight.json"),
                        find_interfaces(load_scene(ROOT / "scenes" / "talo" / "counterweight.json")))
    assert len(small.points) < cone.CONE_POINTS
    assert isinstance(cone.problem_for(small), Problem)


@pytest.mark.parametrize("name", ["babylon/tactical-example.json", "talo/bridge.json", "talo/spiral-staircase.json",
                                  "talo/render-castle.json"])
def test_the_cone_programs_and_the_lp_give_the_same_margin_to_the_precision(monkeypatch, name):
    ours, lp = _both(load_scene(ROOT / "scenes" / name), monkeypatch)
    assert ours.feasible == lp.feasible and ours.unheld == lp.unheld
    assert ours.lp_solves < lp.lp_solves  # one cone program a direction, no cutting planes
    assert abs(ours.margin_g - lp.margin_g) <= search.precision(lp.margin_g)
    assert ours.margin_bounds[0] <= lp.margin_g * (1 + 1e-6) and lp.margin_bounds[0] <= ours.margin_g * (1 + 1e-6)


def test_a_tipping_edge_is_found_exactly_on_the_cone_path(monkeypatch):
    """The game-like Talo 55 tips about an edge of A: the LP finds it exactly (a polygon's vertices), the cone
    programs' maximisers lie near the corners, not on them, so the edge step is taken again until the value
    stops falling: the same margin and direction as the LP's (one edge step alone: 0.0930150 g, 6.7e-4 above)."""
    ours, lp = _both(load_scene(GAME_55), monkeypatch)
    assert ours.margin_g == pytest.approx(lp.margin_g, rel=1e-5)
    assert ours.weakest_direction_deg == pytest.approx(lp.weakest_direction_deg, abs=0.01)
    assert ours.margin_g - ours.margin_bounds[0] <= 1e-5 * ours.margin_g  # exact, not merely to the precision


def test_a_cone_program_that_ends_without_an_answer_is_asked_of_the_lp(monkeypatch):
    """Where Clarabel ends without an answer even with iterative refinement, the structure's LP answers in its
    place (the same bodies taken out): the LP's feasibility and unheld pieces, its margin to the precision."""
    standing = load_scene(ROOT / "scenes" / "babylon" / "tactical-example.json")
    falling = load_scene(ROOT / "scenes" / "tohuwabohu" / "render-pillars.json")
    _, lp_standing = _both(standing, monkeypatch)
    _, lp_falling = _both(falling, monkeypatch)
    monkeypatch.setattr(cone, "_solved", lambda solution: False)  # every cone program fails
    for scene, lp in ((standing, lp_standing), (falling, lp_falling)):
        eq = equilibrium(scene, find_interfaces(scene))
        assert max(len(eq.subset(g).points) for g in eq.structures()) >= cone.CONE_POINTS
        r = analyze(scene)
        assert (r.feasible, r.unheld) == (lp.feasible, lp.unheld)
        assert abs(r.margin_g - lp.margin_g) <= search.precision(lp.margin_g)  # the paired search, on the LP
        assert r.lp_solves > 0
