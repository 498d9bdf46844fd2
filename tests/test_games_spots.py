"""Where the legal lists look for places on continuous tops (sim.games.play.spots): spread over the whole of the
free part of a top, what stands on it cut away."""

from __future__ import annotations

import numpy as np
import pytest
from shapely.geometry import Point, box

from sim.games.play.spots import Top, free_tops, spread
from sim.games.registry import new_state


def test_a_spread_reaches_over_the_whole_shape_not_only_round_its_centre():
    square = box(-0.14, -0.14, 0.14, 0.14)
    points = np.array(spread(square, 0.024, 16))
    assert len(points) == 16 and tuple(points[0]) == (0.0, 0.0)
    assert all(square.contains(Point(*p)) for p in points)
    span = points.max(axis=0) - points.min(axis=0)
    assert np.all(span > 0.5 * 0.28), span  # the nearest 15 at 24 mm would span under 0.1 m


def test_a_spread_keeps_out_of_holes_and_gives_the_fine_lattice_when_it_has_room():
    ring = box(-0.14, -0.14, 0.14, 0.14).difference(box(-0.06, -0.06, 0.06, 0.06))
    points = spread(ring, 0.02, 12)
    assert len(points) == 12 and all(ring.contains(Point(*p)) for p in points)
    small = box(-0.03, -0.03, 0.03, 0.03)
    assert len(spread(small, 0.02, 100)) == 9  # a 3 x 3 lattice at the step itself
    assert spread(small, 0.02, 1) == [(0.0, 0.0)]
    assert spread(small.difference(small), 0.02, 5) == []


def test_free_tops_cut_away_what_stands_on_a_top_grown_by_the_clearance():
    state = new_state("tohuwabohu", "basic", ["ann", "bob"], 3)
    level = state.scene().piece("level-quad-1").moved((0.0, 0.0, 0.0015), (0.0, 0.0, 0.0, 1.0))
    above = state.scene().piece("small-red-1").moved((0.0, 0.0, 0.05), (0.0, 0.0, 0.0, 1.0))  # not on the board
    area = Top("board", 0.0, box(-0.14, -0.14, 0.14, 0.14))
    (cut,) = free_tops([area], [level, above], 0.01)
    assert not cut.shape.contains(Point(0.0, 0.0)) and not cut.shape.contains(Point(0.065, 0.0))  # the level +10 mm
    assert cut.shape.contains(Point(0.075, 0.0)) and cut.shape.area == pytest.approx(0.28 ** 2 - 0.14 ** 2, rel=0.02)
    assert free_tops([Top("board", 0.0, box(-0.05, -0.05, 0.05, 0.05))], [level], 0.01) == []  # all built over


def test_tohuwabohus_area_is_listed_round_a_level_built_in_its_middle():
    state = new_state("tohuwabohu", "basic", ["ann", "bob"], 3)
    step = state.apply({"action": "place", "piece": "level-quad-1", "pose": [0.0, 0.0, 0.0015, 0.0, 0.0, 0.0, 1.0]})
    assert step.accepted
    found = step.state.legal_placements("figure-red-1")
    area = [p for p in found if p.rule == "area"]
    assert len(area) >= 8 and {p.rule for p in found} == {"area", "level", "figure-point"}
    assert all(max(abs(p.pose[0]), abs(p.pose[1])) > 0.06 for p in area)  # off the level, all round it
    xs, ys = np.array([p.pose[0] for p in area]), np.array([p.pose[1] for p in area])
    assert xs.min() < -0.06 and xs.max() > 0.06 and ys.min() < -0.06 and ys.max() > 0.06
