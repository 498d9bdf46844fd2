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
* where the world asks for it (``World.freeze_still``: ``check`` of a structure
  the statics hold with margin), a still piece whose neighbours (bounding
  boxes touching, as for islands) are all still too is *frozen* before its
  island sleeps: made static where it is (Bullet's islands split across it, so
  a vault of 366 blocks in one island is solved only where something still
  moves), and let go again, at rest, as soon as a neighbour moves; a frozen
  piece keeps its still spell, so a ring of movable pieces stays around
  whatever moves, and the island sleeps as a whole once everything is still;
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

from sim.geometry.transforms import quat_to_matrix
from sim.graphs import component_labels
from sim.physics.bodies import pb
from sim.tol import tol


class Sleep:
    """Puts islands of still pieces of a :class:`~sim.physics.world.World` to sleep and wakes them.

    Args:
        world: the world (its movable bodies are managed; call :meth:`update`
            once per frame from the world's stepping, and :meth:`follow` after
            bodies were added, removed or made afresh).

    Attributes:
        asleep: (m,) bool, per movable body (``world.movable`` order).
    """

    def __init__(self, world):
        self.world = world
        self._pb = pb
        self._ids: list[str] = []
        self.asleep = np.zeros(0, dtype=bool)
        self._uids: list[int] = []
        self._corners = np.zeros((0, 8, 3))
        self._anchor = np.zeros((0, 8, 3))
        self._still_since = np.zeros(0)
        self.frozen = np.zeros(0, dtype=bool)
        self.follow()

    def follow(self) -> None:
        """Take up the world's movable bodies as they are now: bodies it knew keep their state
        (unless their pybullet body was made afresh), new ones start awake and still from now."""
        bodies = self.world.movable
        old = {i: k for k, i in enumerate(self._ids)}
        keep = [old.get(b.id) if old.get(b.id) is not None and self._uids[old[b.id]] == b.uid else None
                for b in bodies]
        n = len(bodies)
        self._thaw(self.frozen & np.array([self.world.bodies.get(i) is not None and self.world.bodies[i].uid == u
                                           for i, u in zip(self._ids, self._uids)], dtype=bool))  # none stays static
        self.frozen = np.zeros(n, dtype=bool)
        asleep = np.zeros(n, dtype=bool)
        since = np.full(n, self.world.time)
        anchor = np.zeros((n, 8, 3))
        for k, j in enumerate(keep):
            if j is not None:
                asleep[k], since[k], anchor[k] = self.asleep[j], self._still_since[j], self._anchor[j]
        self._ids = [b.id for b in bodies]
        self._uids = [b.uid for b in bodies]
        self._corners = np.array([b.corners for b in bodies]).reshape(n, 8, 3)
        self.asleep, self._still_since, self._anchor = asleep, since, anchor
        fresh = np.array([j is None for j in keep], dtype=bool)
        if fresh.any():
            self._anchor[fresh] = self._world_corners(fresh)
            for k in np.flatnonzero(fresh):
                self._pb.changeDynamics(self._uids[k], -1, activationState=self._pb.ACTIVATION_STATE_ENABLE_SLEEPING,
                                        sleepThreshold=0.0, physicsClientId=self.world.client)

    @property
    def all_asleep(self) -> bool:
        """Every movable piece sleeps (nothing can move until something from outside wakes it)."""
        return bool(len(self.asleep)) and bool(self.asleep.all())

    def sleeping(self) -> list[str]:
        """Ids of the sleeping pieces, scene order."""
        return [i for i, x in zip(self._ids, self.asleep) if x]

    def _world_corners(self, which: np.ndarray | None = None) -> np.ndarray:
        """(k, 8, 3) world corners (m) of the bounding boxes of the movable pieces ``which`` (default all)."""
        idx = np.arange(len(self._uids)) if which is None else np.flatnonzero(which)
        if not len(idx):
            return np.zeros((0, 8, 3))
        pb, cid = self._pb, self.world.client
        frames = np.array([[*p, *q] for p, q in (pb.getBasePositionAndOrientation(self._uids[k], physicsClientId=cid)
                                                 for k in idx)])
        return (np.einsum("nij,nkj->nki", quat_to_matrix(frames[:, 3:]), self._corners[idx])
                + frames[:, None, :3] / self.world.settings.length_scale)

    def islands(self, pairs: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """(m,) island label of every movable body, from their bounding boxes (Bullet units; ``pairs``: the
        :meth:`_neighbours` of this instant, when known)."""
        if not self._uids:
            return np.zeros(0, dtype=int)
        rows, cols = self._neighbours() if pairs is None else pairs
        return component_labels(len(self._uids), rows, cols)

    def _neighbours(self) -> tuple[np.ndarray, np.ndarray]:
        """Index pairs of movable bodies whose bounding boxes, grown by twice the contact breaking threshold,
        touch (Bullet units)."""
        pb, cid = self._pb, self.world.client
        boxes = np.array([np.concatenate(pb.getAABB(uid, physicsClientId=cid)) for uid in self._uids])
        grow = 2 * self.world.settings.contact_breaking_threshold * self.world.settings.length_scale
        return _overlapping(boxes[:, :3] - grow, boxes[:, 3:] + grow)

    def window(self) -> float:
        """How long (s) an island must be still before it sleeps: a whole turn while the probe turns."""
        w = self.world
        window = tol.sleep_window if w.sleep_window is None else w.sleep_window
        return max(window, w.settings.probe_period) if w.probe_turning else window

    def update(self) -> None:
        """Follow who is still, wake islands Bullet woke, and put islands still long enough to sleep."""
        if not len(self._uids):
            return
        now = self.world.time
        pb, cid = self._pb, self.world.client
        if self.asleep.any():
            woken = np.zeros(len(self._uids), dtype=bool)
            for k in np.flatnonzero(self.asleep):
                lin, ang = pb.getBaseVelocity(self._uids[k], physicsClientId=cid)
                woken[k] = any(lin) or any(ang)
            if woken.any():
                islands = self.islands()
                self._wake(np.isin(islands, islands[woken]))
        awake = ~self.asleep
        if not awake.any():
            return
        moved = np.zeros(len(self._uids), dtype=bool)
        corners = self._world_corners(awake)
        moved[awake] = np.linalg.norm(corners - self._anchor[awake], axis=2).max(axis=1) > tol.sleep_distance
        self._anchor[moved] = corners[moved[awake]]
        self._still_since[moved] = now
        ready = ~self.asleep & (now - self._still_since >= self.window() - tol.clock)
        pairs = self._neighbours() if self.world.freeze_still and self._uids else None  # once: both ask for them
        if pairs is not None:
            self._freeze(ready, pairs)
        if not ready.any():
            return
        islands = self.islands(pairs)
        for label in np.unique(islands[ready]):
            members = islands == label
            if np.all(ready[members] | self.asleep[members]):
                self._sleep(members & ~self.asleep)

    def _freeze(self, ready: np.ndarray, pairs: tuple[np.ndarray, np.ndarray]) -> None:
        """Freeze the still pieces none of whose neighbours moved within the window, and let go the frozen ones
        beside a piece that did (see the module docstring)."""
        rows, cols = pairs
        restless = ~self.asleep & ~ready
        near = restless.copy()
        near[rows[restless[cols]]] = True
        near[cols[restless[rows]]] = True
        want = ready & ~near
        self._thaw(self.frozen & ~want)
        pb, cid = self._pb, self.world.client
        for k in np.flatnonzero(want & ~self.frozen):
            pb.resetBaseVelocity(self._uids[k], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], physicsClientId=cid)
            pb.changeDynamics(self._uids[k], -1, mass=0.0, physicsClientId=cid)
            pb.changeDynamics(self._uids[k], -1, activationState=pb.ACTIVATION_STATE_SLEEP, physicsClientId=cid)
        self.frozen = want.copy()

    def _thaw(self, which: np.ndarray) -> None:
        """Make the frozen bodies ``which`` movable again, at rest, awake and with the current gravity."""
        which = which & self.frozen
        if not which.any():
            return
        pb, cid, s = self._pb, self.world.client, self.world.settings.length_scale
        for k in np.flatnonzero(which):
            info = self.world.bodies[self._ids[k]]
            pb.changeDynamics(self._uids[k], -1, mass=info.mass, localInertiaDiagonal=list(info.inertia * s * s),
                              physicsClientId=cid)
            pb.changeDynamics(self._uids[k], -1, activationState=pb.ACTIVATION_STATE_WAKE_UP, physicsClientId=cid)
            pb.resetBaseVelocity(self._uids[k], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], physicsClientId=cid)
        self.frozen &= ~which
        self.world.refresh_gravity()

    def _sleep(self, which: np.ndarray) -> None:
        """Put the given bodies to sleep, at rest."""
        self._thaw(which)
        pb, cid = self._pb, self.world.client
        for k in np.flatnonzero(which):
            pb.resetBaseVelocity(self._uids[k], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], physicsClientId=cid)
            pb.changeDynamics(self._uids[k], -1, activationState=pb.ACTIVATION_STATE_SLEEP, physicsClientId=cid)
        self.asleep |= which

    def put_to_sleep(self, ids) -> None:
        """Put the pieces ``ids`` to sleep now, at rest (a state being restored)."""
        wanted = set(ids)
        self._sleep(np.array([i in wanted for i in self._ids], dtype=bool))

    def _wake(self, which: np.ndarray) -> None:
        """Wake the given bodies, restart their still spells, and give them the current gravity."""
        self._thaw(which)
        pb, cid = self._pb, self.world.client
        sleeping = which & self.asleep
        for k in np.flatnonzero(sleeping):
            pb.changeDynamics(self._uids[k], -1, activationState=pb.ACTIVATION_STATE_WAKE_UP, physicsClientId=cid)
        self.asleep &= ~which
        self._anchor[which] = self._world_corners(which)
        self._still_since[which] = self.world.time
        if sleeping.any():
            self.world.refresh_gravity()

    def wake(self) -> None:
        """Wake every body and restart every still spell (a push, a new probe)."""
        self._wake(np.ones(len(self._uids), dtype=bool))

    def wake_touching(self, ids) -> None:
        """Wake the islands of the pieces ``ids`` (what touches them, and what touches that)."""
        wanted = set(ids)
        mine = np.array([i in wanted for i in self._ids], dtype=bool)
        if mine.any():
            islands = self.islands()
            self._wake(np.isin(islands, islands[mine]))



def _overlapping(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(k,), (k,) index pairs i < j of the boxes (n, 3) lower and upper corners that overlap: candidates
    from a k-d tree of the centres (within the widest two half-diagonals), then the exact test; a
    world of 5000 pieces needs no n² table."""
    n = len(lo)
    if n < 64:
        touch = np.all((lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :]), axis=2)
        rows, cols = np.nonzero(np.triu(touch, 1))
        return rows, cols
    from scipy.spatial import cKDTree

    centre, half = (lo + hi) / 2, (hi - lo) / 2
    pairs = cKDTree(centre).query_pairs(2.0 * float(np.linalg.norm(half, axis=1).max()), output_type="ndarray")
    if not len(pairs):
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    i, j = pairs[:, 0], pairs[:, 1]
    keep = np.all((lo[i] <= hi[j]) & (lo[j] <= hi[i]), axis=1)
    return i[keep], j[keep]
