"""Re-simulate from here, in the viewer's build mode: the viewer's live world kept on a re-simulated
:class:`sim.physics.live.LiveWorld`.

A replay's "re-simulate from here" restores a ``sim.physics`` live world at
the frame (:func:`sim.replay.resimulate.resimulate`: the recorded actions
replayed up to it, bit for bit, or the frame's poses at rest); the viewer's
controller builds on it through :class:`ResumedWorld`, which answers the
viewer's :class:`sim.viewer.live.LiveWorld` protocol by calling the live
world's public door (``add``, ``remove``, ``set_pose``, ``push``, ``grab``,
``move_hand``, ``release``, ``advance``, ``snapshot``/``restore``). Every
viewer action becomes live-world actions made at fixed steps, so the same
actions from the same frame give the same timeline, bit for bit (tested). The
statics' verdict runs beside it as in the viewer (it never steers the
simulation).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sim.physics.bodies import GRAVITY
from sim.physics.world import HULL_MARGIN
from sim.viewer.live import HAND_STRENGTH, Advance, LastAction, LiveEvent, Snapshot, Verdict
from sim.viewer.stability import StaticsWorker

JUDGED_AFTER = frozenset({"came_to_rest", "knocked_down", "fell"})
"""Events after which the statics judge the world again (what stands has changed)."""


class ResumedWorld:
    """The viewer's live world on a :class:`sim.physics.live.LiveWorld`; see the module docstring.

    Args:
        live: the live world (restored at a recorded frame); closed with this one.
        threaded_statics: judge in a worker process (the window); False judges at once (scripts, tests).
    """

    def __init__(self, live, *, threaded_statics: bool = True):
        self.live = live
        self._statics = StaticsWorker("process" if threaded_statics else "inline")
        self._revision = 0
        self._last: LastAction | None = None
        self._supply: frozenset[str] = frozenset()
        self._seen = len(live.events)
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

    def scene(self):
        return self.live.scene_now()

    def piece(self, piece_id: str):
        return self.live.world.piece(piece_id)

    def poses(self) -> np.ndarray:
        return self.live.poses()

    def pose(self, piece_id: str) -> np.ndarray:
        return self.live.pose(piece_id)

    def held(self) -> dict[str, str]:
        """hand -> the piece it holds."""
        return {hand: piece for piece, hand in self.live.carried().items()}

    def hands(self) -> dict[str, str]:
        return self.held()

    def moving(self) -> list[str]:
        carried = self.live.carried()
        return [i for i in self.live.ids if i in carried or i in set(self.live.moving())]

    def ray_test(self, start, end):
        from sim.physics import RayHit

        hit = self.live.ray_test(start, end)
        if hit is None:
            return None
        # Bullet's rays meet the shapes' collision margin: the surface itself lies that much further in
        margin = HULL_MARGIN / self.live.world.settings.length_scale
        return RayHit(hit.piece, hit.point - margin * hit.normal, hit.normal, hit.distance + margin)

    # --- changing ------------------------------------------------------------------------------

    def _player(self) -> str | None:
        return None if self._last is None else self._last.player

    def add_piece(self, piece) -> None:
        self.live.add(piece, player=self._player())
        self._judge()

    def remove_piece(self, piece_id: str) -> None:
        self.live.remove(piece_id, player=self._player())
        self._judge()

    def set_pose(self, piece_id: str, pose) -> None:
        pose = np.asarray(pose, dtype=float)
        self.live.set_pose(piece_id, pose, player=self._player())
        self._judge()

    def push(self, piece_id: str, point, impulse) -> None:
        self.live.push(piece_id, np.asarray(impulse, dtype=float), np.asarray(point, dtype=float),
                       player=self._player())
        self._judge()

    def grab(self, hand: str, piece_id: str, force_limit: float | None = None) -> None:
        weight = self.live.world.bodies[piece_id].mass * GRAVITY
        strength = HAND_STRENGTH if force_limit is None else float(force_limit) / weight
        self.live.grab(piece_id, hand, strength=strength, player=self._player())
        self._judge()

    def move_hand(self, hand: str, target) -> None:
        self.live.move_hand(hand, np.asarray(target, dtype=float))

    def release(self, hand: str, pose=None) -> None:
        """The hand lets go where it is: the viewer's resting place ``pose`` (within a millimetre of where
        the hand brought the piece) is not teleported to, because the live world tracks a piece let go only
        from where it first rests (a teleport of an untracked piece is refused); it settles that millimetre
        itself."""
        self.live.release(hand)
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
        report = self.live.advance(seconds, budget)
        fresh = self.live.events[self._seen:]
        self._seen = len(self.live.events)
        events = tuple(LiveEvent(e.time, e.kind, e.pieces, self._last or _cause(e.cause)) for e in fresh)
        if any(e.kind in JUDGED_AFTER for e in events):
            self._judge()
        rtf = report.simulated / report.asked if report.asked > 0 else 1.0
        return Advance(report.steps, report.simulated, report.wall, rtf, events)

    # --- snapshots -----------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        return Snapshot(self.time, (self.live.snapshot(exact=False), self._last))

    def restore(self, snapshot: Snapshot) -> None:
        state, last = snapshot.state
        self.live.restore(state)
        self._seen = len(self.live.events)
        self._last = last
        self._judge()

    # --- statics -------------------------------------------------------------------------------

    def verdict(self, wait: bool = False) -> Verdict | None:
        return self._statics.wait() if wait else self._statics.latest()

    @property
    def verdict_pending(self) -> bool:
        """A newer configuration is being judged."""
        return self._statics.pending

    def _judge(self) -> None:
        carried = set(self.live.carried())
        scene = self.scene()
        if carried or self._supply:
            scene = scene.with_pieces(replace(p, fixed=True) if p.id in self._supply else p
                                      for p in scene.pieces if p.id not in carried)
        self._revision += 1
        self._statics.submit(scene, self._revision)

    def close(self) -> None:
        self._statics.close()
        self.live.close()


def _cause(action) -> LastAction | None:
    """A live-world action as the viewer's last action."""
    if action is None:
        return None
    return LastAction(action.kind, action.piece, action.hand, action.player, action.time)
