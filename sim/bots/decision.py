"""What a computer player decided and why: the action, how long a hand takes to carry it out, the candidates it
weighed with their score and risk (what the window's reasoning panel shows, what a tournament keeps)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Candidate:
    """One move a player weighed.

    Attributes:
        action: the one game interface's action (JSON data).
        label: the move in a few words (``b4-2 on [3, 2] at level 1 (x)``).
        score: what the level's method made of it (higher is better; each game's own units, see docs/bots.md).
        risk: P(collapse) under the hand's placement noise, where it was measured (None: not asked).
        detail: the terms the score is made of (JSON data: ``{"climb": 3, "rival": 2}``).
    """

    action: Mapping
    label: str
    score: float
    risk: float | None = None
    detail: Mapping = field(default_factory=dict)

    def to_json(self) -> dict:
        """``{action, label, score, risk, detail}``."""
        return {"action": dict(self.action), "label": self.label, "score": round(float(self.score), 6),
                "risk": None if self.risk is None else round(float(self.risk), 6), "detail": dict(self.detail)}


@dataclass(frozen=True)
class Decision:
    """A computer player's move.

    Attributes:
        action: what it does (the one game interface's action).
        player: who.
        level: the player's level (1 random, 2 greedy, 3 planning).
        seconds: how long a hand at a person's pace takes to carry it out (:mod:`sim.bots.pace`).
        why: one line for the players.
        candidates: what it weighed, best first (empty for a move it did not have to weigh).
    """

    action: Mapping
    player: str
    level: int
    seconds: float
    why: str = ""
    candidates: tuple[Candidate, ...] = ()

    def to_json(self) -> dict:
        """``{action, player, level, seconds, why, candidates}``."""
        return {"action": dict(self.action), "player": self.player, "level": self.level,
                "seconds": round(float(self.seconds), 6), "why": self.why,
                "candidates": [c.to_json() for c in self.candidates]}


__all__ = ["Candidate", "Decision"]
