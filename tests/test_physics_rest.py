"""Rest and sleep: structures at rest are reported settled and fall asleep; moving ones are not and do not."""

from __future__ import annotations

import numpy as np
import pytest

from sim.cases import block_on_slope, cube_tower, friction_angle, harmonic_stack, talo_balance
from sim.contact import find_interfaces
from sim.geometry.transforms import tilt_angle
from sim.physics import TUNED, World, check, simulate
from sim.physics.verdict import precision_for, support_depth
from sim.scene import load_scene
from tests.helpers import SCENES
from tests.test_physics_world import box, scene

NOBLE = {"id": "noble", "kind": "babylon.noble", "size": "small", "color": "red", "pos": [0, 0, 9]}


def test_a_noble_alone_on_the_board_comes_to_rest():
    """Its 24-sided base clipped against the board churned Bullet's 4-point manifold (0.6 rad/s of rocking)."""
    t = simulate(scene(NOBLE, game="babylon"), 1.0, TUNED.with_(sleeping=False), probe_direction_deg=30.0)
    assert t.settled and t.moved == []


@pytest.mark.parametrize("inside", [True, False])
def test_a_pawn_at_a_block_edge_stands_or_tips_as_the_statics_say(inside):
    """Round bases get GJK contacts: a pawn 2 mm inside an edge stands, 2 mm beyond it tips, both methods agreeing."""
    pawn = {"id": "pawn", "kind": "talo.pawn", "color": "red", "pos": [20.0 + (-2.0 if inside else 2.0), 0, 36.0]}
    s = scene(box("block", (0, 0, 10), (40, 40, 20)), pawn, board="table")
    r = check(s)
    assert r.stable is inside and r.disagreement is None, r.to_json()


@pytest.mark.parametrize("name", ["talo/bridge.json", "free/cube-tower.json",
                                  pytest.param("babylon/tactical-example.json", marks=pytest.mark.slow)])
def test_example_scenes_at_rest_are_reported_settled(name):
    r = check(load_scene(SCENES / name))
    assert r.stable and r.dynamics.settled and r.dynamics.max_displacement_mm < 0.05, r.to_json()["dynamics"]


@pytest.mark.parametrize("make", [lambda: block_on_slope(friction_angle(0.5) * 1.1), lambda: talo_balance(10)],
                         ids=["sliding", "tipping"])
def test_a_structure_still_moving_at_the_end_is_not_settled(make):
    r = check(make(), seconds=0.8)
    assert not r.dynamics.settled and r.dynamics.moved


def settled_world(s, direction=0.0, seconds=1.0):
    w = World(s)
    w.set_probe(TUNED.probe_g, direction)
    w.step(int(round(seconds / w.settings.dt)))
    return w


def test_a_structure_at_rest_falls_asleep_and_stays_exactly_put():
    with settled_world(cube_tower(4)) as w:
        assert w.asleep() == w.ids
        before = w.poses()
        w.step(480)
        assert np.array_equal(w.poses(), before) and not w.velocities().any()


def test_a_knife_edge_tips_before_it_sleeps():
    """The probe moves a balanced 10-block (margin 0) past tol.sleep_distance long before tol.sleep_window."""
    with World(talo_balance(10)) as w:
        w.set_probe(TUNED.probe_g, 0.0)
        while "beam" not in w.asleep() and w.time < 3.0:
            w.step(8)
        start = np.asarray(w.scene.piece("beam").quat)[None]
        assert np.degrees(tilt_angle(start, w.pose("beam")[None, 3:])[0]) > 15.0, w.time  # knocked over first


def test_with_a_turning_probe_an_island_sleeps_only_after_a_whole_turn():
    with World(cube_tower(3)) as w:
        w.set_probe(TUNED.probe_g, None)
        w.step(int(round(1.9 / w.settings.dt)))
        assert w.asleep() == []
        w.step(int(round(0.5 / w.settings.dt)))
        assert w.asleep() == w.ids


def test_a_sleeping_island_wakes_when_something_lands_on_it_and_another_sleeps_on():
    """A box dropped from 1.8 m reaches a tower asleep since 0.5 s; a tower beside it is not in its island."""
    s = scene(box("a1", (0, 0, 10)), box("a2", (0, 0, 30)), box("far", (300, 0, 10)), box("drop", (5, 0, 1850)))
    with World(s) as w:
        w.set_probe(TUNED.probe_g, 0.0)
        w.step(264)  # 0.55 s: the towers asleep, the box still falling
        assert w.asleep() == ["a1", "a2", "far"]
        before = w.pose("a2")
        w.step(240)
        assert np.linalg.norm(w.pose("a2")[:3] - before[:3]) > 1e-3  # knocked by a box at 6 m/s
        assert "far" in w.asleep() and "a2" not in w.asleep()


def test_a_push_wakes_a_sleeping_world():
    with settled_world(cube_tower(1)) as w:
        assert w.asleep() == ["c0"]
        w.push("c0", (0.2, 0.0, 0.0))
        w.step(48)
        assert w.asleep() == [] and w.pose("c0")[0] - w.scene.piece("c0").pos[0] > 2e-3  # 4 mm, as friction allows


def test_support_depth_counts_the_movable_pieces_a_weight_passes_through():
    for s, depth in ((cube_tower(10), 10), (harmonic_stack(5, 0.98), 5), (talo_balance(3), 2),
                     (scene(box("a", (0, 0, 10)), box("b", (40, 0, 10))), 1)):
        assert support_depth(s, find_interfaces(s)) == depth


def test_deep_stacks_get_a_finer_solver_than_their_margin_alone_asks_for():
    shallow, deep = precision_for(0.1), precision_for(0.1, depth=10)
    assert deep[0] < shallow[0] and deep[1] > shallow[1]
    assert precision_for(0.1, depth=3) == shallow  # below 6 levels the margin decides alone
