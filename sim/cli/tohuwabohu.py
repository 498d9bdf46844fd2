"""``towerlab tohuwabohu check``: building rules, structures and fulfilled order cards of a scene."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import console, emit_json, progress, safe, seconds_option

tohu_app = typer.Typer(help="Tohuwabohu: check a playing area against the building rules and the order cards.",
                       no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(tohu_app, name="tohuwabohu")


@tohu_app.command()
def check(
    scene_path: Annotated[Path, typer.Argument(metavar="SCENE", help="A tohuwabohu scene file.",
                                               show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON report instead of text.")] = False,
    seconds: Annotated[float | None, typer.Option(
        "--seconds", help="Simulated settling time for the physics verdict (default: the physics default).",
        show_default=False)] = None,
    physics: Annotated[bool, typer.Option("--physics/--no-physics", help="Judge stability with the physics "
                                          "(default); --no-physics judges the rules and cards as if the "
                                          "construction stands.")] = True,
) -> None:
    """Judge a playing area: does it stand, which building rules does it break, which cards does it fulfil.

    Stability comes from the physics check (statics and dynamics); the rules and
    cards are judged on the scene as given. Exit 0 whatever the verdict, 2 on
    bad input.
    """
    from functools import partial

    from sim.games.tohuwabohu import referee
    from sim.physics.judge import judge
    from sim.scene import load_scene

    seconds = seconds_option(seconds)
    scene = load_scene(scene_path, solid=True)
    with progress(f"checking {scene_path.name}", quiet=as_json or not physics, unit="s simulated") as update:
        j = referee(scene, partial(judge, seconds=seconds, progress=update) if physics else None)
    if as_json:
        emit_json({"file": str(scene_path), **j.to_json()})
        return
    _print(scene_path, j)


def _print(path: Path, j) -> None:
    from sim.games.tohuwabohu import CARDS

    verdict = {True: "[green]stands[/]", False: "[red]falls[/]", None: "stability not checked"}[j.stable]
    console.print(f"{safe(path)}: {verdict}, {len(j.analysis.structures)} structure(s), "
                  f"{len(j.violations)} rule(s) broken")
    for s in j.analysis.structures:
        legal = "" if s.index in j.position.legal else "  [red](breaks the rules)[/]"
        console.print(f"  structure {s.index + 1}: {len(s.pieces)} pieces, {len(s.levels)} level(s){legal}")
        for lv in s.levels:
            pillars = ", ".join(f"{safe(p.id)} ({_pillar_name(p)}, {p.height:.0f} mm)" for p in lv.pillars) or "none"
            figures = ", ".join(f"{safe(f.id)} ({f.color}" + (f" on the {f.point} point)" if f.point else ", no point)")
                                for f in lv.figures) or "none"
            console.print(f"    level {lv.number} {safe(lv.id)} ({lv.shape}, top {lv.top:.0f} mm): "
                          f"pillars {pillars}; figures {figures}")
    if j.analysis.supply:
        console.print(f"  supply beside the area: {len(j.analysis.supply)} piece(s), not in play")
    for v in j.violations:
        console.print(f"  [red]✗ {v.rule}[/]: {safe(v.reason)}")
    if j.fulfilled:
        console.print("  fulfils: " + ", ".join(f"{cid} ({CARDS[cid].title})" for cid in j.fulfilled))
    else:
        console.print("  fulfils no order card" + (" (it does not stand)" if j.stable is False else ""))


def _pillar_name(p) -> str:
    return "arch" if p.part == "arch" else f"{p.size} {p.color}"
