"""The live picture's batch of resting pieces (Panda3D nodes, no window): who is in it, when it is made again,
and how a tinted piece in it is drawn."""

from __future__ import annotations

import numpy as np
from panda3d.core import CardMaker, NodePath

from sim.render.graph import SHADOW_MASK
from sim.viewer.window.batch import JOIN_EVERY, MIN_BATCH, STILL_UPDATES, RestingBatch


def _pieces(n: int):
    root = NodePath("live")
    nodes = {}
    for k in range(n):
        card = CardMaker(f"p{k}")
        card.set_frame(-0.01, 0.01, -0.01, 0.01)
        node = root.attach_new_node(f"p{k}")
        node.attach_new_node(card.generate())
        node.set_x(0.03 * k)
        nodes[f"p{k}"] = node
    return root, nodes


def _geoms(np_: NodePath) -> int:
    return sum(n.node().get_num_geoms() for n in np_.find_all_matches("**/+GeomNode"))


def test_resting_pieces_are_one_geometry_and_a_piece_that_moves_leaves_it_at_once():
    n = MIN_BATCH + 4
    root, nodes = _pieces(n)
    batch = RestingBatch(root, nodes)
    poses = np.zeros((n, 7))
    poses[:, 0] = 0.03 * np.arange(n)
    poses[:, 6] = 1.0
    for _ in range(STILL_UPDATES + 1):
        batch.update(poses)
    assert batch.batched == frozenset(nodes) and batch.builds == 1
    resting = root.find("resting")
    assert _geoms(resting) == 1  # twelve cards, one geometry
    assert all(node.is_hidden() for node in nodes.values())
    poses = poses.copy()
    poses[3, 2] += 0.001  # p3 starts moving: out of the batch in the same update
    batch.update(poses)
    assert "p3" not in batch.batched and not nodes["p3"].is_hidden() and batch.builds == 2
    for _ in range(STILL_UPDATES + 1):
        batch.update(None)
    assert "p3" not in batch.batched  # at rest again, it waits: a collapse does not rebuild every frame
    for _ in range(JOIN_EVERY):
        batch.update(None)
    assert "p3" in batch.batched and batch.builds == 3


def test_a_tinted_piece_in_the_batch_is_drawn_over_it_and_casts_no_second_shadow():
    root, nodes = _pieces(MIN_BATCH)
    batch = RestingBatch(root, nodes)
    for _ in range(STILL_UPDATES + 1):
        batch.update(None)
    assert batch.batched
    batch.tint({"p2": (0.3, 0.6, 1.0, 0.35)})
    p2 = nodes["p2"]
    assert not p2.is_hidden() and p2.is_hidden(SHADOW_MASK) and p2.get_depth_offset() == 1
    assert nodes["p1"].is_hidden() and batch.builds == 1  # a hover never rebuilds the batch
    batch.tint({})
    assert p2.is_hidden()


def test_too_few_resting_pieces_are_not_batched():
    root, nodes = _pieces(MIN_BATCH - 1)
    batch = RestingBatch(root, nodes)
    for _ in range(STILL_UPDATES + JOIN_EVERY):
        batch.update(None)
    assert not batch.batched and batch.builds == 0 and root.find("resting").is_empty()


def test_a_moving_piece_casts_no_shadow_and_the_casters_count_changes_only_when_one_starts_or_stops():
    from sim.viewer.window.batch import MOVING_UPDATES

    n = 3  # fewer than MIN_BATCH: no batch, every piece its own node
    root, nodes = _pieces(n)
    batch = RestingBatch(root, nodes)
    poses = np.zeros((n, 7))
    poses[:, 6] = 1.0
    batch.update(poses)
    assert batch.moving == frozenset() and not nodes["p1"].is_hidden(SHADOW_MASK)
    count = batch.casters
    for _ in range(5):  # p1 carried: a new pose every update
        poses = poses.copy()
        poses[1, 0] += 0.001
        batch.update(poses)
        assert batch.moving == {"p1"} and nodes["p1"].is_hidden(SHADOW_MASK) and not nodes["p1"].is_hidden()
    assert batch.casters == count + 1  # once, when it began to move
    for _ in range(MOVING_UPDATES):
        batch.update(poses)
    assert batch.moving == frozenset() and not nodes["p1"].is_hidden(SHADOW_MASK) and batch.casters == count + 2
    batch.update(None)
    assert batch.casters == count + 2
    for _ in range(5):  # the solver trembles a resting piece by nanometres: it keeps its shadow
        poses = poses.copy()
        poses[2, 0] += 1e-9
        batch.update(poses)
    assert batch.moving == frozenset() and batch.casters == count + 2
    batch.held = frozenset({"p0"})  # in a hand, even standing still
    batch.update(poses)
    assert batch.moving == {"p0"} and nodes["p0"].is_hidden(SHADOW_MASK)
