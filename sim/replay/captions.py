"""Captions drawn into video frames: the clock and the latest events, on a translucent band.

Text is rasterised by Pillow with the DejaVu Sans font that matplotlib ships
(both already dependencies of towerlab: no new font or package).
"""

from __future__ import annotations

from functools import cache

import numpy as np

CAPTION_SECONDS = 2.5
"""How long (s of video) an event's caption stays."""

MAX_LINES = 3
"""The most captions shown at once (the newest last)."""


@cache
def _font(px: int):
    from matplotlib import font_manager
    from PIL import ImageFont

    return ImageFont.truetype(font_manager.findfont("DejaVu Sans"), px)


def overlay(frame: np.ndarray, clock: str | None, lines: list[str]) -> np.ndarray:
    """Draw the clock (top left) and caption lines (bottom, newest last) into a picture.

    Args:
        frame: (h, w, 3 or 4) uint8.
        clock: the top line, e.g. ``1.23 s  x0.25`` (None: none).
        lines: captions, oldest first; the last :data:`MAX_LINES` are drawn.

    Returns:
        (h, w, 3) uint8: the picture with the text.
    """
    from PIL import Image, ImageDraw

    h, w = frame.shape[:2]
    image = Image.fromarray(np.ascontiguousarray(frame[..., :3]), "RGB")
    px = max(10, int(round(h / 28)))
    font = _font(px)
    band = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(band)
    pad = max(3, px // 3)
    shown = [_fit(draw, t, font, w - 4 * pad) for t in lines[-MAX_LINES:]]
    if clock is not None:
        clock = _fit(draw, clock, font, w - 6 * pad)
        box = draw.textbbox((0, 0), clock, font=font)
        draw.rectangle((pad, pad, pad * 3 + box[2] - box[0], pad * 3 + box[3] - box[1]), fill=(0, 0, 0, 120))
        draw.text((pad * 2 - box[0], pad * 2 - box[1]), clock, font=font, fill=(255, 255, 255, 255))
    if shown:
        line_h = int(px * 1.3)
        top = h - pad * 2 - line_h * len(shown)
        draw.rectangle((0, top - pad, w, h), fill=(0, 0, 0, 140))
        for k, text in enumerate(shown):
            draw.text((pad * 2, top + k * line_h), text, font=font, fill=(255, 255, 255, 255))
    image = Image.alpha_composite(image.convert("RGBA"), band).convert("RGB")
    return np.asarray(image)


def _fit(draw, text: str, font, width: int) -> str:
    """``text`` shortened with an ellipsis to fit ``width`` pixels."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"
