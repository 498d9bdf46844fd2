"""A person's pace: how long a hand takes to make a move, and the way it carries a piece (pure).

A computer player's move takes the time a person's would: a hand reaches for
the piece and grips it, lifts it clear of everything between, carries it over
and sets it down, and lets go. The time counts against Tohuwabohu's turn timer
and decides who comes first where everyone builds at once (Babylon's fast
game, Tohuwabohu's professional variant); the way is what a tournament's
recording shows the piece doing. The numbers are a calm adult's (about 30 cm
a second across the table, half that up and down); the viewer's hands follow
the same way at the same pace (docs/bots.md).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

GRIP_S = 0.6
"""Reaching for a piece and gripping it (s)."""
RELEASE_S = 0.5
"""Setting it down gently and letting go (s)."""
ACROSS_M_S = 0.30
"""Speed of a carried piece across the table (m/s)."""
UPDOWN_M_S = 0.15
"""Speed of a piece lifted or lowered (m/s)."""
CLEARANCE_M = 0.03
"""How far (m) a carried piece passes above the higher of its start and its place."""
STEP_S = 0.25
"""A pawn's step along its route (s: the referee's own walking pace)."""
ACTION_S: Mapping[str, float] = {
    "throw": 1.5, "take": 0.6, "together": 0.4, "end-turn": 0.6, "start": 1.2, "restart": 1.2, "move-pawn": 0.8,
    "swap": 1.5, "stop": 0.5, "done": 0.5, "swap-nobles": 3.0, "turn-tower": 2.5, "take-back": 2.0, "seat": 0.0,
    "next-round": 0.0, "continue": 0.5, "punish": 0.5, "finish": 0.5,
}
"""Seconds a person takes for each game action besides placing (a die thrown, a turn ended, a card swapped ...)."""


def carry_way(start, end, over: float | None = None) -> np.ndarray:
    """The way a hand carries a piece from ``start`` to ``end``: straight up, across, straight down.

    Args:
        start: (3,) where the piece is (m).
        end: (3,) where it goes (m).
        over: the highest point (m) the way must clear (default the higher of the two).

    Returns:
        (4, 3) the corners of the way, ``start`` first and ``end`` last.
    """
    a, b = np.asarray(start, dtype=float)[:3], np.asarray(end, dtype=float)[:3]
    top = max(a[2], b[2], -np.inf if over is None else over) + CLEARANCE_M
    return np.array([a, [a[0], a[1], top], [b[0], b[1], top], b])


def way_seconds(way: np.ndarray) -> np.ndarray:
    """(k,) the time (s) each corner of ``way`` is reached, from the grip (the first after :data:`GRIP_S`)."""
    legs = np.diff(np.asarray(way, dtype=float), axis=0)
    across = np.linalg.norm(legs[:, :2], axis=1) / ACROSS_M_S
    updown = np.abs(legs[:, 2]) / UPDOWN_M_S
    return GRIP_S + np.concatenate([[0.0], np.cumsum(np.maximum(across, updown))])


def place_seconds(start, end, over: float | None = None) -> float:
    """Seconds a hand takes to grip a piece at ``start``, carry it to ``end`` and let go (see :func:`carry_way`)."""
    return float(way_seconds(carry_way(start, end, over))[-1] + RELEASE_S)


def action_seconds(action: Mapping) -> float:
    """Seconds a person takes for a game action that is not a placement (a pawn's walk: its steps)."""
    name = action.get("action")
    if name == "wait":
        return float(action.get("seconds", 0.0))
    return float(ACTION_S.get(name, 0.5))


def along(way: np.ndarray, t: float) -> np.ndarray:
    """(3,) where the piece is ``t`` seconds after the hand reached for it (at the start while gripping, at the
    end while letting go)."""
    way = np.asarray(way, dtype=float)
    times = way_seconds(way)
    if t <= times[0]:
        return way[0].copy()
    if t >= times[-1]:
        return way[-1].copy()
    k = int(np.searchsorted(times, t) - 1)
    f = (t - times[k]) / max(times[k + 1] - times[k], 1e-12)
    return way[k] + f * (way[k + 1] - way[k])


__all__ = ["ACTION_S", "ACROSS_M_S", "CLEARANCE_M", "GRIP_S", "RELEASE_S", "STEP_S", "UPDOWN_M_S", "action_seconds",
           "along", "carry_way", "place_seconds", "way_seconds"]
