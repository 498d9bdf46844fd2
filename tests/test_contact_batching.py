"""The contact finder's batched steps give the same numbers as doing each item alone."""

from __future__ import annotations

import numpy as np

from sim.contact import find_interfaces
from sim.contact.broad import candidate_pairs
from sim.contact.ragged import batched_products
from sim.scene import from_dict


def test_batched_products_match_one_product_at_a_time_bit_for_bit_whatever_the_lengths():
    rng = np.random.default_rng(3)
    arrays = [rng.normal(size=(k, 2)) for k in (1, 4, 2, 1, 7, 4, 3)]
    mats = rng.normal(size=(len(arrays), 2, 3))
    for got, x, m in zip(batched_products(arrays, mats), arrays, mats):
        assert np.array_equal(got, x @ m)


def test_the_broad_phase_pairs_exactly_the_overlapping_boxes_of_different_owners():
    rng = np.random.default_rng(5)
    lo = rng.uniform(0, 1, size=(120, 3))
    hi = lo + rng.uniform(0.01, 0.2, size=(120, 3))
    owner = rng.integers(-1, 25, size=120)
    margin = 0.01
    got = {tuple(sorted(p)) for p in candidate_pairs(lo, hi, owner, margin).tolist()}
    want = {(i, j) for i in range(120) for j in range(i + 1, 120)
            if owner[i] != owner[j] and np.all(lo[j] <= hi[i] + margin) and np.all(lo[i] <= hi[j] + margin)}
    assert got == want


def test_interfaces_do_not_depend_on_how_pieces_of_one_kind_are_grouped():
    """A kind's pieces are placed together; a piece alone or among many touches the same."""
    blocks = [{"id": f"b{i}", "kind": "talo.block", "length": 2, "pos": [40 * i, 0, 10], "rot": [0, 0, 7 * i]}
              for i in range(4)]
    top = {"id": "top", "kind": "talo.block", "length": 1, "pos": [0, 0, 30], "rot": [0, 0, 11]}
    many = from_dict({"format": "towerlab-scene/1", "game": "talo", "pieces": [*blocks, top]})
    alone = from_dict({"format": "towerlab-scene/1", "game": "talo", "pieces": [blocks[0], top]})
    pick = [f for f in find_interfaces(many) if "b1" not in (f.a, f.b) and "b2" not in (f.a, f.b)
            and "b3" not in (f.a, f.b)]
    for f, g in zip(pick, find_interfaces(alone), strict=True):
        assert (f.a, f.b, f.area) == (g.a, g.b, g.area)
        assert np.array_equal(f.polygon, g.polygon) and np.array_equal(f.normal, g.normal)
