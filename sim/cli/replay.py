"""``towerlab replay`` (the replay window, a recording's summary, or a video of it) and ``towerlab penalty``
(its collapse verdict)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import console, emit_json, note_line, progress, safe, writable_output
from sim.errors import TowerlabError
from sim.games import registry
from sim.limits import MAX_ACTIONS, MAX_SCRIPT_SECONDS

DEFAULT_WINDOW = "1280x800"
DEFAULT_VIDEO = "1280x720"
PENALTY_VARIANT_HELP = ("Judge by this variant when the recording names none (or otherwise): any variant of its "
                        "game, or the collapse rule it follows: " + "; ".join(
                            "|".join(dict.fromkeys(v.penalty for v in registry.variants(g))) + f" ({g.capitalize()})"
                            for g in registry.games()) + ".")


class ReplayArgumentError(TowerlabError):
    """A replay option that cannot be used."""


def register(app: typer.Typer) -> None:
    app.command()(replay)
    app.command()(penalty)


KEY_HELP = ("Check that the recording was signed with this table's key file (serve --key): a note says "
            "'signed by this table's key', anything else (unsigned, another key, changed since) exits 2.")
KeyOption = Annotated[Path | None, typer.Option("--key", help=KEY_HELP, show_default=False)]


def _load(path: Path, quiet: bool, key_path: Path | None = None):
    """The recording, its notes printed (unless ``quiet``), its signature checked with ``key_path``'s key."""
    from sim.replay import load_recording
    from sim.replay.signing import load_key

    key = load_key(key_path) if key_path is not None else None  # a bad key file before the recording is read
    recording = load_recording(path)
    if key is not None:
        try:
            recording.check_key(key)
        except TowerlabError as e:
            raise ReplayArgumentError(f"{path}: {e}") from None
    if not quiet:
        for note in recording.notes:
            note_line(f"{path}: {note}")
        if key is not None:
            note_line(f"{path}: signed by this table's key ({key_path}, key id {key.key_id})")
        elif recording.signature is not None:
            note_line(f"{path}: signed by a table's key (key id {recording.signature.key_id}); --key FILE checks "
                      "that it is that table's")
    return recording


def replay(
    recording_path: Annotated[Path, typer.Argument(metavar="R", help="Recording file.", show_default=False)],
    summary: Annotated[bool, typer.Option("--summary", "--info", help="Print what the recording holds (no window)."
                                          )] = False,
    actions: Annotated[Path | None, typer.Option(
        "--actions", help="Run these replay actions (a JSON list: play, pause, seek, step, jump, follow, compare, "
                          f"camera, wait, screenshot, resimulate): at most {MAX_ACTIONS} actions and "
                          f"{MAX_SCRIPT_SECONDS:g} s of waiting (docs/limits.md).", show_default=False)] = None,
    screenshot: Annotated[Path | None, typer.Option(
        "--screenshot", help="Save a full-quality picture (.png/.jpg) once the actions are done.",
        show_default=False)] = None,
    at: Annotated[float | None, typer.Option(
        "--at", help="Start at this recording time (s) instead of the first frame.", show_default=False)] = None,
    exit_after: Annotated[bool, typer.Option("--exit", help="Close once the actions and the screenshot are done.")
                          ] = False,
    offscreen: Annotated[bool, typer.Option("--offscreen", help="No window: run the actions and take the screenshot "
                                                                "offscreen (the default without a display).")] = False,
    video: Annotated[Path | None, typer.Option(
        "--video", help="Write a video: OUT.mp4 (H.264) or OUT.gif.", show_default=False)] = None,
    start: Annotated[float | None, typer.Option(
        "--from", help="Recording time the video starts at (s; default its start).", show_default=False)] = None,
    end: Annotated[float | None, typer.Option(
        "--to", help="Recording time the video ends at (s; default its end).", show_default=False)] = None,
    speed: Annotated[float, typer.Option("--speed", help="Recording seconds per video second (0.25: slow motion).")
                     ] = 1.0,
    camera: Annotated[str, typer.Option(
        "--camera", help="iso, front, side, top, or follow:ID (the camera moves with a piece).")] = "iso",
    size: Annotated[str | None, typer.Option(
        "--size", help=f"WIDTHxHEIGHT in pixels: the window's and its screenshots' (default {DEFAULT_WINDOW}) or the "
                       f"video's (default {DEFAULT_VIDEO}).", show_default=False)] = None,
    fps: Annotated[float | None, typer.Option(
        "--fps", help="Video frames per second (default 30 for MP4, 25 for GIF).", show_default=False)] = None,
    captions: Annotated[bool, typer.Option("--captions/--no-captions", help="Draw the clock and the events.")
                        ] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary (or the video written) as JSON.")
                       ] = False,
    key: KeyOption = None,
) -> None:
    """Replay a recording: in the replay window, as a summary, or as a video.

    In the window: play, pause, step, slow motion, scrub, jump to the first
    knock-down, follow a piece, before and after side by side, re-simulate
    from any frame.

    Poses are set from the recording, never simulated again, so a replay shows
    exactly what happened. --summary (or --json) prints what the recording
    holds; --video writes a video of it drawn offscreen; --actions, --screenshot,
    --at and --exit script the window (or, with --offscreen or without a display,
    run without one). F1 in the window lists every control
    (docs/recording-format.md). Exit 0; 2 on a recording that cannot be read
    (truncated before its first second, damaged, of an unsupported format) or a
    bad option, before anything is written.
    """
    from sim.cli.render import parse_size

    _one_mode(summary, as_json, video, window=(("--actions", actions is not None),
                                               ("--screenshot", screenshot is not None), ("--at", at is not None),
                                               ("--exit", exit_after), ("--offscreen", offscreen)),
              clip=(("--from", start is not None), ("--to", end is not None), ("--speed", speed != 1.0),
                    ("--fps", fps is not None), ("--camera", camera != "iso"), ("--no-captions", not captions)))
    w, h = parse_size(size or (DEFAULT_VIDEO if video is not None else DEFAULT_WINDOW))
    recording = _load(recording_path, as_json, key)
    if summary or (as_json and video is None):
        if as_json:
            emit_json(recording.summary())
        else:
            _print_summary(recording_path, recording.summary())
        return
    if video is not None:
        _video(recording_path, recording, video, start, end, speed, camera, (w, h), fps, captions, as_json)
        return
    from sim.viewer.replay.run import check_at, headless, load_script, run_offscreen, run_window

    check_at(recording, at)
    script = load_script(actions, recording) if actions is not None else None
    if screenshot is not None:
        writable_output(screenshot, "--screenshot")
        if screenshot.suffix.lower() not in (".png", ".jpg", ".jpeg"):
            raise ReplayArgumentError(f"--screenshot {screenshot}: expected a .png, .jpg or .jpeg file name")
    no_window = offscreen or headless()
    scripted = script is not None or screenshot is not None or exit_after
    if no_window and not scripted:
        raise ReplayArgumentError("no display ($DISPLAY is not set) to open the replay window on; give --summary, "
                                  "--video, or --actions/--screenshot to run offscreen")
    try:
        if no_window:
            run_offscreen(recording, script or [], screenshot, at, (w, h))
        else:
            run_window(recording, recording_path, script, screenshot, at, exit_after, (w, h))
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


def _one_mode(summary: bool, as_json: bool, video, window, clip) -> None:
    """Refuse options of one way to replay given to another (they would be ignored): the window's with a
    summary or a video, a video's without one.

    Args:
        window, clip: (option, whether it was given) of the window's options and of the video's.
    """
    if summary and video is not None:
        raise ReplayArgumentError("--summary and --video: give one (a summary is printed, a video written)")
    mode = "--video" if video is not None else "--summary" if summary else "--json" if as_json else None
    given = [name for name, on in window if on]
    if mode is not None and given:
        raise ReplayArgumentError(f"{given[0]}: for the replay window, not with {mode}")
    given = [name for name, on in clip if on]
    if video is None and given:
        raise ReplayArgumentError(f"{given[0]}: only with --video")


def _video(recording_path, recording, video, start, end, speed, camera, size, fps, captions, as_json) -> None:
    from sim.replay.video import plan_video, write_video

    w, h = size
    plan = plan_video(recording, video, start=start, end=end, speed=speed, camera=camera, size=(w, h), fps=fps,
                      captions=captions)
    writable_output(video, "--video")
    with progress(f"rendering {video.name}", quiet=as_json, unit="frames") as update:
        frames = write_video(recording, plan, progress=update)
    seconds = frames / plan.fps
    if as_json:
        emit_json({"recording": str(recording_path), "video": str(video), "frames": frames, "size": [w, h],
                   "fps": plan.fps, "seconds": seconds, "from_s": plan.start, "to_s": plan.end, "speed": plan.speed,
                   "camera": camera})
        return
    console.print(f"{safe(recording_path)} -> {safe(video)}: {frames} frames, {w}x{h}, {seconds:.2f} s of video "
                  f"({plan.start:.2f}..{plan.end:.2f} s at x{plan.speed:g}, camera {safe(camera)})")


def _print_summary(path: Path, s: dict) -> None:
    game = s["game"] + (f" ({s['variant']})" if s["variant"] else "")
    players = ", ".join(s["players"]) or "none recorded"
    console.print(f"{safe(path)}: {safe(s['source'])} recording of {safe(game)}, players {safe(players)}")
    console.print(f"  {s['duration_s']:.2f} s ({s['start_s']:.2f}..{s['end_s']:.2f} s), {s['frames']} frames, "
                  f"{s['pieces']} pieces, {s['actions']} actions; towerlab {safe(s['software_version'])}, "
                  f"{'complete' if s['complete'] else 'not closed'}")
    if s["events"]:
        console.print("  events: " + ", ".join(f"{k.replace('_', ' ')} {n}" for k, n in sorted(s["events"].items())))
    first = s["first_knocked_down_s"]
    console.print(f"  first knocked down at {first:.2f} s" if first is not None else "  nothing knocked down")


def penalty(
    recording_path: Annotated[Path, typer.Argument(metavar="R", help="Recording file.", show_default=False)],
    variant: Annotated[str | None, typer.Option(
        "--variant", help=PENALTY_VARIANT_HELP, show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
    key: KeyOption = None,
) -> None:
    """The collapse verdict of a recording by the rules of its game.

    Which pieces were knocked down and when, who caused it (the player whose
    action came last before the first knocked-down piece, with the action and
    the piece), and the consequence the game's rule imposes. Exit 0 whatever
    the verdict (no collapse is a verdict too); 2 on a recording that cannot
    be read. With --key, the verdict is given only for a recording signed with
    that table's key (docs/recording-format.md, what the digests prove).
    """
    from sim.replay.penalty import settle

    recording = _load(recording_path, as_json, key)
    verdict = settle(recording, variant)
    if as_json:
        emit_json(verdict.to_json())
        return
    if verdict.variant_note:
        note_line(f"{recording_path}: {verdict.variant_note}")
    game = verdict.game + (f" ({verdict.variant})" if verdict.variant else "")
    if not verdict.collapses:
        console.print(f"{safe(recording_path)}: {safe(game)}: nothing was knocked down")
    for c in verdict.collapses:
        console.print(f"{safe(recording_path)}: {safe(game)}: collapse at {c.time:.2f} s")
        knocked = ", ".join(f"{p} ({c.knocked_at[p]:.2f} s)" for p in c.pieces)
        console.print(f"  knocked down: {safe(knocked)}")
        cause = c.cause
        if cause is None:
            console.print("  caused by: no action before it (it fell by itself)")
        else:
            console.print(f"  caused by: {safe(cause.actor or 'no player named')}: {safe(cause.describe())} "
                          f"at {cause.time:.2f} s")
    console.print(f"  rule: {safe(verdict.rule)}")
    for line in verdict.lines:
        console.print(f"  [bold]{safe(line)}[/]")
