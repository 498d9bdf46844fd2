"""Statics against the rulebooks and the friction angle: Talo's balance rule, a Tohuwabohu plate, a slope."""

from __future__ import annotations

import math

import pytest

from sim.cases import block_on_slope
from sim.scene import from_dict
from sim.statics import analyze
from sim.tol import tol


def _talo(*pieces):
    return from_dict({"format": "towerlab-scene/1", "game": "talo", "pieces": list(pieces)})


def _across_a_standing_block(length: int):
    """A block of ``length`` lying along x on the grid across a standing 2 at field (4, 4).

    Odd lengths are centred on the standing block; even ones cannot be, and
    lie with their centre above the standing block's edge.
    """
    return _talo(
        {"id": "post", "kind": "talo.block", "length": 2, "cell": [4, 4], "layer": 0, "axis": "z"},
        {"id": "beam", "kind": "talo.block", "length": length, "cell": [4 - (length - 1) // 2, 4], "layer": 2,
         "axis": "x"},
    )


@pytest.mark.parametrize("length", [1, 3, 5, 7, 9])
def test_odd_blocks_centred_across_a_standing_block_stand(length):
    r = analyze(_across_a_standing_block(length))
    assert r.feasible and r.stable
    assert r.margin_g > 0.01


@pytest.mark.parametrize("length", [2, 4, 6, 8, 10])
def test_even_blocks_on_the_grid_across_a_standing_block_balance_on_a_knife_edge(length):
    r = analyze(_across_a_standing_block(length))
    assert r.feasible  # exactly balanced: the centre of mass lies over the edge ...
    assert r.margin_g == pytest.approx(0.0, abs=1e-9)  # ... so the least push topples it
    assert not r.stable


def test_an_even_block_shifted_half_a_field_off_the_grid_falls():
    r = analyze(_talo(
        {"id": "post", "kind": "talo.block", "length": 2, "cell": [4, 4], "layer": 0, "axis": "z"},
        {"id": "beam", "kind": "talo.block", "length": 4, "pos": [10.0 + 1.0, -10.0, 50.0]},
    ))
    assert not r.feasible and r.unheld == ("beam",)


def test_the_rulebooks_counterweight_a_four_and_a_one_together_on_a_one_stand():
    post = {"id": "post", "kind": "talo.block", "length": 1, "cell": [4, 4], "layer": 0, "axis": "z"}
    four = {"id": "four", "kind": "talo.block", "length": 4, "cell": [3, 4], "layer": 1, "axis": "x"}
    one = {"id": "one", "kind": "talo.block", "length": 1, "cell": [3, 4], "layer": 2, "axis": "x"}
    alone = analyze(_talo(post, four))
    assert alone.feasible and not alone.stable
    together = analyze(_talo(post, four, one))
    assert together.feasible and together.stable
    # weakest: all three tip over the post's foot; their centre of mass is 1/3 field inside
    # its edge at 1.5 fields (30 mm) high (the pair alone would tip over the post's top at 0.3 / 0.7)
    assert together.margin_g == pytest.approx((1 / 3) / 1.5, rel=1e-6)


def test_a_block_holds_on_a_slope_below_the_friction_angle_and_slides_above():
    friction_angle = math.degrees(math.atan(0.5))
    holds = analyze(block_on_slope(0.9 * friction_angle))
    slides = analyze(block_on_slope(1.1 * friction_angle))
    assert holds.feasible and holds.stable
    assert not slides.feasible and slides.unheld == ("block",)


def test_a_block_on_a_slope_has_the_closed_form_margin_along_the_slope():
    # pushed along the slope's fall line, the block slides once
    # (sin θ + a cos θ) = μ (cos θ - a sin θ), i.e. a = tan(φ - θ); across it the margin is larger
    theta = 10.0
    r = analyze(block_on_slope(theta))
    expected = math.tan(math.atan(0.5) - math.radians(theta))
    assert r.margin_g == pytest.approx(expected, rel=tol.margin_precision_rel)
    # near its minimum the margin is flat in the direction: 10° off changes it by < 0.5 %
    assert min(r.weakest_direction_deg, 360.0 - r.weakest_direction_deg) < 10.0


def _plate_on_a_brick(brick_xy):
    return from_dict({"format": "towerlab-scene/1", "game": "tohuwabohu", "pieces": [
        {"id": "brick", "kind": "tohuwabohu.brick", "size": "small", "color": "red",
         "pos": [brick_xy[0], brick_xy[1], 10.0]},
        {"id": "plate", "kind": "tohuwabohu.level", "shape": "quad", "pos": [0.0, 0.0, 21.5]},
    ]})


def test_a_level_plate_on_one_brick_under_its_centre_stands():
    r = analyze(_plate_on_a_brick((0.0, 0.0)))
    assert r.feasible and r.stable


def test_a_level_plate_on_one_brick_under_its_corner_falls():
    r = analyze(_plate_on_a_brick((40.0, 45.0)))
    assert not r.feasible and r.unheld == ("plate",)
