"""``towerlab babylon``: Babylon Tower Builders scores and turn legality."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import console, emit_json, progress, safe

MODES = ("tactical", "fast")


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="Babylon Tower Builders: score a building, judge a turn.", no_args_is_help=True)
    group.command("score")(score)
    group.command("check-turn")(check_turn)
    app.add_typer(group, name="babylon")


def parse_knock(text: str):
    """``COLOUR:ID[,ID...]`` as a :class:`~sim.games.babylon.fast.Knock`."""
    from sim.games.babylon.fast import Knock
    from sim.games.babylon.supply import BabylonError

    colour, sep, ids = text.partition(":")
    pieces = tuple(i.strip() for i in ids.split(",") if i.strip())
    if not sep or not colour.strip() or not pieces:
        raise BabylonError(f"--knock: expected COLOUR:ID[,ID...], got \"{text}\"")
    return Knock(colour.strip(), pieces)


def _name(scene) -> str:
    return Path(scene.source).name if scene.source else "the scene"


def score(
    scene_path: Annotated[Path, typer.Argument(metavar="SCENE", help="The building to score (a scene file).")],
    mode: Annotated[str, typer.Option("--mode", help="tactical or fast.")] = "tactical",
    knock: Annotated[list[str] | None, typer.Option(
        "--knock", metavar="COLOUR:ID,...",
        help="Fast game: pieces COLOUR knocked down this round (repeatable).")] = None,
    expert: Annotated[bool, typer.Option("--expert", help="Fast game: the expert variant's doubling.")] = False,
    physics: Annotated[bool, typer.Option("--physics/--no-physics",
                                          help="Settle the scene with the physics first (default), or score the "
                                               "poses as given.")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Score a Babylon building: tactical level majorities or a fast-game round.

    Levels are read from the settled poses (20 mm each); connected buildings
    from the support graph. Exit 0 with the scores, 2 on bad input.
    """
    from sim.games.babylon import referee
    from sim.games.babylon.supply import BabylonError, players_of
    from sim.physics.judge import rest
    from sim.scene import load_scene

    if mode not in MODES:
        raise BabylonError(f"--mode: expected tactical or fast, got \"{mode}\"")
    scene = load_scene(scene_path, solid=True)
    players = players_of(scene)
    knocks = [parse_knock(k) for k in knock or ()]
    if knocks and mode != "fast":
        raise BabylonError("--knock: knocked-down pieces count only in the fast game (--mode fast)")
    if expert and mode != "fast":
        raise BabylonError("--expert: the expert variant's doubling counts only in the fast game (--mode fast)")
    for k in knocks:
        if k.by not in players:
            raise BabylonError(f"--knock: expected one of the players {', '.join(players)}, got \"{k.by}\"")
    with progress(f"settling {_name(scene)}", quiet=as_json or not physics, unit="s simulated") as update:
        result = referee(scene, partial(rest, progress=update) if physics else None, mode=mode, knocks=knocks,
                         expert=expert)
    if as_json:
        emit_json({"file": str(scene_path), "settled": physics, **result.to_json()})
    elif mode == "tactical":
        _print_tactical(str(scene_path), result)
    else:
        _print_fast(str(scene_path), result)


def _print_tactical(name: str, result) -> None:
    from rich.table import Table

    players = list(result.players)
    table = Table(title=f"Tactical score of {safe(name)}")
    table.add_column("level", justify="right")
    for p in players:
        table.add_column(p, justify="right")
    table.add_column("majority")
    for r in reversed(result.levels):
        table.add_row(str(r.level), *(str(r.counts.get(p, "")) for p in players),
                      f"{r.winner} +{r.points}" if r.winner else "tie: nobody")
    console.print(table)
    for p in result.players.values():
        levels = " + ".join(str(v) for _, v in sorted(p.levels.items(), reverse=True)) or "0"
        console.print(f"{p.color}: {levels} - {p.bridges_left} bridge(s) left = [bold]{p.total}[/]")
    _print_unscored((n.id, n.reason) for p in result.players.values() for n in p.nobles)
    for v in result.violations:
        console.print(f"  - {v.rule}: {v.reason}", markup=False)
    if result.winners:
        console.print(f"Winner: {' and '.join(result.winners)}")
    else:
        points = result.players[result.tied[0]].total
        console.print(f"No winner: {_and(result.tied)} tie on {points} points and none of them scored a level "
                      "(the rulebook's tie-break)")


def _print_fast(name: str, result) -> None:
    from rich.table import Table

    table = Table(title=f"Fast-game round of {safe(name)}")
    for col in ("player", "area (shared with): points", "knocked down", "score", "unplaced"):
        table.add_column(col)
    for p in result.players.values():
        areas = ", ".join(f"{n}: {v}" for n, v in p.areas.items())
        table.add_row(p.color, areas, str(-p.knocked_parts), "out" if p.out else str(p.score), str(p.unplaced))
    console.print(table)
    _print_unscored((n.id, "; ".join(n.reasons)) for p in result.players.values() for n in p.nobles)
    for v in result.violations:
        console.print(f"  - {v.rule}: {v.reason}", markup=False)
    console.print(f"Round won by: {' and '.join(result.winners) or 'nobody'}")


def _and(names) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _print_unscored(items) -> None:
    lines = [f"  {i}: {why}" for i, why in items if why]
    if lines:
        console.print("Nobles scoring nothing:")
        for line in lines:
            console.print(line, markup=False)


def check_turn(
    before_path: Annotated[Path, typer.Argument(metavar="BEFORE", help="The scene before the turn.")],
    after_path: Annotated[Path, typer.Argument(metavar="AFTER", help="The scene after it.")],
    player: Annotated[str, typer.Option("--player", metavar="COLOUR", help="Whose turn it was.")],
    expert: Annotated[bool, typer.Option("--expert", help="The expert game's special move.")] = False,
    first_round: Annotated[bool | None, typer.Option(
        "--first-round/--later-round",
        help="Force the first round's restrictions on or off (default: detected from the owners).")] = None,
    physics: Annotated[bool, typer.Option("--physics/--no-physics",
                                          help="Check that the building stands (default).")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
) -> None:
    """Judge a tactical turn: is the step from BEFORE to AFTER legal, and if not, why.

    Pieces keep their ids: new ids were placed, missing ones taken back, moved
    ones relocated (or swapped by the special move). Exit 0 with the verdict,
    2 on bad input.
    """
    from sim.games.babylon import referee_turn
    from sim.physics.judge import judge
    from sim.scene import load_scene

    before = load_scene(before_path, solid=True)
    after = load_scene(after_path, solid=True)
    with progress(f"checking {_name(after)}", quiet=as_json or not physics, unit="s simulated") as update:
        verdict = referee_turn(before, after, player, partial(judge, progress=update) if physics else None,
                               expert=expert, first_round=first_round)
    if as_json:
        emit_json({"before": str(before_path), "after": str(after_path), **verdict.to_json()})
        return
    what = f"{player} placed {len(verdict.placed)} piece(s)"
    if verdict.swapped:
        what += f" and swapped {safe(verdict.swapped[0])} with {safe(verdict.swapped[1])}"
    if verdict.rotated:
        what += f" and turned tower {safe(verdict.rotated)}"
    first = " (first round)" if verdict.first_round else ""
    if verdict.legal:
        console.print(f"[green]legal turn[/]{first}: {what}")
    else:
        console.print(f"[red]illegal turn[/]{first}: {what}")
        for v in verdict.violations:
            console.print(f"  - {v.rule}: {v.reason}", markup=False)
    if verdict.game_over:
        console.print(f"The game ends: {verdict.game_over}.")
