"""The replay window's controller: a recording's cursor, the camera, the side-by-side views, the captions.

It imports no Panda3D and simulates nothing. A front end (the replay window, a
script runner, the offscreen picture) calls :meth:`ReplayController.apply` with
:mod:`sim.viewer.replay.actions` values and :meth:`ReplayController.tick` once a
frame, and draws what it reads back: for each pane (one, or two side by side)
a frame number and a camera, the frame's poses exactly as recorded
(:class:`sim.replay.ReplayPlayer`), the timeline's marks, the caption of the
current event, the status line. Requests only a front end can serve (a
screenshot, going on in the live world) wait in :attr:`ReplayController.requests`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from sim.dispatch import handler_table
from sim.replay import ReplayError, ReplayPlayer
from sim.replay.video import framing_scene
from sim.viewer.control.actions import Action
from sim.viewer.control.camera import OrbitCamera
from sim.viewer.replay.actions import SPECS
from sim.viewer.replay.timeline import TimelineBar

FRAME = 1.0 / 60.0
"""Seconds of the window's clock per scripted frame (a ``wait`` runs this many at a time)."""
PANE_GAP = 4
"""Pixels between two side-by-side panes."""


@dataclass(frozen=True)
class Pane:
    """One view of the recording the window draws.

    Attributes:
        frame: the recorded frame it shows.
        label: what it is (``now``, ``before the collapse``, ``after``), None for the single view.
        time: that frame's time (s).
    """

    frame: int
    time: float
    label: str | None = None


@dataclass
class Request:
    """Work only the front end can do: ``screenshot`` (``path``, ``size``) or ``resimulate``."""

    kind: str
    args: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Message:
    """Something the window says (a refusal, a jump, a re-simulation's way).

    Attributes:
        text: one line.
        kind: ``info`` or ``error``.
    """

    text: str
    kind: str = "info"


class ReplayController:
    """A replay session on a recording.

    Args:
        recording: the :class:`~sim.replay.recording.Recording`.
        size: the window's size (pixels), for the camera.
        smooth: the camera glides where it is sent (a window); False puts it there at once (scripts, pictures
            that must equal the offscreen ones).
    """

    def __init__(self, recording, *, size=(1280, 800), smooth: bool = True):
        self.recording = recording
        self._handlers = handler_table(type(self), SPECS, "_do_")
        self.player = ReplayPlayer(recording)
        self.smooth = smooth
        self.size = (int(size[0]), int(size[1]))
        self.camera = OrbitCamera(size)
        self.camera.floor = -recording.scene.board_info.thickness
        self.framing = framing_scene(recording, 0, self.player.frames - 1)
        self.camera.start(self.framing)
        self.timeline = TimelineBar(recording.start, recording.end, self.player.markers())
        self.compare = "off"
        self.messages: list[Message] = []
        self.requests: list[Request] = []
        self.dirty = True

    # --- what is shown --------------------------------------------------------------------------

    @property
    def time(self) -> float:
        """The cursor (s)."""
        return self.player.time

    @property
    def frame(self) -> int:
        """The frame shown."""
        return self.player.frame

    def poses(self) -> tuple[list[str], np.ndarray]:
        """The present pieces' ids and (n, 7) poses at the cursor, exactly as recorded."""
        return self.player.poses()

    def panes(self) -> list[Pane]:
        """What to draw, left to right: the frame at the cursor, or (side by side) the frame before the collapse
        and the one at the cursor (``before``), or before and after the collapse (``before-after``)."""
        now = Pane(self.frame, float(self.recording.times[self.frame]))
        if self.compare == "off":
            return [now]
        c = self._collapse()
        before = Pane(c.before_frame, float(self.recording.times[c.before_frame]), "before the collapse")
        if self.compare == "before":
            return [before, replace(now, label="now")]
        after = self.recording.frame_at(c.end)
        return [before, Pane(after, float(self.recording.times[after]), "after")]

    def pane_size(self, size=None) -> tuple[int, int]:
        """(width, height) of each pane for a picture of ``size`` (default the window's)."""
        w, h = self.size if size is None else (int(size[0]), int(size[1]))
        n = 1 if self.compare == "off" else 2
        return (max((w - PANE_GAP * (n - 1)) // n, 16), h)

    def resize(self, size) -> None:
        """The window's new size (pixels): the camera's is one pane's."""
        self.size = (int(size[0]), int(size[1]))
        self.camera.resize(self.pane_size())
        self.dirty = True

    def view(self, size=None):
        """The camera of every pane (a :class:`sim.render.camera.Camera` of :meth:`pane_size`)."""
        return self.camera.view(size=self.pane_size(size))

    def current_event(self):
        """The latest marked event at or before the cursor (a :class:`~sim.replay.player.Marker`), or None."""
        now = self.player.time + 1e-9
        found = None
        for m in self.timeline.markers:
            if m.time > now:
                break
            found = m
        return found

    def caption(self) -> str | None:
        """The caption of the current event: ``0.92 s  knocked down: t3, t4 (ana: move hand of block ...)``."""
        m = self.current_event()
        return None if m is None else f"{m.time:.2f} s  {m.label}"

    def status(self) -> str:
        """The status line: time, frame, playing or paused and the speed, what is followed and compared."""
        p = self.player
        speed = {0.125: "1/8", 0.25: "1/4", 0.5: "1/2"}.get(p.speed, f"{p.speed:g}")
        parts = [f"t {p.time:6.2f} / {p.end:.2f} s", f"frame {p.frame}/{p.frames - 1}",
                 ("PLAYING" if p.playing else "PAUSED") + f" x{speed}"]
        if p.following:
            parts.append(f"following {p.following}")
        if self.compare != "off":
            parts.append(" | ".join(pane.label for pane in self.panes()))
        return " | ".join(parts)

    def say(self, text: str, kind: str = "info") -> None:
        self.messages.append(Message(text, kind))

    # --- actions --------------------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Do one action.

        Raises:
            ActionError: it cannot be done (no such piece, nothing knocked down to compare or jump to, ...).
        """
        try:
            self._handlers[action.name](self, action)
        except ReplayError as e:
            raise action.fail(None, str(e)) from None
        self._follow()
        self.dirty = True

    def tick(self, wall_seconds: float) -> bool:
        """The window's frame: time runs while playing, the camera follows and glides. Whether anything changed."""
        moved = self.player.tick(wall_seconds)
        self._follow()
        glided = self.camera.tick(wall_seconds) if self.smooth else False
        if not self.smooth:
            self.camera.current = self.camera.goal
        return moved or glided

    def _do_play(self, a: Action) -> None:
        self.player.play()

    def _do_pause(self, a: Action) -> None:
        self.player.pause()

    def _do_toggle(self, a: Action) -> None:
        self.player.toggle()

    def _do_slower(self, a: Action) -> None:
        self.player.slower()

    def _do_faster(self, a: Action) -> None:
        self.player.faster()

    def _do_speed(self, a: Action) -> None:
        self.player.set_speed(a["factor"])

    def _do_seek(self, a: Action) -> None:
        if a["frame"] is not None:
            if a["frame"] >= self.player.frames:
                raise a.fail("frame", f"expected a frame 0..{self.player.frames - 1}, got {a['frame']}")
            self.player.seek_frame(a["frame"])
        else:
            self.player.seek(a["t"])

    def seek_fraction(self, fraction: float) -> float:
        """Scrub: the cursor at a place along the timeline bar (0..1), paused; returns the time."""
        self.player.pause()
        t = self.player.seek(self.timeline.time_at(fraction))
        self._follow()
        self.dirty = True
        return t

    def _do_step(self, a: Action) -> None:
        self.player.step(a["frames"])

    def _do_jump(self, a: Action) -> None:
        to, p = a["to"], self.player
        if to == "start":
            p.pause()
            p.seek(p.start)
            return
        if to == "end":
            p.pause()
            p.seek(p.end)
            return
        if to == "first-knockdown":
            e = p.jump_to_first_knockdown()
            if e is None:
                raise a.fail("to", "nothing was knocked down in this recording")
            self.say(f"first knocked down: {self.caption()}")
            return
        marks = [m for m in self.timeline.markers if a["kind"] is None or m.kind == a["kind"]]
        if to == "next":
            target = next((m for m in marks if m.time > p.time + 1e-9), None)
        else:
            target = next((m for m in reversed(marks) if m.time < p.time - 1e-9), None)
        if target is None:
            what = f"{a['kind'].replace('_', ' ')} event" if a["kind"] else "marked event"
            raise a.fail("to", f"no {what} {'after' if to == 'next' else 'before'} {p.time:.2f} s")
        p.pause()
        p.seek(target.time)
        self.say(f"{target.time:.2f} s  {target.label}")

    def _do_follow(self, a: Action) -> None:
        self.player.follow(a["piece"])
        if a["piece"] is not None and self.player.follow_target() is None:
            self.say(f"{a['piece']} is not on the table yet: the camera follows it once it is")

    def _do_compare(self, a: Action) -> None:
        if a["mode"] != "off" and not self.player.collapses():
            raise a.fail("mode", "nothing was knocked down: no before and after to compare")
        was = self.pane_size()
        self.compare = a["mode"]
        if self.pane_size() != was:  # one pane or two: the same view framed for the pane's shape
            self.camera.resize(self.pane_size())
            self.camera.frame(self.framing)
            self._settle_camera()

    def _do_camera(self, a: Action) -> None:
        preset = a["preset"]
        if preset == "reset":
            self.camera.reset()
        elif preset == "frame":
            self.camera.frame(self.player.scene())
        else:
            self.camera.preset(preset, self.framing)
        self._settle_camera()

    def _do_orbit(self, a: Action) -> None:
        self.camera.orbit(*a["degrees"])
        self._settle_camera()

    def _do_pan(self, a: Action) -> None:
        (self.camera.pan_table if a["plane"] == "table" else self.camera.pan)(*a["fraction"])
        self._settle_camera()

    def _do_zoom(self, a: Action) -> None:
        self.camera.zoom(a["factor"])
        self._settle_camera()

    def _do_wait(self, a: Action) -> None:
        for _ in range(int(round(a["seconds"] / FRAME))):
            self.tick(FRAME)

    def _do_screenshot(self, a: Action) -> None:
        self.requests.append(Request("screenshot", {"path": a["path"], "size": a["size"]}))

    def _do_resimulate(self, a: Action) -> None:
        plan = self.player.resimulation_plan()
        self.say(f"re-simulating from {self.player.time:.2f} s ({plan.mode}: {plan.why})")
        self.requests.append(Request("resimulate", {"time": float(self.recording.times[self.frame]),
                                                    "mode": plan.mode}))

    def resimulate(self, strict: bool = True):
        """A :class:`~sim.physics.live.LiveWorld` restored at the frame at the cursor, to go on from there
        (deterministic: the same actions from here give the same timeline; the caller closes it).

        Raises:
            ReplayError: the frame cannot be reached (see :func:`sim.replay.resimulate.resimulate`).
        """
        return self.player.resimulate_from(float(self.recording.times[self.frame]), strict=strict)

    # --- helpers --------------------------------------------------------------------------------

    def _collapse(self):
        """The collapse compared: the last one begun at or before the cursor, else the first."""
        found = self.player.collapses()
        if not found:
            raise ReplayError(f"{self.recording.path}: nothing was knocked down: no before and after")
        begun = [c for c in found if c.time <= self.player.time + 1e-9]
        return begun[-1] if begun else found[0]

    def _follow(self) -> None:
        """Keep the followed piece where the camera looks (its distance and direction kept)."""
        target = self.player.follow_target()
        if target is None:
            return
        if np.array_equal(self.camera.goal.target, target):
            return
        self.camera.look_at(target)  # at once: the followed piece never lags the picture

    def _settle_camera(self) -> None:
        if not self.smooth:
            self.camera.current = self.camera.goal
