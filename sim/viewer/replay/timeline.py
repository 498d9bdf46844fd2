"""The replay window's timeline bar as numbers: where each time and each marked event is, and back.

Pure: the window draws the bar and its marks from :class:`Timeline` and turns a
click or a drag on it into a time with :meth:`Timeline.time_at`; the tests
check the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

MARK_COLORS: dict[str, tuple[float, float, float, float]] = {
    "knocked_down": (0.95, 0.18, 0.12, 1.0),
    "picked": (0.35, 0.62, 1.0, 1.0),
    "dropped": (0.20, 0.42, 0.95, 1.0),
    "added": (0.55, 0.80, 1.0, 1.0),
    "removed": (0.55, 0.80, 1.0, 1.0),
    "turn_changed": (1.0, 0.85, 0.20, 1.0),
    "card_fulfilled": (0.30, 0.85, 0.35, 1.0),
    "round_ended": (0.95, 0.95, 0.95, 1.0),
    "game_over": (0.95, 0.95, 0.95, 1.0),
    "collapse_choice": (0.90, 0.45, 0.95, 1.0),
    "restored": (1.0, 0.55, 0.10, 1.0),
    "engine_reset": (1.0, 0.55, 0.10, 1.0),
}
"""sRGBA of each event kind's mark (knocked down in red); other kinds :data:`OTHER_COLOR`."""
OTHER_COLOR = (0.62, 0.64, 0.66, 1.0)
PRIORITY = ("knocked_down", "game_over", "round_ended", "card_fulfilled", "turn_changed", "collapse_choice",
            "restored", "picked", "dropped", "added", "removed")
"""Which mark wins when several fall on one place of the bar (first wins; unlisted kinds last)."""


@dataclass(frozen=True)
class Mark:
    """One drawn mark.

    Attributes:
        fraction: where along the bar, 0 (the recording's start) .. 1 (its end).
        time: the event's time (s).
        kind: its kind (the most important of the events merged into it).
        color: sRGBA.
        label: the caption of that event.
        count: how many events it stands for.
    """

    fraction: float
    time: float
    kind: str
    color: tuple[float, float, float, float]
    label: str
    count: int = 1


class TimelineBar:
    """The bar from a recording's first frame to its last, with the events marked.

    Args:
        start, end: the recording's first and last frame times (s).
        markers: :class:`sim.replay.player.Marker` values (time, kind, label), in time order.
    """

    def __init__(self, start: float, end: float, markers):
        self.start, self.end = float(start), float(end)
        self.markers = list(markers)

    @property
    def span(self) -> float:
        return max(self.end - self.start, 1e-9)

    def fraction(self, t: float) -> float:
        """Where time ``t`` (s) is along the bar, 0..1 (clamped)."""
        return min(max((float(t) - self.start) / self.span, 0.0), 1.0)

    def time_at(self, fraction: float) -> float:
        """The time (s) at a place along the bar (clamped to the recording)."""
        return self.start + min(max(float(fraction), 0.0), 1.0) * (self.end - self.start)

    def marks(self, resolution: int = 800) -> list[Mark]:
        """The marks to draw, events closer than 1/``resolution`` of the bar merged into the most important.

        Args:
            resolution: how many places the bar has (about its width in pixels).
        """
        rank = {k: i for i, k in enumerate(PRIORITY)}
        slots: dict[int, list] = {}
        for m in self.markers:
            slots.setdefault(int(round(self.fraction(m.time) * resolution)), []).append(m)
        out = []
        for slot in sorted(slots):
            group = slots[slot]
            best = min(group, key=lambda m: (rank.get(m.kind, len(rank)), m.time))
            out.append(Mark(self.fraction(best.time), best.time, best.kind, MARK_COLORS.get(best.kind, OTHER_COLOR),
                            best.label, len(group)))
        return out


BAR_LEFT, BAR_RIGHT = 0.03, 0.97
"""Where the bar begins and ends, in fractions of the window's width."""
BAR_TOP, BAR_BOTTOM = 0.935, 0.965
"""Its top and bottom edge, in fractions of the window's height from the top."""
BAR_GRAB = 0.02
"""How far above and below the bar (fractions of the height) a click still takes it."""


def bar_fraction(px: float, width: int) -> float:
    """The place along the bar (0..1, clamped) under pixel column ``px`` of a window ``width`` pixels wide."""
    return min(max((px / width - BAR_LEFT) / (BAR_RIGHT - BAR_LEFT), 0.0), 1.0)


def on_bar(px: float, py: float, size) -> bool:
    """Whether pixel (px, py) (x right, y down) of a window of ``size`` takes the bar."""
    w, h = size
    fy = py / h
    return BAR_LEFT * w - 4 <= px <= BAR_RIGHT * w + 4 and BAR_TOP - BAR_GRAB <= fy <= BAR_BOTTOM + BAR_GRAB


def bar_pixel(fraction: float, size) -> tuple[float, float]:
    """(px, py): the pixel of a place along the bar (its middle line)."""
    w, h = size
    return (BAR_LEFT + fraction * (BAR_RIGHT - BAR_LEFT)) * w, (BAR_TOP + BAR_BOTTOM) / 2 * h
