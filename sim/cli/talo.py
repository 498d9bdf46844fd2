"""``towerlab talo``: check a Talo scene against the rules, list a pawn's moves, replay a scripted game."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import console, distinct_files, emit_json, fail, out_option, progress, safe, writable_output

talo_app = typer.Typer(help="Talo: rules of the grid, the balance, the pawns' climb, whole games.",
                       no_args_is_help=True)

PHYSICS_HELP = "Judge the balance with the physics (statics and pybullet). --no-physics checks the grid rules only."


def register(app: typer.Typer) -> None:
    app.add_typer(talo_app, name="talo")


def physics_verdict(scene, progress=None):
    """The physics verdict on a Talo building, judged without its pawns (``progress(done_s, total_s)``)."""
    from sim.games.contract import ask
    from sim.games.talo import physics_scene
    from sim.physics.judge import judge

    return ask(partial(judge, progress=progress), physics_scene(scene))


def _judge(physics: bool, update=None):
    """The balance judge of a game: none without physics; with ``update``, reporting the blocks it has
    been asked about (out of the whole stock) as the game goes."""
    if not physics:
        return None
    if update is None:
        return physics_verdict
    from sim.games.talo.stock import Stock

    stock = Stock.full().total

    def judged(scene):
        update(min(len(scene.pieces), stock), stock)
        return physics_verdict(scene)
    return judged


def _load(path: Path):
    from sim.scene import load_scene

    scene = load_scene(path, solid=True)
    if scene.game not in ("talo", "free"):
        fail(f"{path}: game: expected a Talo scene, got \"{scene.game}\"")
    if not scene.board.startswith("talo-"):
        fail(f"{path}: board: \"{scene.board}\" has no Talo grid; Talo is played on talo-green or talo-island")
    return scene


_PAWN_STYLE = {"yellow": "bold black on yellow", "red": "bold white on red", "blue": "bold white on blue",
               "green": "bold white on green", "pink": "bold black on magenta", "orange": "bold black on dark_orange"}


def height_map(heights, layout, marks=None):
    """A rich Text map of the field heights, y up: one cell per field, pawns in their colour.

    Args:
        heights: (n, n) levels, [i, j] is field (i, j).
        layout: for the pawns and the board's water.
        marks: optional {(i, j): text} drawn instead of the height.
    """
    from rich.text import Text

    pawns = {p.cell: p for p in layout.pawns}
    n = layout.board.n
    out = Text()
    for j in reversed(range(n)):
        out.append(f"{j:>2} ")
        for i in range(n):
            h = int(heights[i, j])
            water = layout.board.is_water((i, j))
            label = (marks or {}).get((i, j), str(h) if h else ("~" if water else "·"))
            if (i, j) in pawns:  # every cell is 4 wide: "R10" (a pawn on level 10) and "10*" fit
                p = pawns[(i, j)]
                out.append(f"{p.color[0].upper() + str(p.level):>3} ", _PAWN_STYLE[p.color])
                continue
            shade = 232 + min(23, 2 * h + (0 if h else 3))
            style = f"on color({shade})" + (" blue" if water and not h else "")
            out.append(f"{label:>3} ", style)
        out.append("\n")
    out.append("   " + "".join(f"{i:>3} " for i in range(n)) + "   (i →, j ↑; ~ water; pawn: initial + level)\n")
    return out


@talo_app.command()
def check(
    scene_path: Annotated[Path, typer.Argument(metavar="SCENE", help="A Talo scene file.", show_default=False)],
    physics: Annotated[bool, typer.Option("--physics/--no-physics", help=PHYSICS_HELP)] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: violations, heights, pawns, balance.")] = False,
) -> None:
    """Check a Talo scene: the grid, level 0, level 10, the balance, the pawns; heights and how high each pawn can get.

    Exit 0 whatever the verdict (see "legal" in the JSON), 2 on a bad file
    (pieces inside each other included, as for every command).
    """
    from sim.games.talo import referee
    from sim.physics.judge import judge

    scene = _load(scene_path)
    with progress(f"balance of {scene_path.name}", quiet=as_json or not physics, unit="s simulated") as update:
        report = referee(scene, partial(judge, progress=update) if physics else None)
    verdict = report.verdict
    if as_json:
        emit_json({"file": str(scene_path), **report.to_json()})
        return
    title = f"  — {safe(scene.title)}" if scene.title else ""
    console.print(f"[bold]{safe(scene_path)}[/]  Talo on {scene.board}, {len(report.layout.blocks)} blocks, "
                  f"{len(report.layout.pawns)} pawns{title}")
    console.print(height_map(report.heights, report.layout))
    if verdict is None:
        console.print(f"balance: not judged ({'overlapping blocks' if physics else '--no-physics'})")
    else:
        margin = "" if verdict.margin_g is None else f", margin {verdict.margin_g:.3f} g"
        console.print(f"balance: {'[green]stands[/]' if verdict.stable else '[red]does not stand[/]'}{margin}")
    for color, r in report.reaches.items():
        console.print(f"pawn {color}: field {list(r.pawn.cell)} level {r.pawn.level}, "
                      f"can reach level {r.max_level} this turn")
    if report.legal:
        console.print("[green]legal[/]: no rule broken")
    for v in report.violations:
        console.print(f"[red]{v.rule}[/] {safe(', '.join(v.pieces))}: {safe(v.reason)}")


@talo_app.command()
def moves(
    scene_path: Annotated[Path, typer.Argument(metavar="SCENE", help="A Talo scene file.", show_default=False)],
    pawn: Annotated[str, typer.Option("--pawn", help="The pawn's colour.", show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: reachable fields, levels, routes.")] = False,
) -> None:
    """Every field and level the pawn can reach this turn, with the shortest route to each.

    Steps go to the four neighbouring fields, one level up or down at most,
    never onto or past another pawn, under beams only with 2 levels of room,
    and off the board only onto a block right next to the pawn.
    """
    from sim.games.talo import Terrain, is_blocked, layout_of, reachable

    scene = _load(scene_path)
    layout = layout_of(scene)
    if layout.pawn(pawn) is None:
        have = ", ".join(p.color for p in layout.pawns) or "none"
        fail(f"--pawn {pawn}: {scene_path} has no {pawn} pawn on the grid (its pawns: {have})")
    terrain = Terrain(layout)
    reach = reachable(terrain, pawn)
    blocked = is_blocked(terrain, pawn)
    dests = reach.destinations()
    if as_json:
        emit_json({"file": str(scene_path), "pawn": pawn,
                   "from": {"cell": list(reach.pawn.cell), "level": reach.pawn.level},
                   "max_reachable_level": reach.max_level, "blocked": blocked,
                   "reachable": [{"cell": [i, j], "level": k, "steps": len(reach.routes[(i, j, k)]) - 1,
                                  "route": [list(s) for s in reach.routes[(i, j, k)]]} for i, j, k in dests]})
        return
    best: dict = {}
    for i, j, k in dests:
        best[(i, j)] = max(best.get((i, j), -1), k)
    marks = {c: f"{k}*" for c, k in best.items()}
    console.print(f"[bold]{pawn}[/] pawn on field {list(reach.pawn.cell)} at level {reach.pawn.level}: "
                  f"{len(dests)} spots in reach, up to level {reach.max_level}"
                  + ("  [red](blockaded: may restart)[/]" if blocked else ""))
    console.print(height_map(terrain.heights, layout, marks))
    console.print("(* reachable, shown with the highest reachable level)")
    for i, j, k in dests:
        route = " → ".join(f"{list(s[:2])}@{s[2]}" for s in reach.routes[(i, j, k)][1:])
        console.print(f"  [{i}, {j}] level {k}: {len(reach.routes[(i, j, k)]) - 1} steps  {route}")


@talo_app.command()
def play(
    script: Annotated[Path, typer.Argument(help="A game script (towerlab-talo-game/1, see docs/talo.md).",
                                           show_default=False)],
    out: out_option("Write the final scene here.") = None,
    physics: Annotated[bool, typer.Option("--physics/--no-physics", help=PHYSICS_HELP)] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: log, outcome, levels.")] = False,
) -> None:
    """Replay a scripted Talo game under the rules; an action the rules refuse ends in one error line (exit 2)."""
    from sim.games.talo.script import play_script
    from sim.scene import save_scene
    from sim.scene.io import read_json

    if out is not None:
        writable_output(out)
        distinct_files(("SCRIPT", script), ("-o", out))
    data = read_json(script)
    with progress(f"replaying {script.name}", quiet=as_json or not physics, unit="blocks") as update:
        state = play_script(data, _judge(physics, update), str(script))
    if out is not None:
        save_scene(replace(state.scene, title=data.get("title") or state.scene.title), out)
    if as_json:
        emit_json({"file": str(script), "turns": state.turn, "phase": state.phase,
                   "outcome": None if state.outcome is None else state.outcome.to_json(),
                   "levels": state.levels(), "stock_left": state.stock.total,
                   "log": [e.to_json() for e in state.log]})
        return
    for e in state.log:
        detail = ", ".join(f"{k} {json.dumps(v)}" for k, v in e.data.items())
        console.print(f"{e.turn:>3} {e.player:<7} {e.action:<8} {safe(detail)}")
    levels = ", ".join(f"{c} {lv}" for c, lv in state.levels().items())
    if state.outcome is not None:
        o = state.outcome
        console.print(f"[bold]over[/]: {o.reason}; winners {', '.join(o.winners) or 'none'}"
                      + (f"; {o.loser} loses" if o.loser else ""))
    console.print(f"levels: {levels}; {state.stock.total} blocks left"
                  + (f"; scene written to {safe(out)}" if out else ""))


TALO_BOARDS = ("talo-green", "talo-island")
_SUGGESTED_STARTS = ((2, 2), (7, 7), (2, 7), (7, 2), (1, 1), (8, 8), (1, 8), (8, 1))




@talo_app.command()
def auto(
    players: Annotated[str, typer.Option("--players", help="Pawn colours in turn order, comma-separated.")]
    = "red,blue",
    board: Annotated[str, typer.Option("--board", help="talo-green or talo-island.")] = "talo-green",
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the die and the players' tie-breaks "
                                                            "(an integer >= 0).")] = 0,
    max_turns: Annotated[int, typer.Option("--max-turns", help="Stop after this many turns.", min=1)] = 200,
    physics: Annotated[bool, typer.Option("--physics/--no-physics", help=PHYSICS_HELP)] = True,
    out: out_option("Write the final scene here.") = None,
    script_out: Annotated[Path | None, typer.Option("--script", help="Write the game as a replayable script.")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: outcome, levels, turns.")] = False,
) -> None:
    """Let automatic players (greedy climbers) play a seeded game; save it as a scene and a replayable script."""
    import numpy as np

    from sim.atomic import write_text
    from sim.games.talo import talo_board
    from sim.games.talo.auto import auto_game
    from sim.games.talo.script import dumps_script, script_of
    from sim.pieces.dimensions import TALO_PAWN_COLORS
    from sim.scene import save_scene

    colours = [c.strip() for c in players.split(",") if c.strip()]
    if not colours or len(set(colours)) != len(colours):
        fail(f"--players: expected distinct pawn colours, got \"{players}\"")
    unknown = [c for c in colours if c not in TALO_PAWN_COLORS]
    if unknown:
        fail(f"--players: no Talo pawn is {unknown[0]}; the colours are {', '.join(TALO_PAWN_COLORS)}")
    if board not in TALO_BOARDS:
        fail(f"--board: expected {' or '.join(TALO_BOARDS)}, got \"{board}\"")
    site = talo_board(board)
    starts = [c for c in _SUGGESTED_STARTS if c in site.starts][:len(colours)]
    if len(starts) < len(colours):
        fail(f"--players: at most {len(starts)} automatic players on {board}")
    for path, option in ((out, "-o"), (script_out, "--script")):
        if path is not None:
            writable_output(path, option)
    distinct_files(("-o", out), ("--script", script_out))
    with progress("playing", quiet=as_json or not physics, unit="blocks") as update:
        state = auto_game(dict(zip(colours, starts)), np.random.default_rng(seed), _judge(physics, update),
                          board, max_turns)
    title = f"Automatic Talo game, seed {seed}"
    if out is not None:
        save_scene(replace(state.scene, title=title), out)
    if script_out is not None:
        write_text(script_out, dumps_script(script_of(state, title)))
    outcome = None if state.outcome is None else state.outcome.to_json()
    if as_json:
        emit_json({"seed": seed, "board": board, "turns": state.turn, "outcome": outcome, "levels": state.levels(),
                   "blocks_placed": len(state.layout.blocks), "stock_left": state.stock.total,
                   "balance_judged": physics})
        return
    from sim.games.talo import Terrain

    console.print(height_map(Terrain(state.layout).heights, state.layout))
    o = state.outcome
    end = "no winner yet" if o is None else f"{o.reason}; winners {', '.join(o.winners) or 'none'}" + (
        f"; {o.loser} loses" if o.loser else "")
    console.print(f"after {state.turn} turns: {end}; levels "
                  + ", ".join(f"{c} {lv}" for c, lv in state.levels().items())
                  + f"; {len(state.layout.blocks)} blocks built" + ("" if physics else " (balance not judged)"))
