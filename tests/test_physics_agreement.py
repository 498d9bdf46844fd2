"""The verdict rule and the free simulation's agreement with the statics at thin margins.

The statics decide; the free-running simulation is the witness and must agree by itself on the
thin-margin suite (``sim.cases.thin``; the whole suite is ``tools/bench_agreement.py``). The sample
here covers every family on both sides of the boundary, in proportions the settings were not tuned
on, with turned and shifted copies, among them cases that fell before the contacts were primed
(a block 0.002 g from tipping on a slope, random towers at 0.002 g, a lever on a movable post).
"""

from __future__ import annotations

import pytest

from sim.cases.thin import harmonic, ladder_case, lever, tipping_block, tower_case, turned
from sim.physics import TUNED, check

SAMPLE = {
    "harmonic 150x40x30 n=8 +0.002": lambda: harmonic(8, 0.002, (150.0, 40.0, 30.0)),
    "harmonic 150x40x30 n=8 -0.002": lambda: harmonic(8, -0.002, (150.0, 40.0, 30.0)),
    "harmonic 100x30x10 n=4 +0.005": lambda: harmonic(4, 0.005, (100.0, 30.0, 10.0)),
    "harmonic 300x60x40 n=4 -0.005 turned 37": lambda: turned(harmonic(4, -0.005, (300.0, 60.0, 40.0)), 37.0,
                                                               (120.0, -45.0, 0.0)),
    "tipping 20x40x60 +0.002": lambda: tipping_block(0.002, (20.0, 40.0, 60.0)),
    "tipping 15x50x40 -0.005": lambda: tipping_block(-0.005, (15.0, 50.0, 40.0)),
    "tipping 30x30x100 +0.005 turned 211": lambda: turned(tipping_block(0.005, (30.0, 30.0, 100.0)), 211.0,
                                                           (40.0, 250.0, 0.0)),
    "lever movable post +0.002": lambda: lever(0.002, fixed_post=False),
    "lever movable post -0.002": lambda: lever(-0.002, fixed_post=False),
    "lever fixed post +0.005 turned 90": lambda: turned(lever(0.005, fixed_post=True), 90.0, (-300.0, 80.0, 0.0)),
    "ladder +0.002": lambda: ladder_case(0.002)[0],
    "ladder -0.005": lambda: ladder_case(-0.005)[0],
    "random seed=0 n=3 +0.002": lambda: tower_case(0, 3, 0.002)[0],
    "random seed=6 n=4 +0.002": lambda: tower_case(6, 4, 0.002)[0],
    "random seed=5 n=3 -0.01": lambda: tower_case(5, 3, -0.01)[0],
}


@pytest.mark.parametrize("name", SAMPLE)
def test_the_free_simulation_agrees_with_the_statics_at_thin_margins(name):
    stands = " +0." in name  # margins by construction: +m stands, -m lies as far past the boundary
    r = check(SAMPLE[name]())
    assert r.stable is stands, r.to_json()["statics"]  # the construction's margin, by the statics
    assert r.dynamics.stable is stands and r.disagreement is None, (r.dynamics.moved, r.disagreement)


@pytest.mark.slow
def test_a_twenty_block_stack_two_thousandths_of_a_g_from_tipping_stands_in_the_simulation():
    """The depth limit: 20 boxes of 150 x 40 x 30 mm fell with 4000 iterations a step and stand with 10000."""
    r = check(harmonic(20, 0.002, (150.0, 40.0, 30.0)))
    assert r.stable and r.dynamics.stable, r.dynamics.moved


def test_check_stands_by_the_statics_where_the_simulation_cannot_resolve_the_margin():
    """With the solver starved (200 iterations a step) the simulation drops an 8-block stack 0.005 g
    from tipping; the verdict is still the statics', and the disagreement says why."""
    starved = TUNED.with_(max_iterations=200, solver_iterations=200)
    r = check(harmonic(8, 0.005, (150.0, 40.0, 30.0)), settings=starved)
    assert r.stable and r.to_json()["stable"] is True and r.margin_g == pytest.approx(0.005, abs=1e-6)
    assert r.dynamics.moved and not r.dynamics.stable
    assert "finer than the simulation's solver resolves" in r.disagreement and "8 pieces deep" in r.disagreement
    assert "at most 200 iterations" in r.disagreement and "the statics' verdict stands" in r.disagreement


def test_check_names_a_contact_with_more_corners_than_the_simulation_keeps():
    """Boxes turned against each other touch over a pentagon; Bullet keeps 4 points of it and the top box,
    0.01 g from tipping by the statics, falls off in the simulation: the statics' verdict stands."""
    r = check(tower_case(5, 3, 0.01, turn=True)[0])
    assert r.stable and r.dynamics.moved == ("t2",)
    assert "the contact between t1 and t2 has 5 corners, of which the simulation keeps 4" in r.disagreement


def test_what_the_statics_cannot_hold_falls_in_the_simulation_even_with_its_solver_starved():
    starved = TUNED.with_(max_iterations=50, solver_iterations=50)
    for make in (lambda: harmonic(6, -0.002, (150.0, 40.0, 30.0)), lambda: tipping_block(-0.002),
                 lambda: lever(-0.002, fixed_post=True)):
        r = check(make(), settings=starved)
        assert not r.statics.feasible and not r.stable
        assert r.dynamics.moved and r.disagreement is None


@pytest.mark.parametrize("margin", [0.002, 0.01])
def test_the_suite_is_placed_by_closed_forms_the_statics_confirm(margin):
    """The suite's margins come from closed forms (no statics in the loop), in other proportions than the
    tests': the statics give them back to 1e-9 g."""
    from sim.cases import harmonic_margin, harmonic_stack
    from sim.cases.thin import lever_margin
    from sim.statics import analyze

    block = (150.0, 40.0, 30.0)
    scale = 1 - margin * 8 * block[2] / block[0]
    assert analyze(harmonic_stack(8, scale, block)).margin_g == pytest.approx(harmonic_margin(8, scale, block),
                                                                            abs=1e-9)
    assert analyze(tipping_block(margin, (15.0, 50.0, 40.0))).margin_g == pytest.approx(margin, abs=1e-9)
    for fixed in (True, False):
        scene = lever(margin, fixed_post=fixed)
        beam, weight = scene.piece("beam"), scene.piece("weight")
        x_c = (beam.mass * beam.pos[0] + weight.mass * weight.pos[0]) / (beam.mass + weight.mass)
        e = (0.005 - x_c) * 1000  # mm inside the 10 mm post's edge
        assert lever_margin(fixed, e) == pytest.approx(margin, abs=1e-9)
        assert analyze(scene).margin_g == pytest.approx(margin, abs=1e-9)


def _cubes_in_the_air(n: int):
    from sim.scene import from_dict

    return from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "pieces": [
        {"id": f"c{k}", "kind": "box", "size": [20, 20, 20], "pos": [(k % 10) * 30.0, (k // 10) * 30.0, 40.0]}
        for k in range(n)]})


@pytest.mark.parametrize(("n", "coarse"), [(TUNED.collapse_pieces - 1, False), (TUNED.collapse_pieces, True)])
def test_a_collapse_of_many_pieces_is_witnessed_coarser_and_still_falls(monkeypatch, n, coarse):
    import sim.physics.verdict as verdict

    built = []

    class Spy(verdict.World):
        def __init__(self, scene, settings=None, *args, **kwargs):
            built.append(settings)
            super().__init__(scene, settings, *args, **kwargs)

    monkeypatch.setattr(verdict, "World", Spy)
    r = check(_cubes_in_the_air(n), seconds=0.3)
    assert not r.stable and len(r.statics.unheld) == n and len(r.dynamics.moved) == n  # every cube fell
    s = built[0]
    assert (not s.exact_hulls, s.dt, s.solver_iterations) == (
        (True, TUNED.collapse_dt, TUNED.collapse_iterations) if coarse else (False, TUNED.dt, TUNED.solver_iterations))
