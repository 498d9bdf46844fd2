"""The pybullet world: bodies as the catalogue defines them, friction semantics, boards, errors."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.cases import block_on_slope, friction_angle
from sim.contact import contact_friction
from sim.physics import TUNED, BlowUpError, OverlapError, World, settle
from sim.physics.bodies import GRAVITY, pb, principal_frame
from sim.physics.timeline import simulate
from sim.scene import from_dict


def scene(*pieces, game="free", board=None):
    data = {"format": "towerlab-scene/1", "game": game, "pieces": list(pieces)}
    if board:
        data["board"] = board
    return from_dict(data, "<test>")


def box(pid, pos, size=(20, 20, 20), **extra):
    return {"id": pid, "kind": "box", "size": list(size), "pos": list(pos), **extra}


def test_poses_read_back_by_id_in_si_and_scene_order():
    s = scene(box("a", (0, 0, 10)), {"id": "arch", "kind": "tohuwabohu.arch", "pos": [60, 5, 20], "rot": [0, 0, 30]},
              {"id": "t", "kind": "babylon.tower", "pos": [-50, 0, 10], "rot": [0, 0, 90]}, game="free")
    with World(s) as w:
        assert w.ids == ["a", "arch", "t"]
        np.testing.assert_allclose(w.poses(), s.poses(), atol=1e-12)
        np.testing.assert_allclose(w.pose("arch"), s.piece("arch").pos + s.piece("arch").quat, atol=1e-12)


@pytest.mark.parametrize("array_parts", [16, 0])  # a compound made in place, or a body loaded from a URDF file
def test_a_fixed_turned_block_off_its_centre_of_mass_reads_back_and_moves_where_it_is_put(array_parts):
    # Bullet keeps a static body's centre of mass but not the turn of its principal axes: read through the
    # movable pieces' frame, a fixed hull came back up to 70 mm and 150 degrees away (a vault's supports)
    quat = Rotation.from_euler("xyz", [20, 35, 50], degrees=True).as_quat()
    hull = {"kind": "hull", "vertices": [[0, 0, 0], [120, 0, 0], [0, 60, 0], [0, 0, 40], [30, 50, 35]],
            "quat": list(quat)}
    s = scene({"id": "f", "pos": [10, 20, 200], "fixed": True, **hull}, {"id": "m", "pos": [300, 20, 200], **hull})
    settings = replace(TUNED, array_parts=array_parts)
    with World(s, settings) as w:
        np.testing.assert_allclose(w.poses(), s.poses(), atol=1e-9)
        turned = Rotation.from_euler("z", 30, degrees=True).as_quat()
        for pid, x in (("f", 0.05), ("m", 0.35)):
            w.set_pose(pid, [x, 0.0, 0.3, *turned])
            np.testing.assert_allclose(w.pose(pid), [x, 0.0, 0.3, *turned], atol=1e-9)
        # the same shape at the same pose, fixed or not: the simulation's surfaces lie at the same heights
        for dx, dy in ((0.0, 0.0), (0.02, -0.01), (-0.015, 0.02)):
            tops = [w.ray_test((x + dx, dy, 1.0), (x + dx, dy, 0.0)).point[2] for x in (0.05, 0.35)]
            assert tops[0] == pytest.approx(tops[1], abs=1e-6)


def test_inertial_frame_is_the_catalogue_tensor_in_principal_axes():
    s = scene({"id": "t", "kind": "babylon.tower", "pos": [0, 0, 10]})
    shape = s.piece("t").shape
    with World(s) as w:
        b = w.bodies["t"]
        rot = Rotation.from_quat(b.principal).as_matrix()
        np.testing.assert_allclose(rot @ np.diag(b.inertia) @ rot.T, shape.inertia, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(b.com, shape.com)
        assert b.mass == pytest.approx(shape.mass)


def test_principal_frame_diagonalises_a_tensor_with_products_of_inertia():
    axes = Rotation.from_euler("xyz", [20, -35, 50], degrees=True).as_matrix()
    tensor = axes @ np.diag([1.0, 2.0, 3.5]) @ axes.T
    moments, quat = principal_frame(tensor)
    rot = Rotation.from_quat(quat).as_matrix()
    assert np.linalg.det(rot) == pytest.approx(1.0)
    np.testing.assert_allclose(rot @ np.diag(moments) @ rot.T, tensor, atol=1e-12)


def test_free_flight_conserves_angular_momentum_with_the_catalogue_inertia():
    """A spinning tower in free fall: L = R I Rᵀ ω stays constant only if Bullet uses the catalogue tensor."""
    s = scene({"id": "t", "kind": "babylon.tower", "pos": [0, 0, 5000]})
    shape = s.piece("t").shape
    with World(s, TUNED.with_(probe_g=0.0)) as w:
        w.push("t", (0.0, 0.0, 0.0), (3.0, -5.0, 7.0))

        def momentum():
            _, ang = w.velocities()[0, :3], w.velocities()[0, 3:]
            r = Rotation.from_quat(w.pose("t")[3:]).as_matrix()
            return r @ shape.inertia @ r.T @ ang

        before = momentum()
        w.step(240)
        np.testing.assert_allclose(momentum(), before, rtol=1e-2)  # explicit integration drifts 0.2 %
        fallen = s.piece("t").pos[2] - w.pose("t")[2]
        assert fallen == pytest.approx(0.5 * GRAVITY * w.time**2, rel=1e-2)  # the centre of mass falls freely


def test_the_contact_coefficient_is_the_geometric_mean_of_the_two_materials():
    """A block of μ 0.3 on a plank of μ 0.8 holds at 0.9× and slides at 1.1× the angle of atan(√(0.3·0.8))."""
    mu = contact_friction(0.3, 0.8)
    for factor, slides in ((0.9, False), (1.1, True)):
        base = block_on_slope(friction_angle(mu) * factor)
        plank, block = base.pieces
        mixed = base.with_pieces([replace(plank, friction=0.8), replace(block, friction=0.3)])
        t = simulate(mixed, 1.0)
        assert (t.pieces["block"].displacement > 5e-3) is slides, (factor, t.pieces["block"].displacement)


def test_pieces_rest_on_the_board_and_fall_off_it_onto_the_table():
    board = 6.0  # talo-green thickness (mm)
    s = scene({"id": "on", "kind": "talo.block", "length": 1, "cell": [2, 2], "layer": 0, "axis": "z"},
              {"id": "off", "kind": "talo.block", "length": 1, "pos": [150, 0, 30]}, game="talo")
    settled = settle(s, seconds=1.5)
    assert settled.piece("on").pos[2] == pytest.approx(s.piece("on").pos[2], abs=1e-5)
    assert settled.piece("off").pos[2] == pytest.approx((-board + 10) / 1000, abs=2e-5)


def test_fixed_pieces_do_not_move_under_load():
    s = scene(box("post", (0, 0, 50), (20, 20, 100), fixed=True), box("load", (60, 0, 110), (200, 20, 20)))
    t = simulate(s, 1.0)
    assert t.pieces["post"].displacement == 0.0
    assert t.pieces["load"].knocked_down  # it tips off the post's edge; the post stays


def test_overlapping_pieces_are_reported_with_their_ids():
    s = scene(box("a", (0, 0, 10)), box("b", (15, 0, 10)), box("c", (100, 0, 10)), box("d", (0, 0, 30)))
    with pytest.raises(OverlapError) as err:
        World(s)
    assert [(a, b) for a, b, _ in err.value.pairs] == [("a", "b")]
    assert err.value.pairs[0][2] == pytest.approx(5e-3, rel=1e-3)
    assert "a and b (5.00 mm)" in str(err.value)


def test_overlap_with_the_board_is_reported_and_touching_is_not():
    sunk = scene(box("low", (0, 0, 9)))
    with pytest.raises(OverlapError, match="board and low|low and board"):
        World(sunk)
    with World(scene(box("a", (0, 0, 10)), box("b", (20, 0, 10)), box("c", (0, 0, 30)))) as w:
        assert w.ids == ["a", "b", "c"]


def test_a_run_that_gains_energy_stops_with_a_clear_error():
    """Over-corrected contacts (ERP 50, no split impulse) pump energy in; the watch stops the run."""
    s = scene(box("a", (0, 0, 9.9)), box("b", (0, 0, 29.8)))
    with World(s, TUNED.with_(contact_erp=50.0, split_impulse=False)) as w, pytest.raises(BlowUpError) as err:
        w.step(480)
    assert err.value.time <= 0.2
    assert set(err.value.pieces) <= {"a", "b"} and "energy rose" in str(err.value)


def test_a_nan_pose_stops_the_run_naming_the_piece():
    with World(scene(box("a", (0, 0, 10)), box("b", (50, 0, 10)))) as w:

        pb.resetBasePositionAndOrientation(w.bodies["b"].uid, [math.nan, 0, 0], [0, 0, 0, 1],
                                           physicsClientId=w.client)
        with pytest.raises(BlowUpError, match="NaN") as err:
            w.watch()
    assert err.value.pieces == ["b"]


def test_a_push_is_energy_given_not_a_blowup():
    with World(scene(box("a", (0, 0, 10)))) as w:
        w.push("a", (0.0, 0.0, 3.0))
        w.step(240)  # flies up 0.46 m and lands: far above tol.blowup_height, but given
        assert w.pose("a")[2] > 0.0


def test_worlds_are_independent_clients():
    a, b = World(scene(box("x", (0, 0, 10)))), World(scene(box("x", (0, 0, 500))))
    try:
        b.step(48)
        np.testing.assert_allclose(a.poses(), a.scene.poses(), atol=1e-12)
        assert b.pose("x")[2] < 0.5
    finally:
        a.close()
        b.close()
    a.close()  # idempotent


def test_a_restored_state_and_the_same_steps_give_the_same_poses_bit_for_bit():
    """Bullet keeps contact caches and a world inertia a pose reset does not refresh: set_state makes the
    bodies afresh, so a state restored twice, or in another world built alike, goes on identically."""
    from sim.cases import harmonic_stack

    with World(harmonic_stack(5, 1.02)) as w, World(harmonic_stack(5, 1.02)) as other:
        w.step(50)
        state = w.get_state()
        runs = []
        for world in (w, w, other):
            world.set_state(state)
            world.step(300)  # falling: any difference in the state would grow
            runs.append(world.poses())
        assert np.array_equal(runs[0], runs[1]) and np.array_equal(runs[0], runs[2])
        assert w.time == pytest.approx(350 * w.settings.dt) and not np.allclose(runs[0], state.scene.poses())


def _falling_city():
    """Towers (loaded from URDF files: more than 16 parts) and boxes (arrays of hulls), some falling."""
    return scene({"id": "t1", "kind": "babylon.tower", "pos": [0, 0, 10]},
                 {"id": "t2", "kind": "babylon.tower", "pos": [6, 2, 32], "rot": [0, 0, 20]},
                 box("a", (40, 0, 10)), box("b", (44, 3, 45), rot=[10, 0, 0]), box("c", (-30, 0, 30)))


def test_a_restore_prepared_ahead_gives_the_same_world_bit_for_bit_and_the_world_runs_on_meanwhile():
    from sim.physics.live import live_settings

    settings = live_settings()
    with World(_falling_city(), settings) as w, World(_falling_city(), settings) as twin:
        w.step(40)
        twin.step(40)
        state = w.get_state()
        calls = 0
        while not w.prepare(state, budget=0.0):  # a step of the restore a call, between steps of the world
            calls += 1
            w.step(1)
            twin.step(1)
        assert calls > 3 and w.prepared == (state,)
        assert np.array_equal(w.poses(), twin.poses())  # preparing left the running world alone
        client = w.client
        runs = []
        for _ in range(2):  # the prepared restore, then one made afresh
            w.set_state(state)
            w.step(300)  # falling: any difference in the state would grow
            runs.append(w.poses())
        assert w.client != client  # the first took the prepared engine whole
        assert np.array_equal(runs[0], runs[1]) and not np.allclose(runs[0], state.scene.poses())
        twin.set_state(state)  # and another world given the state
        twin.step(300)
        assert np.array_equal(runs[0], twin.poses())
        other = twin.get_state()
        assert w.prepare(other) and w.prepared == (other,) and len(w._ahead()) == 1  # on the old client
        w.set_state(other)
        twin.set_state(other)
        w.step(100)
        twin.step(100)
        assert np.array_equal(w.poses(), twin.poses()) and w.time == twin.time


def test_two_restores_are_kept_ready_and_a_third_takes_the_place_of_the_one_asked_for_longest_ago():
    from sim.physics.live import live_settings
    from sim.physics.restore import PREPARED

    with World(_falling_city(), live_settings()) as w:
        states = []
        for _ in range(3):
            w.step(20)
            states.append(w.get_state())
        a, b, c = states
        assert w.prepare(a) and w.prepare(b) and w.prepared == (a, b) and PREPARED == 2
        assert w.prepare(a) and w.prepared == (b, a)  # asked for again: kept longest
        assert w.prepare(c) and w.prepared == (a, c)  # b's client restores c
        clients = {w.client}
        for state in (c, a):  # both taken whole
            w.set_state(state)
            clients.add(w.client)
        assert len(clients) == 3 and w.prepared == ()
        w.step(100)
        with World(_falling_city(), live_settings()) as other:
            other.set_state(a)
            other.step(100)
            assert np.array_equal(w.poses(), other.poses())


def test_a_world_that_puts_pieces_to_sleep_itself_prepares_no_restore():
    with World(_falling_city()) as w:
        assert not w.prepare(w.get_state()) and w.prepared == ()


def test_state_keeps_who_sleeps_the_time_and_the_probe():
    s = scene(box("a", (0, 0, 10)), box("b", (0, 0, 30)))
    with World(s) as w:
        w.set_probe(0.002, 45.0)
        w.step(480)
        state = w.get_state()
        assert state.asleep == ("a", "b") and state.probe == (0.002, 45.0)
        w.push("b", (0.1, 0.0, 0.0))
        w.step(10)
        w.set_state(state)
        assert w.asleep() == ["a", "b"] and w.time == state.time and w.probe == (0.002, 45.0)
        np.testing.assert_allclose(w.poses(), state.scene.poses(), atol=1e-12)
        assert not w.velocities().any()


def test_a_piece_added_while_running_falls_onto_what_is_there_and_a_removed_one_is_gone():
    with World(scene(box("a", (0, 0, 10)))) as w:
        w.step(240)
        w.add_piece(scene(box("b", (0, 0, 60))).pieces[0])
        assert w.ids == ["a", "b"] and [b.id for b in w.movable] == ["a", "b"]
        w.step(480)
        assert w.pose("b")[2] == pytest.approx(0.030, abs=2e-5)  # it fell 30 mm and rests on a
        w.remove_piece("a")
        assert w.ids == ["b"] and "a" not in w.scene.ids
        w.step(480)
        assert w.pose("b")[2] == pytest.approx(0.010, abs=2e-5)  # a gone: b fell onto the board


def test_adding_a_piece_into_another_is_refused_and_changes_nothing():
    with World(scene(box("a", (0, 0, 10)))) as w:
        with pytest.raises(OverlapError, match="a and b"):
            w.add_piece(scene(box("b", (5, 0, 12))).pieces[0])
        assert w.ids == ["a"] and w.scene.ids == ["a"]
        with pytest.raises(ValueError, match="already"):
            w.add_piece(scene(box("a", (100, 0, 10))).pieces[0])


def test_set_pose_moves_a_piece_and_wakes_what_it_rested_on():
    s = scene(box("a", (0, 0, 10)), box("b", (0, 0, 30)), box("far", (200, 0, 10)))
    with World(s) as w:
        w.set_probe(TUNED.probe_g, 0.0)
        w.step(480)
        assert w.asleep() == ["a", "b", "far"]
        w.set_pose("b", [0.0, 0.1, 0.05, 0.0, 0.0, 0.0, 1.0])
        np.testing.assert_allclose(w.pose("b"), [0.0, 0.1, 0.05, 0.0, 0.0, 0.0, 1.0], atol=1e-12)
        assert w.asleep() == ["far"]  # a lost its load and wakes; far never touched it
        w.step(240)  # b falls 40 mm onto the board: energy set from outside, not a blow-up
        assert w.pose("b")[2] == pytest.approx(0.010, abs=2e-5)


def test_a_ray_meets_the_first_piece_the_simulation_collides_with():
    s = scene(box("low", (0, 0, 10)), box("high", (0, 0, 30)), box("side", (100, 0, 10)))
    with World(s) as w:
        hit = w.ray_test([0.0, 0.0, 0.5], [0.0, 0.0, -0.5])
        assert hit.piece == "high" and hit.point[2] == pytest.approx(0.040, abs=1e-5)
        assert hit.distance == pytest.approx(0.46, abs=1e-5) and hit.normal[2] == pytest.approx(1.0)
        assert w.ray_test([0.1, 0.2, 0.5], [0.1, 0.2, -0.5]).piece == "board"
        assert w.ray_test([0.1, 0.2, 0.5], [0.1, 0.2, 0.3]) is None  # stops short of everything
        assert w.ray_test([-0.5, 0.0, 0.01], [0.5, 0.0, 0.01]).piece == "low"


def test_the_public_api_names_the_client_and_the_movable_bodies():
    s = scene(box("post", (0, 0, 50), (20, 20, 100), fixed=True), box("load", (0, 0, 110)))
    with World(s) as w:
        assert [b.id for b in w.movable] == ["load"] and w.name_of(w.bodies["post"].uid) == "post"
        assert pb.getNumBodies(physicsClientId=w.client) == 3  # the table plane, the post and the load
        w.set_probe(0.5, 90.0)
        np.testing.assert_allclose(w.gravity, [0.0, 0.5 * GRAVITY, -GRAVITY], atol=1e-12)
        assert w.energy() == pytest.approx(w.potential_energy())


def test_a_static_piece_holds_what_rests_on_it_and_falls_once_let_go():
    s = scene(box("a", (0, 0, 60)), box("b", (0, 0, 80)))  # 50 mm above the board
    with World(s, TUNED.with_(sleeping=False)) as w:
        w.set_static(["a"])
        assert [b.id for b in w.active] == ["b"]
        w.step(240)
        assert np.array_equal(w.pose("a"), s.poses()[0]) and w.pose("b")[2] == pytest.approx(0.08, abs=2e-5)
        w.set_static(["a"], False)
        w.step(480)
        assert w.pose("a")[2] == pytest.approx(0.01, abs=2e-5) and w.pose("b")[2] == pytest.approx(0.03, abs=2e-5)
