"""The live world while much moves: pieces of many parts flying as their outlines, and what wakes a held piece."""

from __future__ import annotations

import numpy as np
import pytest

from sim.physics.live import LiveWorld
from sim.physics.settings import TUNED
from sim.physics.world import World
from sim.scene import from_dict


def scene(*pieces, game="free"):
    return from_dict({"format": "towerlab-scene/1", "game": game, "board": "table", "pieces": list(pieces)},
                     "<live motion test>")


def tower(pid, x, z=10.0, rot=0.0):
    """A Babylon tower (22 convex parts, hollow, open below), its frame ``z`` mm above the table."""
    return {"id": pid, "kind": "babylon.tower", "pos": [x, 0.0, z], "rot": [0, 0, rot]}


def test_an_outline_falls_and_turns_as_the_exact_body_does_with_the_same_mass_and_inertia():
    """A tower thrown up spinning, as its outline from the first step: the free fall's closed form
    (z = z0 + v t - g t² / 2) and its spin kept (no torque in free fall: the same angular velocity about a
    principal axis), and the outline's box is the tower's (its hollow filled: one child, not 22)."""
    settings = TUNED.with_(damping=0.0)  # a free fall's closed form
    with World(scene(tower("t", 0.0, z=300.0)), settings) as w:
        exact_uid = w.bodies["t"].uid
        up = ([0.005, 0.0, 0.2], [0.005, 0.0, 0.4])  # a ray up into the hollow, from below the open tower
        assert w.ray_test(*up).point[2] == pytest.approx(0.3085, abs=1e-4)  # the underside of its top
        assert w.reshape("t", outline=True)
        uid = w.bodies["t"].uid
        assert uid != exact_uid and w.name_of(uid) == "t" and w.name_of(exact_uid) is None
        assert w.ray_test(*up).point[2] == pytest.approx(0.290, abs=1e-4)  # the hollow filled
        w.push("t", [0.0, 0.0, 1.0], spin=[0.0, 0.0, 3.0])
        z0 = w.poses(["t"])[0, 2]
        steps = 120
        w.step(steps)
        t = steps * w.settings.dt
        # semi-implicit Euler's free fall: exact at the steps but for g dt t / 2
        assert w.poses(["t"])[0, 2] == pytest.approx(z0 + 1.0 * t - 9.81 * t**2 / 2, abs=9.81 * w.settings.dt * t)
        assert w.velocities(["t"])[0, 2] == pytest.approx(1.0 - 9.81 * t, abs=1e-6)
        assert w.velocities(["t"])[0, 5] == pytest.approx(3.0, rel=1e-3)
        pose = w.poses(["t"])[0]
        assert w.reshape("t", outline=False)
        assert w.bodies["t"].uid == exact_uid and np.allclose(w.poses(["t"])[0], pose, atol=1e-9)
        assert w.velocities(["t"])[0, 5] == pytest.approx(3.0, rel=1e-3)


def test_an_outline_that_would_fill_a_hollow_where_a_piece_lies_is_refused():
    """A cube under a tower, inside its hollow (the tower is open below): the tower's outline would swallow it,
    so the tower keeps its exact body; beside it, with nothing in its hollow, a tower takes its outline."""
    cube = {"id": "cube", "kind": "box", "size": [12, 12, 12], "pos": [0.0, 0.0, 6.0]}
    with World(scene(tower("over", 0.0), cube, tower("free", 100.0), game="babylon"), None) as w:
        uid = w.bodies["over"].uid
        assert not w.reshape("over", outline=True)
        assert w.bodies["over"].uid == uid and w.name_of(uid) == "over"
        assert w.reshape("free", outline=True)
        w.step(48)  # the cube still rests where it lay: nothing pushed it out
        assert np.allclose(w.poses(["cube"])[0, :3], [0.0, 0.0, 0.006], atol=2e-5)


def lowest(lw, piece_id) -> float:
    """The lowest point of a piece's exact shape where it lies (m)."""
    from scipy.spatial.transform import Rotation

    pose = lw.pose(piece_id)
    points = np.vstack([p.vertices for p in lw.world.piece(piece_id).shape.parts])
    return float((Rotation.from_quat(pose[3:]).apply(points) + pose[:3])[:, 2].min())


def test_towers_knocked_over_fly_as_outlines_and_are_held_exact_where_they_come_to_rest():
    """A tower thrown at 2 m/s against the top of a row of three: it and the one it strikes collide as their
    outlines while they move; each one the statics hold is exact again (its own body back) and lies as its exact
    shape does, on the table (its lowest exact point on it, not sunk in nor hanging over it)."""
    pieces = [tower(f"t{k}", 30.0 * k, rot=90.0 * k) for k in range(3)]
    thrown = scene(tower("thrown", -60.0, z=26.0), game="babylon").pieces[0]
    with LiveWorld(scene(*pieces, game="babylon")) as lw:
        exact = {i: lw.world.bodies[i].uid for i in lw.ids}
        assert lw.held == set(exact)
        lw.add(thrown, velocity=[2.0, 0.0, 0.0, 0.0, 0.0, 0.0])
        flew = set()
        for _ in range(180):
            lw.advance(1 / 60)
            flew |= lw.flights.flying
        assert {"thrown", "t0"} <= flew
        assert lw.held == {*exact, "thrown"} and not lw.flights.flying and not lw.free()
        assert not lw.world._outlined
        for i, uid in exact.items():
            assert lw.world.bodies[i].uid == uid  # the exact body took over again
        assert lw.pose("thrown")[2] == pytest.approx(0.0125, abs=2e-4)  # it came down on a side
        on_table = [i for i in lw.ids if lw.certification.below.get(i) == frozenset({"board"})]
        assert set(on_table) == {*exact, "thrown"}
        for i in on_table:
            assert lowest(lw, i) == pytest.approx(0.0, abs=1e-4)


def test_a_snapshot_restored_makes_every_body_exact_and_goes_on_the_same_twice():
    pieces = [tower(f"t{k}", 30.0 * k) for k in range(3)]
    with LiveWorld(scene(*pieces, game="babylon")) as lw:
        lw.push("t0", [0.6 * lw.world.bodies["t0"].mass, 0.0, 0.0], point=[0.0, 0.0, 0.018])
        for _ in range(8):
            lw.advance(1 / 60)
        assert lw.flights.flying
        snap = lw.snapshot(exact=True)
        assert not lw.flights.flying and not lw.world._outlined
        runs = []
        for _ in range(2):
            lw.restore(snap)
            for _ in range(30):
                lw.advance(1 / 60)
            runs.append(lw.poses())
        assert np.array_equal(runs[0], runs[1])


def posts_and_lintels():
    """Posts A, B, C (40 × 20 × 40 mm) with lintel L1 on A and B, and L2 on B and C."""
    post = [{"id": p, "kind": "box", "size": [40, 20, 40], "pos": [x, 0.0, 20.0]}
            for p, x in (("A", 0.0), ("B", 80.0), ("C", 160.0))]
    lintels = [{"id": "L1", "kind": "box", "size": [80, 20, 10], "pos": [30.0, 0.0, 45.0]},
               {"id": "L2", "kind": "box", "size": [80, 20, 10], "pos": [130.0, 0.0, 45.0]}]
    return scene(*post, *lintels)


def test_a_piece_sliding_slowly_wakes_what_rests_on_it_not_what_it_rests_on():
    """Lintel L1 pushed along its posts at 4 cm/s (faster than ``TOUCH_SPEED``, slower than what wakes a piece
    merely touched): the posts it slides on, A and B, stay held (with them L2 and C: a slow touch woke B, then
    L2 on it, then C), and L1 stops on them, held again."""
    with LiveWorld(posts_and_lintels()) as lw:
        assert lw.held == {"A", "B", "C", "L1", "L2"}
        lw.push("L1", [0.0, 0.04 * lw.world.bodies["L1"].mass, 0.0])
        moved = False
        for _ in range(12):
            lw.step(1)
            moved |= "L1" in lw.moving(0.02)
            assert {"A", "B", "C", "L2"} <= lw.held
        assert moved
        lw.advance(0.5)
        assert lw.held == {"A", "B", "C", "L1", "L2"}
        assert not [e for e in lw.events if e.kind in ("fell", "knocked_down")]


def test_a_support_sliding_away_slowly_wakes_what_rests_on_it():
    """A cube on a block pushed along at 4 cm/s (slower than what wakes a piece merely touched): the cube is
    simulated at once, not left hanging as a static body over the moving block."""
    pieces = [{"id": "block", "kind": "box", "size": [40, 40, 20], "pos": [0.0, 0.0, 10.0]},
              {"id": "cube", "kind": "box", "size": [20, 20, 20], "pos": [0.0, 0.0, 30.0]}]
    with LiveWorld(scene(*pieces)) as lw:
        assert lw.held == {"block", "cube"}
        mass = lw.world.bodies["block"].mass + lw.world.bodies["cube"].mass
        lw.push("block", [0.04 * mass, 0.0, 0.0])
        lw.step(8)
        assert "cube" not in lw.held


def test_a_falling_voussoir_flies_as_its_hull_and_rests_exact_and_held_on_the_table():
    """A voussoir (its faces held as face pyramids) dropped 0.2 m: while it falls faster than ``FALL_SPEED``
    it is one hull; once it slows down it is exact again, rests on the table as its exact shape lies and is
    held."""
    from sim.cases.arches import suite
    from sim.physics.live.flight import PYRAMIDS

    case = next(c for c in suite() if c.name == "semicircular n=5 R=500 d=250 fixed a=0.5x0.3 t/R x1.01")
    block = next(p for p in case.scene.pieces if not p.fixed)
    lifted = block.moved((block.pos[0], block.pos[1], block.pos[2] + 0.2), block.quat)
    with LiveWorld(case.scene.with_pieces([lifted])) as lw:
        assert lw.flights._kind(block.id) == PYRAMIDS and not lw.held
        flew = False
        for _ in range(150):
            lw.advance(1 / 60)
            flew |= block.id in lw.flights.flying
        assert flew
        assert lw.held == {block.id} and not lw.flights.flying and not lw.world._outlined
        assert lowest(lw, block.id) == pytest.approx(0.0, abs=1e-4)


@pytest.mark.parametrize("n", [100, 101])
def test_a_certification_of_more_than_a_hundred_pieces_lets_go_at_once_what_needs_help(monkeypatch, n):
    import sim.statics
    from sim.physics.live.rest import LARGE_PEEL, STRICT_PEEL

    asked = []
    analyze = sim.statics.analyze

    def recording(*args, **kwargs):
        asked.append(kwargs.get("strict_peel"))
        return analyze(*args, **kwargs)

    monkeypatch.setattr(sim.statics, "analyze", recording)
    cubes = [{"id": f"c{k}", "kind": "box", "size": [20, 20, 20], "pos": [(k % 10) * 30.0, (k // 10) * 30.0, 10.0]}
             for k in range(n)]
    with LiveWorld(scene(*cubes)) as lw:
        assert len(lw.held) == n
    assert asked and set(asked) == {STRICT_PEEL if n <= LARGE_PEEL else 0}
