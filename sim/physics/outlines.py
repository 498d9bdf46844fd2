"""A moving piece's outline: the collision shape of one hull of all its parts while it flies, its exact compound
back once it rests (:meth:`Outlines.reshape`, a part of :class:`~sim.physics.world.World`). For the live world's
pieces in flight (:mod:`sim.physics.live.flight`); the statics never see an outline."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sim.physics.bodies import HULL_MARGIN, load_shape, pb, place_body, set_material
from sim.tol import tol


class Outlines:
    """The outline half of :class:`~sim.physics.world.World` (its bodies, names and settings)."""

    def reshape(self, piece_id: str, outline: bool, room: float | None = None) -> bool:
        """Give a moving piece the collision shape of its outline (one hull of all its parts, not narrowed:
        ``bodies.outline_child``), or its exact compound back, where it is and as fast as it goes: the same mass,
        inertia and material. For the live world's pieces in flight (``sim.physics.live.flight``); the statics
        never see the outline. The outline is a body of its own (the piece's uid changes); the exact body waits
        meanwhile, static and touching nothing, and takes over again as it was made.

        Args:
            piece_id: a movable piece, not static (:meth:`set_static`).
            outline: True for the outline, False for the exact compound (nothing when it has it).
            room: with ``outline``, the deepest (m) the outline may reach into another body (what fills the
                piece's hollows: a piece lying in them); deeper, the piece keeps its body. Default ``tol.overlap``.

        Returns:
            Whether the piece has the shape asked for.
        """
        info = self.bodies[piece_id]
        if info.fixed or piece_id in self._static:
            raise ValueError(f"piece {piece_id!r} is fixed or static: only a moving piece changes its shape")
        outlined = self._outlined
        if outline == (piece_id in outlined):
            return True
        pose = self.poses([piece_id])[0]
        velocity = self.velocities([piece_id])[0]
        piece = self._pieces[piece_id]
        if outline:
            uid = load_shape(self._cid, self.settings, piece.shape, pose[:3], pose[3:], info.mass, 0.0, True)
            if self._reaches_in(uid, info.uid, tol.overlap if room is None else room):
                pb.removeBody(uid, physicsClientId=self._cid)
                return False
            set_material(self._cid, self.settings, uid, piece.friction_coefficient, piece.shape.material.restitution,
                         True)
            self._set_velocity(info, np.zeros(6))
            pb.changeDynamics(info.uid, -1, mass=0.0, physicsClientId=self._cid)
            pb.changeDynamics(info.uid, -1, activationState=pb.ACTIVATION_STATE_SLEEP, physicsClientId=self._cid)
            pb.setCollisionFilterGroupMask(info.uid, -1, 0, 0, physicsClientId=self._cid)
            outlined[piece_id] = info.uid
        else:
            uid = outlined.pop(piece_id)
            pb.removeBody(info.uid, physicsClientId=self._cid)
            place_body(self._cid, self._scale, replace(info, uid=uid), pose)
            pb.setCollisionFilterGroupMask(uid, -1, 1, -1, physicsClientId=self._cid)  # a dynamic body's own
            s = self._scale
            pb.changeDynamics(uid, -1, mass=info.mass, localInertiaDiagonal=list(info.inertia * s * s),
                              physicsClientId=self._cid)
            state = pb.ACTIVATION_STATE_WAKE_UP if self._sleep is not None else pb.ACTIVATION_STATE_DISABLE_SLEEPING
            pb.changeDynamics(uid, -1, activationState=state, physicsClientId=self._cid)
        del self._names[info.uid]
        self._names[uid] = piece_id
        self.bodies[piece_id] = info = replace(info, uid=uid)
        self._movable = None
        self._set_velocity(info, velocity)
        self.refresh_gravity()
        return True

    def _reaches_in(self, uid: int, own: int, room: float) -> bool:
        """Whether body ``uid`` reaches deeper than ``room`` (m) into a body other than ``own`` (and itself)."""
        lo, hi = pb.getAABB(uid, physicsClientId=self._cid)
        limit = -room * self._scale - 2 * HULL_MARGIN
        near = {o for o, _ in (pb.getOverlappingObjects(lo, hi, physicsClientId=self._cid) or ())} - {uid, own}
        return any(c[8] < limit for other in sorted(near)
                   for c in pb.getClosestPoints(uid, other, 0.0, physicsClientId=self._cid))
