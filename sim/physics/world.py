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
import os
import sys
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation

from sim.names import BOARD, TABLE
from sim.physics.errors import BlowUpError, OverlapError
from sim.physics.hulls import body_file, face_corners, hull_file
from sim.physics.settings import TUNED, PhysicsSettings
from sim.physics.sleep import Sleep
from sim.pieces import PieceShape
from sim.pieces.boards import TABLE_MATERIAL
from sim.scene import Scene
from sim.tol import tol


def _quiet_import():
    """Import pybullet without the build-time line it prints on stderr (the CLI's stderr is for errors)."""
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        import pybullet
        return pybullet
    sys.stderr.flush()
    saved = os.dup(fd)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
        import pybullet
    finally:
        os.dup2(saved, fd)
        os.close(saved)
        os.close(devnull)
    return pybullet


pb = _quiet_import()

GRAVITY = 9.81
"""Standard gravity (m/s²)."""

HULL_MARGIN = 0.001
"""pybullet's collision margin on every convex hull (Bullet units; 1 µm in a millimetre world, 1 mm in metres):
contact distances count it twice, so the overlap check adds it back."""



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
        start_quat: (4,) its orientation in the scene; poses keep the quaternion's sign near it.
    """

    id: str
    uid: int
    mass: float
    com: np.ndarray
    principal: np.ndarray
    inertia: np.ndarray
    fixed: bool
    start_quat: np.ndarray


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
    """A scene compiled into its own pybullet client (DIRECT, no globals); pieces addressed by id.

    Args:
        scene: the scene to build.
        settings: the world's settings (default: the tuned ones).

    Attributes:
        scene: the scene it was built from.
        settings: its settings.
        ids: piece ids in scene order (the row order of :meth:`poses`).
        bodies: id -> :class:`BodyInfo`.
        time: simulated time (s); ``steps``: steps taken.
        board_uid, table_uid: pybullet ids of the board slab and the table plane
            (the same body on the endless ``table`` board).

    Raises:
        OverlapError: pieces interpenetrate deeper than ``tol.overlap`` at load.
    """

    def __init__(self, scene: Scene, settings: PhysicsSettings | None = None):
        self.scene = scene
        self.settings = settings or TUNED
        self._scale = self.settings.length_scale
        self._cid = pb.connect(pb.DIRECT)
        self._names: dict[int, str] = {}
        self.time = 0.0
        self.steps = 0
        self._gravity = np.array([0.0, 0.0, -GRAVITY])
        self._probe: tuple[float, float | None] = (self.settings.probe_g, None)
        self._sleep: Sleep | None = None
        try:
            self._configure()
            self._add_ground()
            order = sorted(scene.pieces, key=lambda p: -p.pos[2]) if self.settings.top_down else scene.pieces
            created = {p.id: self._add_piece(p) for p in order}
            self.bodies: dict[str, BodyInfo] = {p.id: created[p.id] for p in scene.pieces}
            self.ids = [p.id for p in scene.pieces]
            self._dynamic = [b for b in self.bodies.values() if not b.fixed]
            self._masses = np.array([b.mass for b in self._dynamic])
            self._inertias = np.array([b.inertia for b in self._dynamic]).reshape(-1, 3)
            self._reach = np.array([np.linalg.norm(np.abs(p.shape.bounds - p.shape.com).max(axis=0))
                                    for p in scene.pieces])
            self._check_overlaps()
            s = self.settings
            self._sleep = Sleep(self, pb) if s.sleeping and s.configure_engine else None
        except BaseException:
            self.close()
            raise
        self.source = scene.source or "<scene>"
        self._energy0 = self.potential_energy()
        self._injected = 0.0

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
                deterministicOverlappingPairs=int(s.deterministic_pairs), enableFileCaching=0,
                physicsClientId=self._cid)
        else:
            pb.setPhysicsEngineParameter(fixedTimeStep=s.dt, deterministicOverlappingPairs=1,
                                         physicsClientId=self._cid)
        self._apply_gravity()

    def _add_ground(self) -> None:
        board = self.scene.board_info
        plane = pb.createCollisionShape(pb.GEOM_PLANE, physicsClientId=self._cid)
        uid = pb.createMultiBody(0.0, plane, basePosition=[0.0, 0.0, -board.thickness * self._scale],
                                 useMaximalCoordinates=True, physicsClientId=self._cid)
        self._material(uid, TABLE_MATERIAL.friction, TABLE_MATERIAL.restitution, movable=False)
        self._names[uid] = TABLE if board.shape is not None else BOARD
        self.table_uid = uid
        self.board_uid = uid
        if board.shape is not None:
            uid = self._load(board.shape, board.pos, (0.0, 0.0, 0.0, 1.0), 0.0, 0.0)
            self._material(uid, board.shape.material.friction, board.shape.material.restitution, movable=False)
            self._names[uid] = BOARD
            self.board_uid = uid

    def _load(self, shape: PieceShape, pos, quat, mass: float, shrink: float) -> int:
        """Load one body: the parts' hulls narrowed by ``shrink`` across the world's vertical, and
        the inertia of ``mass`` kg (0: static) in principal axes.

        Args:
            shape: the catalogue piece (or board slab).
            pos: (3,) position of the piece frame (m).
            quat: (4,) its orientation, xyzw.
            mass: kg; 0 for a static body.
            shrink: relative narrowing perpendicular to the vertical (``PhysicsSettings.shrink``).
        """
        s = self._scale
        up = Rotation.from_quat(quat).inv().apply([0.0, 0.0, 1.0])
        squeeze = 1.0 - shrink * (1.0 - up**2)  # the piece axes across the vertical narrow, the vertical not
        parts = []
        for part in shape.parts:
            centre = (part.vertices.min(axis=0) + part.vertices.max(axis=0)) / 2
            hull = part.hull  # cached
            local = hull.vertices - centre
            if len(shape.parts) > self.settings.array_parts:  # loaded from a URDF file: see ``swell``
                half = np.abs(local).max(axis=0)
                local = local * (1.0 + np.divide(self.settings.swell * up**2, half, out=np.zeros(3),
                                                 where=half > 0))
            parts.append((hull_file(local * s, hull.faces), centre * s))
        moments, principal = principal_frame(shape.inertia * (mass / shape.mass))
        with warnings.catch_warnings():  # a gimbal-locked principal frame still converts exactly
            warnings.simplefilter("ignore", UserWarning)
            rpy = Rotation.from_quat(principal).as_euler("xyz")
        sat = [self.settings.sat and face_corners(part.hull) <= self.settings.sat_corners for part in shape.parts]
        flags = pb.URDF_USE_INERTIA_FROM_FILE | (pb.URDF_INITIALIZE_SAT_FEATURES if all(sat) else 0)
        if len(parts) <= self.settings.array_parts:
            shape_id = pb.createCollisionShapeArray(
                [pb.GEOM_MESH] * len(parts), fileNames=[f for f, _ in parts],
                collisionFramePositions=[list(c) for _, c in parts], meshScales=[list(squeeze)] * len(parts),
                flags=[pb.URDF_INITIALIZE_SAT_FEATURES if x else 0 for x in sat], physicsClientId=self._cid)
            uid = pb.createMultiBody(
                mass, shape_id, basePosition=list(np.asarray(pos, dtype=float) * s), baseOrientation=list(quat),
                baseInertialFramePosition=list(shape.com * s), baseInertialFrameOrientation=list(principal),
                useMaximalCoordinates=True, physicsClientId=self._cid)
            if mass > 0:
                pb.changeDynamics(uid, -1, mass=mass, localInertiaDiagonal=list(moments * s * s),
                                  physicsClientId=self._cid)
            return uid
        return pb.loadURDF(body_file(parts, squeeze, mass, shape.com * s, rpy, moments * s * s),
                           basePosition=list(np.asarray(pos, dtype=float) * s), baseOrientation=list(quat),
                           useMaximalCoordinates=True, useFixedBase=mass == 0.0, flags=flags,
                           physicsClientId=self._cid)

    def _shrink(self, k: int) -> float:
        """The k-th body's narrowing: between 1 and 2 times ``settings.shrink``, spread by the
        golden ratio so that no two bodies get the same."""
        return self.settings.shrink * (1.0 + (k * 0.6180339887498949) % 1.0)

    def _add_piece(self, piece) -> BodyInfo:
        shape = piece.shape
        mass = 0.0 if piece.fixed else piece.mass
        uid = self._load(shape, piece.pos, piece.quat, mass, self._shrink(len(self._names)))
        self._material(uid, piece.friction_coefficient, shape.material.restitution, movable=mass > 0)
        self._names[uid] = piece.id
        moments, principal = principal_frame(shape.inertia * (piece.mass / shape.mass))
        return BodyInfo(piece.id, uid, mass, shape.com.copy(), principal, moments, piece.fixed,
                        np.asarray(piece.quat, dtype=float))

    def _material(self, uid: int, friction: float, restitution: float, movable: bool) -> None:
        """Bullet multiplies the two bodies' coefficients: each gets the square root of its own,
        so that a contact's coefficient is the geometric mean (``sim.contact.contact_friction``).
        Static bodies keep the sleeping state Bullet gives them (see :mod:`sim.physics.sleep`)."""
        s = self.settings
        kwargs = {}
        if s.configure_engine:
            kwargs = dict(linearDamping=s.damping, angularDamping=s.damping, frictionAnchor=int(s.friction_anchors),
                          rollingFriction=0.0, spinningFriction=0.0)
            if movable and not s.sleeping:
                kwargs["activationState"] = pb.ACTIVATION_STATE_DISABLE_SLEEPING
            elif not movable:  # inactive, as Bullet means static bodies to be: nothing is computed against
                kwargs["activationState"] = pb.ACTIVATION_STATE_SLEEP  # a sleeping piece resting on them
        pb.changeDynamics(uid, -1, lateralFriction=float(np.sqrt(friction)),
                          restitution=float(np.sqrt(restitution)), physicsClientId=self._cid, **kwargs)

    def _check_overlaps(self) -> None:
        pb.performCollisionDetection(physicsClientId=self._cid)
        depth: dict[tuple[str, str], float] = {}
        limit = -tol.overlap * self._scale - 2 * HULL_MARGIN
        for c in pb.getContactPoints(physicsClientId=self._cid):
            if c[8] < limit:
                a, b = sorted((self._names[c[1]], self._names[c[2]]))
                depth[(a, b)] = max(depth.get((a, b), 0.0), (-c[8] - 2 * HULL_MARGIN) / self._scale)
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
        if self._sleep is not None:  # a new push: every island must withstand it afresh
            self._sleep.wake()

    def set_precision(self, residual_velocity: float, iterations: int | None = None) -> None:
        """The solver's convergence tolerance (m/s) and iteration bound from now on.

        See ``PhysicsSettings.residual_velocity`` and ``solver_iterations``.
        """
        if self.settings.configure_engine:
            pb.setPhysicsEngineParameter(solverResidualThreshold=(residual_velocity * self._scale) ** 2,
                                         numSolverIterations=iterations or self.settings.solver_iterations,
                                         physicsClientId=self._cid)

    @property
    def probe_direction(self) -> float | None:
        """The probe's fixed direction (degrees), None when it turns (or is off)."""
        return self._probe[1] if self._probe[0] != 0.0 else None

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
        every = max(1, int(round(self.settings.watch_seconds / self.settings.dt)))
        turn = max(1, int(round(self.settings.probe_update / self.settings.dt)))
        for _ in range(n):
            if rotating and self.steps % turn == 0:
                self._apply_gravity()
            pb.stepSimulation(physicsClientId=self._cid)
            self.steps += 1
            self.time = self.steps * self.settings.dt
            if self.steps % every == 0:
                self.watch()
            if self._sleep is not None and self.steps % turn == 0:
                self._sleep.update()

    def watch(self) -> None:
        """Stop with :class:`BlowUpError` if a pose is not finite or the energy ran away.

        The pieces only lose mechanical energy (friction, inelastic impacts);
        a world whose kinetic plus potential energy rose above the start's plus
        what pushes gave, by more than lifting every piece ``tol.blowup_height``
        would take, is numerically broken.
        """
        mass, inertia, frames, vel = self._centres()
        bad = ~(np.isfinite(frames).all(axis=1) & np.isfinite(vel).all(axis=1))
        if bad.any():
            raise BlowUpError(self.source, self.time, [b.id for b, x in zip(self._dynamic, bad) if x],
                              "a pose became NaN")
        spin = Rotation.from_quat(frames[:, 3:]).inv().apply(vel[:, 3:]) if len(mass) else vel[:, 3:]
        kinetic = 0.5 * mass * np.sum(vel[:, :3] ** 2, axis=1) + 0.5 * np.sum(inertia * spin**2, axis=1)
        potential = float(-np.sum(mass * (frames[:, :3] @ self._gravity)))
        gained = kinetic.sum() + potential - self._energy0 - self._injected
        allowed = mass.sum() * GRAVITY * tol.blowup_height
        if not np.isfinite(gained) or gained > allowed:
            names = [self._dynamic[i].id for i in np.argsort(-kinetic)[:3]]
            raise BlowUpError(self.source, self.time, names,
                              f"the energy rose by {gained:.3g} J with nothing to give it")

    def push(self, piece_id: str, velocity, spin=(0.0, 0.0, 0.0)) -> None:
        """Set a piece moving (a nudge); its kinetic energy counts as given, not as a blow-up.

        Args:
            piece_id: the piece.
            velocity: (3,) linear velocity of its centre of mass (m/s).
            spin: (3,) angular velocity (rad/s).
        """
        b = self.bodies[piece_id]
        if b.fixed:
            raise ValueError(f"piece {piece_id!r} is fixed")
        if self._sleep is not None:
            self._sleep.wake()
        k = self._dynamic.index(b)
        before = self.kinetic_energies()[k]
        pb.resetBaseVelocity(b.uid, list(np.asarray(velocity, dtype=float) * self._scale),
                             list(np.asarray(spin, dtype=float)), physicsClientId=self._cid)
        self._injected += max(self.kinetic_energies()[k] - before, 0.0)

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
        quat = rot.as_quat()
        start = np.array([b.start_quat for b in bodies])
        quat = np.where(np.sum(quat * start, axis=1, keepdims=True) < 0, -quat, quat)  # the sign it started with
        return np.hstack([pos, quat])

    def velocities(self) -> np.ndarray:
        """(n, 6) linear velocity of the centre of mass (m/s) and angular velocity (rad/s), scene order."""
        vel = np.array([[*v, *w] for v, w in (pb.getBaseVelocity(self.bodies[i].uid, physicsClientId=self._cid)
                                              for i in self.ids)]).reshape(-1, 6)
        vel[:, :3] /= self._scale
        return vel

    def _centres(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Masses (m,), inertias (m, 3), centre-of-mass frames (m, 7) and velocities (m, 6) of the movable pieces."""
        if not self._dynamic:
            return np.zeros(0), np.zeros((0, 3)), np.zeros((0, 7)), np.zeros((0, 6))
        frames = np.array([[*p, *q] for p, q in (pb.getBasePositionAndOrientation(b.uid, physicsClientId=self._cid)
                                                 for b in self._dynamic)])
        vel = np.array([[*v, *w] for v, w in (pb.getBaseVelocity(b.uid, physicsClientId=self._cid)
                                              for b in self._dynamic)])
        frames[:, :3] /= self._scale
        vel[:, :3] /= self._scale
        return self._masses, self._inertias, frames, vel

    def kinetic_energies(self) -> np.ndarray:
        """(m,) kinetic energy (J) of every movable piece, in the order of ``self._dynamic``."""
        mass, inertia, frames, vel = self._centres()
        spin = Rotation.from_quat(frames[:, 3:]).inv().apply(vel[:, 3:]) if len(mass) else vel[:, 3:]
        return 0.5 * mass * np.sum(vel[:, :3] ** 2, axis=1) + 0.5 * np.sum(inertia * spin**2, axis=1)

    def potential_energy(self) -> float:
        """Potential energy (J) of the movable pieces in the current gravity (probe included)."""
        mass, _, frames, _ = self._centres()
        return float(-np.sum(mass * (frames[:, :3] @ self._gravity)))

    def at_rest(self) -> np.ndarray:
        """(n,) bool: whether every point of each piece moves slower than ``tol.rest_speed``
        (the speed of its centre of mass plus its spin times the farthest corner of its bounding box)."""
        v = self.velocities()
        fastest = np.linalg.norm(v[:, :3], axis=1) + np.linalg.norm(v[:, 3:], axis=1) * self._reach
        return fastest < tol.rest_speed

    def asleep(self) -> list[str]:
        """Ids of the pieces asleep (:mod:`sim.physics.sleep`), scene order."""
        sleeping = set() if self._sleep is None else {b.id for b, x in zip(self._dynamic, self._sleep.asleep) if x}
        return [i for i in self.ids if i in sleeping]

    def contact_state(self) -> dict[str, tuple[frozenset, frozenset]]:
        """What each piece touches now, and what holds it up, from the last step's contacts.

        Returns:
            id -> (touching, below): names of the bodies (piece ids, ``board``,
            ``table``) in contact with it, and those among them whose contact
            normal is within ``tol.support_angle`` of vertical, under it.
        """
        touching: dict[str, set[str]] = {i: set() for i in self.ids}
        below: dict[str, set[str]] = {i: set() for i in self.ids}
        gap = tol.touch_gap * self._scale
        upright = np.cos(tol.support_angle)
        for c in pb.getContactPoints(physicsClientId=self._cid):
            if c[8] > gap:
                continue
            a, b, nz = self._names[c[1]], self._names[c[2]], c[7][2]  # normal on b, pointing into a
            for this, other, up in ((a, b, nz), (b, a, -nz)):
                if this in touching:
                    touching[this].add(other)
                    if up > upright:
                        below[this].add(other)
        return {i: (frozenset(touching[i]), frozenset(below[i])) for i in self.ids}

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
            with contextlib.suppress(Exception):  # at interpreter exit pybullet may be gone already
                self.close()
