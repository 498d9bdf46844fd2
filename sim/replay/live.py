"""Recording a live world from its public side: its actions, its own 60 Hz frames, its events.

After every ``advance`` the session calls ``recorder.feed(live_world)``;
:class:`LiveFeed` then records, in time order,

* the frames the live world took since the last call (``history.frames``:
  time, ids, poses; the poses the tracker judged, held pieces from memory, so
  nothing is read from the engine twice, nor copied: the history's arrays are
  never changed);
* the new actions (``live.actions``), each at its own time, with a derived
  ``picked`` (grab), ``dropped`` (release), ``added`` or ``removed`` event;
* the new events (``live.events``) with their cause mapped to the recorded action.

A ``feed`` only notes what is new (references to the world's own objects);
what it noted is recorded once the world has passed the end of the chunk
being filled (so the chunk is handed to the writer as soon as before, and a
crash loses no more), before the recorder records anything else or is read,
and at once when the world went back. The same recording, byte for byte, as
recording every feed at once; a frame between two physics steps costs the
session a few references.

A world that went back (``restore``, ``rewind``: the actions or events it keeps
are fewer than recorded, or its time went back) is recorded as a ``restored``
event, and recording time goes on from where it was: the recording shows what
the session showed, in the order it showed it. Frames are matched by identity,
so ``feed`` must come at least once per ``history_seconds`` of simulated time.
"""

from __future__ import annotations

from collections import deque
from operator import itemgetter

_DERIVED = {"grab": "picked", "release": "dropped", "add": "added", "remove": "removed"}
"""Live-world action kind -> the event a recording derives from it."""

_WHEN = itemgetter(0, 1)
"""The order of what a feed saw: (world time, frame 0 / event 1 / action 2)."""


class LiveFeed:
    """What has been seen and recorded of one live world.

    Args:
        recorder: the :class:`~sim.replay.recorder.Recorder`, started (``start_live`` starts it and makes this).
        live: the :class:`~sim.physics.live.LiveWorld`, at the moment its recording begins.
    """

    def __init__(self, recorder, live):
        self.recorder = recorder
        self.live = live
        self._actions = list(live.actions)  # seen: recorded, waiting, or from before the recording (identity)
        self._events = list(live.events)
        self._done_actions, self._done_events = len(self._actions), len(self._events)  # how many are recorded
        self._frames: list = []  # frames seen and not recorded yet
        self._indices: dict[int, int] = {}  # id(action) -> recorded index
        self._fed: deque = deque(maxlen=live.history.frames.maxlen or 1)  # the frames seen, newest last
        self._fed_ids: set[int] = set()
        self._offset = max(0.0, recorder.latest - live.time)  # recording time minus world time
        self._last_world = live.time
        if recorder.frames:  # the session goes on in another world (a scene loaded): its pieces may differ
            for piece in live.world.scene.pieces:
                recorder.add_piece(piece)
            self._offset = recorder.latest + 1.0 / recorder.rate_hz - live.time
            recorder.event(recorder.latest, "restored", (), None, {"world_time": live.time, "new_world": True})
        recorder.frame(live.time + self._offset, live.ids, live.poses(), owned=True)
        self._due = recorder.chunk_end - self._offset  # world time from which what was seen is recorded

    @staticmethod
    def fresh(live) -> bool:
        """The live world has neither run nor been changed: its actions from its scene reproduce it."""
        return live.time == 0.0 and not live.actions and not live.events

    @property
    def waiting(self) -> bool:
        """Something was seen and is not recorded yet."""
        return bool(self._frames) or self._done_actions < len(self._actions) or self._done_events < len(self._events)

    def feed(self) -> None:
        """Note what happened since the last call; record it when it is due (see the module docstring)."""
        lw = self.live
        kept_actions = _common_prefix(self._actions, lw.actions)
        kept_events = _common_prefix(self._events, lw.events)
        went_back = (kept_actions < len(self._actions) or kept_events < len(self._events)
                     or lw.time < self._last_world - 1e-9)
        if went_back:
            self.record()  # everything seen before it went back
        frames = self._new_frames()
        if went_back:
            # the world's first frame since it went back follows the last one recorded by a frame
            now = self.recorder.latest
            self._offset = (now + 1.0 / self.recorder.rate_hz - frames[0][0]) if frames else now - lw.time
            self.recorder.event(now, "restored", (), None, {"world_time": now - self._offset,
                                                            "kept_actions": kept_actions, "kept_events": kept_events})
            del self._actions[kept_actions:]
            del self._events[kept_events:]
            self._done_actions, self._done_events = kept_actions, kept_events
        if frames:
            self._remember(frames)
            self._frames += frames
        if len(lw.actions) > kept_actions:
            self._actions += lw.actions[kept_actions:]
        if len(lw.events) > kept_events:
            self._events += lw.events[kept_events:]
        self._last_world = lw.time
        if went_back or lw.time >= self._due:
            self.record()

    def record(self) -> None:
        """Record what was seen and is not recorded yet, in time order."""
        actions, events, frames = self._actions[self._done_actions:], self._events[self._done_events:], self._frames
        self._done_actions, self._done_events, self._frames = len(self._actions), len(self._events), []
        items = [(a.time, 2, "action", a) for a in actions]
        items += [(f[0], 0, "frame", f) for f in frames]
        items += [(e.time, 1, "event", e) for e in events]
        items.sort(key=_WHEN)
        rec, offset = self.recorder, self._offset
        for world_time, _, what, item in items:
            t = world_time + offset
            if what == "frame":
                rec.frame(t, item[1], item[2], owned=True)  # the history's own: never changed
            elif what == "action":
                index = rec.action(t, item.player, {"kind": item.kind, "piece": item.piece, "hand": item.hand,
                                                    "args": item.args}, world=True, world_time=item.time)
                self._indices[id(item)] = index
                derived = _DERIVED.get(item.kind)
                if derived:
                    data = {"hand": item.hand} if item.hand else {}
                    rec.event(t, derived, () if item.piece is None else (item.piece,), index, data)
            else:
                cause = None if item.cause is None else self._indices.get(id(item.cause))
                rec.event(t, item.kind, item.pieces, cause)
        self._due = rec.chunk_end - offset

    def engine_reset(self) -> int:
        """Record an exact snapshot taken now (see ``Recorder.engine_reset``); returns the event's index."""
        lw, rec = self.live, self.recorder
        return rec.event(lw.time + self._offset, "engine_reset", (), None,
                         {"world_time": lw.time, "before_action": len(rec.actions)})

    def _new_frames(self) -> list:
        """The live world's frames not seen yet, oldest first (after a restore: those since it)."""
        frames = self.live.history.frames
        if self._fed and frames:  # the usual calls: one new frame, or none
            last = self._fed[-1]
            if frames[-1] is last:
                return []
            if len(frames) > 1 and frames[-2] is last:
                return [frames[-1]]
        out = []
        for f in reversed(frames):
            if id(f) in self._fed_ids:
                break
            out.append(f)
        out.reverse()
        if not self._fed_ids:  # nothing seen from the history yet: only what came after the start
            out = [f for f in out if f[0] > self._last_world + 1e-9]
        return out

    def _remember(self, frames: list) -> None:
        fed, ids = self._fed, self._fed_ids
        for f in frames:
            if len(fed) == fed.maxlen:
                ids.discard(id(fed[0]))
            fed.append(f)
            ids.add(id(f))


def _common_prefix(recorded: list, now: list) -> int:
    """How many of ``recorded`` are still, object for object, at the start of ``now``.

    The live world only ever appends, or cuts its lists at a snapshot and appends: when the last recorded
    item is still in its place, so is everything before it (checked in constant time).
    """
    n = len(recorded)
    if n == 0 or (len(now) >= n and now[n - 1] is recorded[-1]):
        return n
    lo, hi = 0, min(n, len(now))  # the cut: the first place where they differ
    while lo < hi:
        mid = (lo + hi) // 2
        if now[mid] is recorded[mid]:
            lo = mid + 1
        else:
            hi = mid
    return lo
