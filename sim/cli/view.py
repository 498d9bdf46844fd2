"""``towerlab view``: build in 3D on the desktop, with live physics and a live stability verdict."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import distinct_files, writable_output
from sim.errors import TowerlabError
from sim.games import registry
from sim.limits import MAX_ACTIONS, MAX_SCRIPT_SECONDS

GAMES = (*registry.games(), "free")
"""What ``--game`` sets up: every registered game's table, or the free table."""


class ViewArgumentError(TowerlabError):
    """A view option that cannot be used."""


def register(app: typer.Typer) -> None:
    app.command()(view)


def view(
    scene: Annotated[Path | None, typer.Argument(help="A scene file; without one, the game's board and "
                                                      "supply.")] = None,
    game: Annotated[str | None, typer.Option("--game", help=", ".join(GAMES[:-1]) + f" or {GAMES[-1]} (without a "
                                                           "scene; default talo).")] = None,
    players: Annotated[str | None, typer.Option("--players", help="Babylon's players, e.g. red,blue,green.")] = None,
    seed: Annotated[int | None, typer.Option("--seed", min=0, help="Shuffle of Tohuwabohu's pieces around the area "
                                                                  "(an integer >= 0; default 0).",
                                             show_default=False)] = None,
    actions: Annotated[Path | None, typer.Option("--actions", help="Run these actions (a JSON list) through the "
                                                                   f"viewer's controller: at most {MAX_ACTIONS} "
                                                                   f"actions and {MAX_SCRIPT_SECONDS:g} s of "
                                                                   "simulated time (docs/limits.md).")] = None,
    screenshot: Annotated[Path | None, typer.Option("--screenshot", help="Save a full-quality picture (.png/.jpg) "
                                                                         "once the actions are done.")] = None,
    exit_after: Annotated[bool, typer.Option("--exit", help="Close once the actions and the screenshot are done."
                                             )] = False,
    size: Annotated[str, typer.Option("--size", help="Window size WIDTHxHEIGHT.")] = "1280x800",
    offscreen: Annotated[bool, typer.Option("--offscreen", help="No window: run the actions and take the "
                                                                "screenshot offscreen (the default without a "
                                                                "display).")] = False,
    recovery: Annotated[Path | None, typer.Option("--recovery", help="The autosave file (default "
                                                                     "~/.local/state/towerlab/recovery.json).")] = None,
    no_recovery: Annotated[bool, typer.Option("--no-recovery", help="No autosave.")] = False,
    record: Annotated[Path | None, typer.Option("--record", help="Record the session into this file (.tlrec; "
                                                                 "default for a session in a window: a new file "
                                                                 "in the recordings folder, "
                                                                 "~/.local/share/towerlab/recordings).")] = None,
    no_record: Annotated[bool, typer.Option("--no-record", help="Do not record the session.")] = False,
) -> None:
    """Open the desktop viewer: build by hand, see what stands and how close it is to falling.

    Pick pieces up, carry them, set them down; undo, save, step back in
    time. F1 in the window lists every control (docs/viewer.md)."""
    from sim.cli.render import parse_size
    from sim.games.setup import setup
    from sim.scene import load_scene
    from sim.viewer.control.actions import load_actions

    w, h = parse_size(size)
    if scene is not None:
        loaded = load_scene(scene)  # a scene that does not load opens nothing: one line, exit 2
        if game is not None and game != loaded.game:
            raise ViewArgumentError(f"--game {game}: {scene} is a {loaded.game} scene")
        for name, given in (("--players", players), ("--seed", seed)):
            if given is not None:
                raise ViewArgumentError(f"{name}: sets up a game's supply; {scene} has its pieces already "
                                        "(leave out the scene, or the option)")
        supply, source = (), str(scene)
    else:
        if game is not None and game not in GAMES:
            raise ViewArgumentError(f"--game: expected one of {', '.join(GAMES)}, got {game!r}")
        names = tuple(p.strip() for p in players.split(",") if p.strip()) if players else None
        loaded = setup(game or "talo", names, seed or 0)
        supply, source = tuple(p.id for p in loaded.pieces), None
    script = load_actions(actions) if actions is not None else None
    if script is not None:
        from sim.viewer.control.script import check_pieces

        check_pieces(script, loaded)
    if screenshot is not None:
        writable_output(screenshot, "--screenshot")
        if screenshot.suffix.lower() not in (".png", ".jpg", ".jpeg"):
            raise ViewArgumentError(f"--screenshot {screenshot}: expected a .png, .jpg or .jpeg file name")
    headless = offscreen or not os.environ.get("DISPLAY")
    if headless and script is None and screenshot is None and not exit_after:
        why = "--offscreen: nothing to do without a window" if offscreen else \
            "no display ($DISPLAY is not set) to open the viewer on"
        raise ViewArgumentError(f"{why}; give --actions or --screenshot to run offscreen")
    scripted = script is not None or screenshot is not None or exit_after
    for given, refused, name in ((record, no_record, "record"), (recovery, no_recovery, "recovery")):
        if given is not None and refused:
            raise ViewArgumentError(f"--{name} and --no-{name}: give one of them")
    if record is not None:
        writable_output(record, "--record")
    if recovery is not None:
        _recovery_file(recovery)
    distinct_files(("SCENE", scene), ("--actions", actions), ("--record", record), ("--recovery", recovery))
    saver = None
    if not no_recovery and (recovery is not None or not scripted):
        from sim.viewer.control.recovery import Recovery

        saver = Recovery(recovery)
    plugins = []
    if record is not None or (not no_record and not scripted):
        from sim.viewer.control.recording import SessionRecording, default_recording

        path = record if record is not None else default_recording(loaded.game)
        plugins.append(SessionRecording(path, seed or 0))
    if headless:
        _offscreen(loaded, source, supply, script or [], screenshot, saver, (w, h), plugins)
    else:
        _window(loaded, source, supply, script, screenshot, exit_after, saver, (w, h), plugins)


def _recovery_file(path: Path) -> None:
    """Check ``--recovery``: a place an autosave can be written, holding nothing or an earlier autosave (which
    the autosave replaces), never another file the autosave would overwrite.

    Raises:
        ViewArgumentError: a file of another kind (a scene, a recording) is there.
        OutputError: it cannot be written.
    """
    from sim.viewer.control.recovery import Recovery, RecoveryError

    writable_output(path, "--recovery")
    try:
        Recovery(path).read()
    except RecoveryError as e:
        raise ViewArgumentError(f"--recovery {e}: not an autosave, and the autosave would overwrite it; give "
                                "another file") from None


def _offscreen(scene, source, supply, script, screenshot, saver, size, plugins) -> None:
    from sim.viewer.control.controller import Controller
    from sim.viewer.control.script import run_offscreen

    run_offscreen(Controller(scene, source=source, threaded=False, recovery=saver, size=size, supply=supply,
                             plugins=plugins), script, screenshot)


def _window(scene, source, supply, script, screenshot, exit_after, saver, size, plugins) -> None:
    from sim.viewer.control.controller import Controller
    from sim.viewer.window.build import run_window

    scripted = script is not None
    controller = Controller(scene, source=source, threaded=not scripted, recovery=saver, size=size, supply=supply,
                            plugins=plugins)
    offer = saver.pending() if saver is not None and not scripted else None
    title = f"towerlab view: {source or scene.title or scene.game}"
    code = run_window(controller, title, script, screenshot, exit_after, offer)
    if code:
        raise typer.Exit(code)
