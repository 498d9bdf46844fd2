"""A pybullet world compiled from a Scene: one DIRECT client per world, pieces addressed by id.

Each piece is one rigid body (:mod:`sim.physics.bodies`); the board is a
static slab on an endless table plane; fixed pieces are static. The world can
change while it runs (pieces set, added, removed), reports its full state and
takes it back (:meth:`World.get_state`, :meth:`World.set_state`), and answers
ray queries for picking. Everything it takes and returns is SI.
"""

from __future__ import annotations

import contextlib

import numpy as np

from sim.names import BOARD, TABLE
from sim.physics.bodies import (
    GRAVITY,
    HULL_MARGIN,
    BodyInfo,
    body_info,
    load_shape,
    load_table,
    pb,
    place_body,
    set_material,
    shrink_of,
)
from sim.physics.errors import BlowUpError, OverlapError
from sim.physics.gravity import Gravity
from sim.physics.outlines import Outlines
from sim.physics.readout import RayHit, Readout
from sim.physics.restore import State, WorldState
from sim.physics.seating import prime_contacts
from sim.physics.settings import TUNED, PhysicsSettings
from sim.physics.sleep import Sleep
from sim.pieces.boards import TABLE_MATERIAL
from sim.scene import Piece, Scene
from sim.tol import tol

__all__ = ["GRAVITY", "HULL_MARGIN", "BodyInfo", "RayHit", "World", "WorldState", "pb"]

BODIES_A_STEP = 2
"""Bodies made between two pauses of a restore prepared ahead (:meth:`World.prepare`): a few milliseconds."""


class World(Readout, Gravity, State, Outlines):
    """A scene compiled into its own pybullet client (DIRECT, no globals); pieces addressed by id.

    Args:
        scene: the scene to build.
        settings: the world's settings (default: the tuned ones).

    Attributes:
        scene: the pieces the world holds, as they were given (added pieces appended, removed ones gone).
        settings: its settings.
        ids: piece ids in scene order (the row order of :meth:`poses`).
        bodies: id -> :class:`BodyInfo`.
        time: simulated time (s); ``steps``: steps taken.
        board_uid, table_uid: pybullet ids of the board slab and the table plane
            (the same body on the endless ``table`` board).

    Raises:
        OverlapError: pieces interpenetrate deeper than ``tol.overlap`` at load.
    """

    def __init__(self, scene: Scene, settings: PhysicsSettings | None = None, interfaces=None):
        self.settings = settings or TUNED
        self._scale = self.settings.length_scale
        self._cid = pb.connect(pb.DIRECT)
        try:
            self._load(scene, interfaces)
        except BaseException:
            self.close()
            raise

    def reset(self, scene: Scene, interfaces=None) -> None:
        """Make this world what ``World(scene, self.settings, interfaces)`` would be, on the same client.

        The engine is reset (``resetSimulation``) and everything built as a new world builds it, so
        what follows is bit for bit what a new world gives, at a fifth of the cost: a new pybullet
        client takes some 15 ms to connect and disconnect, the bodies of a small scene 3-4 ms.

        Raises:
            OverlapError: as the constructor does (the world then holds the scene's bodies).
        """
        pb.resetSimulation(physicsClientId=self._cid)
        self._load(scene, interfaces)

    def _load(self, scene: Scene, interfaces) -> None:
        """Everything a new world has, for ``scene``, on an empty engine."""
        self.scene = scene
        self._names: dict[int, str] = {}
        self._pieces: dict[str, Piece] = {}
        self.bodies: dict[str, BodyInfo] = {}
        self.ids: list[str] = []
        self.time = 0.0
        self.steps = 0
        self._gravity = np.array([0.0, 0.0, -GRAVITY])
        self._probe: tuple[float, float | None] = (self.settings.probe_g, None)
        self._precision: tuple[float, int] | None = None
        self._sleep: Sleep | None = None
        self._movable: list[BodyInfo] | None = None
        self._static: set[str] = set()
        self._outlined: dict[str, int] = {}  # piece -> its exact body while it has its outline (``reshape``)
        self.sleep_window: float | None = None  # how long an island must be still to sleep (None: tol's)
        self.freeze_still = False  # freeze still pieces amid still neighbours before their island sleeps (sleep.py)
        self.source = scene.source or "<scene>"
        self._configure()
        self._add_ground()
        self._build(scene.pieces)
        prime_contacts(self, scene, interfaces)
        self._check_overlaps()
        s = self.settings
        self._sleep = Sleep(self) if s.sleeping and s.configure_engine else None
        self._baseline = self.energy()

    # --- construction -------------------------------------------------------------------------

    @property
    def client(self) -> int:
        """The pybullet client id (for calls this class does not wrap; never disconnect it)."""
        return self._cid

    def _configure(self) -> None:
        s, scale = self.settings, self._scale
        self._span = 1  # steps of ``dt`` the engine takes at once (``step``'s span)
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
        self.refresh_gravity()

    def _add_ground(self) -> None:
        board = self.scene.board_info
        uid = load_table(self._cid, self.settings, -board.thickness)
        set_material(self._cid, self.settings, uid, TABLE_MATERIAL.friction, TABLE_MATERIAL.restitution, False)
        self._names[uid] = TABLE if board.shape is not None else BOARD
        self.table_uid = uid
        self.board_uid = uid
        if board.shape is not None:
            uid = load_shape(self._cid, self.settings, board.shape, board.pos, (0.0, 0.0, 0.0, 1.0), 0.0, 0.0)
            m = board.shape.material
            set_material(self._cid, self.settings, uid, m.friction, m.restitution, False)
            self._names[uid] = BOARD
            self.board_uid = uid
        self._grounds = len(self._names)

    def _build(self, pieces) -> None:
        """Make the bodies of ``pieces`` (from the highest down with ``settings.top_down``, so that each
        sweep of the solver carries the weights downwards) and record them in scene order."""
        for _ in self._building(pieces):
            pass

    def _building(self, pieces):
        """:meth:`_build`, a few bodies at a time (a generator: see :meth:`prepare`)."""
        order = sorted(pieces, key=lambda p: -p.pos[2]) if self.settings.top_down else list(pieces)
        created = {}
        for k, p in enumerate(order):
            # pybullet reads each hull file once while they are made (the files are named by their content,
            # so its cache cannot mix two up; it is emptied once they are made): a Babylon city's 80 towers
            # share 22 files. Set for each body: a world made meanwhile (its ``_configure``) turns it off.
            pb.setPhysicsEngineParameter(enableFileCaching=1, physicsClientId=self._cid)
            created[p.id] = self._make_body(p, self._grounds + k)
            if k % BODIES_A_STEP == BODIES_A_STEP - 1:
                yield
        pb.setPhysicsEngineParameter(enableFileCaching=0, physicsClientId=self._cid)
        self.bodies = {p.id: created[p.id] for p in pieces}
        self.ids = [p.id for p in pieces]
        self._pieces = {p.id: p for p in pieces}
        self._movable = None

    def _make_body(self, piece: Piece, k: int) -> BodyInfo:
        """Load ``piece`` as the world's k-th body and give it its material."""
        mass = 0.0 if piece.fixed else piece.mass
        shrink = shrink_of(self.settings, k)
        uid = load_shape(self._cid, self.settings, piece.shape, piece.pos, piece.quat, mass, shrink)
        set_material(self._cid, self.settings, uid, piece.friction_coefficient, piece.shape.material.restitution,
                     mass > 0)
        self._names[uid] = piece.id
        return body_info(piece, uid, shrink)

    def _check_overlaps(self, only: str | None = None) -> None:
        """Raise :class:`OverlapError` for pieces interpenetrating deeper than ``tol.overlap``
        (all pairs, or those of the piece ``only``)."""
        pb.performCollisionDetection(physicsClientId=self._cid)
        depth: dict[tuple[str, str], float] = {}
        limit = -tol.overlap * self._scale - 2 * HULL_MARGIN
        kwargs = {} if only is None else {"bodyA": self.bodies[only].uid}
        for c in pb.getContactPoints(physicsClientId=self._cid, **kwargs):
            if c[8] < limit:
                a, b = sorted((self._names[c[1]], self._names[c[2]]))
                depth[(a, b)] = max(depth.get((a, b), 0.0), (-c[8] - 2 * HULL_MARGIN) / self._scale)
        if depth:
            pairs = sorted(((a, b, d) for (a, b), d in depth.items()), key=lambda t: -t[2])
            raise OverlapError(self.source, pairs)

    @property
    def movable(self) -> list[BodyInfo]:
        """The movable (not fixed) pieces' bodies, scene order."""
        if self._movable is None:
            self._movable = [b for b in (self.bodies[i] for i in self.ids) if not b.fixed]
            self._active = [b for b in self._movable if b.id not in self._static]
            self._masses = np.array([b.mass for b in self._active])
            self._inertias = np.array([b.inertia for b in self._active]).reshape(-1, 3)
            self._movable_ids = frozenset(b.id for b in self._movable)
            self._order = {i: k for k, i in enumerate(self.ids)}
        return self._movable

    @property
    def movable_ids(self) -> frozenset[str]:
        """The ids of :attr:`movable`."""
        self.movable  # noqa: B018 (fills the cache)
        return self._movable_ids

    def in_order(self, ids) -> list[str]:
        """Pieces ``ids`` in scene order (the order of :attr:`ids`)."""
        self.movable  # noqa: B018 (fills the cache)
        return sorted(ids, key=self._order.__getitem__)

    @property
    def active(self) -> list[BodyInfo]:
        """The movable pieces' bodies not made static (:meth:`set_static`), scene order: the rows of
        :meth:`kinetic_energies`, and what the blow-up watch reads."""
        self.movable  # noqa: B018 (fills the cache)
        return self._active

    def piece(self, piece_id: str) -> Piece:
        """The piece ``piece_id`` as it was given to the world (its pose the one it was given with).

        Raises:
            KeyError: no such piece.
        """
        return self._pieces[piece_id]

    def name_of(self, uid: int) -> str | None:
        """The piece id (or ``board``/``table``) of a pybullet body id; None for a body the world did not make."""
        return self._names.get(uid)

    # --- changing the world ---------------------------------------------------------------------

    def add_piece(self, piece: Piece, velocity=None) -> BodyInfo:
        """Add a piece while the world runs (the body is made at the piece's pose).

        Args:
            piece: the piece (its id new to the world).
            velocity: (6,) linear (m/s) and angular (rad/s) velocity to start with; at rest by default.

        Raises:
            ValueError: the id is taken (or reserved).
            OverlapError: it interpenetrates another piece or the board; the world is left unchanged.
        """
        if piece.id in self.bodies or piece.id in (BOARD, TABLE):
            raise ValueError(f"piece {piece.id!r} is already in the world")
        info = self._make_body(piece, len(self._names))
        self.bodies[piece.id] = info
        self.ids.append(piece.id)
        self._pieces[piece.id] = piece
        self.scene = self.scene.with_pieces([*self.scene.pieces, piece])
        self._movable = None
        try:
            self._check_overlaps(piece.id)
        except OverlapError:
            self.remove_piece(piece.id)
            raise
        if velocity is not None:
            self._set_velocity(info, velocity)
        self._changed()
        return info

    def remove_piece(self, piece_id: str) -> None:
        """Take a piece out of the world; what touched it wakes (see :meth:`wake`).

        Raises:
            KeyError: no such piece.
        """
        info = self.bodies[piece_id]
        if self._sleep is not None:
            self._sleep.wake_touching([piece_id])
        pb.removeBody(info.uid, physicsClientId=self._cid)
        waiting = self._outlined.pop(piece_id, None)  # its exact body, waiting (``reshape``)
        if waiting is not None:
            pb.removeBody(waiting, physicsClientId=self._cid)
        del self._names[info.uid]
        del self.bodies[piece_id]
        del self._pieces[piece_id]
        self.ids.remove(piece_id)
        self.scene = self.scene.with_pieces(p for p in self.scene.pieces if p.id != piece_id)
        self._movable = None
        self._changed()

    def set_pose(self, piece_id: str, pose, velocity=None) -> None:
        """Put a piece at a pose (a teleport): what it touched there and touches here wakes.

        Args:
            piece_id: the piece.
            pose: (7,) position (m) of its frame and quaternion xyzw.
            velocity: (6,) linear (m/s) and angular (rad/s) velocity; at rest by default.
        """
        info = self.bodies[piece_id]
        if self._sleep is not None:
            self._sleep.wake_touching([piece_id])
        self._place(info, np.asarray(pose, dtype=float))
        self._set_velocity(info, np.zeros(6) if velocity is None else velocity)
        self._changed(touching=[piece_id])

    def set_static(self, ids, static: bool = True) -> None:
        """Make movable pieces static where they are (mass 0 and inactive: they cost nothing a step,
        nothing pushes them, and Bullet's islands never reach across them), or movable again, at rest.

        Args:
            ids: the pieces (fixed pieces are left alone).
            static: True to hold them, False to let them go.
        """
        s = self._scale
        for i in ids:
            info = self.bodies[i]
            if info.fixed:
                continue
            if static:
                self._set_velocity(info, np.zeros(6))
                pb.changeDynamics(info.uid, -1, mass=0.0, physicsClientId=self._cid)
                pb.changeDynamics(info.uid, -1, activationState=pb.ACTIVATION_STATE_SLEEP, physicsClientId=self._cid)
            else:
                pb.changeDynamics(info.uid, -1, mass=info.mass, localInertiaDiagonal=list(info.inertia * s * s),
                                  physicsClientId=self._cid)
                # awake; where the world keeps no sleep of its own, never put to sleep by Bullet either (a
                # plain wake-up would leave Bullet's 2 s deactivation on: a piece held still by a hand froze)
                state = pb.ACTIVATION_STATE_WAKE_UP if self._sleep is not None else pb.ACTIVATION_STATE_DISABLE_SLEEPING
                pb.changeDynamics(info.uid, -1, activationState=state, physicsClientId=self._cid)
                self._set_velocity(info, np.zeros(6))
        if not static:
            self.refresh_gravity()  # a body keeps the gravity it had when it was last movable
        changed = {i for i in ids if not self.bodies[i].fixed}
        self._static = self._static | changed if static else self._static - changed
        self._movable = None
        self.rebase_energy()  # what is static leaves the energy count, what moves again joins it

    def _place(self, info: BodyInfo, pose: np.ndarray) -> None:
        place_body(self._cid, self._scale, info, pose)

    def _set_velocity(self, info: BodyInfo, velocity) -> None:
        v = np.asarray(velocity, dtype=float)
        pb.resetBaseVelocity(info.uid, list(v[:3] * self._scale), list(v[3:]), physicsClientId=self._cid)

    def _changed(self, touching=()) -> None:
        """After a change from outside: the sleep bookkeeping follows the bodies, what is touched wakes,
        and the energy watch counts from here."""
        if self._sleep is not None:
            self._sleep.follow()
            if touching:
                self._sleep.wake_touching(touching)
        self.rebase_energy()

    # --- stepping -------------------------------------------------------------------------------

    def step(self, n: int = 1, span: int = 1) -> None:
        """Advance ``n`` fixed time steps, watching for a blow-up; each of ``span`` steps at once (one engine
        step of ``span`` times ``settings.dt``: the live world's crowds, ``sim.physics.live.stepping``).

        Raises:
            BlowUpError: NaN poses or kinetic energy beyond what gravity released.
        """
        every = max(1, int(round(self.settings.watch_seconds / self.settings.dt)))
        turn = max(1, int(round(self.settings.probe_update / self.settings.dt)))
        if span != self._span:
            pb.setPhysicsEngineParameter(fixedTimeStep=self.settings.dt * span, physicsClientId=self._cid)
            self._span = span
        for _ in range(n):
            if self.all_asleep():
                self.idle(span)  # nothing moves until something from outside wakes it: no step to take
                continue
            before = self.steps
            if self.probe_turning and (self.steps % turn == 0 or self.steps // turn != (self.steps + span - 1) // turn):
                self.refresh_gravity()
            pb.stepSimulation(physicsClientId=self._cid)
            self.steps += span
            self.time = self.steps * self.settings.dt
            if self.steps // every != before // every:
                self.watch()
            if self._sleep is not None and self.steps // turn != before // turn:
                self._sleep.update()

    def all_asleep(self) -> bool:
        """Every movable piece sleeps (:mod:`sim.physics.sleep`): until a push, a new probe or a change,
        nothing moves."""
        return self._sleep is not None and self._sleep.all_asleep

    def idle(self, n: int = 1) -> None:
        """Advance the clock ``n`` steps without simulating: for a world whose movable pieces are all
        static (``set_static``), where a step would change nothing."""
        self.steps += n
        self.time = self.steps * self.settings.dt

    def watch(self) -> None:
        """Stop with :class:`BlowUpError` if a pose is not finite or the energy ran away.

        The pieces only lose mechanical energy (friction, inelastic impacts);
        a world whose kinetic plus potential energy rose above the last
        baseline (the start, or the last change from outside: :meth:`rebase_energy`)
        plus what pushes gave, by more than lifting every piece
        ``tol.blowup_height`` would take, is numerically broken.
        """
        mass, _, frames, vel = self._centres()
        bad = ~(np.isfinite(frames).all(axis=1) & np.isfinite(vel).all(axis=1))
        if bad.any():
            raise BlowUpError(self.source, self.time, [b.id for b, x in zip(self.active, bad) if x],
                              "a pose became NaN")
        kinetic, potential = self._energies()
        gained = kinetic.sum() + potential - self._baseline
        allowed = mass.sum() * GRAVITY * tol.blowup_height
        if not np.isfinite(gained) or gained > allowed:
            names = [self.active[i].id for i in np.argsort(-kinetic)[:3]]
            raise BlowUpError(self.source, self.time, names,
                              f"the energy rose by {gained:.3g} J with nothing to give it")

    def rebase_energy(self) -> None:
        """Count the energy watch from the world's present energy (after work done from outside)."""
        self._baseline = self.energy()

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
        if piece_id in self._static:
            self.set_static([piece_id], False)
        k = self.active.index(b)
        before = self.kinetic_energies()[k]
        self._set_velocity(b, [*np.asarray(velocity, dtype=float), *np.asarray(spin, dtype=float)])
        self._baseline += max(self.kinetic_energies()[k] - before, 0.0)

    # --- lifetime --------------------------------------------------------------------------------

    def close(self) -> None:
        """Disconnect the client, and that of a prepared restore (idempotent)."""
        self.close_prepared()
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
