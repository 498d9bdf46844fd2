"""The closed-form block bounds: tipping and sliding against box and stack closed forms, walls, and the LP."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sim.cases import HARMONIC_BLOCK, harmonic_stack
from sim.statics import analyze
from sim.statics.blocks import block_bounds
from sim.statics.planar import hull_edges, lowest_bound
from sim.statics.problem import Problem
from tests.helpers import box_record, equilibrium_of, free_scene


def tip_bound(eq):
    return block_bounds(eq).tip


@pytest.mark.parametrize(("size", "bound", "deg"), [
    ((20, 40, 80), 10 / 40, 0.0),  # across its narrow side; +x and -x tie: the first from +x
    ((40, 20, 80), 10 / 40, 90.0),
    ((60, 20, 80), 10 / 40, 90.0),
])
def test_a_box_on_the_board_tips_at_half_its_width_over_its_centre_height(size, bound, deg):
    found = tip_bound(equilibrium_of(free_scene(box_record("box", size, (0, 0, size[2] / 2)))))
    assert found[0] == pytest.approx(bound, rel=1e-12)
    assert math.degrees(found[1]) == pytest.approx(deg, abs=1e-9)


def test_a_box_that_slides_before_it_tips_has_only_its_sliding_bound():
    flat = box_record("box", (60, 60, 20), (0, 0, 10))  # tips at 3 g, slides at μ = 0.5
    found = block_bounds(equilibrium_of(free_scene(flat)))
    assert found.tip is None and found.slide == pytest.approx(0.5, rel=1e-9)


def test_the_upper_box_of_two_slides_at_the_lower_friction_between_them():
    lower = box_record("lower", (60, 60, 20), (0, 0, 10))
    upper = box_record("upper", (40, 40, 10), (0, 0, 25), friction=0.2)  # on the lower box: √(0.2 · 0.5)
    found = block_bounds(equilibrium_of(free_scene(lower, upper)))
    assert found.slide == pytest.approx(math.sqrt(0.2 * 0.5), rel=1e-9)


def test_a_layer_of_boxes_side_by_side_slides_as_one_on_the_layer_below():
    lower = box_record("lower", (100, 40, 20), (0, 0, 10))
    left = box_record("left", (40, 40, 10), (-20, 0, 25), friction=0.2)  # the two touch: neither slides alone
    right = box_record("right", (40, 40, 10), (20, 0, 25), friction=0.2)
    scene = free_scene(lower, left, right)
    assert block_bounds(equilibrium_of(scene)).slide == pytest.approx(math.sqrt(0.2 * 0.5), rel=1e-9)
    r = analyze(scene)
    assert r.lp_solves == 0 and r.margin_g == pytest.approx(math.sqrt(0.2 * 0.5), rel=5e-3)


def test_a_box_touching_a_wall_has_no_sliding_bound_of_its_own():
    box = box_record("box", (40, 40, 20), (0, 0, 10))
    wall = box_record("wall", (20, 40, 60), (30, 0, 30), fixed=True)
    assert block_bounds(equilibrium_of(free_scene(box, wall))).slide == math.inf  # the wall contact is not in its base


def test_a_fixed_wall_on_one_side_blocks_tipping_towards_it():
    box = box_record("box", (20, 40, 80), (0, 0, 40))
    wall = box_record("wall", (20, 40, 60), (20, 0, 50), fixed=True)  # against the upper three quarters of its +x face
    scene = free_scene(box, wall)
    found = tip_bound(equilibrium_of(scene))
    assert found[0] == pytest.approx(10 / 40, rel=1e-12)
    assert math.degrees(found[1]) == pytest.approx(180.0, abs=1e-9)  # away from the wall, the face lifting off it
    assert analyze(scene).margin_g <= found[0] + 1e-9


def test_a_wall_down_to_the_board_holds_the_face_that_would_scrape_up_it():
    # turning away, the face's lowest points slide up the wall without leaving it: friction can resist that
    box = box_record("box", (20, 40, 80), (0, 0, 40))
    wall = box_record("wall", (20, 40, 100), (20, 0, 50), fixed=True)
    assert tip_bound(equilibrium_of(free_scene(box, wall))) is None


def test_a_box_jammed_under_a_fixed_beam_cannot_tip_at_all():
    scene = free_scene(box_record("box", (20, 20, 20), (0, 0, 10)),
                       box_record("beam", (200, 40, 20), (0, 0, 30), fixed=True))
    assert tip_bound(equilibrium_of(scene)) is None


@pytest.mark.parametrize("n", [2, 5, 12])
def test_a_harmonic_stack_tips_at_its_closed_form_margin(n):
    scale = 0.97
    length, _, height = HARMONIC_BLOCK
    found = tip_bound(equilibrium_of(harmonic_stack(n, scale)))
    assert found[0] == pytest.approx((1 - scale) * length / (n * height), rel=1e-9)
    assert math.degrees(found[1]) == pytest.approx(0.0, abs=1e-9)  # off the table edge, towards +x


def test_a_block_that_tips_or_slides_needs_no_lp_for_its_margin_and_one_against_a_wall_does():
    tips = analyze(harmonic_stack(4, 0.95))
    assert tips.lp_solves == 0 and tips.margin_g == pytest.approx(0.05 * 200 / (4 * 20), rel=1e-9)
    slides = analyze(free_scene(box_record("box", (40, 40, 20), (0, 0, 10))))  # tips at 2 g, slides at μ = 0.5
    assert slides.lp_solves == 0 and slides.margin_g == pytest.approx(0.5, rel=5e-3)  # proven round the disc
    leans = analyze(free_scene(box_record("box", (40, 40, 20), (0, 0, 10)),
                               box_record("wall", (20, 40, 60), (30, 0, 30), fixed=True)))
    assert leans.lp_solves > 0  # the wall: no block bound of its own, the LP search


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.floats(-12, 12), st.floats(-8, 8), st.floats(10, 40)), min_size=1, max_size=3),
       st.floats(0.0, 360.0))
@example(layers=[(0.0, -2.0, 27.0), (1.0, 0.0, 10.0), (-6.0, 0.0, 26.0)], turn=18.90625)  # 1.05e-8 past: the LP's
def test_the_tipping_bound_is_never_below_what_the_lp_withstands_in_its_direction(layers, turn):
    pieces, z = [], 0.0
    for k, (dx, dy, h) in enumerate(layers):
        pieces.append(box_record(f"b{k}", (40, 30, h), (dx, dy, z + h / 2)))
        z += h
    rot = [0.0, 0.0, turn]
    scene = free_scene(*({**p, "rot": rot, "pos": _turned(p["pos"], turn)} for p in pieces))
    eq = equilibrium_of(scene)
    found = tip_bound(eq)
    if found is None or not analyze(scene, margin=False).feasible:
        return
    problem = Problem(eq)
    problem.start_margin()
    _, alpha, _ = problem.support(found[1])
    direction = np.array([math.cos(found[1]), math.sin(found[1])])
    # every withstood acceleration lies inside the half-plane, to the LP's feasibility tolerance (HiGHS: 1e-7 on
    # its rows; a tower of three turned 18.9 degrees reached 1.05e-8 past it)
    assert alpha @ direction <= found[0] + 1e-7


def _turned(pos, deg):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return [c * pos[0] - s * pos[1], s * pos[0] + c * pos[1], pos[2]]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(-1, 1), st.floats(-1, 1)), min_size=3, max_size=12))
def test_hull_edges_come_nearest_the_origin_where_the_support_function_is_least(coords):
    pts = np.array(coords) + np.array([[3.0, 0.0], [-3.0, 2.0], [-3.0, -2.0]] + [[0.0, 0.0]] * (len(coords) - 3))
    group = np.repeat([0, 1], len(pts))  # the same points twice: two groups, found alike
    owner, theta, dist = hull_edges(np.vstack([pts, pts]), group)
    angle, value = lowest_bound(pts)
    for g in (0, 1):
        k = np.flatnonzero(owner == g)[np.argmin(dist[owner == g])]
        assert dist[k] == pytest.approx(value, abs=1e-9)
        d = np.array([math.cos(theta[k]), math.sin(theta[k])])
        assert (pts @ d).max() == pytest.approx(value, abs=1e-9)  # an edge where the minimum lies


def test_the_lp_search_starts_across_the_least_tipping_bound_where_the_tilted_gravity_proof_falls_short(monkeypatch):
    ice = box_record("ice", (200, 200, 10), (0, 0, 5), fixed=True, friction=0.01)
    base = box_record("base", (60, 60, 20), (0, 0, 20))  # slides on the ice at √(0.01 · 0.5) = 0.071
    wall = box_record("wall", (20, 60, 20), (40, 0, 20), fixed=True)  # beside it: no sliding bound of its own
    top = box_record("top", (40, 20, 80), (0, 0, 70))  # would tip across y at 10 / 40 = 0.25
    scene = free_scene(ice, base, wall, top)
    assert block_bounds(equilibrium_of(scene)).tip == pytest.approx((0.25, math.pi / 2), rel=1e-9)
    directions = []
    support = Problem.support

    def spy(self, theta, *args, **kwargs):
        directions.append(math.degrees(theta) % 360.0)
        return support(self, theta, *args, **kwargs)

    monkeypatch.setattr(Problem, "support", spy)
    r = analyze(scene)
    assert directions[0] == pytest.approx(90.0, abs=1e-9)  # the tipping bound's direction, not 0°
    assert r.margin_g == pytest.approx(math.sqrt(0.01 * 0.5), rel=5e-3)  # the base slides on the ice first


def test_a_tipping_bound_just_below_the_sliding_one_caps_the_margin_the_lp_search_finds():
    # tips at 10 / 20.1 = 0.4975 g, slides at 0.5: the proof's points lie beyond the friction cone, so the LP
    # searches, and would stop at the sliding bound, 0.5 % above; the tipping bound is the tighter answer
    box = box_record("box", (20, 60, 40.2), (0, 0, 20.1))
    r = analyze(free_scene(box))
    assert r.lp_solves > 0
    assert r.margin_g == pytest.approx(10 / 20.1, rel=1e-9)
    assert r.weakest_direction_deg == pytest.approx(0.0, abs=1e-9)  # across its narrow side, the first from +x


def test_a_base_on_a_sloped_contact_gets_no_sliding_bound_even_where_its_points_are_level():
    from sim.statics.model import Equilibrium

    a = math.radians(10.0)
    n = np.array([math.sin(a), 0.0, math.cos(a)])  # a line contact along y on a plank tilted about y
    t = np.array([[0.0, 1.0, 0.0], np.cross(n, [0.0, 1.0, 0.0])])
    eq = Equilibrium(("edge",), np.array([0.1]), np.array([[0.0, 0.0, 0.05]]),
                     np.array([[0.0, -0.02, 0.0], [0.0, 0.02, 0.0]]), np.array([n, n]), np.array([t, t]),
                     np.array([0.5, 0.5]), np.array([-1, -1]), np.array([0, 0]), np.array([0, 0]), 0.1, 1.0)
    assert block_bounds(eq).slide == math.inf  # on a slope the rise a slide needs is not μ
