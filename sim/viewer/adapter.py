"""The seam: :class:`~sim.viewer.live.LiveWorld` kept on today's :class:`sim.physics.World` and statics.

This file is the only place the viewer touches ``sim.physics``. When the live
world of ``sim.physics`` lands (hands as force-limited constraints,
statics-certified rest, events, snapshots), it replaces this adapter and
nothing else in ``sim.viewer`` changes. Kept thin on purpose:

- a **hand** is a kinematic target followed step by step: every
  ``hand_period`` the carried piece's velocity is turned towards the one that
  brings its centre of mass (and orientation) to the target, changed by no
  more than the hand's force limit allows (so a tower in the way takes the
  push and can fall, and a blocked hand cannot force its way through);
- **rest**: at load the statics' feasibility decides which pieces are held, and
  those start asleep (the world's own sleeping wakes them when touched); the
  pieces that cannot be held start awake and fall;
- **statics** run after every change and whenever the world has settled, on
  a worker thread (:class:`~sim.viewer.stability.StaticsWorker`), never on the
  frame path; the verdict never steers the simulation, so a run is
  deterministic however long the statics take;
- **events** come from :class:`sim.physics.MotionTracker`, blamed on the last action.
"""

from __future__ import annotations

import time as clock
from dataclasses import dataclass, replace

import numpy as np
from scipy.spatial.transform import Rotation

from sim.analysis import support_graph
from sim.contact import find_interfaces
from sim.physics import TIMELINE_THRESHOLDS, MotionTracker, PhysicsSettings, RayHit, World
from sim.physics.world import GRAVITY, HULL_MARGIN
from sim.scene import Piece, Scene
from sim.statics import analyze
from sim.viewer.live import HAND_STRENGTH, Advance, LastAction, LiveEvent, Snapshot, Verdict
from sim.viewer.stability import StaticsWorker

HAND_PERIOD = 1.0 / 60.0
"""The longest (s) a hand goes without correcting its piece's velocity. Each correction costs a pose
reset in today's World (which wakes what the piece touches and recounts the energy, some 5 ms with
60 pieces), so a frame of up to 1/30 s gets one correction, a longer one (a script's) one per period."""
BUDGET_STEPS = 1
STILL_ADVANCES = 5
"""Advances in a row that a crowd of awake pieces must stand still before they are put to rest."""
REST_AT_ONCE = 20
"""Pieces a change must have woken before the adapter puts them to sleep itself (``_rest_woken``)."""
"""With a frame budget, the clock is looked at every this many steps."""
HAND_LAG = 0.06
"""The time (s) a hand takes to close most of the gap to its target (smooth carrying)."""
HAND_SPEED = 0.6
"""The fastest a hand moves a piece (m/s)."""
HAND_SPIN = 8.0
"""The fastest a hand turns a piece (rad/s)."""


@dataclass
class _Hand:
    piece: str
    target: np.ndarray
    force_limit: float


class WorldAdapter:
    """A live world on :class:`sim.physics.World`: see the module docstring.

    Args:
        scene: the scene to start from.
        settings: physics settings (default: the tuned ones), without the probe.
        threaded_statics: judge in a worker process (the window); False judges at once (scripts, tests).
        certify_rest: start the pieces the statics hold asleep.
    """

    def __init__(self, scene: Scene, settings: PhysicsSettings | None = None, *, threaded_statics: bool = True,
                 certify_rest: bool = True):
        self._world = World(scene, settings)
        self._world.set_probe(0.0)  # the statics judge; a probe would keep every island awake
        self._hands: dict[str, _Hand] = {}
        self._revision = 0
        self._last: LastAction | None = None
        self._statics = StaticsWorker("process" if threaded_statics else "inline")
        self._pending: set[str] = set()  # pieces whose baseline contacts are taken after the next step
        self._supply: frozenset[str] = frozenset()
        self._stamp = 0  # counts changes from outside: poses read since are stale
        self._debt = 0.0  # wall seconds the last frame overran its budget by
        self._still_for = 0  # advances in a row in which every awake piece stood still
        self._poses_key = None
        interfaces = self._certify() if certify_rest else None
        self._track(interfaces)
        self._judge()

    # --- reading -------------------------------------------------------------------------------

    @property
    def time(self) -> float:
        return self._world.time

    @property
    def dt(self) -> float:
        return self._world.settings.dt

    @property
    def ids(self) -> list[str]:
        return list(self._world.ids)

    @property
    def revision(self) -> int:
        return self._revision

    def scene(self) -> Scene:
        return self._world.scene.with_poses(dict(zip(self._world.ids, self._world.poses())))

    def piece(self, piece_id: str) -> Piece:
        return self._world.piece(piece_id)

    def poses(self) -> np.ndarray:
        """(n, 7) poses, read once per state of the world (every reader of a frame shares them)."""
        key = (self._world.steps, self._stamp)
        if self._poses_key != key:
            self._poses, self._poses_key = self._world.poses(), key
            self._row = {i: k for k, i in enumerate(self._world.ids)}
        return self._poses.copy()

    def pose(self, piece_id: str) -> np.ndarray:
        self.poses()
        return self._poses[self._row[piece_id]].copy()

    def hands(self) -> dict[str, str]:
        return {h: hand.piece for h, hand in self._hands.items()}

    def moving(self) -> list[str]:
        rest = self._world.at_rest()
        asleep = set(self._world.asleep())
        carried = {h.piece for h in self._hands.values()}
        return [i for i, r in zip(self._world.ids, rest) if (not r and i not in asleep) or i in carried]

    def ray_test(self, start, end) -> RayHit | None:
        hit = self._world.ray_test(start, end)
        if hit is None:
            return None
        # Bullet's rays meet the shapes' collision margin: the surface itself lies that much further in
        margin = HULL_MARGIN / self._world.settings.length_scale
        return RayHit(hit.piece, hit.point - margin * hit.normal, hit.normal, hit.distance + margin)

    # --- changing ------------------------------------------------------------------------------

    def add_piece(self, piece: Piece) -> None:
        self._world.add_piece(piece)
        self._follow(piece.id)
        self._judge()

    def remove_piece(self, piece_id: str) -> None:
        for name, hand in list(self._hands.items()):
            if hand.piece == piece_id:
                del self._hands[name]
        self._world.remove_piece(piece_id)
        self._tracker.remove([piece_id])
        self._pending.discard(piece_id)
        self._base.pop(piece_id, None)
        self._judge()

    def set_pose(self, piece_id: str, pose) -> None:
        self._world.set_pose(piece_id, np.asarray(pose, dtype=float))
        if piece_id in self._tracker.ids:
            self._tracker.remove([piece_id])
            self._follow(piece_id)
        self._judge()

    def push(self, piece_id: str, point, impulse) -> None:
        """An impulse at a point: its centre of mass and spin change as a free body's would."""
        info = self._world.bodies[piece_id]
        if info.fixed:
            raise ValueError(f"piece {piece_id!r} is fixed")
        pose = self._world.pose(piece_id)
        k = self._world.ids.index(piece_id)
        v = self._world.velocities()[k]
        j = np.asarray(impulse, dtype=float)
        rot = Rotation.from_quat(pose[3:]) * Rotation.from_quat(info.principal)
        centre = pose[:3] + Rotation.from_quat(pose[3:]).apply(info.com)
        torque = np.cross(np.asarray(point, dtype=float) - centre, j)
        spin = rot.apply(rot.inv().apply(torque) / np.asarray(info.inertia))
        self._world.set_pose(piece_id, pose, np.concatenate([v[:3] + j / info.mass, v[3:] + spin]))
        self._judge()

    def grab(self, hand: str, piece_id: str, force_limit: float | None = None) -> None:
        info = self._world.bodies[piece_id]
        if info.fixed:
            raise ValueError(f"piece {piece_id!r} is fixed")
        for name, h in self._hands.items():
            if h.piece == piece_id:
                raise ValueError(f"piece {piece_id!r} is already in the {name} hand")
        if hand in self._hands:
            raise ValueError(f"the {hand} hand already holds {self._hands[hand].piece!r}")
        limit = HAND_STRENGTH * info.mass * GRAVITY if force_limit is None else float(force_limit)
        self._hands[hand] = _Hand(piece_id, self._world.pose(piece_id), limit)
        self._tracker.remove([piece_id])
        self._pending.discard(piece_id)
        self._world.set_pose(piece_id, self._world.pose(piece_id))  # awake, and what it touches too
        self._rest_woken()
        self._judge()

    def move_hand(self, hand: str, target) -> None:
        self._hands[hand].target = np.asarray(target, dtype=float).copy()

    def release(self, hand: str, pose=None) -> None:
        h = self._hands.pop(hand)
        self._world.set_pose(h.piece, self._world.pose(h.piece) if pose is None else np.asarray(pose, dtype=float))
        self._rest_woken()
        self._follow(h.piece)
        self._judge()

    def set_supply(self, ids) -> None:
        supply = frozenset(ids)
        if supply != self._supply:
            self._supply = supply
            self._judge()

    def note_action(self, action: LastAction) -> None:
        self._last = replace(action, time=self.time)

    # --- time ----------------------------------------------------------------------------------

    def advance(self, seconds: float, budget: float | None = None) -> Advance:
        start = clock.perf_counter()
        dt = self.dt
        if budget is not None and self._debt > 0.0:  # the last frames overran: this one steps nothing
            self._debt = max(self._debt - budget, 0.0)
            return Advance(0, 0.0, clock.perf_counter() - start, 0.0, ())
        want = max(0, int(round(seconds / dt)))
        # one hand correction for a frame of up to 2 periods, else one a period
        period = max(1, want if seconds <= 2 * HAND_PERIOD + 1e-9 else int(round(HAND_PERIOD / dt)))
        piece = want if budget is None else BUDGET_STEPS  # steps between looks at the clock
        done, since, chunk = 0, period, 0.0
        while done < want:
            if budget is not None and done and clock.perf_counter() - start + chunk > budget:
                break  # the next chunk would overrun the frame's budget: slow down instead
            if self._hands and since >= period:
                self._drive_hands(min(period, want - done) * dt)
                since = 0
            n = min(piece, want - done, period - since) if self._hands else min(piece, want - done)
            began = clock.perf_counter()
            self._world.step(n)
            chunk = (clock.perf_counter() - began) / n * piece  # what the next chunk of steps will cost
            done += n
            since += n
        events = self._events() if done else ()
        if done:
            self._rest_if_still()
        wall = clock.perf_counter() - start
        if budget is not None:
            # a step longer than a frame's budget is paid back by frames that step nothing (at most two)
            self._debt = min(max(wall - budget, 0.0), 2.0 * budget)
        return Advance(done, done * dt, wall, (done / want) if want else 1.0, events)

    def _drive_hands(self, period: float) -> None:
        """Turn each carried piece's velocity towards its hand's target, within the force limit."""
        world = self._world
        vel = world.velocities()
        for hand in self._hands.values():
            info = world.bodies[hand.piece]
            pose = world.pose(hand.piece)
            rot, goal = Rotation.from_quat(pose[3:]), Rotation.from_quat(hand.target[3:])
            centre = pose[:3] + rot.apply(info.com)
            aim = hand.target[:3] + goal.apply(info.com)
            lag = max(HAND_LAG, period)
            v_want = np.concatenate([_clip((aim - centre)[:2] / lag, HAND_SPEED),  # across, and up and down,
                                     _clip((aim - centre)[2:] / lag, HAND_SPEED)])  # each at its own pace
            # what gravity takes from it over the n steps to the next correction (semi-implicit Euler:
            # it falls g dt² n (n + 1) / 2), given back on average
            n = max(1, int(round(period / self.dt)))
            v_want[2] += GRAVITY * self.dt * (n + 1) / 2.0
            w_want = _clip((goal * rot.inv()).as_rotvec() / max(HAND_LAG, period), HAND_SPIN)
            v, w = vel[world.ids.index(hand.piece)].reshape(2, 3)
            accel = max(hand.force_limit / info.mass - GRAVITY, 0.0) * period + GRAVITY * period
            v_new = v + _clip(v_want - v, accel)
            w_new = w + _clip(w_want - w, accel / max(info.reach, 1e-3))
            world.set_pose(hand.piece, pose, np.concatenate([v_new, w_new]))
        self._stamp += 1

    def _events(self) -> tuple[LiveEvent, ...]:
        world = self._world
        index = {i: k for k, i in enumerate(world.ids)}
        all_poses = self.poses()
        if self._pending:  # new baselines, now that a step has found their contacts
            fresh = sorted(self._pending, key=index.__getitem__)
            self._pending.clear()
            self._rebase(fresh, all_poses[[index[i] for i in fresh]])
        tracked = self._tracker.ids
        if not tracked:
            return ()
        rows = [index[i] for i in tracked]
        poses = all_poses[rows]
        asleep = set(world.asleep())
        rest = world.at_rest()[rows] | np.array([i in asleep for i in tracked])
        found = self._tracker.frame(world.time, poses, self._contacts, rest)
        out = tuple(LiveEvent(e.time, e.kind, e.pieces, self._last) for e in found)
        if any(e.kind == "settled" for e in found):
            self._rebase(tracked, poses)
            self._judge()
        return out

    def _contacts(self) -> dict[str, tuple[frozenset, frozenset]]:
        """What each piece touches: the last step's contacts, and for a sleeping piece (whose
        contacts the engine no longer reports) those of its baseline: asleep, it has not moved."""
        live = self._world.contact_state()
        asleep = set(self._world.asleep())
        return {i: self._base.get(i, c) if i in asleep else c for i, c in live.items()}

    def _rebase(self, ids: list[str], poses: np.ndarray) -> None:
        contacts = self._contacts()
        self._tracker.rebase(ids, poses, contacts, self.time)
        self._base.update({i: contacts[i] for i in ids})

    def _follow(self, piece_id: str) -> None:
        """Track a piece again (added, set down, put somewhere): its baseline after the next step."""
        empty = (frozenset(), frozenset())
        self._tracker.add([piece_id], [self._world.piece(piece_id).shape.bounds], [self._world.pose(piece_id)],
                          {piece_id: empty}, self.time)
        self._pending.add(piece_id)

    # --- snapshots -----------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        hands = {h: _Hand(x.piece, x.target.copy(), x.force_limit) for h, x in self._hands.items()}
        return Snapshot(self.time, (self._world.get_state(), hands, self._last))

    def restore(self, snapshot: Snapshot) -> None:
        state, hands, last = snapshot.state
        self._world.set_state(state)
        self._hands = {h: _Hand(x.piece, x.target.copy(), x.force_limit) for h, x in hands.items()}
        self._last = last
        self._track()
        self._judge()

    # --- statics -------------------------------------------------------------------------------

    def verdict(self, wait: bool = False) -> Verdict | None:
        return self._statics.wait() if wait else self._statics.latest()

    @property
    def verdict_pending(self) -> bool:
        """A newer configuration is being judged."""
        return self._statics.pending

    def _judged_scene(self) -> Scene:
        """The scene now without the carried pieces, the supply's pieces fixed (part of the table)."""
        carried = {h.piece for h in self._hands.values()}
        scene = self.scene()
        if not carried and not self._supply:
            return scene
        return scene.with_pieces(replace(p, fixed=True) if p.id in self._supply else p
                                 for p in scene.pieces if p.id not in carried)

    def _judge(self) -> None:
        self._stamp += 1
        self._revision += 1
        self._statics.submit(self._judged_scene(), self._revision)

    def _rest_if_still(self) -> None:
        """Many pieces awake, all standing still for :data:`STILL_ADVANCES` advances in a row: certified
        rest for them (see :meth:`_rest_woken`). Decided by the simulation's state alone (deterministic)."""
        world = self._world
        asleep = set(world.asleep())
        carried = {h.piece for h in self._hands.values()}
        if len(world.ids) - len(asleep) - len(carried) < REST_AT_ONCE:  # few awake: nothing to look at
            self._still_for = 0
            return
        rest = world.at_rest()
        awake = [r for i, r in zip(world.ids, rest) if i not in asleep and i not in carried]
        if len(awake) < REST_AT_ONCE or not all(awake):
            self._still_for = 0
            return
        self._still_for += 1
        if self._still_for >= STILL_ADVANCES:
            self._still_for = 0
            self._certify()

    def _rest_woken(self) -> None:
        """After a change that woke a large island (a city's pieces all touch): statics-certified rest
        at once, as at load, rather than after the world's own still spell (two seconds while the probe
        turns: an age when a 140-piece island costs 50 ms a step). Below :data:`REST_AT_ONCE` awake
        pieces the world's own sleeping is cheaper: a rest made afresh rebuilds every body."""
        world = self._world
        asleep = set(world.asleep())
        carried = {h.piece for h in self._hands.values()}
        if sum(1 for i in world.ids if i not in asleep and i not in carried) >= REST_AT_ONCE:
            self._certify()

    def _certify(self) -> tuple | None:
        """Put the pieces the statics hold to sleep now (they rest until something touches them); the
        carried pieces, and those that cannot be held without them, stay awake.

        Returns:
            The interfaces the statics found (the baseline contacts), or None for an empty world.
        """
        world = self._world
        if not world.ids:
            return None
        carried = {h.piece for h in self._hands.values()}
        scene = world.get_state().scene
        result = analyze(scene.with_pieces(p for p in scene.pieces if p.id not in carried), margin=False)
        awake = set(result.unheld) | carried
        world.set_state(replace(world.get_state(), asleep=tuple(i for i in world.ids if i not in awake)))
        self._stamp += 1
        return result.interfaces

    def _track(self, interfaces=None) -> None:
        """A new motion tracker from the poses now; baseline contacts from the geometry (the engine
        reports none for bodies made afresh until they step)."""
        world = self._world
        carried = {h.piece for h in self._hands.values()}
        scene = self.scene()
        scene = scene.with_pieces(p for p in scene.pieces if p.id not in carried)
        graph = support_graph(scene, find_interfaces(scene) if interfaces is None else interfaces)
        self._base = {i: (frozenset(graph.touching(i)), frozenset(graph.rests_on(i))) for i in graph.ids}
        ids = [i for i in world.ids if i not in carried]
        self._pending = set()
        self._tracker = MotionTracker(ids, [world.piece(i).shape.bounds for i in ids],
                                      np.array([world.pose(i) for i in ids]).reshape(-1, 7),
                                      self._base, TIMELINE_THRESHOLDS, world.time, piece_rest=True)

    def close(self) -> None:
        self._statics.close()
        self._world.close()


def _clip(v: np.ndarray, limit: float) -> np.ndarray:
    """``v`` shortened to at most ``limit`` long."""
    n = float(np.linalg.norm(v))
    return v * (limit / n) if n > limit else v
