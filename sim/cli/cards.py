"""``towerlab cards GAME -o DIR``: every card of a game's card set as an image, plus a printable PDF."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import OutputError, console, emit_json, progress, writable_output
from sim.errors import TowerlabError


class CardsArgumentError(TowerlabError):
    """An unknown card set or card id, or an output option given twice."""


def _tohuwabohu_faces():
    from sim.games.tohuwabohu.illustrate import tohuwabohu_faces

    return tohuwabohu_faces()


# Card sets by game: a function returning its CardFace list. Another game adds its cards here.
CARD_SETS: dict[str, Callable[[], list]] = {"tohuwabohu": _tohuwabohu_faces}
SHEET_DPI = 200  # the PDF's pictures: sharp in print at card size, a third of the 300 dpi PNGs' bytes


def register(app: typer.Typer) -> None:
    app.command()(cards)


def cards(
    game: Annotated[str, typer.Argument(help=f"Card set: {', '.join(CARD_SETS)}.", show_default=False)],
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Output folder (made if missing).",
                                             show_default=False)] = None,
    only: Annotated[list[str] | None, typer.Option("--only", help="Draw only this card id (repeatable).",
                                                   show_default=False)] = None,
    dpi: Annotated[int, typer.Option("--dpi", help="Resolution of the card PNGs.", min=50, max=1200)] = 300,
    with_sheet: Annotated[bool, typer.Option("--sheet/--no-sheet",
                                             help="Also write the printable PDF of all cards.")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the written files and views as JSON.")] = False,
    output: Annotated[Path | None, typer.Option("--output", hidden=True, show_default=False)] = None,
) -> None:
    """Draw every card of a game: its colour frame, its title and its example construction, rendered.

    Writes DIR/<card id>.png for each card (63 x 88 mm at --dpi) and
    DIR/<game>-cards.pdf: the cards at their real size, nine to an A4 page,
    with cut marks. Each picture frames the whole playing area from the
    highest view at which every piece of the construction shows.
    """
    from sim.atomic import write_bytes
    from sim.games.tohuwabohu.illustrate import card_png, load_face_scene, picture_size, sheet
    from sim.render.cards import card_picture

    if game not in CARD_SETS:
        raise CardsArgumentError(f"game: expected one of {', '.join(CARD_SETS)}, got {game!r}")
    if out is not None and output is not None:
        raise CardsArgumentError("give -o/--out once (--output is its old name)")
    out = out if out is not None else output
    if out is None:
        raise CardsArgumentError("-o/--out is required: the folder the cards go to")
    faces = CARD_SETS[game]()
    if only:
        unknown = [c for c in only if c not in {f.id for f in faces}]
        if unknown:
            raise CardsArgumentError(f"--only: no {game} card {', '.join(map(repr, unknown))}")
        faces = [f for f in faces if f.id in only]
    writable_output(out, "-o", directory=True)
    scenes = [load_face_scene(f) for f in faces]

    from sim.render import default_renderer

    renderer = default_renderer()
    size = picture_size(dpi=dpi)
    sheet_size = picture_size(dpi=min(dpi, SHEET_DPI))
    written, pictures, views = [], [], []
    steps = len(faces) + int(with_sheet)
    with progress(f"{game} cards", quiet=as_json, unit="cards") as update:
        for k, (face, scene) in enumerate(zip(faces, scenes)):
            picture, view = card_picture(renderer, scene, size)
            path = out / f"{face.id}.png"
            _write(write_bytes, path, card_png(face, picture, dpi=dpi))
            written.append(str(path))
            views.append({"card": face.id, "azimuth_deg": round(view.azimuth, 1),
                          "elevation_deg": round(view.elevation, 1),
                          "least_visible_fraction": round(float(view.fractions.min()), 3) if len(view.fractions)
                          else None, "every_piece_visible": view.clear})
            if with_sheet:
                pictures.append(picture if sheet_size == size else _resize(picture, sheet_size))
            if update is not None:
                update(k + 1, steps)
        if with_sheet:
            path = out / f"{game}-cards.pdf"
            _write(write_bytes, path, sheet(faces, pictures, title=f"{game.capitalize()} order cards"))
            written.append(str(path))
            if update is not None:
                update(steps, steps)
    if as_json:
        emit_json({"game": game, "files": written, "views": views})
    else:
        console.print(f"{len(faces)} card(s) written to {out}" + (f", sheet {written[-1]}" if with_sheet else ""))


def _resize(picture, size):
    """A picture scaled to ``size`` (w, h) with area averaging (Pillow)."""
    import numpy as np
    from PIL import Image

    return np.asarray(Image.fromarray(picture).resize(size, Image.Resampling.BOX))


def _write(write_bytes, path: Path, data: bytes) -> None:
    """Write one output file; a failure of the file system is one line naming it."""
    try:
        write_bytes(path, data)
    except OSError as e:
        raise OutputError(f"-o {path.parent}: cannot write {path.name} ({e.strerror or e})") from None
