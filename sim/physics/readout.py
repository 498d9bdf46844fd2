"""Reading a world's state: poses, velocities, energies, contacts, and rays for picking.

:class:`Readout` is the reading half of :class:`~sim.physics.world.World`
(which builds, changes and steps); everything it returns is SI, pieces by id.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.geometry.transforms import compose, rotate
from sim.physics.bodies import BodyInfo, pb
from sim.tol import tol

RAY_BATCH = 16383
"""The most rays pybullet answers in one batch: it refuses more than 16 384, and of 16 384 it answers only 16 383
(a test)."""


@dataclass(frozen=True)
class RayHit:
    """The first body a ray meets.

    Attributes:
        piece: the piece id, or ``board`` / ``table``.
        point: (3,) where the ray meets its surface (m).
        normal: (3,) the surface normal there (unit, world frame).
        distance: from the ray's start (m).
    """

    piece: str
    point: np.ndarray
    normal: np.ndarray
    distance: float


class Readout:
    """The reading methods of a world (see :class:`~sim.physics.world.World` for its attributes)."""

    def pose(self, piece_id: str) -> np.ndarray:
        """(7,) position (m) and quaternion xyzw of the piece ``piece_id`` (its own frame)."""
        return self._piece_poses([self.bodies[piece_id]])[0]

    def poses(self, ids=None) -> np.ndarray:
        """(n, 7) poses of every piece in scene order (or of ``ids``, in their order): xyz (m) + quaternion xyzw."""
        return self._piece_poses([self.bodies[i] for i in (self.ids if ids is None else ids)])

    def _piece_poses(self, bodies: list[BodyInfo]) -> np.ndarray:
        """Piece-frame poses from Bullet's centre-of-mass frames (pybullet reports a body's
        inertial frame: its centre of mass, turned to the principal axes)."""
        if not bodies:
            return np.zeros((0, 7))
        raw = [pb.getBasePositionAndOrientation(b.uid, physicsClientId=self._cid) for b in bodies]
        centre = np.array([r[0] for r in raw]) / self._scale
        # scipy's Rotation arithmetic, bit for bit (sim.geometry.transforms), without its fixed costs
        quat = compose(np.array([r[1] for r in raw]), np.array([b.principal for b in bodies]), invert_b=True)
        pos = centre - rotate(quat, np.array([b.com for b in bodies]), unit=True)
        start = np.array([b.start_quat for b in bodies])
        quat = np.where(np.sum(quat * start, axis=1, keepdims=True) < 0, -quat, quat)  # the sign it started with
        return np.hstack([pos, quat])

    def velocities(self, ids=None) -> np.ndarray:
        """(n, 6) linear velocity of the centre of mass (m/s) and angular velocity (rad/s), scene order
        (or the order of ``ids``)."""
        vel = np.array([[*v, *w] for v, w in (pb.getBaseVelocity(self.bodies[i].uid, physicsClientId=self._cid)
                                              for i in (self.ids if ids is None else ids))]).reshape(-1, 6)
        vel[:, :3] /= self._scale
        return vel

    def centre_frames(self) -> np.ndarray:
        """(m, 7) centre of mass (m) and principal-axes quaternion of every active piece (:attr:`active` order)."""
        return self._centres()[2]

    def _centres(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Masses (m,), inertias (m, 3), centre-of-mass frames (m, 7) and velocities (m, 6) of the active pieces."""
        movable = self.active
        if not movable:
            return np.zeros(0), np.zeros((0, 3)), np.zeros((0, 7)), np.zeros((0, 6))
        frames = np.array([[*p, *q] for p, q in (pb.getBasePositionAndOrientation(b.uid, physicsClientId=self._cid)
                                                 for b in movable)])
        vel = np.array([[*v, *w] for v, w in (pb.getBaseVelocity(b.uid, physicsClientId=self._cid)
                                              for b in movable)])
        frames[:, :3] /= self._scale
        vel[:, :3] /= self._scale
        return self._masses, self._inertias, frames, vel

    def _energies(self) -> tuple[np.ndarray, float]:
        """Kinetic energy (J) of every active piece (:attr:`active` order) and their potential energy
        (J) in the current gravity, probe included: the one formula of both."""
        mass, inertia, frames, vel = self._centres()
        spin = rotate(frames[:, 3:], vel[:, 3:], inverse=True) if len(mass) else vel[:, 3:]
        kinetic = 0.5 * mass * np.sum(vel[:, :3] ** 2, axis=1) + 0.5 * np.sum(inertia * spin**2, axis=1)
        return kinetic, float(-np.sum(mass * (frames[:, :3] @ self._gravity)))

    def kinetic_energies(self) -> np.ndarray:
        """(m,) kinetic energy (J) of every active piece (not static), in :attr:`active` order."""
        return self._energies()[0]

    def potential_energy(self) -> float:
        """Potential energy (J) of the active pieces in the current gravity (probe included)."""
        return self._energies()[1]

    def energy(self) -> float:
        """Mechanical energy (J): kinetic plus potential, of the active pieces."""
        kinetic, potential = self._energies()
        return float(kinetic.sum() + potential)

    def at_rest(self, ids=None, speed: float | None = None) -> np.ndarray:
        """(n,) bool: whether every point of each piece moves slower than ``speed`` (m/s; default
        ``tol.rest_speed``): the speed of its centre of mass plus its spin times the farthest corner of
        its bounding box; scene order (or the order of ``ids``)."""
        return self.speeds(ids) < (tol.rest_speed if speed is None else speed)

    def speeds(self, ids=None) -> np.ndarray:
        """(n,) a bound on the speed of every point of each piece (m/s): the speed of its centre of mass plus its
        spin times the farthest corner of its bounding box; scene order (or the order of ``ids``)."""
        ids = self.ids if ids is None else list(ids)
        v = self.velocities(ids)
        reach = np.array([self.bodies[i].reach for i in ids]).reshape(-1)
        return np.linalg.norm(v[:, :3], axis=1) + np.linalg.norm(v[:, 3:], axis=1) * reach

    def asleep(self) -> list[str]:
        """Ids of the pieces asleep (:mod:`sim.physics.sleep`), scene order."""
        return [] if self._sleep is None else self._sleep.sleeping()

    def contact_state(self, fresh: bool = False, ids=None) -> dict[str, tuple[frozenset, frozenset]]:
        """What each piece touches now, and what holds it up, from the last step's contacts.

        Args:
            fresh: find the contacts again at the poses now (after a teleport the last step's are stale).
            ids: read only the contacts of these pieces (each with whatever it touches, which then has them
                too); None reads every contact. A world of static pieces keeps the contacts Bullet made
                before they became static, and reading thousands of them (a vault's 5 000) takes a
                frame's time.

        Returns:
            id -> (touching, below): names of the bodies (piece ids, ``board``,
            ``table``) in contact with it, and those among them whose contact
            normal is within ``tol.support_angle`` of vertical, under it.
        """
        touching: dict[str, set[str]] = {i: set() for i in self.ids}
        below: dict[str, set[str]] = {i: set() for i in self.ids}
        gap = tol.touch_gap * self._scale
        upright = np.cos(tol.support_angle)
        if fresh:
            pb.performCollisionDetection(physicsClientId=self._cid)
        if ids is None:
            found = pb.getContactPoints(physicsClientId=self._cid)
        else:  # each piece's own, it as body A
            found = [c for i in ids for c in pb.getContactPoints(bodyA=self.bodies[i].uid, physicsClientId=self._cid)]
        for c in found:
            if c[8] > gap:
                continue
            a, b, nz = self._names.get(c[1]), self._names.get(c[2]), c[7][2]  # normal on b, pointing into a
            for this, other, up in ((a, b, nz), (b, a, -nz)):
                if this in touching and other is not None:
                    touching[this].add(other)
                    if up > upright:
                        below[this].add(other)
        return {i: (frozenset(touching[i]), frozenset(below[i])) for i in self.ids}

    def ray_test(self, start, end) -> RayHit | None:
        """The first body the segment from ``start`` to ``end`` (each (3,), m) meets, or None.

        The ray runs against the very collision shapes the simulation uses (the viewer picks with it).
        """
        a, b = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
        return self._hit(pb.rayTest(list(a * self._scale), list(b * self._scale), physicsClientId=self._cid)[0], a, b)

    def ray_tests(self, starts, ends, inset: float = 0.0) -> list[RayHit | None]:
        """:meth:`ray_test` of many segments at once (k, 3) each: the same hits, in one call to the engine.
        ``inset`` (m): each hit taken that much further in along its normal (and its distance longer by it)."""
        a, b = np.asarray(starts, dtype=float).reshape(-1, 3), np.asarray(ends, dtype=float).reshape(-1, 3)
        if not len(a):
            return []
        sa, sb, found = (a * self._scale).tolist(), (b * self._scale).tolist(), []
        for k in range(0, len(sa), RAY_BATCH):
            found += pb.rayTestBatch(sa[k:k + RAY_BATCH], sb[k:k + RAY_BATCH], physicsClientId=self._cid)
        names = self._names
        hit = [k for k, f in enumerate(found) if f[0] >= 0 and f[0] in names]
        out: list[RayHit | None] = [None] * len(found)
        if not hit:
            return out
        # the hits' arrays made at once (the same numbers as one ray at a time)
        points = np.array([found[k][3] for k in hit]) / self._scale
        normals = np.array([found[k][4] for k in hit], dtype=float)
        lengths = np.linalg.norm(b[hit] - a[hit], axis=1)
        if inset:
            points = points - inset * normals
        for j, k in enumerate(hit):
            f = found[k]
            out[k] = RayHit(names[f[0]], points[j], normals[j], float(f[2] * lengths[j]) + inset)
        return out

    def _hit(self, found, a: np.ndarray, b: np.ndarray) -> RayHit | None:
        uid, _, fraction, point, normal = found
        name = self._names.get(uid)
        if uid < 0 or name is None:
            return None
        return RayHit(name, np.asarray(point) / self._scale, np.asarray(normal, dtype=float),
                      float(fraction * np.linalg.norm(b - a)))
