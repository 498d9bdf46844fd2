"""``towerlab validate``: check scene files against the format."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import console, emit_json
from sim.errors import TowerlabError


def register(app: typer.Typer) -> None:
    app.command()(validate)


def validate(
    scenes: Annotated[list[Path], typer.Argument(help="Scene files to check.", show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON report instead of text.")] = False,
) -> None:
    """Check scene files: format, fields, kinds, ids, numbers. Exit 2 if any is invalid.

    Each valid scene is summarised (game, board, pieces, mass); each invalid one
    gets one line naming the file, the field and what was wrong.
    """
    from sim.scene import load_scene

    reports, bad = [], 0
    for path in scenes:
        try:
            scene = load_scene(path)
        except TowerlabError as e:
            bad += 1
            reports.append({"file": str(path), "valid": False, "error": str(e)})
            if not as_json:
                print(f"towerlab: error: {e}", file=sys.stderr)
            continue
        mass = sum(p.mass for p in scene.pieces) * 1000.0
        kinds: dict[str, int] = {}
        for p in scene.pieces:
            kinds[p.kind] = kinds.get(p.kind, 0) + 1
        reports.append({"file": str(path), "valid": True, "game": scene.game, "board": scene.board,
                        "title": scene.title, "pieces": len(scene.pieces), "mass_g": round(mass, 2),
                        "kinds": kinds})
        if not as_json:
            console.print(f"[green]ok[/]      {path}  {scene.game} on {scene.board}, "
                          f"{len(scene.pieces)} pieces, {mass:.1f} g"
                          + (f"  — {scene.title}" if scene.title else ""))
    if as_json:
        emit_json(reports)
    if bad:
        raise SystemExit(2)
