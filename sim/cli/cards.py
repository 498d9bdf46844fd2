"""``towerlab cards GAME -o DIR``: every card of a game's card set as an image, plus one printable PDF sheet."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import console, emit_json
from sim.errors import TowerlabError


class CardsArgumentError(TowerlabError):
    """An unknown card set or card id."""


def _tohuwabohu_faces():
    from sim.games.tohuwabohu.illustrate import tohuwabohu_faces

    return tohuwabohu_faces()


# Card sets by game: a function returning its CardFace list. Another game adds its cards here.
CARD_SETS: dict[str, Callable[[], list]] = {"tohuwabohu": _tohuwabohu_faces}


def register(app: typer.Typer) -> None:
    app.command()(cards)


def cards(
    game: Annotated[str, typer.Argument(help=f"Card set: {', '.join(CARD_SETS)}.", show_default=False)],
    out: Annotated[Path, typer.Option("-o", "--out", help="Output directory.", show_default=False)],
    only: Annotated[list[str] | None, typer.Option("--only", help="Draw only this card id (repeatable).",
                                                   show_default=False)] = None,
    dpi: Annotated[int, typer.Option("--dpi", help="Resolution of the card PNGs.", min=50, max=1200)] = 300,
    with_sheet: Annotated[bool, typer.Option("--sheet/--no-sheet",
                                             help="Also write the PDF sheet of all cards.")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the written files as JSON.")] = False,
) -> None:
    """Draw every card of a game: its colour frame, its title and its example construction, rendered.

    Writes DIR/<card id>.png for each card and DIR/<game>-cards.pdf, one
    printable A4 sheet holding them all.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from sim.atomic import write_bytes
    from sim.games.tohuwabohu.illustrate import card_png, card_view, picture_size, sheet
    from sim.render import render_scene
    from sim.scene import load_scene

    if game not in CARD_SETS:
        raise CardsArgumentError(f"game: expected one of {', '.join(CARD_SETS)}, got {game!r}")
    faces = CARD_SETS[game]()
    if only:
        unknown = [c for c in only if c not in {f.id for f in faces}]
        if unknown:
            raise CardsArgumentError(f"--only: no {game} card {', '.join(map(repr, unknown))}")
        faces = [f for f in faces if f.id in only]
    scenes = [load_scene(f.scene) for f in faces]
    out.mkdir(parents=True, exist_ok=True)
    written, pictures = [], []
    size = picture_size(dpi=dpi)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, disable=as_json, transient=False) as progress:
        task = progress.add_task(f"{game} cards", total=len(faces) + int(with_sheet))
        for face, scene in zip(faces, scenes):
            progress.update(task, description=f"{face.id:<28}")
            eye, look_at = card_view(scene, size)
            picture = render_scene(scene, size=size, eye=eye, look_at=look_at, transparent=True)
            path = out / f"{face.id}.png"
            write_bytes(path, card_png(face, picture, dpi=dpi))
            written.append(str(path))
            pictures.append(picture[::2, ::2])  # half resolution is plenty at the sheet's card size
            progress.advance(task)
        if with_sheet:
            progress.update(task, description=f"{'PDF sheet':<28}")
            path = out / f"{game}-cards.pdf"
            write_bytes(path, sheet(faces, pictures))
            written.append(str(path))
            progress.advance(task)
    if as_json:
        emit_json({"game": game, "files": written})
    else:
        console.print(f"{len(faces)} card(s) written to {out}" + (f", sheet {written[-1]}" if with_sheet else ""))
