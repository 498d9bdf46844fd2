"""The cone programs (Clarabel) against closed forms: the path large structures take, forced on small ones.

``CONE_POINTS`` is lowered to 0 so that every structure is posed as cone programs, and the
closed-form block bounds are switched off so that the margin comes from the cone programs'
own search (two directions a round): harmonic stacks, a block on a slope and the rulebook's
counterweight, in proportions none of the search's constants were tuned on.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from sim.cases import block_on_slope, harmonic_margin, harmonic_stack
from sim.contact import find_interfaces
from sim.scene import from_dict
from sim.statics import analyze, cone, search
from sim.statics.blocks import BlockBounds
from sim.statics.model import equilibrium
from sim.statics.problem import Problem
from sim.tol import tol

pytest.importorskip("clarabel")


@pytest.fixture
def cone_path(monkeypatch):
    """Every structure as cone programs, and no closed-form block bound: the search alone finds the margin."""
    monkeypatch.setattr(cone, "CONE_POINTS", 0)
    monkeypatch.setattr(search, "block_bounds", lambda eq: BlockBounds(None, math.inf))


def _talo(*pieces):
    return from_dict({"format": "towerlab-scene/1", "game": "talo", "pieces": list(pieces)})


def _within_precision(r, expected):
    """The margin is the value from above to the stated precision, and the proven lower bound lies below it."""
    assert expected - 1e-6 * expected <= r.margin_g <= expected + search.precision(expected)
    assert r.margin_bounds[0] <= expected * (1 + 1e-6)
    assert r.margin_g - r.margin_bounds[0] <= search.precision(r.margin_g) + 1e-9


@pytest.mark.parametrize(("n", "scale"), [(2, 0.93), (3, 0.88), (5, 0.8), (8, 0.97), (12, 0.9)])
def test_harmonic_stacks_tip_at_their_closed_form_margin_on_the_cone_path(cone_path, n, scale):
    r = analyze(harmonic_stack(n, scale))
    assert r.feasible
    assert r.lp_solves >= 2  # the cone programs' search, not a closed form
    expected = harmonic_margin(n, scale)
    _within_precision(r, expected)
    assert r.margin_g == pytest.approx(expected, rel=1e-5)  # tipping: A is a polygon, its nearest edge found
    assert abs(math.remainder(math.radians(r.weakest_direction_deg), 2 * math.pi)) < math.radians(1.0)


@pytest.mark.parametrize("theta", [7.0, 17.0])
def test_a_block_on_a_slope_slides_at_tan_phi_minus_theta_on_the_cone_path(cone_path, theta):
    r = analyze(block_on_slope(theta))
    expected = math.tan(math.atan(0.5) - math.radians(theta))
    _within_precision(r, expected)
    assert min(r.weakest_direction_deg, 360.0 - r.weakest_direction_deg) < 12.0  # down the fall line (+x)


def test_the_counterweight_tips_at_two_ninths_on_the_cone_path(cone_path):
    post = {"id": "post", "kind": "talo.block", "length": 1, "cell": [4, 4], "layer": 0, "axis": "z"}
    four = {"id": "four", "kind": "talo.block", "length": 4, "cell": [3, 4], "layer": 1, "axis": "x"}
    one = {"id": "one", "kind": "talo.block", "length": 1, "cell": [3, 4], "layer": 2, "axis": "x"}
    r = analyze(_talo(post, four, one))
    _within_precision(r, (1 / 3) / 1.5)
    assert r.margin_g == pytest.approx((1 / 3) / 1.5, rel=1e-5)


@pytest.mark.parametrize(("n", "scale", "unheld"), [(2, 1.03, ("b1",)), (4, 1.1, ("b1",))])
def test_a_stack_past_its_critical_offsets_loses_the_same_pieces_on_both_paths(monkeypatch, n, scale, unheld):
    lp = analyze(harmonic_stack(n, scale))
    monkeypatch.setattr(cone, "CONE_POINTS", 0)
    conic = analyze(harmonic_stack(n, scale))
    assert not lp.feasible and not conic.feasible
    assert conic.unheld == lp.unheld
    assert set(unheld) <= set(conic.unheld)


def test_the_kinematic_program_gives_the_force_programs_support_function():
    scene = harmonic_stack(3, 0.7)
    eq = equilibrium(scene, find_interfaces(scene))
    problem = cone.ConeProblem(eq)
    problem.start_margin()
    lp = Problem(eq)
    lp.start_margin()
    for theta in np.linspace(0.0, 2 * math.pi, 7, endpoint=False):
        h, a, exact = problem.support(theta)
        h_lp, _, exact_lp = lp.support(theta)
        assert exact and exact_lp
        assert h == pytest.approx(h_lp, rel=1e-5, abs=1e-7)
        assert h == pytest.approx(np.array([math.cos(theta), math.sin(theta)]) @ a)


def test_directions_solved_side_by_side_give_the_answers_of_one_at_a_time(monkeypatch):
    scene = harmonic_stack(4, 0.8)
    eq = equilibrium(scene, find_interfaces(scene))
    thetas = [0.1, 1.7, 3.0, 4.4, 5.9]
    paired = cone.ConeProblem(eq).supports(thetas)
    monkeypatch.setattr(cone, "THREADS", 1)
    alone = [cone.ConeProblem(eq).support(t) for t in thetas]
    for (h, a, _), (h1, a1, _) in zip(paired, alone):
        assert h == h1 and np.array_equal(a, a1)  # no warm start: the same numbers whoever solves them


def test_the_lowest_directions_are_distinct_minima_of_the_lower_bound():
    from sim.statics.planar import lowest_bound, lowest_directions

    points = np.array([[1.0, 0.0], [0.0, 2.0], [-3.0, 0.0], [0.0, -1.5]])
    first, second = lowest_directions(points, 2)
    assert first == pytest.approx(lowest_bound(points)[0])
    assert abs(math.remainder(first - second, 2 * math.pi)) > 0.02
    assert lowest_directions(points, 2, taken=[first])[0] == pytest.approx(second)
    assert tol.direction_apart < 0.02
    angles = np.array([first, second])
    bounds = (np.column_stack([np.cos(angles), np.sin(angles)]) @ points.T).max(axis=1)
    between = float(bounds.mean())  # the first minimum lies below it, the second above
    assert lowest_directions(points, 2, below=between) == [first]  # a minimum the proof reaches is not asked for
    assert lowest_directions(points, 2, below=float(bounds.min())) == []


def test_the_support_programs_velocities_are_of_order_one_whatever_the_weight():
    """The right-hand side is scaled by the structure's weight, so the mechanism's velocities are of order one
    (unscaled, a unit d spread over n bodies gives velocities about 1/n: the solver took more iterations)."""
    import clarabel

    for n in (2, 12, 20):
        scene = harmonic_stack(n, 0.8)
        eq = equilibrium(scene, find_interfaces(scene))
        programs = cone.SupportPrograms(cone.ConeProblem(eq))
        assert programs.load == pytest.approx(n)  # n equal bodies, forces scaled by the mean weight
        cones = [clarabel.SecondOrderConeT(3)] * programs.k + [clarabel.NonnegativeConeT(4)]
        solver = clarabel.DefaultSolver(sp.csc_array((programs.n, programs.n)), programs.cost, programs.matrix,
                                        programs.rhs(0.3), cones, cone._settings(cone.SUPPORT_GAP))
        y = np.asarray(solver.solve().x)[:-2]
        assert 0.5 < np.abs(y).max() < 5.0  # unscaled: 0.15 for n = 12
        h, _, _ = programs.solve(0, 0.3)
        lp = Problem(eq)
        lp.start_margin()
        assert h == pytest.approx(lp.support(0.3)[0], rel=1e-5, abs=1e-7)


def test_a_program_that_does_not_end_solved_is_solved_again_with_iterative_refinement(monkeypatch):
    scene = harmonic_stack(3, 0.7)
    eq = equilibrium(scene, find_interfaces(scene))
    want = [cone.ConeProblem(eq).support(t) for t in (0.4, 2.0)]
    want_help = cone.ConeProblem(eq).least_help()
    settings = cone._settings
    refined = []

    def starved(gap, refine=False):
        """One iteration only without refinement: never solved, so every answer comes from the second solve."""
        s = settings(gap, refine)
        if not refine:
            s.max_iter = 1
        refined.append(refine)
        return s

    monkeypatch.setattr(cone, "_settings", starved)
    problem = cone.ConeProblem(eq)
    for (h, a, _), t in zip(want, (0.4, 2.0)):
        h2, a2, exact = problem.support(t)
        assert exact and h2 == pytest.approx(h, rel=1e-6) and np.allclose(a2, a, atol=1e-6)
    assert np.allclose(problem.least_help(), want_help, atol=1e-7)
    assert True in refined


def test_a_structure_without_contacts_is_left_to_the_lp_even_on_the_cone_path(cone_path):
    """A piece in the air has no contact point: no cone program can be posed for it (the LP says it falls)."""
    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": [
        {"id": "air", "kind": "box", "size": [10, 10, 10], "pos": [0, 0, 50]},
        {"id": "ground", "kind": "box", "size": [10, 10, 10], "pos": [0, 0, 5]}]})
    r = analyze(scene)
    assert not r.feasible and r.unheld == ("air",)


class _Ellipse:
    """A stand-in for a structure's cone programs: A is an ellipse off the origin (round: no edge), its h and
    maximisers in closed form, each call of ``supports`` one round of the search."""

    def __init__(self, centre, axes):
        self.centre, self.axes, self.rounds = np.array(centre), np.array(axes), []

    def start_margin(self):
        pass

    def supports(self, thetas, above=math.inf):
        self.rounds.append(list(thetas))
        out = []
        for t in thetas:
            d = np.array([math.cos(t), math.sin(t)])
            a = self.centre + self.axes ** 2 * d / np.linalg.norm(self.axes * d)
            out.append((float(a @ d), a, True))
        return out

    def support(self, theta, enough=math.inf):
        return self.supports([theta])[0]

    def margin(self):
        t = np.linspace(0.0, 2 * math.pi, 200001)
        d = np.column_stack([np.cos(t), np.sin(t)])
        return float((d @ self.centre + np.linalg.norm(d * self.axes, axis=1)).min())


class _Leans:
    """The tilted-gravity test of a structure that leans on its neighbours: vertical forces alone never hold it."""

    def holds(self, *args, **kwargs):
        return False


@pytest.mark.parametrize(("centre", "axes", "rounds"), [((-0.3, -0.1), (1.0, 0.5), 5), ((-0.2, -0.3), (1.0, 0.7), 4)])
def test_a_round_with_a_direction_to_spare_takes_the_edge_step_beside_it(monkeypatch, centre, axes, rounds):
    """Where one minimum of the lower bound is left to evaluate, the edge step goes beside it on the other worker
    instead of in a round of its own after the search (one round fewer: 6 → 5 and 5 → 4 here; the Armadillo
    vault's 6 → 5), and, A being round, no edge step follows it: the margin within the precision, as before."""
    monkeypatch.setattr(search, "ConeProblem", _Ellipse)
    monkeypatch.setattr(search, "_closed_form", lambda eq, tilt: (None, 0.0, None))
    shape = _Ellipse(centre, axes)
    found = search.search(None, shape, math.inf, _Leans())
    assert len(shape.rounds) == rounds
    assert len(shape.rounds[-1]) == 2  # the last minimum and the edge step: no round of one direction after
    edge = shape.rounds[-1][1]
    assert abs(math.remainder(edge - found.theta, 2 * math.pi)) <= search.EDGE_ANGLE  # by the margin's direction
    assert found.lower()[1] <= shape.margin() <= found.upper <= shape.margin() + search.precision(shape.margin())


@pytest.fixture(scope="module")
def leaning_bridge(tmp_path_factory):
    """compas_cra's bridge sample (16 blocks on two supports, leaning on each other: the feasibility is a cone
    program on the cone path, whose forces hold it strictly inside every cone)."""
    from tests.test_assemblies_samples import KEPT, imported_scene

    return imported_scene(next(c for c in KEPT if c["case"] == "bridge"), tmp_path_factory.mktemp("bridge"))


def test_an_iterate_cut_short_is_made_a_proven_point_of_a(leaning_bridge):
    """Three iterations in, the multipliers balance the loads only to 0.3–5 (the weights are about 1);
    balanced (the least weighted change, then mixed with the forces that hold it under gravity) they meet
    the equations to 1e-8, every force inside its cone: the acceleration they hold is withstood, short of h."""
    import clarabel

    eq = equilibrium(leaning_bridge, find_interfaces(leaning_bridge))
    problem = cone.ConeProblem(eq)
    assert problem.least_help().max() < tol.unheld_slack and problem._interior is not None
    programs = cone.SupportPrograms(problem, problem._interior)
    for theta in (0.0, 2.0, 4.0):
        h, _, exact = programs.solve(0, theta)
        assert exact
        cones = [clarabel.SecondOrderConeT(3)] * programs.k + [clarabel.NonnegativeConeT(4)]
        solver = clarabel.DefaultSolver(sp.csc_array((programs.n, programs.n)), programs.cost, programs.matrix,
                                        programs.rhs(theta), cones, cone._settings(cone.SUPPORT_GAP))
        solver.set_termination_callback(lambda info: info.iterations >= 3)
        iterate = np.asarray(solver.solve().z)
        z = cone._balanced(programs, iterate)
        residual = lambda z: np.abs(programs.matrix.T @ z + programs.cost).max()  # noqa: E731
        assert residual(iterate) > 1e-4 and residual(z) < 1e-8
        assert (cone._cone_margin(z[:3 * programs.k].reshape(-1, 3)) >= 0.0).all() and (z[3 * programs.k:] >= 0).all()
        a = cone._acceleration(z[3 * programs.k:])
        assert 0.8 * h < np.array([math.cos(theta), math.sin(theta)]) @ a <= h + 1e-9


def test_directions_past_the_margin_found_are_cut_short_and_the_margin_stays(cone_path, leaning_bridge, monkeypatch):
    """On a structure that leans (the forces that hold it under gravity known), the programs of directions whose
    h passes the margin found stop early and give a proven point (flagged not exact): fewer iterations, the
    same margin and direction (the Armadillo vault: 12 % less CPU)."""
    done = []
    solve = cone.SupportPrograms.solve

    def counted(self, worker, theta, above=math.inf):
        out = solve(self, worker, theta, above)
        done.append(out[2])
        return out

    monkeypatch.setattr(cone.SupportPrograms, "solve", counted)
    cut = analyze(leaning_bridge)
    assert done.count(False) >= 2  # cut short
    monkeypatch.setattr(cone, "CUT_RESIDUAL", 0.0)  # never
    done.clear()
    whole = analyze(leaning_bridge)
    assert all(done)
    assert cut.margin_g == pytest.approx(whole.margin_g, rel=1e-6)
    assert cut.weakest_direction_deg == pytest.approx(whole.weakest_direction_deg, abs=1e-6)
    assert cut.margin_g - cut.margin_bounds[0] <= search.precision(cut.margin_g)
