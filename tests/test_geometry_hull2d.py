"""The plane's convex hull (sim.geometry.hull2d) against Qhull's, and its degenerate cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import ConvexHull

from sim.geometry.hull2d import hull_indices

coords = st.integers(-50, 50).map(lambda v: v * 1e-3)  # a mm grid: repeated and collinear points come up often


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(coords, coords), min_size=3, max_size=40))
def test_the_same_vertices_as_qhull_anticlockwise(points):
    xy = np.array(points)
    ours = hull_indices(xy)
    spread = np.linalg.matrix_rank(xy - xy.mean(axis=0), tol=1e-12)
    if spread < 2:  # on one line or one point: Qhull refuses; its two ends (the farthest apart), or the point
        far = float(np.linalg.norm(xy[:, None] - xy[None], axis=2).max())
        assert (len(ours) == 1 and far == 0.0) or (
            len(ours) == 2 and float(np.linalg.norm(xy[ours[0]] - xy[ours[1]])) == pytest.approx(far))
        return
    theirs = ConvexHull(xy).vertices
    assert sorted(map(tuple, xy[ours])) == sorted(map(tuple, xy[theirs]))
    assert len(set(ours.tolist())) == len(ours)  # a repeated point once
    p = xy[ours]
    area = 0.5 * float(np.sum(p[:, 0] * np.roll(p[:, 1], -1) - np.roll(p[:, 0], -1) * p[:, 1]))
    assert area > 0.0  # anticlockwise


def test_points_on_an_edge_and_a_line_and_a_point():
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0], [1, 0.5], [0.5, 0.5]], dtype=float)
    assert hull_indices(square).tolist() == [0, 1, 2, 3]  # the edges' midpoints and the centre left out
    line = np.array([[0, 0], [2, 2], [1, 1], [3, 3]], dtype=float)
    assert sorted(hull_indices(line).tolist()) == [0, 3]
    assert hull_indices(np.array([[1.0, 2.0]] * 3)).tolist() == [0]
