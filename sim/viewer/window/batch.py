"""Resting pieces drawn as one static geometry: the live picture's draw calls cut to those of what moves.

A city of 140 pieces is some 300 draw calls a frame (the picture and the shadow
map), and on llvmpipe each costs the host's single thread more than its pixels.
Most pieces do not move while a person builds: a :class:`RestingBatch` keeps a
flattened copy (``flatten_strong``: one geometry per surface state) of every
piece that has not moved for :data:`STILL_UPDATES` pose updates, and hides their
own nodes. A batched piece that moves leaves the batch at once (the batch is
made again without it); pieces that came to rest join at most every
:data:`JOIN_EVERY` updates, so that a collapse does not rebuild it each frame.
A tinted piece (hovered, in the weakest mode) in the batch is drawn once more
over it by its own node, pulled towards the camera by a depth offset, and not
in the shadow map: a hover never rebuilds the batch.

It also says which pieces are **moving** (in a hand, or their pose changed, by
more than :data:`MOVING_SHIFT`, in one of the last :data:`MOVING_UPDATES`
updates): the live picture leaves them out of its shadow
map, so that the map, drawn from what stands still, can be kept from frame to
frame while a piece is carried (:attr:`RestingBatch.casters` counts the changes
of that set).
"""

from __future__ import annotations

import numpy as np
from panda3d.core import NodePath

from sim.render.graph import SHADOW_MASK

STILL_UPDATES = 3
"""Pose updates a piece must stay where it is to join the batch."""
JOIN_EVERY = 30
"""Pose updates at least between two rebuilds that only add pieces to the batch."""
MIN_BATCH = 8
"""Fewer resting pieces than this are not batched (nothing to gain)."""
MOVING_UPDATES = 3
"""Updates a piece counts as moving after its pose last changed (it casts no shadow in the live picture):
three, because a frame that paid back the last one's physics (``WorldAdapter.advance``) moves nothing."""
MOVING_SHIFT = 1e-5
"""A pose changes, for the shadows, once it is this far (m, and quaternion components) from where the piece
last cast its shadow: a resting piece the solver trembles by a few nanometres keeps its shadow."""


class RestingBatch:
    """The batch of one live scene graph.

    Args:
        parent: where the batch hangs (the live copy of the graph: its bin and shaders).
        nodes: piece id -> its own node, in the order of the poses given to :meth:`update`.
    """

    def __init__(self, parent: NodePath, nodes: dict[str, NodePath]):
        self.parent = parent
        self.nodes = nodes
        self.ids = list(nodes)
        self.batched: frozenset[str] = frozenset()
        self.tinted: frozenset[str] = frozenset()
        self.builds = 0
        self.moving: frozenset[str] = frozenset()
        self.held: frozenset[str] = frozenset()  # pieces in a hand: moving whatever their pose does
        self.casters = 0  # grows whenever the set of moving pieces, which cast no shadow, changes
        self._node: NodePath | None = None
        self._still = np.zeros(len(self.ids), dtype=int)
        self._quiet = np.full(len(self.ids), MOVING_UPDATES)  # updates since each pose last changed
        self._cast: np.ndarray | None = None  # the poses the pieces last cast their shadows from
        self._last: np.ndarray | None = None
        self._since = JOIN_EVERY

    def update(self, poses: np.ndarray | None) -> None:
        """A frame's poses (n, 7) in the order of ``nodes`` (None: nothing moved since the last)."""
        if poses is not None:
            poses = np.asarray(poses, dtype=float)
            if self._last is None or self._last.shape != poses.shape:
                self._still[:] = 0
            else:
                moved = np.any(poses != self._last, axis=1)
                self._still[moved] = 0
                self._still[~moved] += 1
                shifted = np.any(np.abs(poses - self._cast) > MOVING_SHIFT, axis=1)
                self._quiet[shifted] = 0
                self._quiet[~shifted] += 1
                self._cast[shifted] = poses[shifted]
            if self._cast is None or self._cast.shape != poses.shape:
                self._cast = poses.copy()
            self._last = poses.copy()
        else:
            self._still += 1
            self._quiet += 1
        self._since += 1
        moving = frozenset(i for i, k in zip(self.ids, self._quiet) if k < MOVING_UPDATES) | self.held
        if moving != self.moving:
            self.moving = moving
            self.casters += 1
            self._show_nodes()
        resting = frozenset(i for i, k in zip(self.ids, self._still) if k >= STILL_UPDATES)
        if len(resting) < MIN_BATCH:
            resting = frozenset()
        leaving = self.batched - resting
        joining = resting - self.batched
        if leaving or (joining and self._since >= JOIN_EVERY):
            self._build(resting)

    def tint(self, ids) -> None:
        """The pieces drawn tinted now: those in the batch are drawn over it by their own nodes."""
        self.tinted = frozenset(ids)
        self._show_nodes()

    def _build(self, resting: frozenset[str]) -> None:
        if self._node is not None:
            self._node.remove_node()
            self._node = None
        self.batched = resting
        self._since = 0
        if resting:
            batch = NodePath("resting")
            for pid in self.ids:
                if pid in resting:
                    node = self.nodes[pid]
                    node.show()
                    copy = node.copy_to(batch)
                    copy.clear_shader_input("u_tint")  # the batch is never tinted: its pieces share states
                    copy.clear_depth_offset()
            batch.flatten_strong()
            batch.reparent_to(self.parent)
            self._node = batch
            self.builds += 1
        self._show_nodes()

    def _show_nodes(self) -> None:
        for pid, node in self.nodes.items():
            if pid not in self.batched:
                node.show()
                node.clear_depth_offset()
                if pid in self.moving:
                    node.hide(SHADOW_MASK)
                else:
                    node.show(SHADOW_MASK)  # show() alone leaves a camera's hide (as a moving or tinted one)
            elif pid in self.tinted:
                node.show()
                node.hide(SHADOW_MASK)  # its shadow is the batch's
                node.set_depth_offset(1)
            else:
                node.hide()

    def remove(self) -> None:
        """Forget the batch (the graph goes)."""
        if self._node is not None:
            self._node.remove_node()
            self._node = None
