"""The live world: a scene that runs in real time while hands, players and experiments change it.

It wraps a :class:`~sim.physics.world.World` (no sleeping of its own, no
probe: plain gravity) with

* **actions** (:meth:`LiveWorld.apply`, or the named methods): add, remove,
  set a pose, push (an impulse at a point), grab / move a hand / release,
  pull a point of a piece with a spring / release the pull (:mod:`.pulls`),
  shake the table; each is recorded as plain data (:class:`WorldAction`);
* **statics-certified rest** (:mod:`sim.physics.live.rest`): after every
  change and whenever moving pieces have come to rest, the statics say which
  pieces are held; those are static bodies until something moving or carried
  touches them, and then wake with their neighbours;
* **parked pieces** (:meth:`LiveWorld.park`): pieces set aside at rest (a
  game's supply beside the board) are static bodies that neither the statics
  nor the motion tracker look at, so that they cost nothing however many wait;
  a hand, a move, a push or a touch wakes them;
* **events as they happen** (:class:`WorldEvent`: moved, left its support,
  fell, knocked down, came to rest), each with the last action before it;
* **snapshots** (:mod:`sim.physics.live.history`) and stepping back;
* **fixed steps with a real-time driver** (:mod:`sim.physics.live.stepping`):
  :meth:`LiveWorld.advance` steps what fits in a wall-clock budget and
  reports the real-time factor.

Everything is SI, pieces by id; poses (7,) are position + quaternion xyzw of
the piece frame.
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable

import numpy as np
from scipy.spatial.transform import Rotation

from sim.physics.bodies import GRAVITY, pb
from sim.physics.live.flight import Flights
from sim.physics.live.hands import DEFAULT_STRENGTH, Hands
from sim.physics.live.history import History, LiveSnapshot
from sim.physics.live.pulls import Pull, Pulls, check_pull
from sim.physics.live.records import Grip, WorldAction, WorldEvent
from sim.physics.live.rest import (
    SETTLE_FALL_STEPS,
    SETTLE_SPEED,
    TOUCH_SPEED,
    Certification,
    CertifiedRest,
    InterfaceCache,
)
from sim.physics.live.stepping import FRAME_HZ, Stepping
from sim.physics.readout import RayHit
from sim.physics.settings import TUNED, PhysicsSettings
from sim.physics.tracker import MotionThresholds, MotionTracker
from sim.physics.world import World
from sim.scene import Piece, Scene
from sim.tol import tol

_NO_POSE = np.zeros(7)  # a row that the world's own poses fill in


def live_settings(settings: PhysicsSettings | None = None) -> PhysicsSettings:
    """The live world's settings: the tuned ones without the verdict's probe or the world's own sleeping
    (certified rest replaces it), and a solver that stops at 0.1 mm/s with at most 1000 iterations a step
    (held pieces are static; the solver only meets moving ones)."""
    s = settings or TUNED
    return s.with_(probe_g=0.0, sleeping=False, residual_velocity=1e-4, solver_iterations=min(s.solver_iterations,
                                                                                              1000))


class LiveWorld(CertifiedRest, Stepping):
    """A world that runs while it is changed; see the module docstring.

    Args:
        scene: the scene to start from (its pieces are certified before the first step).
        settings: physics settings (default :func:`live_settings`).
        history_seconds: how far back (s) :meth:`rewind` can go.
        clock: the wall clock (s) the real-time driver reads (injectable for tests).

    Attributes:
        world: the underlying world (read poses, rays and contacts from it).
        hands: who carries what.
        pulls: which pieces are pulled by a spring, from which point to where (:meth:`pull`).
        held: ids of the pieces the statics hold (static bodies).
        parked: ids of the pieces set aside (static bodies nobody judges or watches; :meth:`park`).
        actions: every action so far, in order.
        events: every event so far, in order.
        certification: the last answer of the statics.
    """

    def __init__(self, scene: Scene, settings: PhysicsSettings | None = None, *, history_seconds: float = 12.0,
                 clock: Callable[[], float] = _time.perf_counter):
        self.world = World(scene, settings or live_settings())
        self.hands = Hands(self.world)
        self.pulls = Pulls(self.world)
        self.flights = Flights(self)
        self.held: set[str] = set()
        self.parked: set[str] = set()
        self.actions: list[WorldAction] = []
        self.events: list[WorldEvent] = []
        self.certification: Certification | None = None
        self._clock = clock
        self._drained = 0
        self._dirty = True  # something may have changed since the last frame
        self._stale = False  # pieces let go since contacts were last found: Bullet may lack theirs with statics
        self._single_until = 0  # the steps before this one are single (pieces just let go: ``_let_go``)
        self._pyramids: dict[str, bool] = {}  # piece id -> its body holds face pyramids (``Stepping._exact_faces``)
        self._shake: tuple[float, float, float, float, float] | None = None  # amplitude, hz, deg, start, end
        self._frame_steps = max(1, int(round(1.0 / (FRAME_HZ * self.world.settings.dt))))
        self._settle_speed = max(SETTLE_SPEED, SETTLE_FALL_STEPS * GRAVITY * self.world.settings.dt)
        self._touch_speed = max(TOUCH_SPEED, SETTLE_FALL_STEPS * GRAVITY * self.world.settings.dt)
        self._last_certified = -np.inf
        self._rest_since: dict[str, float] = {i: -np.inf for i in self.world.ids}  # a scene starts at rest
        self._interfaces = InterfaceCache()
        self._static_poses: dict[str, np.ndarray] = {}  # held or parked: they do not move
        self.tracker = MotionTracker([], [], np.zeros((0, 7)), {}, MotionThresholds.from_tolerances(tol),
                                     piece_rest=True)
        self._certify(force=True)
        rest = [i for i in self.world.ids if i not in self.tracker.ids]  # fixed pieces, unheld ones
        self.tracker.add(rest, self._bounds(rest), [self.pose(i) for i in rest], self._contacts(), self.time)
        self.history = History(self, history_seconds)

    # --- reading ---------------------------------------------------------------------------------

    @property
    def time(self) -> float:
        """Simulated time (s)."""
        return self.world.time

    @property
    def ids(self) -> list[str]:
        """Piece ids, in the order of :meth:`poses`."""
        return self.world.ids

    def poses(self) -> np.ndarray:
        """(n, 7) every piece's pose (held and parked pieces from memory: they do not move)."""
        ids = self.ids
        rows = [self._static_poses.get(i) for i in ids]
        live = [k for k, r in enumerate(rows) if r is None]
        if not live:
            return np.array(rows).reshape(-1, 7)
        for k in live:
            rows[k] = _NO_POSE
        out = np.array(rows)
        out[live] = self.world.poses([ids[k] for k in live])
        return out

    def pose(self, piece_id: str) -> np.ndarray:
        """(7,) one piece's pose."""
        return self.world.pose(piece_id)

    def carried(self) -> dict[str, str]:
        """piece id -> hand, for the pieces in a hand."""
        return self.hands.carried()

    def free(self) -> list[str]:
        """Movable pieces that are simulated now (neither held, parked nor carried), scene order."""
        w = self.world
        return w.in_order(w.movable_ids - self.held - self.parked - set(self.carried()))

    def moving(self, speed: float | None = None) -> list[str]:
        """The pieces in motion now: some point faster than ``speed`` (m/s; default ``tol.rest_speed``)."""
        w = self.world
        awake = w.in_order((w.movable_ids - self.held - self.parked) | set(self.carried()))
        return [i for i, rest in zip(awake, w.at_rest(awake, speed)) if not rest]

    def scene_now(self) -> Scene:
        """The scene with every piece at its current pose."""
        return self.world.scene.with_poses(dict(zip(self.ids, self.poses())))

    def ray_test(self, start, end) -> RayHit | None:
        """The first body the segment meets (the simulation's own shapes): what the viewer picks."""
        return self.world.ray_test(start, end)

    def ray_tests(self, starts, ends) -> list[RayHit | None]:
        """:meth:`ray_test` of many segments (k, 3) at once."""
        return self.world.ray_tests(starts, ends)

    def landing(self, piece_id: str, pose) -> np.ndarray:
        """Where ``piece_id`` would come to lie if let go above ``pose`` (7,): the pose lowered straight
        down onto the highest surface under its footprint (the viewer's ghost).

        Rays go down from the corners and the centre of its bounding box's underside; the piece itself
        is skipped. Returns the pose unchanged when nothing lies under it.
        """
        pose = np.asarray(pose, dtype=float)
        box = self.world.piece(piece_id).shape.bounds
        rot = Rotation.from_quat(pose[3:])
        corners = np.array([[x, y, z] for x in box[:, 0] for y in box[:, 1] for z in box[:, 2]])
        world = rot.apply(corners) + pose[:3]
        bottom = world[:, 2].min()
        starts = np.vstack([world, world.mean(axis=0)])
        starts[:, 2] = bottom - tol.touch_gap  # just under it: the piece itself is not hit
        ends = starts.copy()
        ends[:, 2] = -10.0
        scale = self.world.settings.length_scale
        uid = self.world.bodies[piece_id].uid
        hits = pb.rayTestBatch(list(map(list, starts * scale)), list(map(list, ends * scale)),
                               physicsClientId=self.world.client)
        tops = [h[3][2] / scale for h in hits if h[0] >= 0 and h[0] != uid]
        if not tops:
            return pose
        out = pose.copy()
        out[2] -= bottom - max(tops)
        return out

    # --- actions -----------------------------------------------------------------------------------

    def apply(self, action: WorldAction | dict) -> None:
        """Make an action given as data (:class:`WorldAction` or its JSON form): the same as calling its method
        (:data:`sim.physics.live.actions.APPLY`, one entry a kind).

        Raises:
            ValueError: not a kind of :data:`APPLY`.
        """
        a = action if isinstance(action, WorldAction) else WorldAction(
            0.0, action["kind"], action.get("piece"), action.get("hand"), action.get("player"),
            dict(action.get("args") or {}))
        from sim.physics.live.actions import APPLY

        do = APPLY.get(a.kind)
        if do is None:
            raise ValueError(f"action kind: expected one of {', '.join(APPLY)}, got {a.kind!r}")
        do(self, a, a.args)

    def _record(self, kind: str, piece: str | None = None, hand: str | None = None, player: str | None = None,
                **args) -> WorldAction:
        action = WorldAction(self.time, kind, piece, hand, player, args)
        self.actions.append(action)
        self._dirty = True
        return action

    def add(self, piece: Piece, player: str | None = None, velocity=None) -> None:
        """Add a piece (from the supply) at its pose; it is certified at once (held where it can be).

        Raises:
            ValueError: its id is taken. OverlapError: it interpenetrates another piece.
        """
        from sim.scene.io import piece_to_dict

        self.world.add_piece(piece, velocity)
        self._record("add", piece.id, player=player, spec=piece_to_dict(piece),
                     pose=[*map(float, piece.pos), *map(float, piece.quat)],
                     velocity=None if velocity is None else [float(v) for v in velocity])
        if velocity is None:
            self._rest_since[piece.id] = -np.inf  # set down at rest: judged at once
        self._certify(force=True)  # tracked from where it first rests

    def remove(self, piece_id: str, player: str | None = None) -> None:
        """Take a piece away (back to the supply); what it held up is released and falls."""
        self._record("remove", piece_id, player=player)
        self.hands.drop_piece(piece_id)
        self.pulls.release(piece_id)
        self.flights.discard(piece_id)
        self._wake(self._neighbours(piece_id), judged=True)
        self.world.remove_piece(piece_id)
        self.held.discard(piece_id)
        self.parked.discard(piece_id)
        self._static_poses.pop(piece_id, None)
        self.tracker.remove([piece_id])
        self._rest_since.pop(piece_id, None)
        self._certify(force=True)

    def set_pose(self, piece_id: str, pose, player: str | None = None) -> None:
        """Put a piece at a pose (a teleport), at rest; what it touched is judged at once where it rests (held
        again if the statics hold it without the piece)."""
        pose = np.asarray(pose, dtype=float)
        if piece_id in self.carried():
            raise ValueError(f"piece {piece_id!r} is in a hand: let it go before setting its pose")
        self._record("set_pose", piece_id, player=player, pose=[float(x) for x in pose])
        self._wake({piece_id})
        self._wake(self._neighbours(piece_id) - {piece_id}, judged=True)
        self.world.set_pose(piece_id, pose)
        contacts = self._contacts(fresh=True)  # its baseline support is where it is now, not where it was
        if piece_id in self.tracker.ids:
            self.tracker.rebase([piece_id], [pose], contacts, self.time)
        else:  # let go and not yet at rest, so not watched: its motion counts from here
            self.tracker.add([piece_id], self._bounds([piece_id]), [pose], contacts, self.time)
        self._certify(force=True)

    def push(self, piece_id: str, impulse, point=None, player: str | None = None) -> None:
        """An impulse (3,) (N s) on a piece at a point (3,) (m, world; default its centre of mass): a nudge."""
        j = np.asarray(impulse, dtype=float)
        info = self.world.bodies[piece_id]
        if info.fixed:
            raise ValueError(f"piece {piece_id!r} is fixed")
        self._record("push", piece_id, player=player, impulse=[float(x) for x in j],
                     point=None if point is None else [float(x) for x in point])
        self._wake({piece_id})
        frame = self.world.centre_frames()[[b.id for b in self.world.active].index(piece_id)]
        arm = np.zeros(3) if point is None else np.asarray(point, dtype=float) - frame[:3]
        rot = Rotation.from_quat(frame[3:]).as_matrix()
        inverse = rot @ np.diag(1.0 / info.inertia) @ rot.T
        v = self.world.velocities()[self.ids.index(piece_id)]
        self.world.push(piece_id, v[:3] + j / info.mass, v[3:] + inverse @ np.cross(arm, j))

    def grab(self, piece_id: str, hand: str = "right", target=None, strength: float = DEFAULT_STRENGTH,
             player: str | None = None) -> Grip:
        """Hand ``hand`` takes a piece (what rests on it is simulated and rides along or slides off); a pull of
        it ends first."""
        if piece_id in self.pulls.pieces():
            self.release_pull(piece_id, player=player)
        self._wake({piece_id})
        self.flights.land([piece_id])  # a hand holds the piece as it is
        state = self.hands.grab(hand, piece_id, target, strength, player)
        self._record("grab", piece_id, hand, player, target=[float(x) for x in state.target], strength=strength)
        self.tracker.remove([piece_id])
        self._certify(force=True)
        return state

    def move_hand(self, hand: str, target) -> None:
        """Pull hand ``hand``'s piece towards a new target pose (7,)."""
        state = self.hands.move(hand, target)
        self._record("move_hand", state.piece, hand, state.player, target=[float(x) for x in state.target])

    def release(self, hand: str) -> None:
        """Hand ``hand`` lets go; the piece is certified at once if it rests (a block set down on a stack)."""
        state = self.hands.release(hand)
        self._record("release", state.piece, hand, state.player)
        self._rest_since[state.piece] = -np.inf if state.piece not in self.moving() else self.time
        self._certify(force=True)  # tracked from where it first rests: being set down is no fall

    def pull(self, piece_id: str, point, target, stiffness: float, limit: float, player: str | None = None) -> Pull:
        """Pull a point of a piece with a spring towards ``target``, every step until :meth:`release_pull`
        (see :mod:`.pulls`: a critically damped spring of ``stiffness`` N/m, at most ``limit`` N). Pulling a
        pulled piece again moves the spring (its point, its target). The piece is simulated while it is pulled
        (the statics never hold it, and what it touches wakes as a hand's piece's touch wakes it); once let go it
        is held again when it rests where the statics hold it.

        Args:
            piece_id: the piece.
            point: (3,) the point pulled, in the piece's own frame (m).
            target: (3,) the spring's other end, in the world (m).
            stiffness: N/m. limit: N.
            player: who pulls.

        Raises:
            ValueError: the piece is fixed or in a hand, or a number is not finite or not positive.
        """
        point, target, stiffness, limit = check_pull(point, target, stiffness, limit)
        if self.world.bodies[piece_id].fixed:
            raise ValueError(f"piece {piece_id!r} is fixed")
        if piece_id in self.carried():
            raise ValueError(f"piece {piece_id!r} is in a hand: let it go before pulling it")
        self._record("pull", piece_id, player=player, point=list(point), target=list(target), stiffness=stiffness,
                     limit=limit)
        if piece_id not in self.pulls.pieces():
            self._wake({piece_id})
        self.flights.land([piece_id])
        pull = Pull(piece_id, point, target, stiffness, limit, player)
        self.pulls.set(pull)
        return pull

    def release_pull(self, piece_id: str, player: str | None = None) -> None:
        """End the pull of ``piece_id`` (nothing when it is not pulled): it goes on as the simulation takes it."""
        if piece_id not in self.pulls.pieces():
            return
        self._record("release_pull", piece_id, player=player)
        self.pulls.release(piece_id)

    def shake(self, amplitude: float, frequency: float, direction_deg: float, seconds: float,
              player: str | None = None) -> None:
        """Shake the table: a horizontal sinusoid of ``amplitude`` (m) at ``frequency`` (Hz) along
        ``direction_deg`` for ``seconds``, felt by every piece as its pseudo-force (gravity tilted by
        ``−ẍ / g``); everything is simulated while it lasts."""
        self._record("shake", player=player, amplitude=amplitude, frequency=frequency, direction_deg=direction_deg,
                     seconds=seconds)
        self._shake = (float(amplitude), float(frequency), float(direction_deg), self.time, self.time + seconds)
        self._wake(self.held | self.parked)

    # --- helpers ---------------------------------------------------------------------------------

    def _bounds(self, ids) -> list[np.ndarray]:
        return [self.world.piece(i).shape.bounds for i in ids]

    def _contacts(self, fresh: bool = False) -> dict:
        """What each piece touches: Bullet's contacts (found again at the poses now when ``fresh`` or when
        pieces were let go since they were last found: Bullet computes nothing between two static bodies,
        and a piece just let go may lack its contacts with what held it up even a step later), and for held
        pieces the certified ones. Bullet's are read for the movable pieces neither held nor parked (a static
        piece's contacts with them are among theirs; those it kept between static bodies are the certified ones,
        or none): a vault held but for a few blocks reads their contacts, not its 5 000, nor those of its 33
        fixed supports (each read scans every contact Bullet keeps: 2 ms a piece in the vault)."""
        bodies = self.world.bodies
        moving = [i for i in self.ids if i not in self.held and i not in self.parked and not bodies[i].fixed]
        state = self.world.contact_state(fresh or self._stale, moving if 2 * len(moving) < len(self.ids) else None)
        self._stale = False
        cert = self.certification
        if cert is None:
            return state
        out = {}
        for i, (touching, below) in state.items():
            if i in self.held:
                touching = touching | cert.neighbours.get(i, frozenset()) | cert.below.get(i, frozenset())
                below = below | cert.below.get(i, frozenset())
            out[i] = (frozenset(touching), frozenset(below))
        return out

    # --- snapshots ---------------------------------------------------------------------------------

    def snapshot(self, exact: bool = True) -> LiveSnapshot:
        """The full state, in memory (see :mod:`sim.physics.live.history`).

        Args:
            exact: also go on from the snapshot as a restore would (every body made afresh), so that what
                follows now and after any :meth:`restore` of it is the same, bit for bit. Without, the
                snapshot is free and restores of it agree with each other, not with the run that goes on.
        """
        snap = self.history.capture()
        if exact:
            self.restore(snap)
        return snap

    def restore(self, snapshot: LiveSnapshot) -> None:
        """Go back to a snapshot: poses, velocities, held pieces, hands, events and actions as they were."""
        self.history.restore(snapshot)

    def data(self) -> dict:
        """The world's state now as JSON data (:mod:`sim.physics.live.data`): a file that
        :meth:`restore_data` reads back, here or in a new live world of the same scene, to go on exactly."""
        from sim.physics.live.data import snapshot_json

        return snapshot_json(self.history.capture(), self.actions[-1] if self.actions else None)

    def restore_data(self, field, scene: Scene) -> None:
        """Go on from :meth:`data`'s data (a :class:`sim.fieldcheck.Field`, checked as untrusted input) on the
        pieces of ``scene`` (the scene this world, or the one the data came from, was made of): every body made
        afresh, so that this world goes on as any other restored from the same data, bit for bit.

        Raises:
            sim.fieldcheck.FieldError: the data is not what :meth:`data` writes.
        """
        from sim.physics.live.data import snapshot_from_json

        snap, last = snapshot_from_json(field, scene, self.tracker.thresholds, piece_rest=self.tracker.piece_rest)
        self.restore(snap)
        self.actions[:] = [] if last is None else [last]  # the cause the next events name
        self.history = History(self, self.history.seconds)  # a rewind reaches back to here, not before

    def rewind(self, seconds: float) -> None:
        """Go back ``seconds`` of simulated time (at most ``history_seconds``): restore the last periodic
        snapshot before then and replay the actions made since, step by step."""
        self.history.rewind(self.time - seconds)

    def drain_events(self) -> list[WorldEvent]:
        """The events since the last call."""
        out = self.events[self._drained:]
        self._drained = len(self.events)
        return out

    def close(self) -> None:
        """Close the world's client."""
        self.world.close()

    def __enter__(self) -> LiveWorld:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
