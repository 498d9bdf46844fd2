"""Re-simulate from a frame: a live world restored at a recorded frame, to go on from there.

Two ways, chosen by what the recording holds:

* **exact** — a session recorded from a fresh live world (``replayable``),
  before any ``restored`` event: a new live world is made from the recorded
  scene and settings and the recorded world actions are applied at the steps
  they were made at (and ``engine_reset`` events repeated), up to the frame. The
  live world is deterministic, so it reaches the frame exactly; this is checked
  (every pose, bit for bit) and a departure is an error (``strict``) or only
  reported. From there the same actions give the same timeline.
* **at rest** — a free run (``simulate``, ``check``: no velocities are
  recorded) or a session after a restore: a new live world from the frame's
  poses, every piece at rest, the hands that carried a piece at that frame
  taking it again with their last target. Deterministic too, but the motion
  under way at that frame is not carried on.

Public door of :mod:`sim.physics.live` only (``LiveWorld``, ``step``, ``apply``,
``grab``, ``snapshot``); docs/recording-format.md lists what ``sim.physics``
could add to make the second way exact as well (a live snapshot as data).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from sim.replay.errors import ReplayError

EXACT, AT_REST = "exact", "at rest"


@dataclass(frozen=True)
class Plan:
    """How a frame is reached.

    Attributes:
        mode: ``exact`` or ``at rest``.
        frame: the frame.
        why: why this mode (for the viewer's status line).
    """

    mode: str
    frame: int
    why: str


def plan(recording, t: float) -> Plan:
    """How :func:`resimulate` would reach the last frame at or before ``t``."""
    g = recording.frame_at(t)
    tf = float(recording.times[g])
    header = recording.header
    if header.get("source") != "session":
        return Plan(AT_REST, g, f"a {header.get('source')} run records no velocities: it goes on from the frame's "
                                "poses at rest")
    if not header.get("replayable"):
        return Plan(AT_REST, g, "the session was recorded from a live world that had run already: its past "
                                "is not in the recording")
    restored = [e for e in recording.events if e.kind == "restored" and e.time <= tf + 1e-9]
    if restored:
        return Plan(AT_REST, g, f"the session went back in time at {restored[0].time:.2f} s: the actions "
                                "before no longer lead here")
    return Plan(EXACT, g, "the recorded actions are replayed from the start")


def settings_of(recording, *, live: bool):
    """The recording's physics settings (live-world ones for a free run), fields of other versions dropped."""
    from sim.physics.live import live_settings
    from sim.physics.settings import PhysicsSettings

    data = recording.header.get("settings")
    if data is None:
        return live_settings()
    known = {f.name for f in fields(PhysicsSettings)}
    settings = PhysicsSettings(**{k: v for k, v in data.items() if k in known})
    return settings if live else live_settings(settings)


def resimulate(recording, t: float, *, strict: bool = True, progress=None):
    """A live world restored at the last frame at or before ``t`` (s); see the module docstring.

    Args:
        recording: the :class:`~sim.replay.recording.Recording`.
        t: the time (s).
        strict: raise when an exact replay departs from the recorded frame (else it is returned as it came).
        progress: called as ``progress(done_s, total_s)`` while the actions are replayed.

    Returns:
        The :class:`~sim.physics.live.LiveWorld` (the caller closes it).

    Raises:
        ReplayError: the frame's pieces are inside each other (at rest), or the replay departs (strict).
    """
    p = plan(recording, t)
    if p.mode == EXACT:
        return _exact(recording, p.frame, strict, progress)
    return _at_rest(recording, p.frame)


def _exact(recording, g: int, strict: bool, progress):
    from sim.physics.live import LiveWorld

    settings = settings_of(recording, live=True)
    dt = settings.dt
    target = int(round(float(recording.times[g]) / dt))
    ops = []  # (step, order, what): actions in their order, resets where the session made them
    for a in recording.actions:
        if a.world:
            ops.append((int(round(a.world_time / dt)), a.index, 0, a))
    for e in recording.events:
        if e.kind == "engine_reset":
            before = int(e.data.get("before_action", len(recording.actions)))
            ops.append((int(round(float(e.data["world_time"]) / dt)), before, -1, e))
    ops.sort(key=lambda op: (op[0], op[1], op[2]))
    lw = LiveWorld(recording.scene, settings)
    try:
        for step, _, kind, item in ops:
            if step >= target:
                break  # the frame at ``target`` was taken before anything done at that step
            lw.step(step - lw.world.steps)
            if kind == 0:
                lw.apply(item.live_json())
            else:
                lw.snapshot(exact=True)
            if progress is not None:
                progress(step * dt, target * dt)
        lw.step(target - lw.world.steps)
        ids, poses = recording.frame(g)
        same = lw.ids == ids and np.array_equal(lw.poses().view(np.int64), poses.view(np.int64))
        if not same and strict:
            where = float(recording.times[g])
            raise ReplayError(f"{recording.path}: the recorded actions do not reproduce the frame at {where:.3f} s "
                              f"(another pybullet, or an exact snapshot the session did not record as "
                              f"engine_reset): re-simulate without strict to go on from the replayed world")
    except BaseException:
        lw.close()
        raise
    return lw


def _at_rest(recording, g: int):
    from sim.errors import TowerlabError
    from sim.physics.live import LiveWorld

    live = recording.header.get("source") == "session"
    settings = settings_of(recording, live=live)
    scene = recording.scene_of_frame(g)
    try:
        lw = LiveWorld(scene, settings)
    except TowerlabError as e:
        raise ReplayError(f"{recording.path}: cannot go on from the frame at {float(recording.times[g]):.3f} s: {e}") \
            from None
    try:
        for name, (piece, target, strength, player) in sorted(hands_at(recording, float(recording.times[g])).items()):
            if piece in lw.ids:
                lw.grab(piece, name, target, strength, player=player)
    except BaseException:
        lw.close()
        raise
    return lw


def hands_at(recording, t: float) -> dict[str, tuple]:
    """hand -> (piece, target (7,), strength, player) of every hand that carries a piece at time ``t`` (s), from
    the recorded world actions."""
    from sim.physics.live import DEFAULT_STRENGTH

    hands: dict[str, tuple] = {}
    for a in recording.actions:
        if a.time > t + 1e-9:
            break
        if not a.world:
            continue
        if a.kind == "grab":
            hands[a.hand or "right"] = (a.piece, np.asarray(a.args.get("target"), dtype=float),
                                        float(a.args.get("strength", DEFAULT_STRENGTH)), a.actor)
        elif a.kind == "move_hand" and a.hand in hands:
            piece, _, strength, player = hands[a.hand]
            hands[a.hand] = (piece, np.asarray(a.args["target"], dtype=float), strength, player)
        elif a.kind == "release":
            hands.pop(a.hand, None)
        elif a.kind == "remove":
            for name in [h for h, v in hands.items() if v[0] == a.piece]:
                hands.pop(name)
    return hands
