"""The seam: the viewer's :class:`~sim.viewer.control.live.ViewerWorld` protocol kept on the live world of the physics,
:class:`sim.physics.live.LiveWorld`, and the statics' verdict.

This file is the only place the viewer touches ``sim.physics``. The live world
does the physics' part -- actions as data, force-limited hands, rest certified
by the statics (held pieces are static bodies until something moving touches
them), events with the action before them, snapshots, ``advance(seconds,
budget)`` -- and this adapter adds what only a viewer needs:

- **names**: a hand grabs by hand name with a force limit in newtons, a
  release may set the piece down exactly on its resting place, pieces are added
  and removed by the viewer's words;
- **causes**: events are blamed on the viewer's own last action (``drop of b3
  (right hand)``), which the controller notes, rather than on the live world's
  last hand movement;
- **the verdict**: the statics (feasible, margin in g, weakest direction,
  unheld pieces, the weakest mode, contact forces) after every change and
  whenever something came to rest, on a worker process
  (:class:`~sim.viewer.control.stability.StaticsWorker`), never on the frame path; the
  carried pieces are left out, and so are the supply's pieces but those touching what is built (fixed:
  part of the table);
- **a frame's budget**: a frame that overran its budget is paid back by the
  next (at most two budgets), so a slow step slows the simulation, not the window;
- **falls of what was just set down**: the live world tracks a piece from
  where it first rests, so a piece let go where the statics cannot hold it
  (over an edge) falls unseen by its tracker; the adapter watches such a piece
  until it is held again and reports ``knocked_down`` (with the drop as its
  cause) once it has dropped, moved or tilted past the tracker's own
  knocked-down thresholds.
"""

from __future__ import annotations

import time as clock
from dataclasses import replace

import numpy as np
from scipy.spatial.transform import Rotation

from sim.geometry.transforms import rotate
from sim.physics import RayHit
from sim.physics.live import LiveWorld, beside
from sim.physics.tracker import MotionThresholds
from sim.physics.world import GRAVITY, HULL_MARGIN
from sim.scene import Piece, Scene
from sim.tol import tol
from sim.viewer.control.live import (
    HAND_STRENGTH,
    PULL_LIMIT,
    PULL_STIFFNESS,
    Advance,
    LastAction,
    LiveEvent,
    LiveVerdict,
    Snapshot,
    Spring,
)
from sim.viewer.control.stability import StaticsWorker

JUDGE_AFTER = frozenset({"came_to_rest", "settled", "knocked_down", "fell"})
FALLS = frozenset({"left_support", "fell", "knocked_down"})
"""Event kinds that say a piece lost its support: never of a piece in a hand."""
"""Event kinds after which the statics judge the configuration again (something has come to rest or fallen)."""


class WorldAdapter:
    """The viewer's live world on :class:`sim.physics.live.LiveWorld`: see the module docstring.

    Args:
        scene: the scene to start from (its pieces are certified at once: those the statics hold rest).
        settings: physics settings (default the live world's, ``sim.physics.live.live_settings``).
        threaded_statics: judge in a worker process (the window); False judges at once (scripts, tests).

    Attributes:
        live: the physics' live world (its ``actions``, ``events``, ``history``; what a recording feeds on).
    """

    def __init__(self, scene: Scene, settings=None, *, threaded_statics: bool = True):
        self._attach(LiveWorld(scene, settings), threaded_statics)

    def _attach(self, live: LiveWorld, threaded_statics: bool) -> None:
        """Keep ``live`` (what happened in it before is told already) and judge it."""
        self.live = live
        live.drain_events()
        self._revision = 0
        self._last: LastAction | None = None
        self._statics = StaticsWorker("process" if threaded_statics else "inline")
        self._supply: frozenset[str] = frozenset()
        self._debt = 0.0  # wall seconds the last frame overran its budget by
        self._owed = 0.0  # simulated seconds asked for but less than a step: the next frame's
        self._targets: dict[str, np.ndarray] = {}  # hand -> the target last given (unchanged ones are not sent)
        self._poses_key = None
        self._poses = np.zeros((0, 7))
        self._row: dict[str, int] = {}
        self._stamp = 0  # counts changes from outside: poses read since are stale
        self._watched: dict[str, np.ndarray] = {}  # piece let go unheld -> its pose then
        self._judge()

    # --- reading -------------------------------------------------------------------------------

    @property
    def time(self) -> float:
        return self.live.time

    @property
    def dt(self) -> float:
        return self.live.world.settings.dt

    @property
    def ids(self) -> list[str]:
        return list(self.live.ids)

    @property
    def revision(self) -> int:
        return self._revision

    def scene(self) -> Scene:
        return self.live.world.scene.with_poses(dict(zip(self.live.ids, self.poses())))

    def piece(self, piece_id: str) -> Piece:
        return self.live.world.piece(piece_id)

    def poses(self) -> np.ndarray:
        """(n, 7) poses, read once per state of the world (every reader of a frame shares them)."""
        key = (self.live.world.steps, self._stamp)
        if self._poses_key != key:
            self._poses, self._poses_key = self.live.poses(), key
            self._row = {i: k for k, i in enumerate(self.live.ids)}
        return self._poses.copy()

    def pose(self, piece_id: str) -> np.ndarray:
        self.poses()
        return self._poses[self._row[piece_id]].copy()

    def held(self) -> dict[str, str]:
        return {hand: piece for piece, hand in self.live.carried().items()}

    def moving(self) -> list[str]:
        return self.live.moving()

    def ray_test(self, start, end) -> RayHit | None:
        return self._surface(self.live.ray_test(start, end))

    def ray_tests(self, starts, ends) -> list[RayHit | None]:
        # the surfaces themselves, as :meth:`_surface` finds them, worked out for all the hits at once
        return self.live.world.ray_tests(starts, ends, inset=HULL_MARGIN / self.live.world.settings.length_scale)

    def _surface(self, hit: RayHit | None) -> RayHit | None:
        if hit is None:
            return None
        # Bullet's rays meet the shapes' collision margin: the surface itself lies that much further in
        margin = HULL_MARGIN / self.live.world.settings.length_scale
        return RayHit(hit.piece, hit.point - margin * hit.normal, hit.normal, hit.distance + margin)

    # --- changing ------------------------------------------------------------------------------

    def _changed(self) -> None:
        self._stamp += 1
        self._judge()

    def _player(self) -> str | None:
        return None if self._last is None else self._last.player

    def add_piece(self, piece: Piece) -> None:
        self.live.add(piece, player=self._player())
        self._watch(piece.id)
        self._changed()

    def remove_piece(self, piece_id: str) -> None:
        for hand, piece in self.held().items():
            if piece == piece_id:
                self._targets.pop(hand, None)
        self.live.remove(piece_id, player=self._player())
        self._changed()

    def set_pose(self, piece_id: str, pose) -> None:
        self.live.set_pose(piece_id, np.asarray(pose, dtype=float), player=self._player())
        self._changed()

    def push(self, piece_id: str, point, impulse) -> None:
        """An impulse (N s) at a point (m): its centre of mass and spin change as a free body's would."""
        self.live.push(piece_id, np.asarray(impulse, dtype=float), np.asarray(point, dtype=float),
                       player=self._player())
        self._changed()

    def grab(self, hand: str, piece_id: str, force_limit: float | None = None) -> None:
        mass = self.live.world.bodies[piece_id].mass
        strength = HAND_STRENGTH if force_limit is None else float(force_limit) / (mass * GRAVITY)
        state = self.live.grab(piece_id, hand, None, strength, player=self._player())
        self._targets[hand] = np.asarray(state.target, dtype=float).copy()
        self._watched.pop(piece_id, None)  # a piece in a hand is never knocked down
        self._changed()

    def move_hand(self, hand: str, target) -> None:
        target = np.asarray(target, dtype=float)
        last = self._targets.get(hand)
        if last is not None and np.array_equal(last, target):
            return  # the same target again (a frame in which the mouse did not move): no new action
        self._targets[hand] = target.copy()
        self.live.move_hand(hand, target)

    def release(self, hand: str, pose=None) -> None:
        piece = self.held()[hand]
        if pose is not None:  # first to its resting place, still in hand, then let go: one certification
            # (the world's own teleport: not one of the live world's recorded actions, so its rewind, which
            # replays them, is not used by the viewer; the viewer's undo restores snapshots)
            self.live.world.set_pose(piece, np.asarray(pose, dtype=float))
        self.live.release(hand)
        self._targets.pop(hand, None)
        self._watch(piece)
        self._changed()

    def pull(self, piece_id: str, target, point=None, stiffness: float | None = None,
             limit: float | None = None) -> None:
        """A spring pulls a piece (:meth:`sim.physics.live.LiveWorld.pull`): from ``point`` (m, world; turned
        into the piece's frame) or, without it, the pull under way, towards a new target."""
        live = self.live
        weight = live.world.bodies[piece_id].mass * GRAVITY
        if point is None:
            was = next((p for p in live.pulls.states() if p.piece == piece_id), None)
            if was is None:
                raise ValueError(f"piece {piece_id!r} is not pulled: give the point it is pulled by")
            local, k, f = was.point, was.stiffness, was.limit
        else:
            pose = live.pose(piece_id)
            q = pose[3:]
            local = rotate(np.array([-q[0], -q[1], -q[2], q[3]]), np.asarray(point, dtype=float) - pose[:3])
            k = PULL_STIFFNESS * weight if stiffness is None else float(stiffness)
            f = PULL_LIMIT * weight if limit is None else float(limit)
        live.pull(piece_id, local, np.asarray(target, dtype=float), k, f, player=self._player())
        if point is not None:
            self._changed()

    def release_pull(self, piece_id: str) -> None:
        if piece_id in self.live.pulls.pieces():
            self.live.release_pull(piece_id, player=self._player())
            self._changed()

    def pulls(self) -> dict[str, Spring]:
        out = {}
        for p in self.live.pulls.states():
            pose = self.live.pose(p.piece)
            at = pose[:3] + rotate(pose[3:], np.asarray(p.point))
            target = np.asarray(p.target)
            out[p.piece] = Spring(p.piece, at, target, min(1.0, p.stiffness * float(np.linalg.norm(target - at))
                                                           / p.limit))
        return out

    def _watch(self, piece_id: str) -> None:
        """Watch a piece let go that the statics do not hold: it may fall (see the module docstring)."""
        if piece_id not in self.live.held and piece_id not in self.live.parked:
            self._watched[piece_id] = self.live.pose(piece_id).copy()

    def _falls(self) -> list[LiveEvent]:
        """The watched pieces knocked down since they were let go; those held again are no longer watched."""
        out = []
        th = MotionThresholds.from_tolerances(tol)  # the live world's own tracker's thresholds
        carried = self.live.carried()
        for pid, start in list(self._watched.items()):
            if pid in carried:  # taken into a hand since it was let go: it is the hand's, not falling
                del self._watched[pid]
                continue
            if pid not in self._row:
                del self._watched[pid]
                continue
            now = self._poses[self._row[pid]]
            turned = (Rotation.from_quat(now[3:]) * Rotation.from_quat(start[3:]).inv()).magnitude()
            if (start[2] - now[2] > th.knocked_drop or np.linalg.norm(now[:2] - start[:2]) > th.knocked_distance
                    or turned > th.knocked_angle):
                out.append(LiveEvent(self.time, "knocked_down", (pid,), self._last))
                del self._watched[pid]
            elif pid in self.live.held:
                del self._watched[pid]
        return out

    def set_supply(self, ids) -> None:
        """The supply's pieces are parked in the live world (static, never judged nor watched: they cost
        nothing until a hand takes one) and left out of the verdict."""
        supply = frozenset(ids)
        self.live.park(supply)
        if supply != self._supply:
            self._supply = supply
            self._judge()

    def note_action(self, action: LastAction) -> None:
        self._last = replace(action, time=self.time)

    # --- time ----------------------------------------------------------------------------------

    def advance(self, seconds: float, budget: float | None = None) -> Advance:
        start = clock.perf_counter()
        if budget is not None and self._debt > 0.0:  # the last frames overran: this one steps nothing
            self._debt = max(self._debt - budget, 0.0)
            return Advance(0, 0.0, clock.perf_counter() - start, 0.0, ())
        # whole fixed steps; the part of a step a frame leaves over is owed to the next (at 100 fps and 1/8 speed a
        # frame asks 0.6 of a step: rounded, the world ran 1.7 times too fast, and the status line said 1.00)
        dt = self.dt
        owed = self._owed + max(seconds, 0.0)
        steps = int(np.floor(owed / dt + 1e-9))
        report = self.live.advance(steps * dt, budget)
        self._owed = min(max(owed - steps * dt, 0.0), dt) if report.steps == steps else 0.0
        found = self.live.drain_events()
        carried = set(self.live.carried())
        events = [LiveEvent(e.time, e.kind, e.pieces, self._last or _cause(e.cause)) for e in found]
        # a piece in a hand neither falls nor is knocked down, whatever its tracker saw before it was taken
        events = [e if not carried.intersection(e.pieces) or e.kind not in FALLS
                  else replace(e, pieces=tuple(p for p in e.pieces if p not in carried)) for e in events]
        events = [e for e in events if e.pieces or e.kind not in FALLS]
        if self._watched and report.steps:
            self.poses()
            events += self._falls()
        held = frozenset(self.live.held)
        if any(e.kind in JUDGE_AFTER for e in events) or held != self._held_judged:
            self._judge()  # something came to rest or fell, or the statics took pieces up or let them go
        events = tuple(events)
        wall = clock.perf_counter() - start
        if budget is not None:
            # a step longer than a frame's budget is paid back by frames that step nothing (at most two)
            self._debt = min(max(wall - budget, 0.0), 2.0 * budget)
        asked = max(seconds, 0.0)
        return Advance(report.steps, report.simulated, wall, report.simulated / asked if asked > 0 else 1.0,
                       events)

    # --- snapshots -----------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """The state now (cheap: poses, velocities and the tracker; bodies are made afresh only on restore)."""
        return Snapshot(self.time, (self.live.snapshot(exact=False), self._last, dict(self._targets)))

    def prepare(self, snapshot: Snapshot, budget: float | None = None) -> bool:
        """Make a later :meth:`restore` of ``snapshot`` all but free: the physics world makes its engine now,
        on a client of its own, within ``budget`` wall seconds a call (``World.prepare``); True once ready."""
        return self.live.world.prepare(snapshot.state[0].state, budget)

    def restore(self, snapshot: Snapshot) -> None:
        snap, last, targets = snapshot.state
        self.live.restore(snap)
        self.live.drain_events()  # what came before the snapshot was told already
        self._last = last
        self._targets = {h: t.copy() for h, t in targets.items()}
        self._watched = {}
        self._changed()

    # --- as data (a saved game) ------------------------------------------------------------------

    def data(self) -> dict:
        """The world's state as JSON data: the live world's (:meth:`sim.physics.live.LiveWorld.data`) and this
        adapter's own (the viewer's last action, the hands' targets, the pieces watched for a fall, the
        revision); :meth:`restore_data` goes on from it."""
        last = self._last
        return {"live": self.live.data(),
                "last": None if last is None else {"name": last.name, "piece": last.piece, "hand": last.hand,
                                                   "player": last.player, "time": last.time},
                "targets": {h: t.tolist() for h, t in self._targets.items()},
                "watched": {i: p.tolist() for i, p in self._watched.items()}, "revision": self._revision}

    def restore_data(self, field, scene: Scene) -> None:
        """Go on from :meth:`data`'s data (a :class:`sim.fieldcheck.Field`) on the pieces of ``scene``: here as
        in a new adapter, bit for bit.

        Raises:
            sim.fieldcheck.FieldError: the data is not what :meth:`data` writes.
        """
        f = field.object(("live", "last", "targets", "watched", "revision"))
        self.live.restore_data(f["live"], scene)
        self.live.drain_events()  # what came before was told already
        known = set(self.live.ids)
        last = f["last"]
        if last.is_null():
            self._last = None
        else:
            last.object(("name", "piece", "hand", "player", "time"))
            self._last = LastAction(last["name"].text(40), *(None if last[k].is_null() else last[k].text()
                                                             for k in ("piece", "hand", "player")),
                                    last["time"].number(0.0, 1e9))
        self._targets = {h: g.floats((7,)) for h, g in f["targets"].entries(8)}
        watched = f["watched"].entries(len(known))
        if any(i not in known for i, _ in watched):
            raise f["watched"].fail("expected pieces of the world")
        self._watched = {i: g.floats((7,)) for i, g in watched}
        self._revision = f["revision"].integer(0, 10**12)
        self._debt = 0.0
        self._supply = frozenset()  # the controller sets it again (judged then, here as in a new adapter)
        self._changed()

    # --- statics -------------------------------------------------------------------------------

    def verdict(self, wait: bool = False) -> LiveVerdict | None:
        return self._statics.wait() if wait else self._statics.latest()

    @property
    def verdict_pending(self) -> bool:
        """A newer configuration is being judged."""
        return self._statics.pending

    def _judged_scene(self) -> Scene:
        """The scene now without the carried and the pulled pieces and the supply's (but those touching what is
        built, fixed: part of the table)."""
        carried = set(self.live.carried()) | self.live.pulls.pieces()  # a pulled piece is held by its spring
        scene = self.scene()
        if not carried and not self._supply:
            return scene
        return beside(scene.with_pieces(p for p in scene.pieces if p.id not in carried), self._supply)

    def _judge(self) -> None:
        self._held_judged = frozenset(self.live.held)
        self._revision += 1
        self._statics.submit(self._judged_scene(), self._revision)

    def close(self) -> None:
        self._statics.close()
        self.live.close()


def _cause(action) -> LastAction | None:
    """A live-world action as the viewer's last action (before the viewer did anything of its own: what a
    re-simulated world did before it was resumed)."""
    if action is None:
        return None
    return LastAction(action.kind, action.piece, action.hand, action.player, action.time)
