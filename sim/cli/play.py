"""``towerlab play tohuwabohu|talo|babylon``: a game played in the viewer, hot seat, the program as the referee."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import distinct_files, writable_output
from sim.errors import TowerlabError


class PlayArgumentError(TowerlabError):
    """A play option that cannot be used."""


TURN_SECONDS = (3.0, 600.0)
"""The shortest and the longest turn (s) ``--turn-seconds`` allows."""


def register(app: typer.Typer) -> None:
    app.command()(play)


def play(
    game: Annotated[str, typer.Argument(help="tohuwabohu, talo or babylon.")],
    players: Annotated[str | None, typer.Option("--players", help="The players in turn (seat) order, e.g. "
                                                                  "red,blue,green (Talo: pawn colours, Fantasy: any "
                                                                  "names; Babylon: noble colours; Tohuwabohu: any "
                                                                  "names).")] = None,
    variant: Annotated[str | None, typer.Option("--variant", help="Talo: green, island or fantasy; Tohuwabohu: "
                                                                  "basic, advanced or pro; Babylon: tactical, expert, "
                                                                  "fast or fast-expert.")
                       ] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, help="The die, the deal and the set-up's shuffle (an integer "
                                                           ">= 0).")] = 0,
    turn_seconds: Annotated[float | None, typer.Option(
        "--turn-seconds", min=TURN_SECONDS[0], max=TURN_SECONDS[1],
        help=f"Tohuwabohu: a turn lasts this long (s, {TURN_SECONDS[0]:g} to {TURN_SECONDS[1]:g}), a house rule; "
             "default the rulebook's 15 s (advanced 10 s).")] = None,
    actions: Annotated[Path | None, typer.Option("--actions", help="Play these actions (a JSON list: the viewer's "
                                                                   "and the game's own) through the viewer.")] = None,
    screenshot: Annotated[Path | None, typer.Option("--screenshot", help="Save a full-quality picture (.png/.jpg) "
                                                                         "once the actions are done.")] = None,
    exit_after: Annotated[bool, typer.Option("--exit", help="Close once the actions and the screenshot are done."
                                             )] = False,
    size: Annotated[str, typer.Option("--size", help="Window size WIDTHxHEIGHT.")] = "1280x800",
    offscreen: Annotated[bool, typer.Option("--offscreen", help="No window: play the actions offscreen (the "
                                                                "default without a display).")] = False,
    record: Annotated[Path | None, typer.Option("--record", help="Record the game into this file (.tlrec; default: "
                                                                 "a new file in the recordings folder, "
                                                                 "~/.local/share/towerlab/recordings).")] = None,
    no_record: Annotated[bool, typer.Option("--no-record", help="Do not record the game.")] = False,
) -> None:
    """Play a game on the desktop, hot seat, with the program as the referee (docs/play.md).

    Players take turns at one screen; the program deals, rolls, times the
    turns and referees every placement, collapse and score. Every game is
    recorded for replay."""
    from sim.cli.render import parse_size
    from sim.viewer.actions import load_actions, specs_with
    from sim.viewer.play.games import new_game
    from sim.viewer.play.mode import Referee

    w, h = parse_size(size)
    names = tuple(p.strip() for p in players.split(",") if p.strip()) if players else None
    if turn_seconds is not None and not math.isfinite(turn_seconds):
        raise PlayArgumentError(f"--turn-seconds: expected seconds from {TURN_SECONDS[0]:g} to {TURN_SECONDS[1]:g}, "
                                f"got {turn_seconds}")
    g = new_game(game, names, variant, seed, turn_seconds)
    if record is not None and no_record:
        raise PlayArgumentError("--record and --no-record: give one of them")
    if screenshot is not None:
        writable_output(screenshot, "--screenshot")
        if screenshot.suffix.lower() not in (".png", ".jpg", ".jpeg"):
            raise PlayArgumentError(f"--screenshot {screenshot}: expected a .png, .jpg or .jpeg file name")
    headless = offscreen or not os.environ.get("DISPLAY")
    if headless and actions is None and screenshot is None and not exit_after:
        raise PlayArgumentError("no display ($DISPLAY is not set) to play on; give --actions or --screenshot to "
                                "play offscreen")
    recording = None
    if not no_record:
        from sim.viewer.recording import SessionRecording, default_recording

        if record is not None:
            writable_output(record, "--record")
            distinct_files(("--actions", actions), ("--record", record))
        recording = SessionRecording(record if record is not None else default_recording(game), seed,
                                     g.session.players, g.session.variant)
    referee = Referee(g, recording)
    plugins = ([recording] if recording is not None else []) + [referee]  # the recording starts first
    script = load_actions(actions, specs_with(plugins)) if actions is not None else None
    if script is not None:
        from sim.viewer.script import check_pieces

        check_pieces(script, g.scene)
    title = f"towerlab play: {game} ({g.session.variant}, {', '.join(g.session.players)})"
    if headless:
        _offscreen(g, plugins, script or [], screenshot, (w, h))
        code = 0
    else:
        code = _window(g, plugins, referee, script, screenshot, exit_after, (w, h), title)
    _said(referee, recording, screenshot)
    if code:
        raise typer.Exit(code)


def _said(referee, recording, screenshot) -> None:
    """The run's last line: what happened in the game, and where its recording and picture went."""
    from sim.errors import printable

    line = referee.summary()
    if recording is not None:
        line += f"; recorded in {recording.path}"
    if screenshot is not None and screenshot.is_file():
        line += f"; picture {screenshot}"
    print(printable(line))


def _offscreen(g, plugins, script, screenshot, size) -> None:
    from sim.viewer.controller import Controller
    from sim.viewer.script import run_offscreen

    run_offscreen(Controller(g.scene, threaded=False, size=size, supply=g.supply, plugins=plugins), script, screenshot)


def _window(g, plugins, referee, script, screenshot, exit_after, size, title) -> int:
    from sim.viewer.controller import Controller
    from sim.viewer.play.draw import PlayWindow
    from sim.viewer.play.draw_fast import FastWindow
    from sim.viewer.window import run_window

    controller = Controller(g.scene, threaded=script is None, size=size, supply=g.supply, plugins=plugins)
    window_plugin = (FastWindow if g.session.variant.startswith("fast") else PlayWindow)(referee)
    return run_window(controller, title, script, screenshot, exit_after, plugins=[window_plugin], window_picture=True)
