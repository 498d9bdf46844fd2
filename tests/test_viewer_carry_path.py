"""A carried piece on its way: it clears what lies under and beside its way, and its rays look under its own outline
(a triangle beside a triangle)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.scene import from_dict
from sim.viewer.control.actions import action
from sim.viewer.control.carry import footprint
from sim.viewer.control.controller import Controller


def free(*pieces):
    return from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "pieces": list(pieces)})


def box(pid, size, pos):
    return {"id": pid, "kind": "box", "size": list(size), "pos": list(pos)}


@pytest.mark.parametrize("gap_mm", [1.0, 2.0, 3.0])
def test_a_piece_carried_past_a_corner_a_few_millimetres_off_its_way_does_not_strike_it(gap_mm):
    """A 40 x 20 mm brick carried diagonally onto a 70 mm plinth passes the corner of a brick lying on a
    pedestal as high, ``gap_mm`` off its swept outline (Tohuwabohu: a brick carried onto level 3 past the one
    beside its place): the hand does not keep it on the line to the millimetre, so it goes over."""
    x = gap_mm - 2.8  # the post's corner gap_mm off the corner of the brick's swept outline
    c = Controller(free(box("plinth", (80, 60, 70), (0, 40, 35)), box("pedestal", (60, 30, 69), (x, -22, 34.5)),
                        box("post", (40, 20, 20), (x, -22, 79)), box("brick", (40, 20, 20), (190, -93, 10))),
                   threaded=False)
    before = c.world.pose("post").copy()
    for name, fields in (("pick", {"piece": "brick"}), ("move-to", {"at": [0.0, 18.0]}), ("drop", {})):
        c.apply(action(name, **fields))
        c.run_until_quiet()
    assert np.allclose(c.world.pose("post"), before, atol=1e-5)  # never touched
    assert c.world.pose("brick")[:3] == pytest.approx([0.0, 0.018, 0.08], abs=1e-3)  # on the plinth


def test_a_footprints_rays_lie_under_the_piece_itself_not_its_whole_box():
    from sim.scene import Piece

    tri = Piece("t", "tohuwabohu.level", {"shape": "tri"})
    fp = footprint(tri.shape.vertices, (0.0, 0.0, 0.0, 1.0))
    x, y = fp.samples[:, 0], fp.samples[:, 1]
    from scipy.spatial import ConvexHull, Delaunay

    outline = tri.shape.vertices[:, :2]
    hull = Delaunay(outline[ConvexHull(outline).vertices])
    assert (hull.find_simplex(np.column_stack([x, y])) >= 0).all()  # every ray under the triangle
    box_area = np.prod(2 * fp.half)
    assert len(fp.samples) < 0.75 * 81 and box_area > 0  # fewer than the box's grid: its empty corners left out


def _city():
    """Blocks of several heights scattered over the table, and a brick to carry."""
    rng = np.random.default_rng(7)
    spots = [(x, y) for x in (-120, -40, 40, 120) for y in (-120, -40, 40, 120)]
    blocks = [box(f"b{k}", (30, 30, float(h)), (x + float(dx), y + float(dy), float(h) / 2))
              for k, ((x, y), h, dx, dy) in enumerate(zip(spots, rng.uniform(10, 90, 16), rng.uniform(-20, 20, 16),
                                                            rng.uniform(-20, 20, 16)))]
    return Controller(free(*blocks, box("brick", (40, 20, 20), (200, 200, 10))), threaded=False)


def test_many_rays_at_once_meet_what_one_ray_at_a_time_meets_taken_in_by_the_hulls_margin():
    """The adapter's rays (what the hands plan with) are the readout's batch, more than the engine takes in one
    call (pybullet answers one ray fewer than it is asked in a batch of 16 384), each hit taken in by the hull's
    margin as a single ray's is."""
    from sim.physics.readout import RAY_BATCH

    c = _city()
    w = c.world
    rng = np.random.default_rng(3)
    n = 2 * RAY_BATCH + 2
    xy = rng.uniform(-0.17, 0.17, (n, 2))
    starts, ends = np.column_stack([xy, np.full(n, 0.3)]), np.column_stack([xy, np.full(n, -0.1)])
    hits = w.ray_tests(starts, ends)
    assert len(hits) == n and sum(h is not None for h in hits) > n // 10
    for k in rng.choice(n, 60, replace=False):
        one = w.ray_test(starts[k], ends[k])
        assert (one is None) == (hits[k] is None)
        if one is not None:
            assert hits[k].piece == one.piece
            np.testing.assert_allclose(hits[k].point, one.point, atol=1e-12)
            assert hits[k].distance == pytest.approx(one.distance, abs=1e-12)


def test_a_carried_piece_rides_where_its_footprint_says_without_working_the_footprint_out():
    from sim.scene import Piece
    from sim.viewer.control.hands import ride

    rng = np.random.default_rng(5)
    for kind, params in (("tohuwabohu.level", {"shape": "tri"}), ("box", {"size": [40, 20, 10]})):
        shape = Piece("p", kind, params).shape
        for _ in range(5):
            q = rng.normal(size=4)
            q /= np.linalg.norm(q)
            pose = np.concatenate([rng.uniform(-0.1, 0.1, 3), q])
            r, fp = ride("p", shape.vertices, pose, 3), footprint(shape.vertices, q)
            assert r.radius == float(np.linalg.norm(fp.outline, axis=1).max())
            assert (r.bottom, r.top) == (float(pose[2] + fp.bottom), float(pose[2] + fp.top))
