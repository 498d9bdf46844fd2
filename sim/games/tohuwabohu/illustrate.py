"""Card illustrations: a card face (colour frame, title, picture) drawn with matplotlib, one or a sheet.

The layout is game-neutral: a :class:`CardFace` names the card, its frame
colour and the scene to draw; :func:`tohuwabohu_faces` gives the 36 Tohuwabohu
faces from their example scenes. Pictures are drawn by :mod:`sim.render`
(passed in as arrays, so this module needs no renderer); matplotlib is imported
only when drawing.
"""

from __future__ import annotations

import io
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.pieces import dimensions as dim

CARD_MM = (63.0, 88.0)  # a playing card (width, height)
SHEET_MM = (210.0, 297.0)  # A4 portrait
SHEET_MARGIN_MM = 8.0
PNG_DPI = 300
CARD_PICTURE_MARGIN = 0.1  # free border around the construction in its picture (fraction of the size)
CARD_SCENES = Path(__file__).resolve().parents[3] / "scenes" / "tohuwabohu" / "cards"


@dataclass(frozen=True)
class CardFace:
    """What a card shows.

    Attributes:
        id: the card id (also the output file name).
        title: printed at the top.
        frame: RGB 0..1 of the frame and title band.
        label: small print at the bottom (the card set and colour).
        scene: path of the scene file to draw.
    """

    id: str
    title: str
    frame: tuple[float, float, float]
    label: str
    scene: Path


def tohuwabohu_faces(scenes_dir: Path = CARD_SCENES) -> list[CardFace]:
    """The 36 Tohuwabohu order cards, blue, red then green, each with its example scene."""
    from sim.games.tohuwabohu.cards import CARD_COLORS, cards_of

    return [CardFace(c.id, c.title, tuple(dim.COLORS[c.color][:3]), f"Tohuwabohu · {c.color} order",
                     scenes_dir / f"{c.id}.json")
            for color in CARD_COLORS for c in cards_of(color)]


FIGURE_WEIGHT = 3  # a hidden figure counts as much as this many hidden plate corners or bricks


def card_view(scene, size) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Eye and look-at point (m) of a card picture: framing the pieces, from the side that hides least.

    The view keeps the renderer's iso elevation and picks, among azimuths every
    15°, the one from which the fewest figures, plate corners and bricks hide
    under the level plates above them (figures count most; ties go to the
    azimuth nearest the iso view's).
    """
    from sim.render.camera import fit_camera, piece_corners, view_direction

    iso, up = view_direction("iso")
    iso_az = np.degrees(np.arctan2(iso[1], iso[0]))
    elevation = np.arcsin(iso[2])
    plates, marks = _plates_and_marks(scene)
    best, best_key = iso, None
    for az in iso_az + np.arange(0.0, 360.0, 15.0):
        a = np.radians(az)
        toward = np.array([np.cos(elevation) * np.cos(a), np.cos(elevation) * np.sin(a), np.sin(elevation)])
        hidden = sum(weight for point, weight in marks if _hidden(point, toward, plates))
        key = (hidden, abs((az - iso_az + 180.0) % 360.0 - 180.0))
        if best_key is None or key < best_key:
            best, best_key = toward, key
    cam = fit_camera(piece_corners(scene), best, up, size, margin=CARD_PICTURE_MARGIN)
    return cam.eye, cam.target


def _plates_and_marks(scene):
    """Level plates as (outline in xy, bottom height), and the points a picture should show with their weights.

    The points (m, world): each figure's centre, each plate's top corners
    (nudged inwards so the plate itself does not hide them) and each other
    piece's centre.
    """
    import shapely.geometry as sg

    from sim.geometry.transforms import transform_points

    plates, marks = [], []
    for p in scene.pieces:
        if p.kind == "tohuwabohu.level":
            v = transform_points(p.shape.vertices, p.pos, p.quat)
            outline = sg.MultiPoint(v[:, :2]).convex_hull
            top = float(v[:, 2].max())
            plates.append((outline, float(v[:, 2].min())))
            centre = np.array(outline.centroid.coords[0])
            for x, y in list(outline.exterior.coords)[:-1]:
                corner = centre + 0.95 * (np.array([x, y]) - centre)
                marks.append((np.array([corner[0], corner[1], top]), 1))
        else:
            marks.append((np.asarray(p.pos, dtype=float), FIGURE_WEIGHT if p.kind == "tohuwabohu.figure" else 1))
    return plates, marks


def _hidden(point: np.ndarray, toward_eye: np.ndarray, plates) -> bool:
    """Whether the line of sight from ``point`` towards the eye passes through a plate above it."""
    import shapely.geometry as sg

    for outline, z in plates:
        if z > point[2]:
            q = point + toward_eye * (z - point[2]) / toward_eye[2]
            if outline.contains(sg.Point(q[0], q[1])):
                return True
    return False


def picture_size(scale: float = 1.0, dpi: int = PNG_DPI) -> tuple[int, int]:
    """Pixels (w, h) of the picture area of a card drawn at ``scale`` and ``dpi``."""
    w, h = _picture_box()
    return int(round(w * scale / 25.4 * dpi)), int(round(h * scale / 25.4 * dpi))


def _picture_box() -> tuple[float, float]:
    """Width and height (card mm) of the picture area."""
    return CARD_MM[0] - 2 * _FRAME, CARD_MM[1] - _TITLE - _FOOTER - 2 * _FRAME


_FRAME = 3.0  # mm of coloured frame
_TITLE = 16.0  # mm of title band
_FOOTER = 5.0  # mm of small print


def draw_card(fig, origin_mm, face: CardFace, picture: np.ndarray, scale: float = 1.0) -> None:
    """Draw one card face onto a matplotlib figure.

    Args:
        fig: the figure; its size in inches defines the millimetre grid.
        origin_mm: (x, y) of the card's lower left corner on the figure (mm).
        face: what to draw.
        picture: (h, w, 3 or 4) uint8 rendering of the card's scene.
        scale: card size relative to a 63 × 88 mm playing card.
    """
    from matplotlib.patches import FancyBboxPatch

    fw, fh = (x * 25.4 for x in fig.get_size_inches())
    x0, y0 = origin_mm

    def axes(x, y, ww, hh):
        ax = fig.add_axes([(x0 + x * scale) / fw, (y0 + y * scale) / fh, ww * scale / fw, hh * scale / fh])
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
              color="white", fontsize=(10.5 if len(lines) < 2 else 9.5) * scale, fontweight="bold", linespacing=1.1)
    card.text(CARD_MM[0] / 2, _FRAME + _FOOTER / 2, f"{face.label} · {face.id}", ha="center", va="center",
              color=(0.35, 0.35, 0.35), fontsize=4.8 * scale)
    pw, ph = _picture_box()
    pic = axes(_FRAME, _FRAME + _FOOTER, pw, ph)
    pic.imshow(_fit(picture, pw / ph), interpolation="lanczos")


def _fit(picture: np.ndarray, aspect: float, margin: float = 0.04) -> np.ndarray:
    """Crop a picture to what is drawn (its opaque pixels), then pad it with white to ``aspect`` = w / h.

    Args:
        picture: (h, w, 3 or 4) uint8; with alpha, transparent pixels are background.
        aspect: width / height of the result.
        margin: white border kept around the drawing, as a fraction of its larger side.
    """
    img = np.asarray(picture)
    if img.shape[2] == 4:
        alpha = img[..., 3] > 0
        if alpha.any():
            rows, cols = np.flatnonzero(alpha.any(axis=1)), np.flatnonzero(alpha.any(axis=0))
            img = img[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
        a = img[..., 3:4].astype(float) / 255.0
        img = (img[..., :3] * a + 255.0 * (1.0 - a)).astype(np.uint8)
    h, w = img.shape[:2]
    pad = int(round(margin * max(h, w)))
    want_w = max(w + 2 * pad, int(round((h + 2 * pad) * aspect)))
    want_h = max(h + 2 * pad, int(round(want_w / aspect)))
    out = np.full((want_h, want_w, 3), 255, np.uint8)
    top, left = (want_h - h) // 2, (want_w - w) // 2
    out[top:top + h, left:left + w] = img
    return out


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


def sheet_layout(n: int) -> tuple[int, int, float]:
    """Columns, rows and card scale that fit ``n`` cards on one A4 sheet with margins."""
    best = (1, n, 0.0)
    for cols in range(1, n + 1):
        rows = -(-n // cols)
        gap = 2.0
        s = min((SHEET_MM[0] - 2 * SHEET_MARGIN_MM - (cols - 1) * gap) / (cols * CARD_MM[0]),
                (SHEET_MM[1] - 2 * SHEET_MARGIN_MM - (rows - 1) * gap) / (rows * CARD_MM[1]))
        if s > best[2]:
            best = (cols, rows, s)
    return best


def sheet(faces: list[CardFace], pictures: list[np.ndarray], fmt: str = "pdf") -> bytes:
    """Every card on one printable A4 page, as PDF (or ``fmt``: any matplotlib format) bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols, rows, scale = sheet_layout(len(faces))
    gap = 2.0
    cw, ch = CARD_MM[0] * scale, CARD_MM[1] * scale
    total_w, total_h = cols * cw + (cols - 1) * gap, rows * ch + (rows - 1) * gap
    left, bottom = (SHEET_MM[0] - total_w) / 2, (SHEET_MM[1] - total_h) / 2
    fig = plt.figure(figsize=(SHEET_MM[0] / 25.4, SHEET_MM[1] / 25.4))
    try:
        for k, (face, pic) in enumerate(zip(faces, pictures)):
            r, c = divmod(k, cols)
            draw_card(fig, (left + c * (cw + gap), bottom + (rows - 1 - r) * (ch + gap)), face, pic, scale)
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, dpi=PNG_DPI)
        return buf.getvalue()
    finally:
        plt.close(fig)
