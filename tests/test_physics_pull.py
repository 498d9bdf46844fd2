"""The live world's pull (a spring from a point of a piece to a point in space, MuJoCo's perturbation), held to
closed forms: the stretch a hanging piece settles at, the acceleration of a piece pulled at the force limit,
a piece hung by a corner hanging with its centre of mass under the point; and to the live world's promises:
simulated while pulled, held by the statics again once let go and at rest, exact through snapshots and
rewinds, recorded as actions."""

from __future__ import annotations

import numpy as np
import pytest

from sim.geometry.transforms import rotate
from sim.physics.bodies import GRAVITY
from sim.physics.live import LiveWorld
from sim.physics.live.pulls import Pull, pull_force
from sim.scene import from_dict


def scene(*pieces):
    return from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "pieces": list(pieces)},
                     "<pull test>")


def box(pid, x, y, z, size=(20.0, 20.0, 20.0)):
    return {"id": pid, "kind": "box", "size": list(size), "pos": [x, y, z]}


def _mass(lw, pid):
    return lw.world.bodies[pid].mass


@pytest.mark.parametrize("stretch", [0.010, 0.025])
def test_a_piece_pulled_up_by_its_centre_hangs_where_the_spring_carries_its_weight(stretch):
    with LiveWorld(scene(box("b", 0, 0, 10, (30.0, 20.0, 10.0)))) as lw:
        m = _mass(lw, "b")
        k = m * GRAVITY / stretch  # the stretch at which the spring carries the weight
        target = np.array([0.0, 0.0, 0.12])
        lw.pull("b", (0.0, 0.0, 0.0), target, k, 100.0 * m * GRAVITY)
        lw.advance(2.0)  # critically damped: long settled
        z = lw.pose("b")[2]
        assert target[2] - z == pytest.approx(stretch, abs=2e-4)
        assert "b" in lw.free() and "b" not in lw.held  # simulated, never held, while pulled


@pytest.mark.parametrize("weights", [2.0, 4.0])
def test_at_its_limit_a_pull_accelerates_a_piece_as_the_limit_less_its_weight_does(weights):
    with LiveWorld(scene(box("b", 0, 0, 10))) as lw:
        m = _mass(lw, "b")
        z0 = lw.pose("b")[2]
        lw.pull("b", (0.0, 0.0, 0.0), (0.0, 0.0, 5.0), 1e4 * m * GRAVITY, weights * m * GRAVITY)
        t = 0.1
        lw.advance(t)  # the spring saturated all the way: the damper cannot make up 5 m of stretch
        a = (weights - 1.0) * GRAVITY
        assert lw.pose("b")[2] - z0 == pytest.approx(0.5 * a * t * t, rel=0.04)


def test_a_piece_hung_by_a_corner_swings_about_its_centre_of_mass_under_the_point():
    with LiveWorld(scene(box("b", 0, 0, 10, (40.0, 20.0, 10.0)))) as lw:
        corner = np.array([0.02, 0.01, 0.005])  # a top corner, in the piece's frame
        m = _mass(lw, "b")
        lw.pull("b", corner, (0.0, 0.0, 0.15), m * GRAVITY / 0.01, 100.0 * m * GRAVITY)
        lw.advance(4.0)  # lifted off, swung up under the point; the damper at the point leaves a slow swing
        downs, points = [], []
        for _ in range(120):  # two seconds of the swing about the point: a pendulum's
            lw.advance(1 / 60)
            pose = lw.pose("b")
            point = pose[:3] + rotate(pose[3:], corner)
            centre = pose[:3] + rotate(pose[3:], lw.world.bodies["b"].com)
            downs.append((centre - point) / np.linalg.norm(centre - point))
            points.append(point)
        mean = np.mean(downs, axis=0)
        assert np.degrees(np.arccos(-mean[2] / np.linalg.norm(mean))) < 0.5  # on average straight down
        assert max(np.degrees(np.arccos(-d[2])) for d in downs) < 5.0  # the swing is small and dying
        assert np.linalg.norm(np.mean(points, axis=0)[:2]) < 1e-3  # the point under the target


def test_the_force_is_the_damped_spring_at_the_point_and_never_past_the_limit():
    pull = Pull("b", (0.01, 0.0, 0.0), (0.01, 0.0, 0.1), 50.0, 3.0)
    pose = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    force, at = pull_force(pull, pose, np.zeros(6), np.zeros(3), 0.02)
    np.testing.assert_allclose(at, [0.01, 0.0, 0.0])
    np.testing.assert_allclose(force, [0.0, 0.0, 3.0])  # 5 N asked, 3 N allowed, along the spring
    spin = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 2.0])  # turning about z: the point moves along +y at 0.02 m/s
    slow = Pull("b", (0.01, 0.0, 0.0), (0.01, 0.0, 0.0), 50.0, 100.0)
    force, _ = pull_force(slow, pose, spin, np.zeros(3), 0.02)
    np.testing.assert_allclose(force, [0.0, -2.0 * np.sqrt(50.0 * 0.02) * 0.02, 0.0], atol=1e-12)
    with pytest.raises(ValueError, match="stiffness"):
        LiveWorld(scene(box("b", 0, 0, 10))).pull("b", (0, 0, 0), (0, 0, 1), 0.0, 1.0)


def test_let_go_a_pulled_piece_rests_and_the_statics_hold_it_again():
    with LiveWorld(scene(box("b", 0, 0, 10))) as lw:
        assert lw.held == {"b"}
        m = _mass(lw, "b")
        lw.pull("b", (0.0, 0.0, 0.0), (0.05, 0.0, 0.03), m * GRAVITY / 0.01, 3.0 * m * GRAVITY)
        lw.advance(1.0)
        assert lw.pose("b")[0] > 0.03 and "b" not in lw.held
        lw.release_pull("b")
        lw.advance(2.0)
        assert "b" in lw.held and lw.pulls.states() == ()
        assert lw.pose("b")[2] == pytest.approx(0.01, abs=5e-4)  # back on the table


def test_pulls_are_actions_exact_through_snapshots_and_rewinds():
    pieces = [box("t0", 0, 0, 10), box("t1", 0, 0, 30), box("t2", 0, 0, 50)]
    with LiveWorld(scene(*pieces)) as lw:
        m = _mass(lw, "t1")
        lw.advance(0.2)
        lw.pull("t1", (0.01, 0.0, 0.0), lw.pose("t1")[:3] + [0.01, 0.0, 0.0], m * GRAVITY / 0.01,
                5.0 * m * GRAVITY, player="ana")
        for k in range(30):  # the spring's end swept sideways: the tower is pulled apart
            lw.pull("t1", (0.01, 0.0, 0.0), (0.01 + 0.003 * k, 0.0, 0.03), m * GRAVITY / 0.01, 5.0 * m * GRAVITY)
            lw.advance(1 / 60)
        snap = lw.snapshot()
        lw.advance(0.5)
        later = lw.poses().copy()
        lw.restore(snap)
        lw.advance(0.5)
        np.testing.assert_array_equal(lw.poses(), later)  # the pull went on from the snapshot, bit for bit
        assert [a.kind for a in lw.actions].count("pull") == 31
        assert lw.actions[0].player == "ana" and lw.actions[0].args["limit"] == pytest.approx(5.0 * m * GRAVITY)
        lw.release_pull("t1")
        lw.advance(0.3)
        lw.rewind(0.6)  # to a moment of the pull: the last snapshot before it, the pulls replayed since
        first = lw.poses().copy()
        assert lw.pulls.states() and lw.pulls.states()[0].piece == "t1"  # what came later is dropped
        lw.advance(0.6)
        lw.rewind(0.6)
        np.testing.assert_array_equal(lw.poses(), first)  # the same every time
        knocked = [e for e in lw.events if e.kind == "knocked_down"]
        assert knocked and knocked[0].cause.kind == "pull"


def test_the_same_pulls_as_data_give_the_same_world():
    def run(apply_json):
        with LiveWorld(scene(box("b", 0, 0, 10))) as lw:
            m = _mass(lw, "b")
            for k in range(20):
                args = {"point": [0.0, 0.0, 0.005], "target": [0.002 * k, 0.0, 0.04], "stiffness": m * GRAVITY / 0.01,
                        "limit": 4.0 * m * GRAVITY}
                if apply_json:
                    lw.apply({"kind": "pull", "piece": "b", "args": args})
                else:
                    lw.pull("b", args["point"], args["target"], args["stiffness"], args["limit"])
                lw.advance(1 / 60)
            lw.apply({"kind": "release_pull", "piece": "b"}) if apply_json else lw.release_pull("b")
            lw.advance(0.5)
            return lw.poses().copy(), [a.to_json() for a in lw.actions]
    (a, acts_a), (b, acts_b) = run(True), run(False)
    np.testing.assert_array_equal(a, b)
    assert acts_a == acts_b
