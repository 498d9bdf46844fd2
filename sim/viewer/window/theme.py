"""The colours of the window's panels and texts, chosen for a contrast of at least 4.5:1 (WCAG AA) whatever
the picture behind a panel shows, and the contrast arithmetic that checks them.

Pure (no Panda3D). A panel is a dark card, :data:`PANEL`, nearly opaque: behind it the picture may be the
white of a lit table or the black of the sky, and the texts on it keep their contrast over both
(:func:`worst_contrast`, which a test holds every text colour of the window to). Colours are sRGB(A) floats
0..1, as Panda3D takes them.
"""

from __future__ import annotations

import numpy as np

AA = 4.5
"""WCAG AA: the least contrast ratio of a text against what is behind it."""

PANEL = (0.06, 0.07, 0.08, 0.90)
"""Every panel's card (status line, stability, hover, messages, game panel, card tray, replay labels)."""
MODAL = (0.05, 0.06, 0.07, 0.95)
"""The help and the dialogs, over everything else."""
ROW = (0.14, 0.16, 0.19, 1.0)
"""A row of a dialog's list; :data:`ROW_CHOSEN` the one chosen."""
ROW_CHOSEN = (0.20, 0.36, 0.62, 1.0)
FIELD = (0.96, 0.96, 0.96, 1.0)
"""A text box (dark text on it, :data:`INK`)."""
TEXT = (0.96, 0.96, 0.96, 1.0)
"""Text on a panel."""
INK = (0.05, 0.05, 0.06, 1.0)
"""Text on a light ground (a text box, a light card)."""
KEYS = (0.70, 0.80, 1.00, 1.0)
"""The keys' column of the help, headings of a dialog."""
MUTED = (0.72, 0.74, 0.78, 1.0)
"""Secondary text on a panel (a folder's path, a dialog's hints)."""
ACTIVE = (1.00, 0.85, 0.20, 1.0)
"""Whose turn it is (the card tray's captions)."""
ALERT = (1.00, 0.58, 0.50, 1.0)
"""A refusal, an error said in a dialog."""
VERDICT_INK = {"stands": (0.50, 0.92, 0.55, 1.0), "weak": (1.00, 0.74, 0.32, 1.0),
               "falls": (1.00, 0.58, 0.52, 1.0)}
"""The stability panel's headline in each verdict's colour, lightened to be read on :data:`PANEL` (the badge
beside it shows the marks' own, full colour: green stands, orange weak, red falls)."""

LIGHT_BEHIND = (1.0, 1.0, 1.0)
DARK_BEHIND = (0.0, 0.0, 0.0)


def luminance(rgb) -> float:
    """WCAG relative luminance of an sRGB colour (3 floats 0..1)."""
    c = np.asarray(rgb, dtype=float)[:3]
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(lin @ np.array([0.2126, 0.7152, 0.0722]))


def contrast_ratio(a, b) -> float:
    """WCAG contrast ratio (1..21) of two opaque sRGB colours."""
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def over(card, behind) -> tuple[float, float, float]:
    """The colour a translucent ``card`` (RGBA) shows over ``behind`` (RGB), blended in sRGB as the window
    blends it."""
    a = float(card[3]) if len(card) > 3 else 1.0
    return tuple(float(a * c + (1.0 - a) * b) for c, b in zip(card[:3], behind[:3]))


def worst_contrast(text, card) -> float:
    """The least contrast of ``text`` on ``card`` over anything behind it (the worst of white and black: the
    blend is monotonic in what is behind)."""
    return min(contrast_ratio(text, over(card, behind)) for behind in (LIGHT_BEHIND, DARK_BEHIND))


def legible(colour, card=PANEL, ratio: float = AA) -> tuple[float, float, float, float]:
    """``colour`` mixed towards white just enough to reach ``ratio`` on ``card`` over anything (a player's
    colour written on a dark card); white when no mix does."""
    base = np.asarray(colour[:3], dtype=float)
    for t in np.linspace(0.0, 1.0, 41):
        mixed = tuple(float(v) for v in base + (1.0 - base) * t)
        if worst_contrast(mixed, card) >= ratio:
            return (*mixed, 1.0)
    return (1.0, 1.0, 1.0, 1.0)
