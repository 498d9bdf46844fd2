"""The replay cursor: everything of replay mode but the window (which only draws what this says).

A :class:`ReplayPlayer` holds a time within a recording and answers, for that
time, the poses exactly as recorded (no simulation), the events so far, the
scrub bar's marks, the followed piece's position, the scenes before and after
the first collapse, and a live world restored there to re-simulate from::

    player = ReplayPlayer(load_recording("game.tlrec"))
    player.jump_to_first_knockdown()
    player.set_speed(0.25); player.play()
    while player.playing:
        player.tick(1 / 60)                   # the window's frame time
        ids, poses = player.poses()           # -> graph.set_poses(poses)
    live = player.resimulate_from()           # go on in the live world from here
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.names import listing
from sim.replay.collapse import Collapse, collapses
from sim.replay.errors import ReplayError
from sim.replay.records import RecordedEvent

MIN_SPEED, MAX_SPEED = 1.0 / 64.0, 16.0
"""Slow motion down to 1/64, fast forward up to 16 times."""

SPEEDS = (1 / 8, 1 / 4, 1 / 2, 1.0, 2.0, 4.0)
"""The steps :meth:`ReplayPlayer.faster` and :meth:`ReplayPlayer.slower` go through."""

QUIET_KINDS = frozenset({"moved", "left_support", "fell"})
"""Event kinds too frequent to mark on a timeline or caption (each knocked-down piece has its own event)."""


@dataclass(frozen=True)
class Marker:
    """An event's mark on the scrub bar.

    Attributes:
        time: where (s).
        kind: the event kind.
        label: a short caption: ``knocked down: t3, t4 (ana: release of b2)``.
        event: the event.
    """

    time: float
    kind: str
    label: str
    event: RecordedEvent


class ReplayPlayer:
    """A cursor over a :class:`~sim.replay.recording.Recording`; see the module docstring.

    Attributes:
        recording: what it plays.
        time: the cursor (s), within the recording's first and last frame.
        playing: time runs on :meth:`tick`.
        speed: recording seconds per wall-clock second.
        following: the piece the camera follows, or None.
    """

    def __init__(self, recording):
        self.recording = recording
        self.time = recording.start
        self.playing = False
        self.speed = 1.0
        self.following: str | None = None
        self._collapses: list[Collapse] | None = None

    # --- moving the cursor -------------------------------------------------------------------------

    @property
    def start(self) -> float:
        """The first frame's time (s)."""
        return self.recording.start

    @property
    def end(self) -> float:
        """The last frame's time (s)."""
        return self.recording.end

    @property
    def frame(self) -> int:
        """The frame shown: the last one at or before the cursor."""
        return self.recording.frame_at(self.time)

    @property
    def frames(self) -> int:
        """How many frames the recording has."""
        return len(self.recording.times)

    def seek(self, t: float) -> float:
        """Put the cursor at ``t`` (s), kept within the recording; returns where it went."""
        if not np.isfinite(t):
            raise ReplayError(f"seek: expected a finite time, got {t}")
        self.time = float(min(max(t, self.start), self.end))
        return self.time

    def seek_frame(self, g: int) -> float:
        """Put the cursor on frame ``g`` (kept within the recording)."""
        g = int(min(max(g, 0), self.frames - 1))
        return self.seek(float(self.recording.times[g]))

    def step(self, frames: int = 1) -> float:
        """Go ``frames`` frames on (back when negative) and pause; returns the new time."""
        self.playing = False
        return self.seek_frame(self.frame + int(frames))

    def play(self) -> None:
        """Let time run (from the start again when at the end)."""
        if self.time >= self.end:
            self.time = self.start
        self.playing = True

    def pause(self) -> None:
        """Stop time."""
        self.playing = False

    def toggle(self) -> bool:
        """Play when paused, pause when playing; returns whether it plays."""
        self.pause() if self.playing else self.play()
        return self.playing

    def set_speed(self, speed: float) -> float:
        """Recording seconds per wall-clock second (``0.25``: slow motion); returns it.

        Raises:
            ReplayError: outside 1/64..16.
        """
        if not (np.isfinite(speed) and MIN_SPEED <= speed <= MAX_SPEED):
            raise ReplayError(f"speed: expected {MIN_SPEED:g}..{MAX_SPEED:g}, got {speed}")
        self.speed = float(speed)
        return self.speed

    def faster(self) -> float:
        """The next speed up of :data:`SPEEDS`."""
        return self.set_speed(next((s for s in SPEEDS if s > self.speed + 1e-12), SPEEDS[-1]))

    def slower(self) -> float:
        """The next speed down of :data:`SPEEDS`."""
        return self.set_speed(next((s for s in reversed(SPEEDS) if s < self.speed - 1e-12), SPEEDS[0]))

    def tick(self, wall_seconds: float) -> bool:
        """The window's frame: while playing, move on by ``wall_seconds`` times the speed (pausing at the end).

        Returns:
            Whether the frame shown changed.
        """
        if not self.playing:
            return False
        before = self.frame
        self.seek(self.time + max(0.0, float(wall_seconds)) * self.speed)
        if self.time >= self.end:
            self.playing = False
        return self.frame != before

    # --- what is shown -------------------------------------------------------------------------------

    def poses(self) -> tuple[list[str], np.ndarray]:
        """The present pieces' ids (in order) and poses (n, 7) at the cursor, exactly as recorded."""
        return self.recording.frame(self.frame)

    def scene(self):
        """The scene at the cursor (a :class:`~sim.scene.Scene`)."""
        return self.recording.scene_of_frame(self.frame)

    def events(self, until: float | None = None) -> list[RecordedEvent]:
        """The events at or before the cursor (or ``until``), in time order."""
        return self.recording.events_until(self.time if until is None else until)

    def markers(self) -> list[Marker]:
        """The scrub bar's marks: every event but the frequent physics detail (:data:`QUIET_KINDS`)."""
        return [Marker(e.time, e.kind, caption(self.recording, e), e) for e in self.recording.timeline_events
                if e.kind not in QUIET_KINDS]

    def collapses(self) -> list[Collapse]:
        """Every collapse in the recording (:func:`sim.replay.collapse.collapses`)."""
        if self._collapses is None:
            self._collapses = collapses(self.recording)
        return self._collapses

    def first_knockdown(self) -> RecordedEvent | None:
        """The first knocked-down event, or None."""
        found = self.collapses()
        return found[0].first if found else None

    def jump_to_first_knockdown(self) -> RecordedEvent | None:
        """Put the cursor on the first knocked-down event (paused); None, and no move, without one."""
        e = self.first_knockdown()
        if e is not None:
            self.playing = False
            self.seek(e.time)
        return e

    def follow(self, piece_id: str | None) -> None:
        """Let the camera follow a piece (None: stop).

        Raises:
            ReplayError: the recording never held such a piece.
        """
        if piece_id is not None and piece_id not in {pid for pid, _ in self.recording.roster}:
            raise ReplayError(f"follow: the recording holds no piece {piece_id!r}")
        self.following = piece_id

    def follow_target(self) -> np.ndarray | None:
        """(3,) the followed piece's position at the cursor (m); its last one when it has left; None when
        nothing is followed or it has not appeared yet."""
        if self.following is None:
            return None
        return piece_position(self.recording, self.following, self.frame)

    def before_after(self, collapse: int = 0):
        """(before, after): the scenes of the frame before a collapse (every piece it knocked down still
        where it stood) and of the frame at its end (at rest again, or the recording's end)."""
        found = self.collapses()
        if not found:
            raise ReplayError(f"{self.recording.path}: nothing was knocked down: no before and after")
        c = found[collapse]
        return (self.recording.scene_of_frame(c.before_frame),
                self.recording.scene_of_frame(self.recording.frame_at(c.end)))

    def resimulate_from(self, t: float | None = None, *, strict: bool = True, progress=None):
        """A live world restored at the frame at the cursor (or ``t``), to go on from there
        (:func:`sim.replay.resimulate.resimulate`; the caller closes it)."""
        from sim.replay.resimulate import resimulate

        return resimulate(self.recording, self.time if t is None else t, strict=strict, progress=progress)

    def resimulation_plan(self, t: float | None = None):
        """How :meth:`resimulate_from` would go: ``exact`` or ``at rest``, and why."""
        from sim.replay.resimulate import plan

        return plan(self.recording, self.time if t is None else t)


def piece_position(recording, piece_id: str, g: int) -> np.ndarray | None:
    """(3,) where ``piece_id`` is at frame ``g`` (its last position when it has gone; None before it came)."""
    ids, poses = recording.frame(g)
    if piece_id in ids:
        return poses[ids.index(piece_id), :3].copy()
    numbers = [k for k, (pid, _) in enumerate(recording.roster) if pid == piece_id]
    track = recording.track
    best = None
    for k in numbers:
        changed = track.changed_frames(k)
        j = int(np.searchsorted(changed, g, side="right")) - 1
        last = int(changed[j]) if j >= 0 else track.appeared(k, g)
        if last is not None and (best is None or last > best[1]):
            best = (k, last)
    if best is None:
        return None
    ids, poses = recording.frame(best[1])
    return poses[ids.index(piece_id), :3].copy() if piece_id in ids else None


def caption(recording, e: RecordedEvent) -> str:
    """A short line for an event: ``knocked down: t3, t4 (ana: release of b2, right hand)``."""
    what = e.kind.replace("_", " ")
    shown = listing(e.pieces, 5)
    text = f"{what}: {shown}" if shown else what
    data = dict(e.data)
    for key in ("player", "card", "choice", "reason"):
        if isinstance(data.get(key), str):
            text += f" {data[key]}"
    cause = recording.cause(e)
    if cause is not None and e.kind not in ("picked", "dropped", "added", "removed"):
        who = f"{cause.actor}: " if cause.actor else ""
        text += f" ({who}{cause.describe()})"
    elif cause is not None and cause.actor:
        text += f" ({cause.actor})"
    return text
