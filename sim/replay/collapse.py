"""Collapses read from a recording: what was knocked down, when, who caused it, and where it stood before.

A *collapse* is a run of ``knocked_down`` events up to the moment everything
is at rest again (a ``settled`` event) or the recording ends. Who caused it
is the cause of its first knocked-down event: the last action before it
(the live world names it with every event), and with it the player, the hand
and the piece. A free run (``simulate``, ``check``) has no actions: its
collapses have no culprit, the structure fell by itself.

Where a piece stood before is its pose at the last frame at which it stood
still before the motion that knocked it down (:meth:`PoseTrack.rest_frame`):
in a live session the pose the statics held it at, in a free run its pose at
the start.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.replay.records import RecordedAction, RecordedEvent


@dataclass(frozen=True)
class Collapse:
    """One collapse.

    Attributes:
        time: of its first knocked-down event (s).
        end: when it was over: everything at rest again, or the recording's end (s).
        pieces: every piece knocked down in it, in the order they were.
        knocked_at: piece -> when it was knocked down (s).
        cause: the action before its first knocked-down event (None in a free run).
        first: the first knocked-down event.
        before_frame: the frame at which every piece it knocked down still stood where it was.
        rest_frames: piece -> the frame it stood still at last before it went.
    """

    time: float
    end: float
    pieces: tuple[str, ...]
    knocked_at: dict
    cause: RecordedAction | None
    first: RecordedEvent
    before_frame: int
    rest_frames: dict

    @property
    def culprit(self) -> str | None:
        """The player whose action came last before it (None: no action, or an action of no one)."""
        return None if self.cause is None else self.cause.actor

    def to_json(self) -> dict:
        """JSON form: times, pieces, when each was knocked down, the cause (action, player, piece, hand)."""
        c = self.cause
        return {"time_s": self.time, "end_s": self.end, "pieces": list(self.pieces),
                "knocked_down": [{"piece": p, "time_s": self.knocked_at[p]} for p in self.pieces],
                "culprit": self.culprit,
                "cause": None if c is None else {"action": c.kind, "time_s": c.time, "player": c.actor,
                                                 "piece": c.piece, "hand": c.hand, "index": c.index}}


def collapses(recording) -> list[Collapse]:
    """Every collapse of a :class:`~sim.replay.recording.Recording`, in time order."""
    events = recording.timeline_events
    out: list[Collapse] = []
    group: list[RecordedEvent] = []

    def close(end: float) -> None:
        if group:
            out.append(_collapse(recording, group, end))
            group.clear()

    for e in events:
        if e.kind == "knocked_down" and e.pieces:
            group.append(e)
        elif e.kind == "settled" and group:
            close(e.time)
    close(recording.end)
    return out


def _collapse(recording, group: list[RecordedEvent], end: float) -> Collapse:
    knocked: dict[str, float] = {}
    for e in group:
        for p in e.pieces:
            knocked.setdefault(p, e.time)
    track = recording.track
    numbers = _numbers_at(recording, group[0].time)
    rest = {}
    for p, t in knocked.items():
        number = numbers.get(p)
        rest[p] = track.frame_at(t) if number is None else track.rest_frame(number, track.frame_at(t))
    before = min(rest.values())
    return Collapse(group[0].time, end, tuple(knocked), knocked, recording.cause(group[0]), group[0], before, rest)


def _numbers_at(recording, t: float) -> dict[str, int]:
    """id -> roster number of the pieces present at ``t``."""
    numbers, _ = recording.track.at(recording.frame_at(t))
    return {recording.roster[k][0]: k for k in numbers}


def rest_poses(recording, collapse: Collapse) -> dict[str, np.ndarray]:
    """piece -> (7,) where each piece the collapse knocked down stood before it."""
    out = {}
    for p, g in collapse.rest_frames.items():
        ids, poses = recording.frame(g)
        if p in ids:
            out[p] = poses[ids.index(p)]
    return out
