"""The masonry suite: voussoir arches, their thrust-line reference, and the statics held to it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from sim.cases.arches import (
    Arch,
    arch_scene,
    blocks,
    chain,
    critical_friction,
    critical_ratio,
    reference_margin,
    suite,
    thickness_arches,
)
from sim.cases.thrust import load_factor
from sim.statics import analyze

MILANKOVITCH = 0.1075  # the continuous semicircular arch's least t/R (mean radius), its weight where it acts


def test_many_voussoirs_reach_the_continuous_semicircle_of_milankovitch():
    # the polygonal voussoirs' chords tend to the arcs, the joints to every section: t/R -> 0.1075
    assert critical_ratio(Arch(300)) == pytest.approx(MILANKOVITCH, abs=3e-4)


def test_fewer_voussoirs_need_less_thickness_than_the_continuous_arch():
    # hinges can only open at joints: fewer joints, fewer ways to fail
    ratios = [critical_ratio(Arch(n)) for n in (5, 9, 16)]
    assert ratios[0] < ratios[1] < ratios[2] < MILANKOVITCH
    assert ratios[0] == pytest.approx(0.0950, abs=5e-4)  # five voussoirs (recorded)


def test_the_reference_is_symmetric_and_the_arch_stands_only_above_its_critical_thickness():
    arch = Arch(9, 500.0)
    c = critical_ratio(arch)
    thin, thick = chain(replace(arch, ratio=0.99 * c)), chain(replace(arch, ratio=1.05 * c))
    assert load_factor(thin) is None
    up, down = load_factor(thick, 1.0, arch.radius), load_factor(thick, -1.0, arch.radius)
    assert up == pytest.approx(down, rel=1e-6) and up > 0.01


def test_the_critical_values_do_not_depend_on_the_arch_size_nor_its_depth():
    # the same proportions at another scale: t/R and μ are numbers
    a = Arch(11, 400.0, half_angle=70.0, depth=120.0)
    b = replace(a, radius=2000.0, depth=900.0)
    assert critical_ratio(a) == pytest.approx(critical_ratio(b), rel=1e-6)
    thick = replace(a, ratio=0.2)
    assert critical_friction(thick) == pytest.approx(critical_friction(replace(thick, radius=2000.0)), rel=1e-6)


def test_the_blocks_close_up_joint_to_joint_and_the_scene_puts_them_where_they_are():
    arch = Arch(7, 300.0, half_angle=60.0, abutments="blocks")
    b = blocks(arch)
    for left, right, joint in zip(b.polygons[:-1], b.polygons[1:], b.joints[1:-1]):
        for p in joint:  # each joint's ends are corners of both blocks beside it
            assert np.min(np.linalg.norm(left - p, axis=1)) < 1e-9
            assert np.min(np.linalg.norm(right - p, axis=1)) < 1e-9
    scene = arch_scene(arch, 40.0, (100.0, -50.0, 0.0))
    assert [p.id for p in scene.pieces] == list(b.names) and not any(p.fixed for p in scene.pieces)
    assert min(float((p.shape.parts[0].vertices[:, 2] + p.pos[2]).min()) for p in scene.pieces) == pytest.approx(0.0)


QUICK = suite(quick=True)


def test_the_quick_suite_has_both_families_both_verdicts_and_both_abutments():
    assert {c.family for c in QUICK} == {"thickness", "friction"}
    assert {c.stands for c in QUICK} == {True, False}
    assert {c.arch.abutments for c in QUICK} == {"fixed", "blocks"}
    assert {c.turn_deg for c in QUICK} > {0.0}
    for c in QUICK:  # the cases past the boundary are by construction the ones that fall
        assert c.stands == (c.factor > 1.0), c.name
        assert c.margin_g == pytest.approx(reference_margin(c.arch))


@pytest.mark.parametrize("case", QUICK, ids=[c.name for c in QUICK])
def test_the_statics_give_every_arch_its_reference_verdict_and_margin(case):
    r = analyze(case.scene)
    assert r.stable == case.stands
    if case.stands:  # the margin in the arch's plane (out of it the arches are far stronger)
        assert r.margin_g == pytest.approx(case.margin_g, rel=1e-2, abs=1e-5)


CRA = json.loads((Path(__file__).parent / "data" / "arches" / "compas_cra.json").read_text(encoding="utf-8"))


def test_compas_cra_finds_the_critical_thickness_of_every_arch_where_the_thrust_lines_do():
    # recorded by tools/bench_agreement.py --arches --cra --record from compas_cra 0.8.0's rbe_solve on the
    # same prisms, by bisection between 0.99 and 1.01 of the reference's critical t/R (CI has no compas_cra)
    by_label = {a.label: a for a in thickness_arches()}
    found = [c for c in CRA["critical_ratio"] if c["compas_cra"] is not None]
    assert {c["arch"] for c in CRA["critical_ratio"]} == set(by_label) and len(found) >= 8
    for c in found:
        lo, hi = c["bracket"]
        ours = critical_ratio(by_label[c["arch"]])
        assert ours == pytest.approx(c["reference"], rel=1e-9)  # the reference as recorded
        assert lo - 1e-3 * ours <= ours <= hi + 1e-3 * ours, c  # within 0.1 % of compas_cra's bracket


def test_compas_cra_gives_every_quick_case_the_reference_verdict():
    recorded = {v["case"]: v["rbe_stands"] for v in CRA["verdicts"]}
    for case in QUICK:
        if recorded.get(case.name) is not None:
            assert recorded[case.name] == case.stands, case.name
    assert sum(recorded.get(c.name) is not None for c in QUICK) >= 16
