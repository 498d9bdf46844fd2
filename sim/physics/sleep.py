"""Sleeping: islands of pieces at rest stop being simulated until something reaches them.

A structure at rest costs a Babylon city 40 ms a step in contact detection
and solving; asleep, it costs nothing. Bullet's own deactivation does not
fit: it waits 2 s (a whole check), its thresholds are speeds of 0.8 mm/s and
1 rad/s in a millimetre world, and a sleeping body keeps the gravity it had
when it fell asleep, so it ignores a turning probe. Instead every body gets a
sleeping threshold of 0 (Bullet never puts it to sleep by itself, and turns
any body it wakes back into a lasting active one), and :class:`Sleep` decides:

* a piece is *still* while every corner of its bounding box stays within
  ``tol.sleep_distance`` of where it was when its still spell began; solver
  noise stays far below that, while the probe moves a knife edge past it
  within the spell (a Talo 10-block tips 0.45 mm in its first 0.25 s);
* an *island* (pieces whose bounding boxes, grown by twice Bullet's contact
  breaking threshold, touch one another; the board and fixed pieces join no
  island, as in Bullet) falls asleep once all its pieces have been still for
  ``tol.sleep_window``, or, while the probe turns, for one whole turn, so that
  it withstood the probe in every direction before it stops feeling it;
* Bullet wakes a sleeping island when an awake body's bounding box reaches
  it; this class notices (a sleeping body's velocity is exactly zero), wakes
  the whole island and gives it the current gravity. :meth:`wake` does the
  same for a push or a new probe.

Static bodies (the board, the table, fixed pieces) keep the sleeping state
Bullet gives them, so that nothing is computed between them and a sleeping
piece.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from sim.geometry.transforms import quat_to_matrix
from sim.tol import tol


class Sleep:
    """Puts islands of still pieces of a :class:`~sim.physics.world.World` to sleep and wakes them.

    Args:
        world: the world (its movable bodies are managed; call :meth:`update`
            once per frame from the world's stepping).
        pb: the pybullet module.

    Attributes:
        asleep: (m,) bool, per movable body (``world._dynamic`` order).
    """

    def __init__(self, world, pb):
        self.world = world
        self._pb = pb
        bodies = world._dynamic
        self.asleep = np.zeros(len(bodies), dtype=bool)
        self._uids = [b.uid for b in bodies]
        self._scale = world.settings.length_scale
        corners = []
        for b in bodies:  # the bounding box's corners in Bullet's frame of the body (centre of mass, principal axes)
            bb = world.scene.piece(b.id).shape.bounds
            box = np.array([[bb[x][0], bb[y][1], bb[z][2]] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
            corners.append((box - b.com) @ quat_to_matrix(b.principal))
        self._corners = np.array(corners).reshape(len(bodies), 8, 3)
        self._anchor = self._world_corners()
        self._still_since = np.zeros(len(bodies))
        for uid in self._uids:
            self._pb.changeDynamics(uid, -1, activationState=self._pb.ACTIVATION_STATE_ENABLE_SLEEPING,
                                    sleepThreshold=0.0, physicsClientId=world._cid)

    def _world_corners(self, which: np.ndarray | None = None) -> np.ndarray:
        """(k, 8, 3) world corners (m) of the bounding boxes of the movable pieces ``which`` (default all)."""
        idx = np.arange(len(self._uids)) if which is None else np.flatnonzero(which)
        if not len(idx):
            return np.zeros((0, 8, 3))
        pb, cid = self._pb, self.world._cid
        frames = np.array([[*p, *q] for p, q in (pb.getBasePositionAndOrientation(self._uids[k], physicsClientId=cid)
                                                 for k in idx)])
        return (np.einsum("nij,nkj->nki", quat_to_matrix(frames[:, 3:]), self._corners[idx])
                + frames[:, None, :3] / self._scale)

    def _islands(self) -> np.ndarray:
        """(m,) island label of every movable body, from their bounding boxes (Bullet units)."""
        pb, cid = self._pb, self.world._cid
        boxes = np.array([np.concatenate(pb.getAABB(uid, physicsClientId=cid)) for uid in self._uids])
        grow = 2 * self.world.settings.contact_breaking_threshold * self.world.settings.length_scale
        lo, hi = boxes[:, :3] - grow, boxes[:, 3:] + grow
        touch = np.all((lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :]), axis=2)
        rows, cols = np.nonzero(touch)
        n = len(self._uids)
        return connected_components(coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n)), directed=False)[1]

    def window(self) -> float:
        """How long (s) an island must be still before it sleeps: a whole turn while the probe turns."""
        w = self.world
        turning = w._probe[0] != 0.0 and w._probe[1] is None
        return max(tol.sleep_window, w.settings.probe_period) if turning else tol.sleep_window

    def update(self) -> None:
        """Follow who is still, wake islands Bullet woke, and put islands still long enough to sleep."""
        if not len(self._uids):
            return
        now = self.world.time
        pb, cid = self._pb, self.world._cid
        if self.asleep.any():
            woken = np.zeros(len(self._uids), dtype=bool)
            for k in np.flatnonzero(self.asleep):
                lin, ang = pb.getBaseVelocity(self._uids[k], physicsClientId=cid)
                woken[k] = any(lin) or any(ang)
            if woken.any():
                islands = self._islands()
                self._wake(np.isin(islands, islands[woken]))
        awake = ~self.asleep
        if not awake.any():
            return
        moved = np.zeros(len(self._uids), dtype=bool)
        corners = self._world_corners(awake)
        moved[awake] = np.linalg.norm(corners - self._anchor[awake], axis=2).max(axis=1) > tol.sleep_distance
        self._anchor[moved] = corners[moved[awake]]
        self._still_since[moved] = now
        ready = ~self.asleep & (now - self._still_since >= self.window() - 1e-9)
        if not ready.any():
            return
        islands = self._islands()
        for label in np.unique(islands[ready]):
            members = islands == label
            if np.all(ready[members] | self.asleep[members]):
                self._sleep(members & ~self.asleep)

    def _sleep(self, which: np.ndarray) -> None:
        """Put the given bodies to sleep, at rest."""
        pb, cid = self._pb, self.world._cid
        for k in np.flatnonzero(which):
            pb.resetBaseVelocity(self._uids[k], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], physicsClientId=cid)
            pb.changeDynamics(self._uids[k], -1, activationState=pb.ACTIVATION_STATE_SLEEP, physicsClientId=cid)
        self.asleep |= which

    def _wake(self, which: np.ndarray) -> None:
        """Wake the given bodies, restart their still spells, and give them the current gravity."""
        pb, cid = self._pb, self.world._cid
        sleeping = which & self.asleep
        for k in np.flatnonzero(sleeping):
            pb.changeDynamics(self._uids[k], -1, activationState=pb.ACTIVATION_STATE_WAKE_UP, physicsClientId=cid)
        self.asleep &= ~which
        self._anchor[which] = self._world_corners(which)
        self._still_since[which] = self.world.time
        if sleeping.any():
            self.world._apply_gravity()

    def wake(self) -> None:
        """Wake every body and restart every still spell (a push, a new probe)."""
        self._wake(np.ones(len(self._uids), dtype=bool))
