"""``towerlab validate``: check scene files against the format."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import console, emit_json, error_line, progress, safe
from sim.errors import TowerlabError


def register(app: typer.Typer) -> None:
    app.command()(validate)


def validate(
    scenes: Annotated[list[Path], typer.Argument(help="Scene files to check.", show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON report instead of text.")] = False,
) -> None:
    """Check scene files: format, fields, kinds, ids, numbers, pieces inside each other. Exit 2 if any is invalid.

    Each valid scene is summarised (game, board, pieces, mass); each invalid one
    gets one line on stderr naming the file, the field and what was wrong (also in
    the --json report).
    """
    from sim.scene import load_scene

    reports, bad = [], 0
    with progress("validating", quiet=as_json or len(scenes) < 2, unit="files") as update:
        for done, path in enumerate(scenes):
            if update is not None:
                update(done, len(scenes))
            try:
                scene = load_scene(path, solid=True)
            except TowerlabError as e:
                bad += 1
                reports.append({"file": str(path), "valid": False, "error": str(e)})
                error_line(str(e))  # with --json too: exit 2 always comes with its line on stderr
                continue
            reports.append(_summary(path, scene))
            if not as_json:
                mass = sum(p.mass for p in scene.pieces) * 1000.0
                console.print(f"[green]ok[/]      {safe(path)}  {scene.game} on {scene.board}, "
                              f"{len(scene.pieces)} pieces, {mass:.1f} g"
                              + (f"  — {safe(scene.title)}" if scene.title else ""))
    if as_json:
        emit_json(reports)
    if bad:
        raise SystemExit(2)


def _summary(path: Path, scene) -> dict:
    mass = sum(p.mass for p in scene.pieces) * 1000.0
    kinds: dict[str, int] = {}
    for p in scene.pieces:
        kinds[p.kind] = kinds.get(p.kind, 0) + 1
    return {"file": str(path), "valid": True, "game": scene.game, "board": scene.board, "title": scene.title,
            "pieces": len(scene.pieces), "mass_g": round(mass, 2), "kinds": kinds}
