"""The live world: hands that knock towers over, certified rest, events with their cause, snapshots, real time."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sim.cases.thin import harmonic
from sim.physics.live import LiveWorld
from sim.scene import from_dict

BOX = 20.0  # mm


def scene(*pieces):
    return from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "pieces": list(pieces)},
                     "<live test>")


def box(pid, x, y, level, size=(BOX, BOX, BOX)):
    return {"id": pid, "kind": "box", "size": list(size), "pos": [x, y, size[2] * (level + 0.5)]}


def tower(prefix, x, n):
    return [box(f"{prefix}{k}", x, 0, k) for k in range(n)]


def carry(lw, hand, path, seconds_per_leg=0.5):
    """Move a hand through target positions (m), each leg over ``seconds_per_leg``, a frame at a time."""
    state = lw.hands.state(hand)
    target = state.target.copy()
    for point in path:
        start = target[:3].copy()
        for k in range(1, int(seconds_per_leg * 60) + 1):
            target[:3] = start + (np.asarray(point) - start) * k / (seconds_per_leg * 60)
            lw.move_hand(hand, target)
            lw.advance(1 / 60)
    return target


def test_a_scene_at_rest_is_held_by_the_statics_and_costs_nothing():
    with LiveWorld(scene(*tower("t", 0, 5))) as lw:
        assert lw.held == {f"t{k}" for k in range(5)} and lw.free() == []
        before = lw.poses()
        report = lw.advance(2.0)
        assert report.steps == 960 and not report.behind and np.array_equal(lw.poses(), before)
        assert lw.events == []


def test_a_carried_block_pushed_into_a_tower_knocks_it_over_and_the_events_name_who_did_it():
    with LiveWorld(scene(*tower("t", 0, 6), box("block", -0.1 * 1000, 0, 0))) as lw:
        lw.grab("block", "right", player="ana")
        carry(lw, "right", [(-0.1, 0.0, 0.03), (0.08, 0.0, 0.03)])
        lw.advance(1.5)
        knocked = [e for e in lw.events if e.kind == "knocked_down"]
        assert {p for e in knocked for p in e.pieces} >= {"t3", "t4", "t5"}  # the tower came down
        first = knocked[0]
        assert first.cause.piece == "block" and first.cause.hand == "right" and first.cause.player == "ana"
        assert all(lw.pose(f"t{k}")[2] < 0.05 for k in range(3, 6))  # every upper block on the table


def test_a_block_carried_onto_a_stack_and_released_rests_there():
    with LiveWorld(scene(*tower("t", 0, 3), box("block", -100, 0, 0))) as lw:
        lw.grab("block", "left", player="ben")
        top = 3 * BOX / 1000 + BOX / 2000
        carry(lw, "left", [(-0.1, 0.0, 0.09), (0.0, 0.0, 0.09), (0.0, 0.0, top + 0.0002)])
        lw.release("left")
        lw.advance(1.0)
        np.testing.assert_allclose(lw.pose("block")[:3], [0.0, 0.0, top], atol=5e-4)
        assert "block" in lw.held and all(f"t{k}" in lw.held for k in range(3))
        assert not [e for e in lw.events if e.kind == "knocked_down"]


def test_removing_the_bottom_block_brings_down_what_it_carried_and_only_that():
    with LiveWorld(scene(*tower("a", 0, 3), *tower("b", 60, 3))) as lw:
        others = {i: lw.pose(i) for i in ("b0", "b1", "b2")}
        lw.remove("a0", player="cy")
        lw.advance(1.5)
        fallen = {p for e in lw.events if e.kind == "knocked_down" for p in e.pieces}
        assert fallen == {"a1", "a2"} and all(e.cause.kind == "remove" and e.cause.player == "cy"
                                              for e in lw.events if e.kind == "knocked_down")
        assert all(np.array_equal(lw.pose(i), pose) for i, pose in others.items())  # never touched
        assert {"b0", "b1", "b2"} <= lw.held


def test_a_thin_margin_stack_the_statics_hold_never_creeps():
    """An 8-block harmonic stack 0.002 g from tipping, left alone for a simulated minute: not a nanometre."""
    s = harmonic(8, 0.002, (150.0, 40.0, 30.0))
    with LiveWorld(s) as lw:
        assert lw.held == {f"b{k}" for k in range(1, 9)}
        before = lw.poses()
        lw.advance(60.0)
        assert np.array_equal(lw.poses(), before) and lw.events == []


def test_snapshot_then_the_same_actions_give_the_same_poses_bit_for_bit():
    with LiveWorld(scene(*tower("t", 0, 4), box("block", -100, 0, 0))) as lw:
        lw.advance(0.5)
        snap = lw.snapshot()
        runs = []
        for _ in range(2):
            lw.grab("block", "right", player="ana")
            carry(lw, "right", [(-0.1, 0.0, 0.03), (0.06, 0.0, 0.03)], 0.4)
            lw.release("right")
            lw.advance(1.0)
            runs.append((lw.poses(), [(e.time, e.kind, e.pieces) for e in lw.events]))
            lw.restore(snap)
        assert np.array_equal(runs[0][0], runs[1][0]) and runs[0][1] == runs[1][1] and runs[0][1]
        assert lw.time == snap.time and lw.events == [] and len(lw.actions) == 0


def test_rewind_replays_the_actions_since_its_snapshot_the_same_every_time():
    with LiveWorld(scene(*tower("t", 0, 3))) as lw:
        lw.advance(1.2)
        lw.push("t2", [0.002, 0.0, 0.0], player="dee")
        lw.advance(1.0)
        lw.rewind(0.6)  # back to 1.6 s: the snapshot at 1 s, the push replayed at 1.2 s
        first = lw.poses()
        lw.advance(0.6)
        lw.rewind(0.6)
        assert lw.time == pytest.approx(1.6) and np.array_equal(lw.poses(), first)
        assert [a.kind for a in lw.actions] == ["push"]


def test_a_push_at_a_point_moves_and_spins_as_the_impulse_says():
    with LiveWorld(scene(box("a", 0, 0, 10))) as lw:  # high above the table: free flight for a while
        lw.push("a", [0.0, 0.001, 0.0], point=[0.01, 0.0, 0.21])
        v = lw.world.velocities()[0]
        mass = lw.world.bodies["a"].mass
        np.testing.assert_allclose(v[:3], [0.0, 0.001 / mass, 0.0], rtol=1e-9)
        inertia = mass * (0.02**2 + 0.02**2) / 12
        np.testing.assert_allclose(v[3:], [0.0, 0.0, 0.01 * 0.001 / inertia], rtol=1e-6)


def test_advance_never_spends_more_than_its_budget_and_reports_the_real_time_factor():
    ticks = itertools.count()
    with LiveWorld(scene(box("a", 0, 0, 3)), clock=lambda: next(ticks) * 1e-3) as lw:  # falls: simulated
        report = lw.advance(0.5, budget=0.010)
        assert report.behind and report.steps <= 11 and report.wall <= 0.012
        assert report.real_time_factor == pytest.approx(report.simulated / report.wall)


def test_shaking_the_table_moves_what_stands_on_it_and_rest_is_certified_after():
    with LiveWorld(scene(*tower("t", 0, 6))) as lw:
        lw.shake(0.004, 6.0, 0.0, 1.0, player="lab")  # 4 mm at 6 Hz: up to 0.58 g
        lw.advance(2.5)
        assert any(e.kind == "knocked_down" for e in lw.events)
        assert lw.free() == [] or all(i in lw.held for i in lw.ids if i not in lw.free())


def test_the_ghost_lands_on_the_highest_surface_under_the_footprint():
    with LiveWorld(scene(*tower("t", 0, 2), box("block", -100, 0, 0))) as lw:
        lifted = np.array([0.005, 0.0, 0.2, 0.0, 0.0, 0.0, 1.0])
        np.testing.assert_allclose(lw.landing("block", lifted)[:3], [0.005, 0.0, 0.05], atol=1e-6)
        aside = np.array([0.3, 0.0, 0.2, 0.0, 0.0, 0.0, 1.0])
        np.testing.assert_allclose(lw.landing("block", aside)[:3], [0.3, 0.0, 0.01], atol=1e-6)


def test_actions_are_plain_data_that_replay_the_same_world():
    with LiveWorld(scene(*tower("t", 0, 3))) as a, LiveWorld(scene(*tower("t", 0, 3))) as b:
        a.push("t2", [0.004, 0.0, 0.0], player="ed")
        a.advance(1.0)
        a.add(scene(box("new", 0, 150, 0)).pieces[0], player="ed")
        a.advance(0.5)
        for action in [x.to_json() for x in a.actions]:
            b.step(int(round((action["time"] - b.time) / b.world.settings.dt)))
            b.apply(action)
        b.advance(0.5)
        assert np.array_equal(a.poses(), b.poses()) and [x.kind for x in b.actions] == ["push", "add"]


@pytest.mark.parametrize("held_still", [0.5, 4.0])
def test_a_piece_held_still_in_a_hand_for_seconds_still_follows_the_hand_and_falls_when_let_go(held_still):
    # a piece taken from rest (a static body) and then held still for longer than Bullet's own 2 s
    # deactivation time froze where it was: it no longer followed the hand, and let go it hung in the air
    with LiveWorld(scene(box("block", -100, 0, 0))) as lw:
        assert "block" in lw.held
        lw.grab("block", "right")
        target = carry(lw, "right", [(0.0, 0.0, 0.06)])
        lw.advance(held_still)
        target[:3] = (0.0, 0.0, 0.03)
        lw.move_hand("right", target)
        lw.advance(0.5)
        assert lw.pose("block")[2] == pytest.approx(0.03, abs=1e-3)  # it followed the hand down
        lw.release("right")
        lw.advance(1.0)
        np.testing.assert_allclose(lw.pose("block")[:3], [0.0, 0.0, BOX / 2000], atol=5e-4)  # on the table
        assert "block" in lw.held


def test_a_piece_let_go_in_the_air_can_be_set_down_at_once_and_a_carried_one_cannot():
    with LiveWorld(scene(*tower("t", 0, 2), box("block", -100, 0, 0))) as lw:
        lw.grab("block", "right", player="ana")
        carry(lw, "right", [(-0.1, 0.0, 0.12)])
        with pytest.raises(ValueError, match="in a hand"):
            lw.set_pose("block", [-0.1, 0.0, 0.01, 0, 0, 0, 1])
        lw.release("right")
        lw.advance(1 / 60)  # falling, not yet watched
        lw.set_pose("block", [0.0, 0.0, 2 * BOX / 1000 + BOX / 2000, 0, 0, 0, 1], player="ana")
        lw.advance(1.0)
        np.testing.assert_allclose(lw.pose("block")[:3], [0.0, 0.0, 0.05], atol=5e-4)
        assert "block" in lw.held and not [e for e in lw.events if e.kind == "knocked_down"]


def test_a_piece_set_down_elsewhere_is_tracked_from_its_new_support_and_only_a_real_fall_knocks_it_down():
    # from the table onto a tower's top: its baseline support is the tower, not the table it left (it was
    # reported knocked down, "left its support", as soon as anything else moved)
    with LiveWorld(scene(*tower("t", 0, 2), box("block", -100, 0, 0), box("other", 100, 0, 0))) as lw:
        lw.set_pose("block", [0.0, 0.0, 2 * BOX / 1000 + BOX / 2000, 0, 0, 0, 1], player="ana")
        lw.advance(1.0)
        assert "block" in lw.held
        lw.push("other", [0.01, 0.0, 0.0], player="ed")  # something else moves: contacts are asked
        lw.advance(1.5)
        knocked = {p for e in lw.events if e.kind == "knocked_down" for p in e.pieces}
        assert "block" not in knocked and "t1" not in knocked
        lw.push("block", [0.0, 0.02, 0.0], point=[0.0, 0.0, 0.055], player="ed")  # off the tower: a real fall
        lw.advance(1.5)
        knocked = [e for e in lw.events if e.kind == "knocked_down" and "block" in e.pieces]
        assert knocked and knocked[0].cause.kind == "push" and knocked[0].cause.player == "ed"


def test_an_arch_woken_where_it_rests_on_the_table_is_held_again():
    """The solver loses an arch's contacts with the table a step at a time (it falls for a step and is back): it
    is still asked about, and the statics hold it, instead of being simulated for ever."""
    from sim.games.setup import setup

    table = setup("tohuwabohu", seed=3)
    with LiveWorld(table.with_pieces([table.piece("arch-2")])) as lw:
        assert lw.held == {"arch-2"}
        lw.push("arch-2", [0.0, 0.0, 0.0])  # woken, untouched
        assert lw.free() == ["arch-2"]
        lw.advance(1.0)
        assert lw.held == {"arch-2"} and lw.free() == [] and not lw.events


def test_a_hand_lifting_a_light_piece_high_and_fast_is_no_blow_up():
    """The hand's work is no energy from nowhere: a 4 g cube pulled a metre up at once (the hand's full strength,
    past 3 m/s: more work in a frame than lifting it 10 cm, the blow-up watch's allowance) is carried, not stopped
    as a blown-up simulation (Babylon: a tower carried onto a column 37 cm high)."""
    light = {"id": "cube", "kind": "box", "size": [15, 15, 15], "pos": [0, 0, 7.5], "density": 1.2}
    with LiveWorld(scene(light)) as lw:
        lw.grab("cube", "right")
        target = lw.hands.state("right").target.copy()
        target[2] += 1.0
        lw.move_hand("right", target)
        lw.advance(1.5)
        assert lw.pose("cube")[2] == pytest.approx(target[2], abs=2e-3)


@pytest.mark.parametrize("how", ["remove", "set_pose"])
def test_what_a_piece_taken_away_touched_is_judged_where_it_rests_and_held_at_once_if_it_can_be(how):
    # a plank lying mostly on the right post also touches the left one, which leans on the right post's side:
    # taking the left one away leaves the plank and the right post held as they are, never simulated (a vault
    # block picked out woke its neighbours as moving: the statics peeled what rested on them, 8-11 s a pick)
    plank = {"id": "plank", "kind": "box", "size": [70, 20, 10], "pos": [15, 0, 45]}
    with LiveWorld(scene(box("left", -10, 0, 0, (20, 20, 40)), box("right", 10, 0, 0, (20, 20, 40)), plank)) as lw:
        assert lw.held == {"left", "right", "plank"}
        before = {i: lw.pose(i) for i in ("right", "plank")}
        if how == "remove":
            lw.remove("left")
        else:
            lw.set_pose("left", [0.2, 0.0, 0.02, 0.0, 0.0, 0.0, 1.0])
        assert {"right", "plank"} <= lw.held
        lw.advance(1.0)
        assert all(np.array_equal(lw.pose(i), pose) for i, pose in before.items()) and lw.events == []


@pytest.mark.parametrize("n", [5, 20])
def test_a_crowd_of_free_pieces_gets_the_crowds_iteration_bound_and_a_few_the_live_worlds(n):
    from sim.physics.live.stepping import CROWD_ITERATIONS, CROWD_PIECES

    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "pieces": [
        {"id": f"c{k}", "kind": "box", "size": [20, 20, 20], "pos": [k * 30.0, 0.0, 30.0]} for k in range(n)]})
    with LiveWorld(scene) as lw:
        assert len(lw.free()) == n  # in the air: nothing held
        lw.step(1)
        bound = lw.world.get_precision()[1]
        assert bound == (CROWD_ITERATIONS if n > CROWD_PIECES else lw.world.settings.solver_iterations)
        lw.advance(1.0)  # landed and held
        assert not lw.free()
        lw.push("c0", [0.0, 0.0, 0.01])  # one of them simulated again: a step of one free piece
        lw.step(1)
        assert lw.world.get_precision()[1] == lw.world.settings.solver_iterations


@pytest.mark.parametrize("n", [5, 20])
def test_a_crowd_takes_its_steps_two_at_a_time_and_a_few_free_pieces_one_at_a_time(n):
    from sim.physics.bodies import pb
    from sim.physics.live.stepping import CROWD_PIECES, CROWD_SPAN

    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "pieces": [
        {"id": f"c{k}", "kind": "box", "size": [20, 20, 20], "pos": [k * 30.0, 0.0, 30.0]} for k in range(n)]})
    with LiveWorld(scene) as lw:
        span = CROWD_SPAN if n > CROWD_PIECES else 1
        dt = lw.world.settings.dt
        lw.step(1)  # a call of one step is one step, crowd or not
        assert lw.world.steps == 1
        lw.step(3)  # aligned again, then a crowd's engine step covers two
        engine = pb.getPhysicsEngineParameters(physicsClientId=lw.world.client)["fixedTimeStep"]
        assert lw.world.steps == 4 and engine == pytest.approx(span * dt)
        z0 = lw.pose("c0")[2]
        lw.step(8)  # still falling freely: the coarse steps keep the fall's clock (z = z0 - v t - g t² / 2)
        t0, t1 = 4 * dt, 12 * dt
        assert lw.pose("c0")[2] == pytest.approx(z0 - 9.81 * (t1**2 - t0**2) / 2, rel=0.02, abs=2e-5)
        assert lw.time == pytest.approx(t1)
        lw.advance(1.0)  # landed and held, every cube where it fell
        assert not lw.free() and len(lw.held) == n


def test_an_arch_woken_while_a_crowd_falls_beside_it_is_held_again_where_it_stood():
    """A crowd's coarse steps and iteration bound also take what else is free: the Tohuwabohu arch woken on
    the table beside 20 falling cubes is simulated with them and held again, unmoved (no event)."""
    from sim.games.setup import setup
    from sim.physics.live.stepping import CROWD_PIECES

    table = setup("tohuwabohu", seed=3)
    arch = table.piece("arch-2")
    cubes = [{"id": f"c{k}", "kind": "box", "size": [20, 20, 20], "pos": [400.0 + (k % 5) * 30.0,
                                                                           (k // 5) * 30.0, 60.0]}
             for k in range(20)]
    with LiveWorld(table.with_pieces([arch, *scene(*cubes).pieces])) as lw:
        assert "arch-2" in lw.held and len(lw.free()) == 20 > CROWD_PIECES
        before = lw.pose("arch-2")
        lw.push("arch-2", [0.0, 0.0, 0.0])  # woken, untouched
        lw.advance(1.0)
        assert "arch-2" in lw.held and not lw.free()
        assert np.linalg.norm(lw.pose("arch-2")[:3] - before[:3]) < 1e-4
        assert not [e for e in lw.events if "arch-2" in e.pieces and e.kind in ("fell", "knocked_down")]


def test_a_crowd_beside_a_woken_voussoir_arch_keeps_single_steps_and_the_arch_is_held_again_unmoved():
    """Voussoirs hold their faces as face pyramids: while one is free, a crowd keeps 1/480 s (coarse steps brought
    the Armadillo vault down around a carried block: 365 of its 366 blocks)."""
    from sim.cases.arches import suite
    from sim.physics.bodies import pb

    case = next(c for c in suite() if c.name == "semicircular n=5 R=500 d=250 fixed a=0.5x0.3 t/R x1.01")
    voussoirs = [p.id for p in case.scene.pieces if not p.fixed]
    cubes = [{"id": f"c{k}", "kind": "box", "size": [20, 20, 20], "pos": [600.0 + (k % 5) * 30.0, (k // 5) * 30.0,
                                                                           60.0]} for k in range(20)]
    with LiveWorld(case.scene.with_pieces([*case.scene.pieces, *scene(*cubes).pieces])) as lw:
        assert set(voussoirs) <= lw.held and len(lw.free()) == 20
        before = {i: lw.pose(i) for i in voussoirs}
        for i in voussoirs:
            lw.push(i, [0.0, 0.0, 0.0])  # woken, untouched
        lw.step(12)
        engine = pb.getPhysicsEngineParameters(physicsClientId=lw.world.client)["fixedTimeStep"]
        assert engine == pytest.approx(lw.world.settings.dt) and len(lw.free()) == 20 + len(voussoirs)
        lw.advance(1.0)
        assert set(voussoirs) <= lw.held and not lw.free()
        assert max(np.linalg.norm(lw.pose(i)[:3] - p[:3]) for i, p in before.items()) < 2e-5
