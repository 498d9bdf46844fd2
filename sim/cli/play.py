"""``towerlab play tohuwabohu|talo|babylon``: a game played in the viewer, hot seat, the program as the referee."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import distinct_files, writable_output
from sim.errors import TowerlabError
from sim.games import registry
from sim.limits import MAX_ACTIONS, MAX_SCRIPT_SECONDS


def _or(names) -> str:
    names = list(names)
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)


GAMES_HELP = _or(registry.games()) + "."
VARIANTS_HELP = "; ".join(f"{g.capitalize()}: {_or(v.name for v in registry.variants(g))}"
                          for g in registry.games()) + " (the first is the default)."


class PlayArgumentError(TowerlabError):
    """A play option that cannot be used."""


def register(app: typer.Typer) -> None:
    app.command()(play)


def play(
    game: Annotated[str, typer.Argument(help=GAMES_HELP)],
    players: Annotated[str | None, typer.Option("--players", help="The players in turn (seat) order, e.g. "
                                                                  "red,blue,green (Talo: pawn colours, Fantasy: any "
                                                                  "names; Babylon: noble colours; Tohuwabohu: any "
                                                                  "names).")] = None,
    variant: Annotated[str | None, typer.Option("--variant", help=VARIANTS_HELP)] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, help="The die, the deal and the set-up's shuffle (an integer "
                                                           ">= 0).")] = 0,
    actions: Annotated[Path | None, typer.Option("--actions", help="Play these actions (a JSON list: the viewer's "
                                                                   "and the game's own) through the viewer: at most "
                                                                   f"{MAX_ACTIONS} actions and "
                                                                   f"{MAX_SCRIPT_SECONDS:g} s of simulated time "
                                                                   "(docs/limits.md).")] = None,
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
    g = new_game(game, names, variant, seed)
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
    else:
        _window(g, plugins, referee, script, screenshot, exit_after, (w, h), title)


def _offscreen(g, plugins, script, screenshot, size) -> None:
    from sim.viewer.controller import Controller
    from sim.viewer.script import run_offscreen

    run_offscreen(Controller(g.scene, threaded=False, size=size, supply=g.supply, plugins=plugins), script, screenshot)


def _window(g, plugins, referee, script, screenshot, exit_after, size, title) -> None:
    from sim.viewer.controller import Controller
    from sim.viewer.play.draw import PlayWindow
    from sim.viewer.play.draw_fast import FastWindow
    from sim.viewer.window import run_window

    controller = Controller(g.scene, threaded=script is None, size=size, supply=g.supply, plugins=plugins)
    window_plugin = (FastWindow if g.session.variant.startswith("fast") else PlayWindow)(referee)
    code = run_window(controller, title, script, screenshot, exit_after, plugins=[window_plugin])
    if code:
        raise typer.Exit(code)
