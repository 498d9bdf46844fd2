"""The tilted-gravity test (forces along the tilted vertical) against the closed forms of a box on the board."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.contact import find_interfaces
from sim.scene import from_dict
from sim.statics.model import equilibrium
from sim.statics.search import lowest_bound
from sim.statics.tilt import COARSE_POINTS, DISC_POINTS, TiltTest, tilt_points

MU = 0.5  # a generic box on the free scene's board


def _box_test(size, warm=None):
    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": [
        {"id": "box", "kind": "box", "size": list(size), "pos": [0.0, 0.0, size[2] / 2]}]})
    return TiltTest(equilibrium(scene, find_interfaces(scene)), warm)


@pytest.mark.parametrize(("alpha", "held"), [
    ((0.0, 0.0), True),
    ((0.24, 0.0), True), ((0.26, 0.0), False),  # tips over its 20 mm side at half-width / com height = 10 / 40
    ((0.0, 0.49), True), ((0.0, 0.51), False),  # its 60 mm side would tip at 30 / 40 = 0.75: it slides at μ first
    ((0.2, 0.45), True), ((0.2, 0.47), False),  # inside both, but |α| = 0.492 and 0.511 against μ = 0.5
])
def test_a_box_holds_while_the_tilted_vertical_through_its_centre_meets_its_base_inside_the_friction_cone(
        alpha, held):
    test = _box_test((20, 60, 80))
    assert test.holds(np.array(alpha)) is held


def test_a_tipping_box_is_proven_on_the_wider_polygon_alone():
    test = _box_test((20, 20, 80))  # tips at 10 / 40 = 0.25 in x and y, slides only at 0.5
    goal = 0.249
    points = tilt_points(test, 0.25, 0.0, goal)
    assert len(points) == COARSE_POINTS  # its corners reach 0.25 · √2: every wide point lies inside
    assert lowest_bound(np.array(points))[1] == pytest.approx(goal, rel=1e-9)


def test_a_sliding_box_falls_back_to_the_circle_just_inside_its_margin():
    test = _box_test((60, 60, 20))  # slides at μ = 0.5 in every direction before it tips (at 1.5)
    points = tilt_points(test, MU, 0.3, 0.497)
    assert len(points) == DISC_POINTS  # the wider points lie outside the friction cone: the circle instead
    assert lowest_bound(np.array(points))[1] == pytest.approx(MU * (1 - 1e-4) * math.cos(math.pi / DISC_POINTS))


def test_the_public_linprog_fallback_gives_the_same_answers():
    warm, cold = _box_test((20, 60, 80)), _box_test((20, 60, 80), warm=False)  # cold: as with a scipy without
    assert warm.warm and not cold.warm  # HiGHS's own object
    for alpha in ((0.0, 0.0), (0.24, 0.0), (0.26, 0.0), (0.2, 0.45), (0.2, 0.47), (-0.1, -0.3)):
        assert warm.holds(np.array(alpha)) == cold.holds(np.array(alpha))
