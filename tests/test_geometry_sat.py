"""The separating-axis depth of convex polytopes: every edge pair's answer, in near-linear time and bounded memory."""

from __future__ import annotations

import json
import time
import tracemalloc

import numpy as np
import pytest
from scipy.spatial import ConvexHull
from scipy.spatial.transform import Rotation

from sim.cli import main
from sim.geometry import sat
from sim.geometry.solids import box
from sim.pieces.custom import MAX_HULL_POINTS
from sim.scene import find_overlaps, from_dict


def every_axis_depth(va: np.ndarray, vb: np.ndarray) -> float:
    """The textbook test: both solids projected on every face normal and every cross product of two edges."""
    def faces_and_edges(v):
        hull = ConvexHull(v)
        pairs = {tuple(sorted((s[k], s[(k + 1) % 3]))) for s in hull.simplices for k in range(3)}
        e = np.array(sorted(pairs))
        d = v[e[:, 1]] - v[e[:, 0]]
        return hull.equations[:, :3], d / np.linalg.norm(d, axis=1, keepdims=True)

    (fa, da), (fb, db) = faces_and_edges(va), faces_and_edges(vb)
    cross = np.cross(da[:, None], db[None]).reshape(-1, 3)
    length = np.linalg.norm(cross, axis=1)
    axes = np.vstack([fa, fb, cross[length > 1e-9] / length[length > 1e-9, None]])
    pa, pb = va @ axes.T, vb @ axes.T
    return float(np.minimum(pa.max(axis=0) - pb.min(axis=0), pb.max(axis=0) - pa.min(axis=0)).min())


def sphere_points(rng, n: int, radius: float = 1.0) -> np.ndarray:
    p = rng.normal(size=(n, 3))
    return radius * p / np.linalg.norm(p, axis=1, keepdims=True)


def random_solid(rng, n: int, kind: int) -> np.ndarray:
    if kind == 0:  # a cloud: few hull vertices of many points, long edges
        return rng.normal(size=(n, 3)) * rng.uniform(0.2, 2, 3)
    if kind == 1:  # every point on the hull, short edges
        return sphere_points(rng, n)
    if kind == 3:  # a sliver: a flat cloud and one point just off it, edges folded nearly flat (arcs near π)
        flat = np.column_stack([rng.uniform(-1, 1, (n, 2)), np.zeros(n)])
        return np.vstack([flat, [[0.1, 0.2, 1e-3]]])
    t = np.linspace(0, 2 * np.pi, n // 2 + 3, endpoint=False)  # a prism: parallel edges, coplanar faces
    ring = np.column_stack([np.cos(t), np.sin(t)])
    return np.vstack([np.column_stack([ring, np.zeros(len(t))]), np.column_stack([ring, np.full(len(t), 0.7)])])


def test_the_depth_is_the_textbook_one_on_random_polytopes(monkeypatch):
    """Clouds, spheres, prisms and slivers, turned and moved at random: the same depth as every axis gives, to
    rounding, on both of its ways (every edge pair tried, and edges bounded and paired through the tree)."""
    rng = np.random.default_rng(11)
    inside = 0
    for trial in range(96):
        na, nb = rng.integers(4, 70, 2)
        va = random_solid(rng, na, trial % 4)
        turn = Rotation.random(random_state=int(rng.integers(1 << 30))).as_matrix()
        vb = random_solid(rng, nb, (trial // 4) % 4) @ turn.T + rng.uniform(-1.5, 1.5, 3)
        want = every_axis_depth(va, vb)
        inside += want > 0
        for small in (0, 10**9):
            monkeypatch.setattr(sat, "SMALL", small)
            got = sat.depth(sat.polytope(va), sat.polytope(vb))
            if want > 0:
                assert got == pytest.approx(want, abs=1e-12), (trial, small)
            else:
                assert got <= 1e-12, (trial, small)  # apart: some direction shows it
    assert inside > 40


def test_the_depth_of_hundreds_of_edges_each_is_the_textbook_one():
    rng = np.random.default_rng(5)
    for trial in range(2):
        va = sphere_points(rng, 120)
        vb = random_solid(rng, 120, trial % 2) * 0.8 + rng.uniform(-1.0, 1.0, 3)
        want = every_axis_depth(va, vb)
        assert sat.depth(sat.polytope(va), sat.polytope(vb)) == pytest.approx(want, abs=1e-12)


def test_a_fine_ball_pressed_into_a_slab_reaches_as_deep_as_its_lowest_point():
    rng = np.random.default_rng(2)
    ball = sat.polytope(sphere_points(rng, MAX_HULL_POINTS, 0.05))
    slab = sat.polytope(box([-1, -1, -0.02], [1, 1, 0]))
    for lift in (0.0495, 0.049, 0.03):
        moved = ball.moved(np.eye(3), np.array([0, 0, lift]))
        assert sat.depth(slab, moved) == pytest.approx(-moved.vertices[:, 2].min(), abs=1e-12)


def test_two_fine_balls_lie_between_their_inner_and_outer_spheres():
    """Each hull holds the ball of its least face offset and lies in its sphere: the depth of two at a distance s
    lies between the sums of those radii less s."""
    rng = np.random.default_rng(3)
    a, b = (sat.polytope(sphere_points(rng, MAX_HULL_POINTS, 0.05)) for _ in range(2))
    inner = a.offsets.min() + b.offsets.min()
    for s in (0.0, 0.02, 0.0995):
        direction = rng.normal(size=3)
        got = sat.depth(a, b.moved(np.eye(3), s * direction / np.linalg.norm(direction)))
        assert inner - s - 1e-12 <= got <= 0.1 - s + 1e-12


def test_the_least_width_is_the_least_over_faces():
    rng = np.random.default_rng(4)
    for kind in range(3):
        v = random_solid(rng, 60, kind)
        hull = ConvexHull(v)
        heights = v @ hull.equations[:, :3].T
        assert sat.width(sat.polytope(v)) == pytest.approx((heights.max(axis=0) - heights.min(axis=0)).min())


def test_two_hulls_at_the_limit_take_bounded_memory():
    """Every edge pair of two hulls of 10 000 points would be 9e8 axes (20 GB); chunks and bounds keep it small."""
    rng = np.random.default_rng(6)
    a, b = (sat.polytope(sphere_points(rng, MAX_HULL_POINTS, 0.05)) for _ in range(2))
    tracemalloc.start()
    try:
        sat.depth(a, b.moved(np.eye(3), np.array([0.03, 0.01, 0.0])))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 150 * 2**20


def hull_record(name: str, points_mm, pos) -> dict:
    return {"id": name, "kind": "hull", "pos": list(pos), "vertices": np.round(points_mm, 6).tolist()}


def test_hulls_at_the_limit_are_checked_for_overlap_on_a_board(tmp_path, capsys):
    """Two hulls of 10 000 points on a board, one 1 mm into the slab, both about 0.5 mm into each other: found,
    in a budget the check of every edge pair (hours) could not keep."""
    rng = np.random.default_rng(8)
    a, b = sphere_points(rng, MAX_HULL_POINTS, 50.0), sphere_points(rng, MAX_HULL_POINTS, 50.0)
    pos_a = np.array([0.0, 0.0, np.ptp(a[:, 2]) / 2 - 1.0])  # the piece frame is the box's centre: 1 mm down
    pos_b = pos_a + [0.0, 99.5, 2.0]
    data = {"format": "towerlab-scene/1", "game": "talo", "pieces": [
        hull_record("a", a, pos_a), hull_record("b", b, pos_b)]}
    start = time.monotonic()
    got = {(o.a, o.b): o.depth * 1000 for o in find_overlaps(from_dict(data))}
    assert time.monotonic() - start < 60
    assert set(got) == {("board", "a"), ("a", "b")} and got[("board", "a")] == pytest.approx(1.0, abs=1e-6)
    centres = [p - (v.max(axis=0) + v.min(axis=0)) / 2 for p, v in ((pos_a, a), (pos_b, b))]
    apart = float(np.linalg.norm(centres[1] - centres[0]))
    inner = min(ConvexHull(v).equations[:, 3].max() for v in (a, b))  # -offset: the least face offset, negated
    assert 2 * -inner - apart - 1e-6 <= got[("a", "b")] <= 100 - apart + 1e-6
    path = tmp_path / "two.json"
    path.write_text(json.dumps(data))
    assert main(["validate", str(path)]) == 2
    assert "overlapping pieces: a and b" in capsys.readouterr().err
