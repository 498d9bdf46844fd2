"""Card illustrations: a card face (colour frame, title, picture) drawn with matplotlib, one or printable sheets.

The layout is game-neutral: a :class:`CardFace` names the card, its frame
colour and the scene to draw; :func:`tohuwabohu_faces` gives the 36 Tohuwabohu
faces from their example scenes, which ship with the package. The pictures
come in as arrays: :mod:`sim.render.cards` draws them (the camera that frames
the playing area and shows every piece), so this module never imports the
renderer; matplotlib is imported only when drawing.
"""

from __future__ import annotations

import io
import textwrap
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable

import numpy as np

from sim.pieces import dimensions as dim

CARD_MM = (63.0, 88.0)  # a playing card (width, height)
SHEET_MM = (210.0, 297.0)  # A4 portrait
SHEET_GRID = (3, 3)  # cards per row and column of a sheet: 189 x 264 mm of cards on A4
CUT_MARK_MM = 5.0  # length of a cut mark, in the sheet's margin
CUT_MARK_GAP_MM = 1.5  # between the cards and the start of a cut mark
PNG_DPI = 300
CARD_SCENES: Traversable = files("sim.data").joinpath("cards", "tohuwabohu")

_FRAME = 3.0  # mm of coloured frame
_TITLE = 16.0  # mm of title band
_FOOTER = 5.0  # mm of small print


@dataclass(frozen=True)
class CardFace:
    """What a card shows.

    Attributes:
        id: the card id (also the output file name).
        title: printed at the top.
        frame: RGB 0..1 of the frame and title band.
        label: small print at the bottom (the card set and colour).
        scene: the scene file to draw (a path, or a file of the installed package).
    """

    id: str
    title: str
    frame: tuple[float, float, float]
    label: str
    scene: Traversable


def tohuwabohu_faces(scenes_dir: Traversable = CARD_SCENES) -> list[CardFace]:
    """The 36 Tohuwabohu order cards, blue, red then green, each with its example scene."""
    from sim.games.tohuwabohu.cards import CARD_COLORS, cards_of

    return [CardFace(c.id, c.title, tuple(dim.COLORS[c.color][:3]), f"Tohuwabohu · {c.color} order",
                     scenes_dir / f"{c.id}.json")
            for color in CARD_COLORS for c in cards_of(color)]


def load_face_scene(face: CardFace):
    """The face's scene, read from a path or from the package's files.

    Raises:
        SceneError: the file cannot be read or is not a valid scene.
    """
    from pathlib import Path

    from sim.scene import load_scene, loads

    if isinstance(face.scene, Path):
        return load_scene(face.scene)
    return loads(face.scene.read_text(encoding="utf-8"), f"towerlab package file cards/{face.scene.name}")


def picture_size(scale: float = 1.0, dpi: int = PNG_DPI) -> tuple[int, int]:
    """Pixels (w, h) of the picture area of a card drawn at ``scale`` and ``dpi``."""
    w, h = picture_box()
    return int(round(w * scale / 25.4 * dpi)), int(round(h * scale / 25.4 * dpi))


def picture_box() -> tuple[float, float]:
    """Width and height (card mm) of the picture area: between the frame, the title band and the footer."""
    return CARD_MM[0] - 2 * _FRAME, CARD_MM[1] - _TITLE - _FOOTER - 2 * _FRAME


def draw_card(fig, origin_mm, face: CardFace, picture: np.ndarray) -> None:
    """Draw one card face, 63 × 88 mm, onto a matplotlib figure.

    Args:
        fig: the figure; its size in inches defines the millimetre grid.
        origin_mm: (x, y) of the card's lower left corner on the figure (mm).
        face: what to draw.
        picture: (h, w, 3 or 4) uint8 rendering of the card's scene, filling the picture area
            (its aspect that of :func:`picture_box`).
    """
    from matplotlib.patches import FancyBboxPatch

    fw, fh = (x * 25.4 for x in fig.get_size_inches())
    x0, y0 = origin_mm

    def axes(x, y, ww, hh):
        ax = fig.add_axes([(x0 + x) / fw, (y0 + y) / fh, ww / fw, hh / fh])
        ax.set_axis_off()
        return ax

    card = axes(0, 0, CARD_MM[0], CARD_MM[1])
    card.set_xlim(0, CARD_MM[0])
    card.set_ylim(0, CARD_MM[1])
    card.add_patch(FancyBboxPatch((0.8, 0.8), CARD_MM[0] - 1.6, CARD_MM[1] - 1.6,
                                  boxstyle="round,pad=0,rounding_size=3", facecolor=face.frame, edgecolor="none"))
    inner_h = CARD_MM[1] - _TITLE - 2 * _FRAME
    card.add_patch(FancyBboxPatch((_FRAME, _FRAME), CARD_MM[0] - 2 * _FRAME, inner_h,
                                  boxstyle="round,pad=0,rounding_size=1.5", facecolor="white", edgecolor="none"))
    lines = textwrap.wrap(face.title, 24)
    card.text(CARD_MM[0] / 2, CARD_MM[1] - _FRAME - _TITLE / 2 + 1.0, "\n".join(lines), ha="center", va="center",
              color="white", fontsize=10.5 if len(lines) < 2 else 9.5, fontweight="bold", linespacing=1.1)
    card.text(CARD_MM[0] / 2, _FRAME + _FOOTER / 2, f"{face.label} · {face.id}", ha="center", va="center",
              color=(0.35, 0.35, 0.35), fontsize=4.8)
    pw, ph = picture_box()
    pic = axes(_FRAME, _FRAME + _FOOTER, pw, ph)
    pic.imshow(np.asarray(picture)[..., :3], interpolation="lanczos", aspect="auto")


def card_png(face: CardFace, picture: np.ndarray, dpi: int = PNG_DPI) -> bytes:
    """One card as PNG bytes (63 × 88 mm at ``dpi``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(CARD_MM[0] / 25.4, CARD_MM[1] / 25.4), dpi=dpi)
    try:
        draw_card(fig, (0.0, 0.0), face, picture)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi, transparent=True)
        return buf.getvalue()
    finally:
        plt.close(fig)


@dataclass(frozen=True)
class SheetLayout:
    """Where the cards of one printed page go, in mm from the page's lower left corner.

    Attributes:
        origins: (x, y) of each card's lower left corner, in reading order (left to right, top down).
        cut_marks: ((x0, y0), (x1, y1)) line segments in the margins, extending every card edge.
    """

    origins: tuple[tuple[float, float], ...]
    cut_marks: tuple[tuple[tuple[float, float], tuple[float, float]], ...]


def sheet_layout(n: int) -> SheetLayout:
    """The layout of a page holding ``n`` cards (at most a full grid of :data:`SHEET_GRID`) at their real size.

    The cards touch, so that one straight cut separates two of them; the grid is
    centred on the page and the cut marks continue each card edge into the margins.

    Raises:
        ValueError: ``n`` outside 1 .. cards per page.
    """
    cols, rows = SHEET_GRID
    if not 1 <= n <= cols * rows:
        raise ValueError(f"a page holds 1..{cols * rows} cards, got {n}")
    cw, ch = CARD_MM
    left, bottom = (SHEET_MM[0] - cols * cw) / 2, (SHEET_MM[1] - rows * ch) / 2
    top, right = bottom + rows * ch, left + cols * cw
    origins = tuple((left + (k % cols) * cw, top - (k // cols + 1) * ch) for k in range(n))
    gap, length = CUT_MARK_GAP_MM, CUT_MARK_MM
    marks = []
    for x in sorted({x for x, _ in origins} | {x + cw for x, _ in origins}):
        marks += [((x, top + gap), (x, top + gap + length)), ((x, bottom - gap - length), (x, bottom - gap))]
    for y in sorted({y for _, y in origins} | {y + ch for _, y in origins}):
        marks += [((left - gap - length, y), (left - gap, y)), ((right + gap, y), (right + gap + length, y))]
    return SheetLayout(origins, tuple(marks))


def sheet(faces: list[CardFace], pictures: list[np.ndarray], title: str = "cards") -> bytes:
    """Every card at its real size, nine to an A4 page with cut marks, as a multi-page PDF.

    Args:
        faces: the cards, in print order.
        pictures: each card's picture (see :func:`draw_card`).
        title: printed in the bottom margin of each page with the page number.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    per_page = SHEET_GRID[0] * SHEET_GRID[1]
    cards = list(zip(faces, pictures))
    pages = max(1, -(-len(cards) // per_page))
    buf = io.BytesIO()
    with PdfPages(buf, metadata={"Title": title, "Creator": "towerlab"}) as pdf:
        for page in range(pages):
            fig = sheet_page(cards[page * per_page:(page + 1) * per_page], f"{title} · page {page + 1} of {pages}")
            try:
                pdf.savefig(fig)
            finally:
                plt.close(fig)
    return buf.getvalue()


def sheet_page(cards: list[tuple[CardFace, np.ndarray]], caption: str):
    """One A4 page (a matplotlib figure) of up to nine (face, picture) cards with cut marks and a caption."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig = plt.figure(figsize=(SHEET_MM[0] / 25.4, SHEET_MM[1] / 25.4))
    layout = sheet_layout(max(1, len(cards)))
    for (face, pic), origin in zip(cards, layout.origins):
        draw_card(fig, origin, face, pic)
    for (x0, y0), (x1, y1) in layout.cut_marks:
        fig.add_artist(Line2D([x0 / SHEET_MM[0], x1 / SHEET_MM[0]], [y0 / SHEET_MM[1], y1 / SHEET_MM[1]],
                              color="black", linewidth=0.3))
    fig.text(0.5, 5.0 / SHEET_MM[1], f"{caption} · cut along the marks", ha="center", va="center", fontsize=6,
             color=(0.4, 0.4, 0.4))
    return fig
