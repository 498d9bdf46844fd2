"""What the live world records and reports: actions, events with their cause, real-time steps, snapshots."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class WorldAction:
    """One change made to the live world from outside, as plain data.

    Attributes:
        time: simulated time (s) it was made at.
        kind: ``add``, ``remove``, ``set_pose``, ``push``, ``grab``, ``move_hand``, ``release``, ``shake``,
            ``pull``, ``release_pull``.
        piece: the piece it concerned (None for a shake).
        hand: the hand that did it, if any.
        player: who did it, if known.
        args: the rest, JSON-ready (poses as lists, impulses, ...).
    """

    time: float
    kind: str
    piece: str | None = None
    hand: str | None = None
    player: str | None = None
    args: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """JSON form."""
        return {"time": round(self.time, 6), "kind": self.kind, "piece": self.piece, "hand": self.hand,
                "player": self.player, "args": self.args}


@dataclass(frozen=True)
class WorldEvent:
    """Something that happened in the live world, with the last action before it.

    Attributes:
        time: simulated time (s) of the frame it was first seen in.
        kind: ``moved`` (started moving), ``left_support``, ``fell`` (reached the board or table),
            ``knocked_down``, ``came_to_rest``.
        pieces: the pieces concerned.
        cause: the last action made at or before ``time`` (None before any action): which piece,
            which hand, which player: the raw material of collapse penalties.
    """

    time: float
    kind: str
    pieces: tuple[str, ...]
    cause: WorldAction | None = None

    def to_json(self) -> dict:
        """JSON form, the cause inline."""
        return {"time": round(self.time, 6), "kind": self.kind, "pieces": list(self.pieces),
                "cause": None if self.cause is None else self.cause.to_json()}


@dataclass(frozen=True)
class AdvanceReport:
    """What one call of :meth:`~sim.physics.live.LiveWorld.advance` did.

    Attributes:
        asked: simulated time asked for (s).
        simulated: simulated time stepped (s).
        steps: fixed steps taken.
        wall: wall-clock time it took (s).
        real_time_factor: simulated time per wall-clock second over the call (inf when nothing cost time).
        behind: the budget ran out before all that was asked (the world slows down rather than freezing).
    """

    asked: float
    simulated: float
    steps: int
    wall: float
    real_time_factor: float
    behind: bool


@dataclass(frozen=True)
class Grip:
    """A hand's grip, as data: which piece it carries and where it pulls it.

    Attributes:
        name: the hand.
        piece: the piece it carries.
        target: (7,) the pose (piece frame: position m, quaternion xyzw) it pulls the piece towards.
        strength: its force limit in weights of the piece.
        player: whose hand it is.
    """

    name: str
    piece: str
    target: np.ndarray
    strength: float
    player: str | None = None
