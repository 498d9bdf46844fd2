"""A pybullet world compiled from a Scene: one DIRECT client per world, pieces addressed by id.

Each piece becomes one rigid body whose collision shape is a compound of
exactly its catalogue's convex parts, with the catalogue's mass, centre of
mass and inertia (principal axes as the inertial frame). The board is a
static slab on an endless table plane; fixed pieces are static. Bullet counts
lengths in units of ``1 / settings.length_scale`` metres; everything this
class returns is SI.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
import pybullet as pb
from scipy.spatial.transform import Rotation

from sim.contact import BOARD
from sim.physics.errors import BlowUpError, OverlapError
from sim.physics.hulls import hull_file
from sim.physics.settings import TUNED, PhysicsSettings
from sim.pieces import PieceShape
from sim.pieces.boards import TABLE_MATERIAL
from sim.scene import Scene
from sim.tol import tol

GRAVITY = 9.81
"""Standard gravity (m/s²)."""

TABLE = "table"
"""Name of the endless table plane under the board (the board itself is ``BOARD``)."""


@dataclass(frozen=True)
class BodyInfo:
    """What the world knows about one piece's body.

    Attributes:
        id: the piece id.
        uid: pybullet body id.
        mass: kg (0 for fixed pieces).
        com: (3,) centre of mass in the piece frame (m).
        principal: (4,) xyzw rotation from the principal axes to the piece frame.
        inertia: (3,) principal moments (kg m²).
        fixed: a static piece.
    """

    id: str
    uid: int
    mass: float
    com: np.ndarray
    principal: np.ndarray
    inertia: np.ndarray
    fixed: bool


def principal_frame(inertia: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments and the rotation from the principal axes to the body axes.

    Args:
        inertia: (3, 3) symmetric inertia tensor (kg m²).

    Returns:
        moments (3,) and quaternion (4,) xyzw whose rotation matrix has the
        principal axes as columns (a proper rotation).
    """
    moments, axes = np.linalg.eigh(0.5 * (inertia + inertia.T))
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]
    return moments, Rotation.from_matrix(axes).as_quat()


class World:
    """A scene compiled into its own pybullet client.

    Args:
        scene: the scene to build.
        settings: the world's settings (default: the tuned ones).

    Raises:
        OverlapError: pieces interpenetrate deeper than ``tol.overlap`` at load.
    """

    def __init__(self, scene: Scene, settings: PhysicsSettings | None = None):
        self.scene = scene
        self.settings = settings or TUNED
        self._scale = self.settings.length_scale
        self._cid = pb.connect(pb.DIRECT)
        self._shapes: dict[tuple, int] = {}
        self._names: dict[int, str] = {}
        self.time = 0.0
        self.steps = 0
        self._gravity = np.array([0.0, 0.0, -GRAVITY])
        self._probe: tuple[float, float | None] = (self.settings.probe_g, None)
        try:
            self._configure()
            self._add_ground()
            order = sorted(scene.pieces, key=lambda p: -p.pos[2]) if self.settings.top_down else scene.pieces
            created = {p.id: self._add_piece(p) for p in order}
            self.bodies: dict[str, BodyInfo] = {p.id: created[p.id] for p in scene.pieces}
            self.ids = [p.id for p in scene.pieces]
            self._dynamic = [b for b in self.bodies.values() if not b.fixed]
            self._check_overlaps()
        except BaseException:
            self.close()
            raise
        self.source = scene.source or "<scene>"
        self._energy0 = self.potential_energy()

    # --- construction -------------------------------------------------------------------------

    def _configure(self) -> None:
        s, scale = self.settings, self._scale
        if s.configure_engine:
            pb.setPhysicsEngineParameter(
                fixedTimeStep=s.dt, numSubSteps=0, numSolverIterations=s.solver_iterations,
                solverResidualThreshold=(s.residual_velocity * scale) ** 2, erp=s.erp,
                contactERP=s.contact_erp, frictionERP=s.friction_erp, useSplitImpulse=int(s.split_impulse),
                splitImpulsePenetrationThreshold=s.split_impulse_threshold * scale,
                contactSlop=s.contact_slop * scale, contactBreakingThreshold=s.contact_breaking_threshold * scale,
                warmStartingFactor=s.warm_starting, enableConeFriction=int(s.cone_friction),
                enableSAT=int(s.sat), restitutionVelocityThreshold=s.restitution_velocity_threshold * scale,
                deterministicOverlappingPairs=int(s.deterministic_pairs), physicsClientId=self._cid)
        else:
            pb.setPhysicsEngineParameter(fixedTimeStep=s.dt, deterministicOverlappingPairs=1,
                                         physicsClientId=self._cid)
        self._apply_gravity()

    def _add_ground(self) -> None:
        board = self.scene.board_info
        plane = pb.createCollisionShape(pb.GEOM_PLANE, physicsClientId=self._cid)
        uid = pb.createMultiBody(0.0, plane, basePosition=[0.0, 0.0, -board.thickness * self._scale],
                                 physicsClientId=self._cid)
        self._material(uid, TABLE_MATERIAL.friction, TABLE_MATERIAL.restitution)
        self._names[uid] = TABLE if board.shape is not None else BOARD
        self.table_uid = uid
        self.board_uid = uid
        if board.shape is not None:
            uid = pb.createMultiBody(0.0, self._shape(board.shape), basePosition=list(board.pos * self._scale),
                                     useMaximalCoordinates=True, physicsClientId=self._cid)
            self._material(uid, board.shape.material.friction, board.shape.material.restitution)
            self._names[uid] = BOARD
            self.board_uid = uid

    def _shape(self, shape: PieceShape, shrink: float = 0.0, up=(0.0, 0.0, 1.0)) -> int:
        """A compound collision shape of the parts' hulls, narrowed by ``shrink`` across ``up``.

        Args:
            shape: the catalogue piece.
            shrink: relative narrowing perpendicular to ``up`` (see ``PhysicsSettings.shrink``).
            up: (3,) the world's vertical in the piece frame.
        """
        up = np.asarray(up, dtype=float)
        key = (id(shape), shrink, tuple(np.round(up, 9)))
        if key not in self._shapes:
            squeeze = (1.0 - shrink) * (np.eye(3) - np.outer(up, up)) + np.outer(up, up)
            files, frames = [], []
            for part in shape.parts:
                centre = (part.vertices.min(axis=0) + part.vertices.max(axis=0)) / 2
                frames.append(list(centre * self._scale))
                files.append(hull_file((part.vertices - centre) @ squeeze.T * self._scale))
            flags = pb.URDF_INITIALIZE_SAT_FEATURES if self.settings.sat else 0
            self._shapes[key] = pb.createCollisionShapeArray(
                [pb.GEOM_MESH] * len(files), fileNames=files, collisionFramePositions=frames,
                flags=[flags] * len(files), physicsClientId=self._cid)
        return self._shapes[key]

    def _shrink(self, k: int) -> float:
        """The k-th body's narrowing: between 1 and 2 times ``settings.shrink``, spread by the
        golden ratio so that no two bodies get the same."""
        return self.settings.shrink * (1.0 + (k * 0.6180339887498949) % 1.0)

    def _add_piece(self, piece) -> BodyInfo:
        shape = piece.shape
        ratio = piece.mass / shape.mass
        moments, principal = principal_frame(shape.inertia * ratio)
        mass = 0.0 if piece.fixed else piece.mass
        s = self._scale
        up = Rotation.from_quat(piece.quat).inv().apply([0.0, 0.0, 1.0])
        uid = pb.createMultiBody(
            mass, self._shape(shape, self._shrink(len(self._names)), up),
            basePosition=list(np.asarray(piece.pos) * s), baseOrientation=list(piece.quat),
            baseInertialFramePosition=list(shape.com * s), baseInertialFrameOrientation=list(principal),
            useMaximalCoordinates=True, physicsClientId=self._cid)
        self._material(uid, piece.friction_coefficient, shape.material.restitution)
        if not piece.fixed:
            # the mass goes along: on a maximal-coordinate body pybullet zeroes it otherwise
            pb.changeDynamics(uid, -1, mass=mass, localInertiaDiagonal=list(moments * s * s),
                              physicsClientId=self._cid)
        self._names[uid] = piece.id
        return BodyInfo(piece.id, uid, mass, shape.com.copy(), principal, moments, piece.fixed)

    def _material(self, uid: int, friction: float, restitution: float) -> None:
        """Bullet multiplies the two bodies' coefficients: each gets the square root of its own,
        so that a contact's coefficient is the geometric mean (``sim.contact.contact_friction``)."""
        s = self.settings
        kwargs = {}
        if s.configure_engine:
            kwargs = dict(linearDamping=s.damping, angularDamping=s.damping, frictionAnchor=int(s.friction_anchors),
                          rollingFriction=0.0, spinningFriction=0.0)
            if not s.sleeping:
                kwargs["activationState"] = pb.ACTIVATION_STATE_DISABLE_SLEEPING
        pb.changeDynamics(uid, -1, lateralFriction=float(np.sqrt(friction)),
                          restitution=float(np.sqrt(restitution)), physicsClientId=self._cid, **kwargs)

    def _check_overlaps(self) -> None:
        pb.performCollisionDetection(physicsClientId=self._cid)
        depth: dict[tuple[str, str], float] = {}
        limit = -tol.overlap * self._scale
        for c in pb.getContactPoints(physicsClientId=self._cid):
            if c[8] < limit:
                a, b = sorted((self._names[c[1]], self._names[c[2]]))
                depth[(a, b)] = max(depth.get((a, b), 0.0), -c[8] / self._scale)
        if depth:
            pairs = sorted(((a, b, d) for (a, b), d in depth.items()), key=lambda t: -t[2])
            raise OverlapError(self.scene.source or "<scene>", pairs)

    # --- gravity and the probe ----------------------------------------------------------------

    def set_probe(self, accel_g: float, direction_deg: float | None = None) -> None:
        """A uniform horizontal acceleration on every piece (a tilt of gravity).

        Args:
            accel_g: magnitude as a fraction of g (0 switches it off).
            direction_deg: its direction in the xy plane (degrees from +x);
                None turns it once around every ``settings.probe_period`` seconds,
                starting along +x.
        """
        self._probe = (float(accel_g), direction_deg)
        self._apply_gravity()

    def _apply_gravity(self) -> None:
        accel, direction = self._probe
        if direction is None:
            angle = 2 * np.pi * self.time / self.settings.probe_period
        else:
            angle = np.radians(direction)
        g = GRAVITY * np.array([accel * np.cos(angle), accel * np.sin(angle), -1.0])
        self._gravity = g
        pb.setGravity(*(g * self._scale), physicsClientId=self._cid)

    # --- stepping -------------------------------------------------------------------------------

    def step(self, n: int = 1) -> None:
        """Advance ``n`` fixed time steps, watching for a blow-up.

        Raises:
            BlowUpError: NaN poses or kinetic energy beyond what gravity released.
        """
        rotating = self._probe[0] != 0.0 and self._probe[1] is None
        every = self.settings.watch_every
        for _ in range(n):
            if rotating:
                self._apply_gravity()
            pb.stepSimulation(physicsClientId=self._cid)
            self.steps += 1
            self.time = self.steps * self.settings.dt
            if self.steps % every == 0:
                self.watch()

    def watch(self) -> None:
        """Stop with :class:`BlowUpError` if poses are not finite or energy ran away."""
        poses = self.poses()
        bad = ~np.isfinite(poses).all(axis=1)
        if bad.any():
            raise BlowUpError(self.source, self.time, [i for i, b in zip(self.ids, bad) if b], "NaN pose")
        kinetic = self.kinetic_energies()
        released = max(self._energy0 - self.potential_energy(), 0.0)
        total_mass = sum(b.mass for b in self._dynamic)
        allowed = self.settings.blowup_energy_factor * released + total_mass * GRAVITY * tol.blowup_height
        if kinetic.sum() > allowed:
            order = np.argsort(-kinetic)[:3]
            names = [self._dynamic[i].id for i in order]
            raise BlowUpError(self.source, self.time, names,
                              f"kinetic energy {kinetic.sum():.3g} J, more than the {released:.3g} J "
                              "gravity released")

    # --- reading the state ----------------------------------------------------------------------

    def pose(self, piece_id: str) -> np.ndarray:
        """(7,) position (m) and quaternion xyzw of the piece ``piece_id`` (its own frame)."""
        return self._piece_poses([self.bodies[piece_id]])[0]

    def poses(self) -> np.ndarray:
        """(n, 7) poses of every piece in scene order: xyz (m) + quaternion xyzw."""
        return self._piece_poses([self.bodies[i] for i in self.ids])

    def _piece_poses(self, bodies: list[BodyInfo]) -> np.ndarray:
        """Piece-frame poses from Bullet's centre-of-mass frames (pybullet reports a body's
        inertial frame: its centre of mass, turned to the principal axes)."""
        if not bodies:
            return np.zeros((0, 7))
        raw = [pb.getBasePositionAndOrientation(b.uid, physicsClientId=self._cid) for b in bodies]
        centre = np.array([r[0] for r in raw]) / self._scale
        rot = Rotation.from_quat([r[1] for r in raw]) * Rotation.from_quat([b.principal for b in bodies]).inv()
        pos = centre - rot.apply(np.array([b.com for b in bodies]))
        return np.hstack([pos, rot.as_quat()])

    def velocities(self) -> np.ndarray:
        """(n, 6) linear velocity of the centre of mass (m/s) and angular velocity (rad/s), scene order."""
        if not self.ids:
            return np.zeros((0, 6))
        out = np.empty((len(self.ids), 6))
        for k, piece_id in enumerate(self.ids):
            lin, ang = pb.getBaseVelocity(self.bodies[piece_id].uid, physicsClientId=self._cid)
            out[k, :3] = np.asarray(lin) / self._scale
            out[k, 3:] = ang
        return out

    def kinetic_energies(self) -> np.ndarray:
        """(m,) kinetic energy (J) of every movable piece, in the order of ``self._dynamic``."""
        out = np.empty(len(self._dynamic))
        for k, b in enumerate(self._dynamic):
            lin, ang = pb.getBaseVelocity(b.uid, physicsClientId=self._cid)
            _, quat = pb.getBasePositionAndOrientation(b.uid, physicsClientId=self._cid)
            v = np.asarray(lin) / self._scale
            w_body = Rotation.from_quat(quat).inv().apply(ang)
            out[k] = 0.5 * b.mass * v @ v + 0.5 * np.sum(b.inertia * w_body**2)
        return out

    def potential_energy(self) -> float:
        """Potential energy (J) of the movable pieces in the current gravity (probe included)."""
        total = 0.0
        for b in self._dynamic:
            pos, _ = pb.getBasePositionAndOrientation(b.uid, physicsClientId=self._cid)
            total -= b.mass * float(self._gravity @ (np.asarray(pos) / self._scale))
        return total

    def at_rest(self) -> np.ndarray:
        """(n,) bool: whether each piece moves slower than ``tol.rest_speed`` and ``tol.rest_spin``."""
        v = self.velocities()
        return (np.linalg.norm(v[:, :3], axis=1) < tol.rest_speed) & (np.linalg.norm(v[:, 3:], axis=1)
                                                                     < tol.rest_spin)

    def touching(self, piece_id: str) -> set[str]:
        """Names of the bodies (piece ids, ``board``, ``table``) in contact with a piece now."""
        uid = self.bodies[piece_id].uid
        limit = tol.touch_gap * self._scale
        return {self._names[c[2]] for c in pb.getContactPoints(bodyA=uid, physicsClientId=self._cid)
                if c[8] < limit}

    def contacts(self) -> dict[str, set[str]]:
        """For every piece, the names of the bodies it touches now (after collision detection)."""
        out: dict[str, set[str]] = {i: set() for i in self.ids}
        limit = tol.touch_gap * self._scale
        for c in pb.getContactPoints(physicsClientId=self._cid):
            if c[8] < limit:
                a, b = self._names[c[1]], self._names[c[2]]
                if a in out:
                    out[a].add(b)
                if b in out:
                    out[b].add(a)
        return out

    # --- lifetime --------------------------------------------------------------------------------

    def close(self) -> None:
        """Disconnect the client (idempotent)."""
        if self._cid is not None and self._cid >= 0:
            with contextlib.suppress(pb.error):
                pb.disconnect(physicsClientId=self._cid)
        self._cid = None

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        if getattr(self, "_cid", None) is not None:
            self.close()
