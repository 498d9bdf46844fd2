"""Recordings of free runs: ``towerlab simulate`` or ``check``'s witness, written as the run goes."""

from __future__ import annotations

import numpy as np

from sim.replay.recorder import Recorder

SAME_TIME = 1e-9
"""An event this close before a frame's time is written after that frame (as it was found with it)."""


class RunRecorder:
    """A free run recorded as it goes: give it as ``on_frame`` to :func:`sim.physics.simulate`,
    :func:`~sim.physics.timeline.run` or :func:`sim.physics.check`; every second of the run is on the disk
    while it runs, so a Ctrl-C or a crash keeps what ran (the ``with`` block closes the file on Ctrl-C).

    The frames are the run's own (60 Hz, every piece, exact); its events (moved, left its support, fell,
    knocked down, settled) have no cause: nobody acts in a free run. Each event is written before the
    first frame after it.

    Args:
        path: the recording file.
        source: ``simulate`` or ``check``.
        seconds: the run's length as asked (the header's ``extra.seconds``).
        extra: anything else worth keeping (the probe's direction is kept always).
        sync: sync each member to the disk.

    Raises:
        RecorderError: the file cannot be written.
    """

    def __init__(self, path, *, source: str, seconds: float | None = None, extra: dict | None = None,
                 sync: bool = True):
        self.recorder = Recorder(path, sync=sync)
        self._source, self._seconds, self._extra = source, seconds, dict(extra or {})
        self._seen = 0  # events taken so far
        self._pending: list = []  # taken, not yet written

    def __call__(self, world, t: float, poses: np.ndarray, events) -> None:
        if not self.recorder.started:
            self.begin(world.scene, world.settings, world.probe_direction, t)
        self.frame(t, world.ids, poses, events)

    def begin(self, scene, settings, probe_direction_deg: float | None, t: float = 0.0) -> None:
        """Start the file: the scene at its poses, the run's settings and probe direction."""
        info = {"probe_direction_deg": probe_direction_deg, "seconds": self._seconds, **self._extra}
        self.recorder.start(scene, settings, None, scene.game, scene.players, source=self._source,
                            time=float(t), poses=scene.poses(), extra=info)

    def frame(self, t: float, ids, poses: np.ndarray, events) -> None:
        """A frame at time ``t``; ``events`` are the run's events so far (those not yet seen are taken)."""
        self._take(events)
        due = [e for e in self._pending if e.time < t - SAME_TIME]
        if due:
            self._pending = [e for e in self._pending if not e.time < t - SAME_TIME]
            self._write(due)
        self.recorder.frame(float(t), ids, poses)

    def close(self, events=()) -> None:
        """Write the events not yet written (``events``: the run's, all of them) and close the file."""
        self._take(events)
        self._write(self._pending)
        self._pending = []
        self.recorder.close()

    def _take(self, events) -> None:
        if len(events) > self._seen:
            self._pending += list(events[self._seen:])
            self._seen = len(events)

    def _write(self, events) -> None:
        for e in sorted(events, key=lambda e: e.time):
            self.recorder.event(e.time, e.kind, e.pieces)

    def __enter__(self) -> RunRecorder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def record_timeline(path, timeline, *, source: str, extra: dict | None = None, sync: bool = True) -> Recorder:
    """Write a finished :class:`~sim.physics.timeline.Timeline` as a recording, as :class:`RunRecorder` writes
    a run as it goes (the same file).

    Returns:
        The closed recorder.

    Raises:
        RecorderError: the file cannot be written.
    """
    with RunRecorder(path, source=source, seconds=timeline.seconds, extra=extra, sync=sync) as run:
        run.begin(timeline.scene, timeline.settings, timeline.probe_direction_deg, float(timeline.times[0]))
        for t, poses in zip(timeline.times, timeline.poses):
            run.frame(float(t), timeline.ids, poses, timeline.events)  # each written before the first frame after it
    return run.recorder
