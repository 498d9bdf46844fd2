"""``towerlab play tohuwabohu|talo|babylon``: a game played in the viewer, hot seat, the program as the referee."""

from __future__ import annotations

import math
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


TURN_SECONDS = (3.0, 600.0)
"""The shortest and the longest turn (s) ``--turn-seconds`` allows."""


def register(app: typer.Typer) -> None:
    app.command()(play)


def play(
    game: Annotated[str | None, typer.Argument(help=GAMES_HELP[:-1] + " (with --resume: the saved game's, or "
                                                     "nothing).", show_default=False)] = None,
    players: Annotated[str | None, typer.Option("--players", help="The players in turn (seat) order, e.g. "
                                                                  "red,blue,green (Talo: pawn colours, Fantasy: any "
                                                                  "names; Babylon: noble colours; Tohuwabohu: any "
                                                                  "names).")] = None,
    variant: Annotated[str | None, typer.Option("--variant", help=VARIANTS_HELP)] = None,
    seed: Annotated[int | None, typer.Option("--seed", min=0, help="The die, the deal and the set-up's shuffle (an "
                                                                  "integer >= 0; default 0).")] = None,
    turn_seconds: Annotated[float | None, typer.Option(
        "--turn-seconds", min=TURN_SECONDS[0], max=TURN_SECONDS[1],
        help=f"Tohuwabohu: a turn lasts this long (s, {TURN_SECONDS[0]:g} to {TURN_SECONDS[1]:g}), a house rule; "
             "default the rulebook's 15 s (advanced 10 s).")] = None,
    resume: Annotated[Path | None, typer.Option("--resume", help="Go on with a saved game (F5 in the window, or the "
                                                                 "save-game action) exactly where it was saved.")
                      ] = None,
    actions: Annotated[Path | None, typer.Option("--actions", help="Play these actions (a JSON list: the viewer's "
                                                                   "and the game's own) through the viewer: at most "
                                                                   f"{MAX_ACTIONS} actions and "
                                                                   f"{MAX_SCRIPT_SECONDS:g} s of simulated time "
                                                                   "(docs/limits.md).")] = None,
    screenshot: Annotated[Path | None, typer.Option("--screenshot", help="Save the window's picture (.png/.jpg), "
                                                                         "panels and all, once the actions are "
                                                                         "done.")] = None,
    exit_after: Annotated[bool, typer.Option("--exit", help="Close once the actions and the screenshot are done."
                                             )] = False,
    size: Annotated[str, typer.Option("--size", help="Window size WIDTHxHEIGHT.")] = "1280x800",
    offscreen: Annotated[bool, typer.Option("--offscreen", help="No window: play the actions offscreen (the "
                                                                "default without a display).")] = False,
    record: Annotated[Path | None, typer.Option("--record", help="Record the game into this file (.tlrec; default: "
                                                                 "a new file in the recordings folder, "
                                                                 "~/.local/share/towerlab/recordings).")] = None,
    no_record: Annotated[bool, typer.Option("--no-record", help="Do not record the game.")] = False,
    join: Annotated[str | None, typer.Option("--join", help="Play a seat of a served table (towerlab serve): the "
                                                            "seat's link, ws://HOST:PORT/seat/NAME?token=... "
                                                            "(docs/network.md).")] = None,
    watch: Annotated[str | None, typer.Option("--watch", help="Watch a served table: its spectators' link, "
                                                              "ws://HOST:PORT/watch?token=...")] = None,
    bot: Annotated[list[str] | None, typer.Option("--bot", help="A seat played by the computer: SEAT:LEVEL (1 "
                                                                "random, 2 greedy, 3 planning; docs/bots.md), e.g. "
                                                                "--bot blue:3; once per computer player.",
                                                  show_default=False)] = None,
) -> None:
    """Play a game on the desktop, hot seat, with the program as the referee (docs/play.md).

    Players take turns at one screen; the program deals, rolls, times the
    turns and referees every placement, collapse and score. F5 saves the
    game; --resume FILE goes on with it exactly (the turn, the timer, the
    die, the cards). Every game is recorded for replay. The run ends with
    one line: the turns played and the result. --join LINK plays a seat of a
    table served by towerlab serve from another machine, --watch LINK watches
    it (docs/network.md). --bot SEAT:LEVEL lets the computer play a seat: its
    hand moves at a person's pace (K hurries it, I shows its reasoning)."""
    from sim.cli.render import parse_size
    from sim.viewer.control.actions import load_actions, specs_with
    from sim.viewer.play.games import new_game
    from sim.viewer.play.mode import Referee

    w, h = parse_size(size)
    if join is not None or watch is not None:
        given = [name for name, v in (("GAME", game), ("--players", players), ("--variant", variant),
                                      ("--seed", seed), ("--turn-seconds", turn_seconds), ("--resume", resume),
                                      ("--record", record)) if v is not None]
        if join is not None and watch is not None:
            given.insert(0, "--watch")
        if bot:
            given.insert(0, "--bot")
        if given:
            raise PlayArgumentError(f"{given[0]} and --{'join' if join is not None else 'watch'}: a served table "
                                    "is the server's game (its set-up, its recording)")
        from sim.net.joining import play_at_table

        code = play_at_table(join, watch, actions, screenshot, exit_after, offscreen, (w, h))
        if code:
            raise typer.Exit(code)
        return
    saved = saved_game(resume, game, players, variant, seed, turn_seconds)
    if saved is not None:
        game, names, variant, seed, turn_seconds = (saved.game, saved.players, saved.variant, saved.seed,
                                                    saved.turn_seconds)
    else:
        if game is None:
            raise PlayArgumentError("GAME: give the game to play (tohuwabohu, talo or babylon), or --resume FILE")
        names = tuple(p.strip() for p in players.split(",") if p.strip()) if players else None
        if turn_seconds is not None and not math.isfinite(turn_seconds):
            raise PlayArgumentError(f"--turn-seconds: expected seconds from {TURN_SECONDS[0]:g} to "
                                    f"{TURN_SECONDS[1]:g}, got {turn_seconds}")
        seed = 0 if seed is None else seed
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
        from sim.viewer.control.recording import SessionRecording, default_recording

        if record is not None:
            writable_output(record, "--record")
            distinct_files(("--actions", actions), ("--record", record), ("--resume", resume))
        recording = SessionRecording(record if record is not None else default_recording(game), seed,
                                     g.session.players, g.session.variant)
    referee = Referee(g, recording)
    threaded = not headless and actions is None
    seats = bot_seats(bot or [], g, referee, threaded)
    plugins = ([recording] if recording is not None else []) + [referee] + ([seats] if seats else [])
    script = load_actions(actions, specs_with(plugins)) if actions is not None else None
    if script is not None:
        from sim.viewer.control.script import check_pieces

        check_pieces(script, g.scene)
    controller = game_controller(g, referee, recording, saved, threaded=threaded, size=(w, h), seats=seats)
    title = f"towerlab play: {game} ({g.session.variant}, {', '.join(g.session.players)})"
    if headless:
        from sim.viewer.control.script import run_offscreen

        run_offscreen(controller, script or [], screenshot)
        code = 0
    else:
        code = _window(controller, g, referee, script, screenshot, exit_after, title, seats)
    _said(referee, recording, screenshot)
    if code:
        raise typer.Exit(code)


def saved_game(resume, game, players, variant, seed, turn_seconds):
    """The saved game ``--resume`` names (None without it); the set-up is its own."""
    if resume is None:
        return None
    from sim.viewer.play.save import read_game

    given = [name for name, v in (("--players", players), ("--variant", variant), ("--seed", seed),
                                  ("--turn-seconds", turn_seconds)) if v is not None]
    if given:
        raise PlayArgumentError(f"{given[0]}: a resumed game is played as it was saved (its players, variant, "
                                "seed and turn length are the file's)")
    saved = read_game(resume)
    if game is not None and game != saved.game:
        raise PlayArgumentError(f"--resume {resume}: a saved game of {saved.game}, not {game}")
    return saved


def bot_levels(given: list[str], players, game: str, variant: str) -> dict[str, int]:
    """``--bot SEAT:LEVEL`` options (``towerlab play``'s and ``serve``'s) -> seat -> level, in the order given.

    Raises:
        PlayArgumentError: not SEAT:LEVEL, a seat the game does not have or given twice, a level the variant has
            no computer player of.
    """
    from sim.bots.players import make_bot
    from sim.games.play.session import PlayError

    players = list(players)
    levels: dict[str, int] = {}
    for text in given:
        seat, sep, level = text.rpartition(":")
        if not sep or not seat or not level.strip().isdigit():
            raise PlayArgumentError(f"--bot {text}: expected SEAT:LEVEL, e.g. {players[-1]}:2")
        if seat not in players:
            raise PlayArgumentError(f"--bot {text}: no seat {seat!r} in this game (its players: "
                                    f"{', '.join(players)})")
        if seat in levels:
            raise PlayArgumentError(f"--bot {text}: {seat} is given twice")
        try:
            make_bot(int(level), game, variant, None)
        except PlayError as e:
            raise PlayArgumentError(f"--bot {text}: {e}") from None
        levels[seat] = int(level)
    return levels


def bot_seats(given: list[str], g, referee, threaded: bool):
    """The computer players ``--bot`` asks for (``SEAT:LEVEL`` each, :func:`bot_levels`), as the session's
    plug-in; None for none.

    Raises:
        PlayArgumentError: see :func:`bot_levels`.
    """
    if not given:
        return None
    from sim.bots.players import make_bot
    from sim.viewer.play.bots import BotSeats, seat_rng

    players = list(g.session.players)
    levels = bot_levels(given, players, g.variant.game, g.variant.name)
    bots = {seat: make_bot(level, g.variant.game, g.variant.name, seat_rng(g.seed, players.index(seat)))
            for seat, level in levels.items()}
    return BotSeats(referee, bots, levels, threaded=threaded)


def game_controller(g, referee, recording, saved, threaded: bool, size, seats=None, seat_hands=()):
    """The session's controller: the game set up, or, resumed, the saved game restored on it (then recorded from
    there on); ``seats``: the computer players' plug-in, or None; ``seat_hands``: the players, to give each hands of
    their own (a networked table where everyone builds at once), or none. A networked table makes its own the same
    way (:mod:`sim.net.table`)."""
    from sim.fieldcheck import FieldError
    from sim.viewer.control.controller import Controller
    from sim.viewer.play.save import file_error, restore

    after = [seats] if seats is not None else []
    if saved is None:
        plugins = ([recording] if recording is not None else []) + [referee] + after  # the recording starts first
        return Controller(g.scene, threaded=threaded, size=size, supply=g.supply, plugins=plugins, seats=seat_hands)
    controller = Controller(g.scene, threaded=threaded, size=size, supply=g.supply, plugins=[referee, *after],
                            seats=seat_hands)
    try:
        restore(controller, referee, saved.data)
    except FieldError as e:
        controller.close()
        raise file_error(saved.path, e) from None
    if recording is not None:  # recorded from the game as it was saved
        controller.plugins.insert(0, recording)
        recording.attach(controller)
        referee.resumed(saved.path)
    return controller


def _said(referee, recording, screenshot) -> None:
    """The run's last line: what happened in the game, and where its recording and picture went."""
    from sim.errors import printable

    line = referee.summary()
    if recording is not None:
        line += f"; recorded in {recording.path}"
    if screenshot is not None and screenshot.is_file():
        line += f"; picture {screenshot}"
    print(printable(line))


def _window(controller, g, referee, script, screenshot, exit_after, title, seats=None) -> int:
    from sim.viewer.window.build import run_window
    from sim.viewer.window.play.draw import PlayWindow
    from sim.viewer.window.play.draw_fast import FastWindow

    window_plugin = (FastWindow if g.session.variant.startswith("fast") else PlayWindow)(referee)
    plugins = [window_plugin]
    if seats is not None:
        from sim.viewer.window.play.bots import BotWindow

        plugins.append(BotWindow(seats, window_plugin))
    return run_window(controller, title, script, screenshot, exit_after, plugins=plugins, window_picture=True)
