"""Recordings of free runs: the timeline of ``towerlab simulate`` or of ``check``'s witness, as a recording."""

from __future__ import annotations

from sim.replay.recorder import Recorder


def record_timeline(path, timeline, *, source: str, extra: dict | None = None, sync: bool = True) -> Recorder:
    """Write a :class:`~sim.physics.timeline.Timeline` as a recording (closed when this returns).

    The frames are the timeline's own (60 Hz, every piece, exact); its events (moved, left its support,
    fell, knocked down, settled) have no cause: nobody acts in a free run.

    Args:
        path: the recording file.
        timeline: the run.
        source: ``simulate`` or ``check``.
        extra: anything else worth keeping (the probe's direction is kept always).
        sync: sync each member to the disk.

    Returns:
        The closed recorder.

    Raises:
        RecorderError: the file cannot be written.
    """
    scene = timeline.scene
    info = {"probe_direction_deg": timeline.probe_direction_deg, "seconds": timeline.seconds,
            "settled": timeline.settled, **(extra or {})}
    rec = Recorder(path, sync=sync)
    with rec:
        rec.start(scene, timeline.settings, None, scene.game, scene.players, source=source,
                  time=float(timeline.times[0]), poses=scene.poses(), extra=info)
        events = sorted(timeline.events, key=lambda e: e.time)
        k = 0
        for t, poses in zip(timeline.times, timeline.poses):
            while k < len(events) and events[k].time < t - 1e-9:
                rec.event(events[k].time, events[k].kind, events[k].pieces)
                k += 1
            rec.frame(float(t), timeline.ids, poses)
        for e in events[k:]:
            rec.event(e.time, e.kind, e.pieces)
    return rec
