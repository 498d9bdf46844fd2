"""Connected components of undirected graphs: the one definition every layer uses.

Structures in the statics, the support graph, Babylon's buildings,
Tohuwabohu's structures and the physics world's islands are all connected
components; they differ only in what they join.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

LOOP_EDGES = 512
"""Graphs of at most this many edges are joined by a union-find loop, larger ones by scipy: scipy's
fixed cost (some 80 µs a call, most of it checking its input) is more than the loop takes below it,
as on the statics of a harmonic stack (10 µs) or a 55-block Talo structure (45 µs); a Babylon city's
1700 contact links take scipy 90 µs and the loop 130."""


def component_labels(n: int, rows, cols) -> np.ndarray:
    """(n,) int component label of each node of an undirected graph on nodes ``0..n-1``.

    Args:
        n: number of nodes.
        rows, cols: (k,) int end points of the k edges (either order; self-loops allowed).

    Returns:
        Labels ``0..c-1``, numbered in the order of each component's lowest node (both ways of
        joining, :data:`LOOP_EDGES`, give the same labels).
    """
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    cols = np.asarray(cols, dtype=np.int64).reshape(-1)
    if len(rows) <= LOOP_EDGES:
        return _union_find(n, rows.tolist(), cols.tolist())
    graph = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    return connected_components(graph, directed=False)[1]


def _union_find(n: int, rows: list, cols: list) -> np.ndarray:
    """(n,) component labels by union-find over the distinct edges, each root its component's lowest node."""
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]  # path halving
            i = parent[i]
        return i

    for a, b in set(zip(rows, cols)):
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    roots = [root(i) for i in range(n)]
    if not n:
        return np.zeros(0, dtype=np.int32)
    return np.unique(roots, return_inverse=True)[1].reshape(n).astype(np.int32)  # int32, as scipy's


def components(nodes: Iterable[Hashable], edges: Iterable[tuple] | Mapping) -> list[frozenset]:
    """Connected groups of ``nodes`` under undirected ``edges``, in the order of their first node.

    Args:
        nodes: the nodes, in the order that decides the groups' order.
        edges: pairs ``(a, b)``, or a mapping node -> iterable of neighbours; edges that name a
            node not in ``nodes`` are ignored.

    Returns:
        One frozenset per component, ordered by the position of its first node in ``nodes``.
    """
    nodes = list(nodes)
    index = {v: k for k, v in enumerate(nodes)}
    pairs = ((a, b) for a, bs in edges.items() for b in bs) if isinstance(edges, Mapping) else edges
    rows, cols = [], []
    for a, b in pairs:
        if a in index and b in index:
            rows.append(index[a])
            cols.append(index[b])
    labels = component_labels(len(nodes), rows, cols)
    groups: dict[int, list] = {}
    for v, label in zip(nodes, labels):
        groups.setdefault(int(label), []).append(v)
    return [frozenset(g) for g in groups.values()]


def reached(starts: Iterable[Hashable], neighbours: Callable[[Hashable], Iterable[Hashable]]) -> set:
    """``starts`` and every node reached from them along ``neighbours`` (a directed walk: what stands on a piece,
    directly or through others, when ``neighbours`` names what a node carries)."""
    found, stack = set(), list(starts)
    while stack:
        v = stack.pop()
        if v not in found:
            found.add(v)
            stack.extend(neighbours(v))
    return found

