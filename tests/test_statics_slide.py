"""The whole-structure sliding bound of the support function against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.cases import block_on_slope
from sim.contact import find_interfaces
from sim.statics import analyze
from sim.statics.model import equilibrium
from sim.statics.slide import slide_bound
from sim.tol import tol
from tests.helpers import box_record, equilibrium_of, free_scene

BOARD_MU = 0.5  # the free scene's board and a generic box



def _bound(scene, deg: float) -> float:
    return slide_bound(equilibrium_of(scene), math.radians(deg))



@pytest.mark.parametrize("deg", [0.0, 37.0, 90.0, 200.0, 315.0])
def test_a_box_on_the_level_board_is_bounded_by_its_contacts_mu_in_every_direction(deg):
    scene = free_scene(box_record("box", (40, 30, 20), (0, 0, 10), friction=0.2))
    assert _bound(scene, deg) == pytest.approx(math.sqrt(0.2 * BOARD_MU), rel=1e-9)


def test_a_stack_of_two_boxes_is_bounded_by_the_bottom_contacts_mu():
    scene = free_scene(box_record("low", (40, 40, 20), (0, 0, 10), friction=0.2),
                   box_record("high", (40, 40, 20), (0, 0, 30), friction=0.8))
    # between the boxes μ = √(0.2 · 0.8) = 0.4; on the board √(0.2 · 0.5) ≈ 0.316: the whole stack slides there
    for deg in (0.0, 45.0, 160.0):
        assert _bound(scene, deg) == pytest.approx(math.sqrt(0.2 * BOARD_MU), rel=1e-9)


def test_a_block_on_a_slope_is_bounded_by_the_tangent_of_the_friction_angle_less_or_plus_the_slope():
    angle = 10.0
    phi = math.atan(BOARD_MU)
    scene = block_on_slope(angle)  # the plank descends towards +x
    assert _bound(scene, 0.0) == pytest.approx(math.tan(phi - math.radians(angle)), rel=1e-9)
    assert _bound(scene, 180.0) == pytest.approx(math.tan(phi + math.radians(angle)), rel=1e-9)


def test_a_box_against_a_fixed_wall_is_unbounded_towards_the_wall_and_slides_away_from_it():
    scene = free_scene(box_record("box", (20, 20, 20), (0, 0, 10)),
                   box_record("wall", (20, 40, 60), (20, 0, 30), fixed=True))
    assert _bound(scene, 0.0) == math.inf  # pushed into the wall: no sliding mechanism
    assert _bound(scene, 180.0) == pytest.approx(BOARD_MU, rel=1e-9)


def test_a_box_under_a_fixed_beam_cannot_slide_up_and_out():
    # jammed between the board and a fixed piece on top: no translation opens both contacts
    scene = free_scene(box_record("box", (20, 20, 20), (0, 0, 10)),
                       box_record("beam", (200, 40, 20), (0, 0, 30), fixed=True))
    assert _bound(scene, 0.0) == math.inf


def test_no_supports_means_no_bound():
    scene = free_scene(box_record("cloud", (20, 20, 20), (0, 0, 50)))
    assert _bound(scene, 0.0) == math.inf


def test_the_bound_is_never_below_the_margin_found():
    scene = free_scene(box_record("low", (40, 40, 20), (0, 0, 10), friction=0.2),
                   box_record("high", (40, 40, 20), (0, 0, 30), friction=0.8))
    r = analyze(scene)
    assert r.margin_g <= _bound(scene, r.weakest_direction_deg) + 1e-9
    assert r.margin_g == pytest.approx(math.sqrt(0.2 * BOARD_MU), rel=1e-6)  # the bound closes the search exactly


def test_the_top_box_of_a_stack_sliding_alone_is_bounded_by_the_contact_between_the_boxes():
    scene = free_scene(box_record("low", (40, 40, 20), (0, 0, 10), friction=0.8),
                   box_record("high", (40, 40, 20), (0, 0, 30), friction=0.2))
    eq = equilibrium_of(scene)
    top = np.array([body == "high" for body in eq.bodies])
    assert slide_bound(eq, 0.3, top) == pytest.approx(math.sqrt(0.2 * 0.8), rel=1e-9)  # 0.4
    assert slide_bound(eq, 0.3) == pytest.approx(math.sqrt(0.8 * BOARD_MU), rel=1e-9)  # the whole stack: 0.632
    r = analyze(scene)  # the top box slides first: its mechanism's bound closes the search
    assert r.margin_g == pytest.approx(0.4, rel=1e-6)
    assert r.margin_bounds[0] >= 0.4 * (1 - tol.margin_precision_rel)


@pytest.mark.parametrize("deg", [0.0, 20.0, 180.0])
def test_the_least_admissible_rise_is_the_same_however_many_candidates_are_checked_at_once(monkeypatch, deg):
    eq = equilibrium(block_on_slope(20.0), find_interfaces(block_on_slope(20.0)))
    whole = slide_bound(eq, math.radians(deg))
    monkeypatch.setattr("sim.statics.slide.CHUNK", 1)  # one at a time: the least root (sinking) is not admissible
    assert slide_bound(eq, math.radians(deg)) == whole
    assert math.isfinite(whole)
