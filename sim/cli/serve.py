"""``towerlab serve GAME``: a table that players join from other machines (docs/network.md)."""

from __future__ import annotations

import asyncio
import math
import signal
import socket
import sys
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.play import GAMES_HELP, TURN_SECONDS, VARIANTS_HELP, PlayArgumentError, bot_levels
from sim.errors import TowerlabError, printable

PORT = 8765
"""The table's port unless ``--port`` says otherwise."""


class ServeError(TowerlabError):
    """A serve option that cannot be used."""


def register(app: typer.Typer) -> None:
    app.command()(serve)


def serve(
    game: Annotated[str | None, typer.Argument(help=GAMES_HELP[:-1] + " (with --resume: the autosave's, or "
                                                     "nothing).", show_default=False)] = None,
    players: Annotated[str | None, typer.Option("--players", help="The seats in turn order, e.g. red,blue,green "
                                                                  "(as towerlab play takes them).")] = None,
    variant: Annotated[str | None, typer.Option("--variant", help=VARIANTS_HELP)] = None,
    seed: Annotated[int | None, typer.Option("--seed", min=0, help="The die, the deal and the set-up's shuffle "
                                                                  "(default 0).")] = None,
    turn_seconds: Annotated[float | None, typer.Option(
        "--turn-seconds", min=TURN_SECONDS[0], max=TURN_SECONDS[1],
        help="Tohuwabohu: a turn's length (s), a house rule.")] = None,
    host: Annotated[str | None, typer.Option("--host", help="Where to listen: 127.0.0.1 (this machine only, the "
                                                            "default), or an address of this machine others reach "
                                                            "(0.0.0.0: every one).")] = None,
    port: Annotated[int | None, typer.Option("--port", min=0, max=65535,
                                             help=f"The port (default {PORT}; 0: any free one).")] = None,
    resume: Annotated[Path | None, typer.Option("--resume", help="Serve the table of this autosave again, where it "
                                                                 "was saved: the same links work again and the "
                                                                 "players' windows come back by themselves.")
                      ] = None,
    autosave: Annotated[Path | None, typer.Option("--autosave", help="The autosave's file (a saved game; default: "
                                                                     "towerlab-<game>-<date>-<time>.json here, "
                                                                     "or the --resume file).")] = None,
    autosave_seconds: Annotated[float, typer.Option("--autosave-seconds", min=0.5, max=3600.0,
                                                    help="Seconds between two autosaves.")] = 5.0,
    record: Annotated[Path | None, typer.Option("--record", help="Record the game into this file (.tlrec; default: "
                                                                 "a new file in the recordings folder).")] = None,
    no_record: Annotated[bool, typer.Option("--no-record", help="Do not record the game.")] = False,
    key: Annotated[Path | None, typer.Option("--key", help="Sign the recording with this table's key file (made "
                                                           "there, readable by you alone, if it is not there): "
                                                           "'towerlab replay/penalty --key FILE' then tells a "
                                                           "recording of this table from a forged one.",
                                             show_default=False)] = None,
    absent: Annotated[str | None, typer.Option("--absent", help="Once an absent seat's time is up: pause (the game "
                                                                "waits for it, the default) or go-on (its clock "
                                                                "runs, an untimed turn of it is ended).")] = None,
    seat_timeout: Annotated[float | None, typer.Option("--seat-timeout", min=1.0, max=86400.0,
                                                       help="Seconds an absent seat is waited for (default 60)."
                                                       )] = None,
    bot: Annotated[list[str] | None, typer.Option("--bot", metavar="SEAT:LEVEL",
                                                  help="A computer player at SEAT (1 random, 2 greedy, 3 planning; "
                                                       "docs/bots.md), once per computer player: it plays on the "
                                                       "server, at a person's pace; its seat's link is not "
                                                       "printed.")] = None,
) -> None:
    """Serve a game that players join from other machines (docs/network.md).

    Prints one link per seat (each with its seat's secret: give each player
    their own) and a spectators' link; a player opens a window on the table
    with `towerlab play --join LINK`, a spectator with `towerlab play --watch
    LINK`. The server runs the physics and the referee; the windows show what
    it sends. --bot SEAT:LEVEL seats a computer player (e.g. --bot blue:2).
    It autosaves the game (--resume AUTOSAVE serves it again; give its --bot
    again), records it (.tlrec) and shows a status line. Ctrl-C stops it."""
    from sim.net.links import is_loopback, new_token
    from sim.net.seatfile import SeatFile, read_seats, seats_path, write_seats
    from sim.net.table import ABSENT, Setup
    from sim.viewer.play.save import default_path

    if record is not None and no_record:
        raise PlayArgumentError("--record and --no-record: give one of them")
    if key is not None and no_record:
        raise PlayArgumentError("--key: signs the recording; not with --no-record")
    if absent is not None and absent not in ABSENT:
        raise ServeError(f"--absent: expected one of {', '.join(ABSENT)}, got {absent!r}")
    if turn_seconds is not None and not math.isfinite(turn_seconds):
        raise ServeError(f"--turn-seconds: expected seconds, got {turn_seconds}")
    saved, kept = None, None
    if resume is not None:
        from sim.cli.play import saved_game

        saved = saved_game(resume, game, players, variant, seed, turn_seconds)
        setup = Setup(saved.game, saved.variant, saved.players, saved.seed, saved.turn_seconds)
        if seats_path(resume).exists():
            kept = read_seats(seats_path(resume), saved.players)
    else:
        if game is None:
            raise PlayArgumentError("GAME: give the game to serve (tohuwabohu, talo or babylon), or --resume FILE")
        names = tuple(p.strip() for p in players.split(",") if p.strip()) if players else None
        setup = Setup(game, variant, names, 0 if seed is None else seed, turn_seconds)
    host = host or (kept.host if kept else "127.0.0.1")
    port = PORT if port is None and kept is None else port if port is not None else kept.port
    absent = absent or (kept.absent if kept else "pause")
    seat_timeout = seat_timeout or (kept.seat_timeout if kept else 60.0)
    autosave = autosave or resume or default_path(setup.game)
    _check_writable(autosave, "--autosave")
    _check_port(host, port)
    recording = None if no_record else _recording(record, setup.game)
    table_key = _table_key(key)

    table = _table(setup, saved, recording, absent, seat_timeout, table_key)
    try:
        bots = bot_levels(bot or [], table.players, table.setup.game, table.variant.name)
    except PlayArgumentError:
        table.close()
        raise
    tokens = kept.seats if kept else {p: new_token() for p in table.players}
    watch = kept.watch if kept else new_token()
    from sim.net.server import Server

    server = Server(table, tokens, watch, host=host, port=port, autosave=autosave, autosave_seconds=autosave_seconds,
                    advertised=_advertised(host))
    server.bots = bots
    code = 0
    try:
        asyncio.run(_serve(server, lambda s: _ready(s, setup, autosave, recording, resume, is_loopback(host),
                                                    kept, write_seats, SeatFile, seats_path, absent, seat_timeout)))
    except KeyboardInterrupt:
        code = 130
    except OSError as e:
        table.close()
        raise ServeError(f"--port {port}: cannot listen on {host}:{port} ({e.strerror or e})") from None
    table.close()
    if server.runner is not None and server.runner.failed is not None:
        print("towerlab: error: the table stopped on a defect (above); the autosave holds the game as it was "
              "last saved", file=sys.stderr)
        raise typer.Exit(1)
    line = table.referee.summary() + f"; saved in {autosave} (towerlab serve --resume {autosave})"
    if recording is not None:
        line += f"; recorded in {recording}"
    print(printable(line))
    if code:
        raise typer.Exit(code)


async def _serve(server, ready) -> None:
    from sim.net.bots import start_bots

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, server.stop)
    status, players = None, []

    def started(s) -> None:
        nonlocal status, players
        ready(s)
        players = start_bots(s, s.bots)
        status = asyncio.create_task(_status(s))
    try:
        await server.serve(started)
    finally:
        if status is not None:
            status.cancel()
        for p in players:
            p.leave()
        for p in players:
            p.stop()


async def _status(server) -> None:
    """The status line on stderr: rewritten in place on a terminal, else a line when what it says changes (the
    seats, the turn) or every 30 s."""
    tty = sys.stderr.isatty()
    last, quiet = "", 0
    while True:
        await asyncio.sleep(1.0)
        line = server.status()
        head = line.split("; ")[:4]
        quiet += 1
        if tty:
            sys.stderr.write("\r\x1b[K" + printable(line)[:200])
            sys.stderr.flush()
        elif head != last or quiet >= 30:
            print(printable(line), file=sys.stderr, flush=True)
            last, quiet = head, 0


def _ready(server, setup, autosave, recording, resume, loopback, kept, write_seats, SeatFile, seats_path, absent,
           seat_timeout) -> None:
    """The table is listening: its seats file written, its links printed."""
    links = server.links()
    write_seats(seats_path(autosave), SeatFile({n: links[n].token for n in server.seats}, links[None].token,
                                               server.host, server.port, absent, seat_timeout))
    t = server.table
    head = f"{t.setup.game} ({t.session.variant}; {', '.join(t.players)})"
    print(printable(f"towerlab serve: {head} at ws://{server.advertised}:{server.port}"
                    + (f", resumed from {resume}" if resume else "")))
    width = max(len(n) for n in t.players)
    for n in t.players:
        if n in server.bots:
            print(printable(f"  {n + ':':{width + 1}} a computer player (level {server.bots[n]})"))
        else:
            print(printable(f"  {n + ':':{width + 1}} towerlab play --join '{links[n].url}'"))
    print(printable(f"  {'watch:':{width + 1}} towerlab play --watch '{links[None].url}'"))
    if loopback:
        print("  (this machine only; --host 0.0.0.0 lets other machines join)")
    else:
        print("  each link carries its seat's secret: send each player their own, privately (whoever has a "
              "seat's link plays that seat); the connection is not encrypted")
    print(printable(f"  autosave: {autosave} (towerlab serve --resume {autosave}); seats' secrets in "
                    f"{seats_path(autosave)}"))
    if recording is not None:
        signed = t.recording.recorder.key if t.recording is not None else None
        print(printable(f"  recording: {recording}" + (f" (signed with {signed.path}, key id {signed.key_id})"
                                                          if signed is not None else "")))
    if kept is None and resume is not None:
        print("  (no seats file beside the autosave: new links, the old ones no longer work)")
    sys.stdout.flush()


def _table_key(path):
    """The table's key (made at ``path`` if no file is there, which is said), or None."""
    if path is None:
        return None
    from sim.replay.signing import key_for_table

    key, made = key_for_table(path)
    if made:
        print(printable(f"towerlab serve: made the table's key {path} (key id {key.key_id}): keep it private; "
                        f"'towerlab penalty RECORDING --key {path}' checks a recording of this table"))
    return key


def _table(setup, saved, recording, absent, seat_timeout, key=None):
    from sim.fieldcheck import FieldError
    from sim.net.table import ServedTable
    from sim.viewer.play.save import file_error

    try:
        table = ServedTable(setup, saved=saved, record=recording, absent=absent, seat_timeout=seat_timeout, key=key)
    except FieldError as e:
        raise file_error(saved.path, e) from None
    if saved is not None:
        table.referee.resumed(saved.path)
    return table


def _recording(record, game) -> Path:
    from sim.cli.common import writable_output
    from sim.viewer.control.recording import default_recording

    if record is None:
        return default_recording(game)
    writable_output(record, "--record")
    return record


def _check_writable(path: Path, option: str) -> None:
    from sim.cli.common import writable_output

    writable_output(path, option)


def _check_port(host: str, port: int) -> None:
    """Refuse a port in use before the table is set up (seconds), with one line."""
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise ServeError(f"--host {host}: not an address of this machine ({e.strerror})") from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError as e:
            why = "in use: another server listens there; give another with --port" \
                if e.errno == 98 else e.strerror or str(e)
            raise ServeError(f"--port {port}: {host}:{port} is {why}" if e.errno == 98 else
                             f"--host {host} --port {port}: cannot listen there ({why})") from None


def _advertised(host: str) -> str:
    """The host the links name: the one listened on, or this machine's name for every address."""
    return socket.gethostname() if host in ("0.0.0.0", "::", "") else host
