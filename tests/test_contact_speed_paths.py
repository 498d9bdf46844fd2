"""The contact finder's shortcuts for small inputs give the same numbers as the general paths they skip."""

from __future__ import annotations

import numpy as np
import shapely

import sim.contact.narrow as narrow
from sim.contact import find_interfaces, plane_basis
from sim.contact.broad import candidate_pairs
from sim.contact.clip import geometries
from sim.contact.narrow import isin
from sim.contact.ragged import batched_products
from sim.geometry.transforms import quat_to_matrix, rotation_matrices
from sim.scene import from_dict


def _same(f, g) -> bool:
    return ((f.a, f.b, f.part_a, f.part_b, f.area) == (g.a, g.b, g.part_a, g.part_b, g.area)
            and f.normal.tobytes() == g.normal.tobytes() and f.polygon.tobytes() == g.polygon.tobytes())


def _tilted_stack():
    """Blocks turned and offset a little: face, edge and corner contacts, on the table and on each other."""
    pieces = [{"id": f"b{i}", "kind": "box", "size": [60, 30, 20], "pos": [7 * i, 3 * i, 10 + 20 * i],
               "rot": [0, 0, 9 * i]} for i in range(4)]
    pieces.append({"id": "edge", "kind": "box", "size": [30, 30, 30], "pos": [80, 0, 15 * 2 ** 0.5], "rot": [0, 45, 0]})
    corner_down = [45, float(np.degrees(np.arctan(2 ** -0.5))), 0]
    pieces.append({"id": "corner", "kind": "box", "size": [30, 30, 30], "pos": [-80, 0, 15 * 3 ** 0.5],
                   "rot": corner_down})
    return from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": pieces})


def _np_cross_basis(normal) -> np.ndarray:
    n = np.asarray(normal, dtype=float)
    u = np.cross(np.eye(3)[int(np.argmin(np.abs(n)))], n)
    u /= np.linalg.norm(u)
    return np.array([u, np.cross(n, u)])


def test_plane_basis_matches_np_cross_bit_for_bit():
    rng = np.random.default_rng(11)
    normals = rng.normal(size=(500, 3))
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    axes = [[0.0, 0.0, 1.0], [0.0, 0.0, -1.0], [-0.0, 0.0, 1.0], [1.0, -0.0, 0.0], [0.6, 0.8, 0.0]]
    for n in [*normals, *np.array(axes)]:
        assert plane_basis(n).tobytes() == _np_cross_basis(n).tobytes()


def test_unrotated_pieces_get_scipys_identity_matrices_bit_for_bit():
    quats = np.tile([0.0, 0.0, 0.0, 1.0], (3, 1))
    assert rotation_matrices(quats).tobytes() == quat_to_matrix(quats).tobytes()
    signed_zero = quats.copy()
    signed_zero[1, 0] = -0.0  # scipy gives -0.0 entries here: not the shortcut
    assert rotation_matrices(signed_zero).tobytes() == quat_to_matrix(signed_zero).tobytes()
    turned = np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, np.sin(0.2), np.cos(0.2)]])
    assert rotation_matrices(turned).tobytes() == quat_to_matrix(turned).tobytes()
    assert rotation_matrices(np.zeros((0, 4))).shape == (0, 3, 3)


def test_one_box_per_owner_pairs_as_the_owner_grouping_does_in_the_same_order():
    rng = np.random.default_rng(7)
    lo = rng.uniform(0, 1, size=(60, 3))
    hi = lo + rng.uniform(0.01, 0.3, size=(60, 3))
    owner = rng.permutation(60)  # one box each, out of order: the grouping path
    order = np.argsort(owner)  # the same boxes by owner: the one-box-per-owner path
    grouped = candidate_pairs(lo, hi, owner, 0.01)
    direct = order[candidate_pairs(lo[order], hi[order], np.arange(60), 0.01)]
    assert len(grouped) and np.array_equal(grouped, direct)


def test_short_isin_matches_numpy():
    rng = np.random.default_rng(2)
    for n, m in ((0, 3), (3, 0), (5, 7), (90, 80)):
        a, b = rng.integers(0, 20, size=n), rng.integers(0, 20, size=m)
        assert np.array_equal(isin(a, b), np.isin(a, b))


def test_polygons_of_one_length_are_the_geometries_the_index_path_makes():
    rng = np.random.default_rng(4)
    squares = [rng.normal(size=(4, 2)) for _ in range(5)]
    odd = rng.normal(size=(3, 2))  # another length: the index path
    for kind in ("polygon", "line"):
        one = geometries(squares, kind)
        indexed = geometries([*squares, odd], kind)[:-1]
        assert shapely.to_wkb(one).tolist() == shapely.to_wkb(indexed).tolist()


def test_batched_products_with_shifts_match_one_at_a_time_bit_for_bit():
    rng = np.random.default_rng(9)
    arrays = [rng.normal(size=(k, 2)) for k in (1, 4, 2, 4, 5)]
    mats = rng.normal(size=(len(arrays), 2, 3))
    shifts = rng.normal(size=(len(arrays), 3))
    for got, x, m, s in zip(batched_products(arrays, mats, shifts), arrays, mats, shifts):
        assert got.tobytes() == (s + x @ m).tobytes()


def test_ruling_rows_out_by_bounds_changes_nothing_but_the_time(monkeypatch):
    scene = _tilted_stack()
    monkeypatch.setattr(narrow, "BOUND_ROWS", 0)
    bounded = find_interfaces(scene)
    monkeypatch.setattr(narrow, "BOUND_ROWS", 10**9)
    unbounded = find_interfaces(scene)
    assert {len(f.polygon) for f in bounded} >= {1, 2, 4}  # corners, an edge and faces
    assert len(bounded) == len(unbounded) and all(_same(f, g) for f, g in zip(bounded, unbounded))


def test_a_scene_without_pieces_has_no_interfaces():
    for board in ("table", "tohuwabohu-area"):
        assert find_interfaces(from_dict({"format": "towerlab-scene/1", "game": "free", "board": board,
                                          "pieces": []})) == []
