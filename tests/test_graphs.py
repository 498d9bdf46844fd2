"""The one definition of connected components."""

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from sim.graphs import LOOP_EDGES, component_labels, components


def test_components_from_pairs_keep_the_order_of_their_first_node():
    groups = components("abcde", [("e", "b"), ("c", "d"), ("x", "a")])
    assert groups == [frozenset("a"), frozenset("be"), frozenset("cd")]


def test_components_from_a_neighbour_mapping():
    assert components([3, 1, 2], {1: [2], 2: [1], 9: [3]}) == [frozenset({3}), frozenset({1, 2})]


def test_component_labels_number_by_lowest_node():
    assert list(component_labels(5, [4, 1], [3, 0])) == [0, 0, 1, 2, 2]
    assert list(component_labels(3, [], [])) == [0, 1, 2]


def test_the_union_find_loop_and_scipy_give_the_same_labels():
    # small graphs take the loop, large ones scipy: the same numbering either way, duplicates and self-loops included
    rng = np.random.default_rng(7)
    for n, edges in [(1, 1), (6, 4), (30, 20), (40, 200), (300, 250), (200, 2000)]:
        rows = rng.integers(0, n, edges)
        cols = np.where(rng.random(edges) < 0.1, rows, rng.integers(0, n, edges))
        graph = coo_matrix((np.ones(edges), (rows, cols)), shape=(n, n))
        expected = connected_components(graph, directed=False)[1]
        labels = component_labels(n, rows, cols)
        assert labels.dtype == expected.dtype and np.array_equal(labels, expected)
    assert 250 < LOOP_EDGES < 2000  # the graphs above went both ways
