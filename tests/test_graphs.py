"""The one definition of connected components."""

from sim.graphs import component_labels, components


def test_components_from_pairs_keep_the_order_of_their_first_node():
    groups = components("abcde", [("e", "b"), ("c", "d"), ("x", "a")])
    assert groups == [frozenset("a"), frozenset("be"), frozenset("cd")]


def test_components_from_a_neighbour_mapping():
    assert components([3, 1, 2], {1: [2], 2: [1], 9: [3]}) == [frozenset({3}), frozenset({1, 2})]


def test_component_labels_number_by_lowest_node():
    assert list(component_labels(5, [4, 1], [3, 0])) == [0, 0, 1, 2, 2]
    assert list(component_labels(3, [], [])) == [0, 1, 2]
