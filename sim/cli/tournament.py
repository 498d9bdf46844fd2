"""``towerlab tournament GAME --bots 1,2,3``: computer players' levels against each other, round-robin, on all
cores or Dask; wins, draws, scores, Elo with 95% intervals, a plot, every game a recording."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import console, emit_json, err_console, writable_output
from sim.errors import TowerlabError


class TournamentArgumentError(TowerlabError):
    """Options of ``towerlab tournament`` that cannot be used."""


def register(app: typer.Typer) -> None:
    app.command()(tournament)


def parse_levels(text: str) -> list[int]:
    """``1,2,3`` -> [1, 2, 3].

    Raises:
        TournamentArgumentError: not a comma-separated list of whole numbers.
    """
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise TournamentArgumentError(f"--bots: expected levels such as 1,2,3, got {text!r}") from None


def tournament(
    game: Annotated[str, typer.Argument(help="tohuwabohu, talo or babylon.", show_default=False)],
    games: Annotated[int, typer.Option("-n", "--games", help="Games in all (spread over every pairing and seat).",
                                       show_default=False)],
    bots: Annotated[str, typer.Option("--bots", help="The levels that play, e.g. 1,2,3 (1 random, 2 greedy, "
                                                     "3 planning; docs/bots.md).")] = "1,2",
    variant: Annotated[str | None, typer.Option("--variant", help="The variant (default the game's first).",
                                                show_default=False)] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the whole tournament: the same seed plays "
                                                            "the same games.")] = 0,
    workers: Annotated[int | None, typer.Option("--workers", "-j", min=1, help="Local processes (default: every "
                                                                               "core; 1: in this process).",
                                                show_default=False)] = None,
    scheduler: Annotated[str | None, typer.Option("--scheduler", metavar="tcp://HOST:PORT",
                                                  help="Play on a Dask cluster instead of local processes.",
                                                  show_default=False)] = None,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Write every game's row to this .csv; the "
                                                                 "standings' plot goes beside it (.png) and every "
                                                                 "game's recording into a folder of its name.",
                                             show_default=False)] = None,
    max_actions: Annotated[int, typer.Option("--max-actions", min=1, help="A game that takes this many actions "
                                                                          "(the players' and the table's) ends "
                                                                          "there, scored as it stands.")] = 4000,
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as JSON.")] = False,
) -> int:
    """Play computer players of several levels against each other, round-robin.

    Every pairing of levels (every set of as many levels as the game seats)
    plays in turn, each level from every seat; each game has its own seed from
    --seed, so the same seed gives the same games on one core, on many, or on
    a cluster. Prints each level's games, wins, draws, losses, mean score and
    Elo (the first level at 1000) with its 95% interval (a bootstrap over the
    games), and each pair's head-to-head share with its Wilson interval. With
    -o: the games' table (.csv), a plot of the ratings (.png) and each game as
    a recording that `towerlab replay` opens (FOLDER/game-NNNN.tlrec). Ctrl-C
    keeps the finished games and prints the standings so far (exit 130). Exit
    0; 2 on bad input.
    """
    from sim.bots.tournament import run, schedule, standings
    from sim.experiments.execute import default_workers

    levels = parse_levels(bots)
    entries = schedule(game, variant, levels, games, seed, max_actions)
    if workers is not None and scheduler is not None:
        raise TournamentArgumentError("--workers and --scheduler: give one (the cluster has its own workers)")
    if out is not None:
        if out.suffix.lower() != ".csv":
            raise TournamentArgumentError(f"-o: expected a .csv file, got {out}")
        writable_output(out)
        folder = out.with_suffix("")
        folder.mkdir(parents=True, exist_ok=True)
    finished: list[dict] = []

    def done(r: dict) -> None:
        finished.append(r)
        if out is not None:
            from sim.bots.record import write_recording

            write_recording(r, folder / f"game-{r['index']:04d}.tlrec")
        if not as_json and err_console.is_terminal:
            err_console.print(f"game {len(finished)}/{len(entries)} done", end="\r")

    interrupted = False
    try:
        run(entries, workers=default_workers() if workers is None else workers, scheduler=scheduler, done=done)
    except KeyboardInterrupt:
        interrupted = True
    finished.sort(key=lambda r: r["index"])
    table = standings(finished, levels, seed)
    table.update(game=game, variant=entries[0].variant, seed=seed, planned=len(entries), interrupted=interrupted)
    if out is not None:
        _write_outputs(out, finished, table)
    if as_json:
        emit_json(table)
    else:
        _print(table)
    return 130 if interrupted else 0


def game_rows(results: list[dict]) -> str:
    """The games' table as CSV text: one row a game."""
    from sim.bots.tournament import winners_of

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["index", "seed", "game", "variant", "seats", "levels", "winners", "winner_levels", "scores",
                "ended", "moves", "refused", "cpu_max_s"])
    for r in results:
        won = winners_of(r)
        decisions = [m["cpu"] for m in r["moves"] if m["decision"] is not None]
        w.writerow([r["index"], r["seed"], r["game"], r["variant"], ";".join(r["players"]),
                    ";".join(str(r["levels"][p]) for p in r["players"]), ";".join(won),
                    ";".join(str(r["levels"][p]) for p in won), json.dumps(r["outcome"]["scores"], sort_keys=True),
                    r["ended"], len(r["moves"]),
                    sum(1 for m in r["moves"] if m["refused"] is not None and m["player"] is not None),
                    f"{max(decisions, default=0.0):.3f}"])
    return buf.getvalue()


def _write_outputs(out: Path, results: list[dict], table: dict) -> None:
    from sim.atomic import write_bytes, write_text

    write_text(out, game_rows(results))
    write_bytes(out.with_suffix(".png"), _plot(table))


def _plot(table: dict) -> bytes:
    """The ratings with their intervals, as PNG bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = table["levels"]
    fig, ax = plt.subplots(figsize=(5, 3.2), dpi=120)
    x = [f"level {r['level']}" for r in rows]
    y = [r["elo"] for r in rows]
    err = [[r["elo"] - r["elo_low"] for r in rows], [r["elo_high"] - r["elo"] for r in rows]]
    ax.errorbar(x, y, yerr=err, fmt="o", capsize=6, color="#1f5fa8")
    ax.set_ylabel("Elo (95% interval)")
    ax.set_title(f"{table['game']} {table['variant']}: {table['games']} games, seed {table['seed']}")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def _print(table: dict) -> None:
    from rich.table import Table

    head = f"{table['game']} {table['variant']}: {table['games']} of {table['planned']} games, seed {table['seed']}"
    if table["interrupted"]:
        head += " (interrupted: the standings so far)"
    t = Table(title=head)
    for col in ("level", "games", "wins", "draws", "losses", "mean score", "Elo", "95% interval"):
        t.add_column(col, justify="right")
    for r in table["levels"]:
        t.add_row(str(r["level"]), str(r["games"]), str(r["wins"]), str(r["draws"]), str(r["losses"]),
                  f"{r['score']:.2f}", f"{r['elo']:.0f}", f"{r['elo_low']:.0f} .. {r['elo_high']:.0f}")
    console.print(t)
    for h in table["head_to_head"]:
        console.print(f"level {h['level']} vs {h['against']}: won {h['won']} of {h['pairs']} "
                      f"({100 * h['share']:.0f}%, 95% {100 * h['low']:.0f}-{100 * h['high']:.0f}%), "
                      f"drew {h['drawn']}")
