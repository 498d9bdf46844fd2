"""Videos of recordings: the recorded poses drawn offscreen frame by frame and streamed to ffmpeg.

One renderer and one scene graph for the whole clip: each video frame sets
the graph to the recorded poses of its time (``update``, ``draw``, ``read``),
draws the captions into the picture and sends it to imageio-ffmpeg's writer,
so no frame is kept in memory. MP4 is H.264 (yuv420p, crf 20, preset veryfast), GIF gets a palette per
frame (ffmpeg's ``palettegen``/``paletteuse``, which needs no second pass).
The file appears only when it is complete: frames go to a temporary file in
the same folder, renamed at the end (removed on any error or Ctrl-C).

Video frame ``k`` shows recording time ``start + k * speed / fps``: a clip of
``D`` recording seconds has ``floor(D * fps / speed) + 1`` frames.
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim import atomic
from sim.replay.errors import ReplayError

FORMATS = (".mp4", ".gif")
"""The video files written, by suffix."""

DEFAULT_FPS = {".mp4": 30.0, ".gif": 25.0}
"""Frames per second of video (25 for GIF: its delays count in hundredths of a second)."""

MAX_FRAMES = 100_000
"""The most frames a video may have (an hour at 30 fps is 108 000: give --from and --to)."""

FOLLOW_SMOOTHING = 0.25
"""Time constant (s of video) with which a following camera catches up with its piece."""


@dataclass(frozen=True)
class VideoPlan:
    """What a video will show.

    Attributes:
        path: the file (``.mp4`` or ``.gif``).
        start, end: the recording times it spans (s).
        speed: recording seconds per video second.
        fps: video frames per second.
        size: (width, height) pixels.
        camera: ``iso``, ``front``, ``side`` or ``top``.
        follow: the piece the camera follows, or None.
        captions: draw the clock and the events.
    """

    path: Path
    start: float
    end: float
    speed: float = 1.0
    fps: float = 30.0
    size: tuple[int, int] = (1280, 720)
    camera: str = "iso"
    follow: str | None = None
    captions: bool = True

    @property
    def count(self) -> int:
        """How many video frames it has (counted, not made: a long clip is refused before anything is allocated)."""
        return int(math.floor((self.end - self.start) * self.fps / self.speed + 1e-9)) + 1

    @property
    def times(self) -> np.ndarray:
        """(N,) the recording time of every video frame (s)."""
        return self.start + np.arange(self.count) * (self.speed / self.fps)


def plan_video(recording, path, *, start: float | None = None, end: float | None = None, speed: float = 1.0,
               camera: str = "iso", size=(1280, 720), fps: float | None = None, captions: bool = True) -> VideoPlan:
    """Check a video request against a recording before anything is drawn.

    Args:
        recording: the :class:`~sim.replay.recording.Recording`.
        path: ``.mp4`` or ``.gif``.
        start, end: recording times (s; default its first and last frame).
        speed: recording seconds per video second (0.25: four times slower), 1/64..16.
        camera: ``iso``, ``front``, ``side``, ``top`` or ``follow:ID``.
        size: (width, height) pixels (even numbers for MP4).
        fps: video frames per second (default 30 for MP4, 25 for GIF), 1..120.
        captions: draw the clock and the events.

    Raises:
        ReplayError: one line naming the option and what is wrong.
    """
    from sim.render.camera import CAMERAS

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ReplayError(f"--video {path}: expected a name ending in .mp4 or .gif, got {suffix or 'no suffix'!r}")
    first, last = recording.start, recording.end
    start = first if start is None else float(start)
    end = last if end is None else float(end)
    for option, t in (("--from", start), ("--to", end)):
        if not (math.isfinite(t) and first - 1e-9 <= t <= last + 1e-9):
            raise ReplayError(f"{option}: expected a time within the recording, {first:g}..{last:g} s, got {t:g}")
    if end < start:
        raise ReplayError(f"--from {start:g} --to {end:g}: the clip ends before it begins")
    if not (math.isfinite(speed) and 1 / 64 <= speed <= 16):
        raise ReplayError(f"--speed: expected 1/64..16 (0.25 is four times slower), got {speed:g}")
    fps = DEFAULT_FPS[suffix] if fps is None else float(fps)
    if not (math.isfinite(fps) and 1 <= fps <= 120):
        raise ReplayError(f"--fps: expected 1..120, got {fps:g}")
    w, h = (int(s) for s in size)
    if suffix == ".mp4" and (w % 2 or h % 2):
        raise ReplayError(f"--size: an MP4 (H.264, yuv420p) needs an even width and height, got {w}x{h}")
    follow = None
    name = camera
    if camera.startswith("follow:"):
        follow, name = camera.split(":", 1)[1], "iso"
        if follow not in {pid for pid, _ in recording.roster}:
            raise ReplayError(f"--camera follow:{follow}: the recording holds no piece {follow!r}")
    elif camera not in CAMERAS:
        raise ReplayError(f"--camera: expected one of {', '.join(CAMERAS)} or follow:ID, got {camera!r}")
    plan = VideoPlan(path, start, end, float(speed), fps, (w, h), name, follow, captions)
    if plan.count > MAX_FRAMES:
        raise ReplayError(f"--speed {speed:g} over {end - start:g} s makes {plan.count} frames; at most {MAX_FRAMES}")
    return plan


def write_video(recording, plan: VideoPlan, *, renderer=None, progress=None) -> int:
    """Draw and write the video; returns the number of frames written.

    Args:
        recording: the recording.
        plan: from :func:`plan_video`.
        renderer: a :class:`~sim.render.renderer.Renderer` (default the process's offscreen one).
        progress: called as ``progress(done, total)`` after every frame.

    Raises:
        ReplayError: ffmpeg or the file system refused (the message says which); nothing is left behind.
    """
    import imageio_ffmpeg

    from sim.render import default_renderer
    from sim.replay.captions import overlay

    renderer = renderer or default_renderer()
    times = plan.times
    view = _camera(recording, plan)
    first = recording.frame_at(plan.start)
    graph = renderer.graph(recording.scene_of_frame(first))
    suffix = plan.path.suffix.lower()
    plan.path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{plan.path.stem}.", suffix=suffix, dir=plan.path.parent)
    os.close(fd)
    options = (dict(codec="libx264", pix_fmt_out="yuv420p", macro_block_size=2, quality=6,  # crf 20
                    output_params=["-preset", "veryfast"]) if suffix == ".mp4" else
               dict(codec="gif", pix_fmt_out="pal8", macro_block_size=1, quality=None,
                    output_params=["-filter_complex",
                                   "split[a][b];[a]palettegen=stats_mode=single[p];[b][p]paletteuse=new=1"]))
    writer = imageio_ffmpeg.write_frames(tmp, plan.size, fps=plan.fps, ffmpeg_log_level="error", **options)
    follower = _Follower(recording, plan, view)
    events = [e for e in recording.timeline_events if e.kind not in _QUIET]
    try:
        writer.send(None)
        for k, t in enumerate(times):
            g = recording.frame_at(t)
            _show(recording, graph, g)
            renderer.update(graph, follower.view(g, k))
            renderer.draw()
            picture = renderer.read()
            if plan.captions:
                picture = overlay(picture, _clock(t, plan.speed), _captions(recording, events, t, plan))
            writer.send(np.ascontiguousarray(picture[..., :3]))
            if progress is not None:
                progress(k + 1, len(times))
        writer.close()
        atomic.finish(tmp, plan.path)
    except (OSError, RuntimeError, BrokenPipeError) as e:
        _discard(writer, tmp)
        raise ReplayError(f"--video {plan.path}: cannot write the video ({e})") from None
    except BaseException:
        _discard(writer, tmp)
        raise
    finally:
        renderer.release()
    return len(times)


_QUIET = frozenset({"moved", "left_support", "fell", "came_to_rest"})


def _discard(writer, tmp: str) -> None:
    with contextlib.suppress(Exception):  # ffmpeg may be gone already; the file goes anyway
        writer.close()
    Path(tmp).unlink(missing_ok=True)


def _show(recording, graph, g: int) -> None:
    """Set the graph to frame ``g``: pieces that came or went added or removed, every pose as recorded."""
    ids, poses = recording.frame(g)
    if graph.ids != ids:
        numbers, _ = recording.track.at(g)
        wanted = set(ids)
        for pid in [i for i in graph.ids if i not in wanted]:
            graph.remove_piece(pid)
        have = set(graph.ids)
        for pid, k in zip(ids, numbers):
            if pid not in have:
                graph.add_piece(recording.piece(k))
    row = {pid: r for r, pid in enumerate(ids)}
    graph.set_poses(poses[[row[pid] for pid in graph.ids]])


def _camera(recording, plan: VideoPlan):
    """One view for the whole clip: framing every piece at (a sample of) its frames."""
    from sim.render.camera import scene_camera

    union = framing_scene(recording, recording.frame_at(plan.start), recording.frame_at(plan.end))
    return scene_camera(union, plan.size, plan.camera)


def framing_scene(recording, first: int, last: int, samples: int = 24):
    """A scene holding every piece at ``samples`` frames from ``first`` to ``last`` (each piece several times):
    what a camera frames to keep falling pieces in the picture over that stretch (never drawn as such)."""
    sample = np.unique(np.linspace(first, last, min(last - first + 1, samples)).astype(int))
    scenes = [recording.scene_of_frame(int(g)) for g in sample]
    return scenes[0].with_pieces(p for s in scenes for p in s.pieces)


class _Follower:
    """The view of each frame: fixed, or moved along with the followed piece (smoothed)."""

    def __init__(self, recording, plan: VideoPlan, view):
        from sim.replay.player import piece_position

        self._position = piece_position
        self.recording, self.plan, self.base = recording, plan, view
        self._anchor = None
        self._shift = np.zeros(3)

    def view(self, g: int, k: int):
        if self.plan.follow is None:
            return self.base
        from dataclasses import replace

        pos = self._position(self.recording, self.plan.follow, g)
        if pos is None:
            return replace(self.base, eye=tuple(np.add(self.base.eye, self._shift)),
                           target=tuple(np.add(self.base.target, self._shift)))
        if self._anchor is None:
            self._anchor = pos
        wanted = pos - self._anchor
        blend = 1.0 - math.exp(-1.0 / (self.plan.fps * FOLLOW_SMOOTHING)) if k else 1.0
        self._shift = self._shift + (wanted - self._shift) * blend
        return replace(self.base, eye=tuple(np.add(self.base.eye, self._shift)),
                       target=tuple(np.add(self.base.target, self._shift)))


def _clock(t: float, speed: float) -> str:
    slow = "" if speed == 1 else f"  x{speed:g}"
    return f"{t:6.2f} s{slow}"


def _captions(recording, events, t: float, plan: VideoPlan) -> list[str]:
    """The captions of the events shown at recording time ``t``: those of the last ``CAPTION_SECONDS`` of video."""
    from sim.replay.captions import CAPTION_SECONDS
    from sim.replay.player import caption

    since = t - CAPTION_SECONDS * plan.speed
    return [f"{e.time:.2f} s  {caption(recording, e)}" for e in events if since < e.time <= t + 1e-9]
