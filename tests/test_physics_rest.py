"""Rest and sleep: structures at rest are reported settled and fall asleep; moving ones are not and do not."""

from __future__ import annotations

import numpy as np
import pytest

from sim.cases import block_on_slope, cube_tower, friction_angle, harmonic_stack, talo_balance
from sim.cases.arches import Arch, arch_scene
from sim.contact import find_interfaces
from sim.geometry.transforms import tilt_angle
from sim.physics import TUNED, World, check, simulate
from sim.physics.precision import precision_for, span_length, support_depth
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


def test_the_span_of_a_bridge_counts_its_pieces_between_grounded_ones():
    """Gauss-Seidel carries an arch's thrust across its whole span: an arch of 9 voussoirs on fixed abutments is a
    chain of 9, on abutment blocks of 11 (its downward chains are a few pieces deep); a lintel on two posts is 3;
    blocks side by side on the board, each grounded, and a tower make no bridge."""
    for arch, span in ((Arch(9), 9), (Arch(9, abutments="blocks"), 11), (Arch(15, half_angle=70.0), 15)):
        s = arch_scene(arch, turn_deg=33.0)
        assert span_length(s, find_interfaces(s)) == span and support_depth(s, find_interfaces(s)) < 5
    lintel = scene(box("p1", (0, 0, 20), (20, 20, 40)), box("p2", (60, 0, 20), (20, 20, 40)),
                   box("top", (30, 0, 45), (100, 20, 10)))
    assert span_length(lintel, find_interfaces(lintel)) == 3
    row = scene(*(box(f"b{k}", (20 * k, 0, 10)) for k in range(6)))
    assert span_length(row, find_interfaces(row)) == 0
    assert span_length(cube_tower(5), find_interfaces(cube_tower(5))) == 0


def test_a_long_chain_with_a_thin_margin_gets_iterations_by_its_length_not_only_by_its_margin():
    """An arch of 21 voussoirs on blocks (a chain of 23) 0.0106 g from collapse collapsed in the free run with the
    3765 iterations its margin asks for, and with 7000; it stands with 10 000: its length gives it 10 580."""
    by_margin, by_length = precision_for(0.0106), precision_for(0.0106, span=23)
    assert by_margin[1] < 4000 and by_length[1] >= 10000 and by_length[0] == by_margin[0]
    assert precision_for(0.002, span=40)[1] == precision_for(0.002, depth=40)[1] == TUNED.max_iterations
    assert precision_for(0.49, depth=7, span=29) == precision_for(0.49, depth=7)  # a vault: wide margin, long span


def test_deep_stacks_get_a_finer_solver_than_their_margin_alone_asks_for():
    shallow, deep = precision_for(0.1), precision_for(0.1, depth=10)
    assert deep[0] < shallow[0] and deep[1] > shallow[1]
    assert precision_for(0.1, depth=3) == shallow  # below 6 levels the margin decides alone


def test_the_contacts_of_some_pieces_are_those_the_whole_world_reads_for_them():
    """``contact_state(ids=...)`` reads only those pieces' contacts (the live world reads those of the pieces it
    simulates, not the thousands a held vault keeps): each of them touches what the full read says, and what it
    touches has it too."""
    s = cube_tower(4)
    with World(s, TUNED) as w:
        w.step(2)
        whole, some = w.contact_state(), w.contact_state(ids=["c2"])
        assert some["c2"] == whole["c2"] and whole["c2"][0] == {"c1", "c3"} and whole["c2"][1] == {"c1"}
        assert some["c1"] == (frozenset({"c2"}), frozenset()) and some["c3"] == (frozenset({"c2"}), frozenset({"c2"}))
        assert some["c0"] == (frozenset(), frozenset())


def test_a_still_piece_amid_still_neighbours_is_frozen_while_another_moves_and_sleeps_at_rest_after():
    """A long beam slides along a row of four boxes (5 µm apart, one island by their bounding boxes): the boxes
    not beside the beam are made static once still for the window, the one beside it stays movable, and when the
    beam has stopped the island sleeps, every box with its mass back and where it was."""
    from sim.physics.bodies import pb

    row = [box(f"b{k}", (k * 20.005, 0, 10)) for k in range(1, 5)]
    s = scene(box("beam", (0, 0, 10), size=(20, 400, 20)), *row)
    with World(s) as w:
        w.sleep_window, w.freeze_still = 0.1, True
        w.set_probe(TUNED.probe_g, 90.0)  # along the slide: it leaves the row alone
        w.push("beam", (0.0, 1.0, 0.0))
        w.step(int(round(0.15 / w.settings.dt)))
        mass = {i: pb.getDynamicsInfo(w.bodies[i].uid, -1, physicsClientId=w.client)[0] for i in w.ids}
        assert mass["b2"] == mass["b3"] == mass["b4"] == 0.0, mass  # frozen: static where they are
        assert mass["beam"] > 0 and mass["b1"] > 0  # moving, and beside what moves
        held = w.poses(["b2", "b3", "b4"])
        w.step(int(round(0.5 / w.settings.dt)))
        assert w.asleep() == w.ids
        assert all(pb.getDynamicsInfo(w.bodies[i].uid, -1, physicsClientId=w.client)[0] == w.bodies[i].mass
                   for i in w.ids)
        assert np.array_equal(w.poses(["b2", "b3", "b4"]), held)
        assert w.pose("beam")[1] - s.piece("beam").pos[1] > 0.02


def test_without_freezing_the_same_boxes_stay_movable_until_their_island_sleeps():
    from sim.physics.bodies import pb

    row = [box(f"b{k}", (k * 20.005, 0, 10)) for k in range(1, 5)]
    with World(scene(box("beam", (0, 0, 10), size=(20, 400, 20)), *row)) as w:
        w.sleep_window = 0.1
        w.set_probe(TUNED.probe_g, 90.0)
        w.push("beam", (0.0, 1.0, 0.0))
        w.step(int(round(0.15 / w.settings.dt)))
        assert all(pb.getDynamicsInfo(w.bodies[i].uid, -1, physicsClientId=w.client)[0] > 0 for i in w.ids)
