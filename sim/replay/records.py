"""What a recording holds besides poses: actions (who did what, when) and events (what happened, and why).

Both are plain data with a JSON form, the same in the file and in memory. The
event record is generic: a ``kind`` (a name of lower-case letters, digits and
underscores), the pieces concerned, the action that caused it (by index) and a
``data`` object the games fill as they like (a card, a player, a game state).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

FORMAT = "towerlab-recording/1"
"""The format this version writes and reads."""

SUPPORTED_FORMATS = (FORMAT,)
"""Every format this version reads."""

WORLD_ACTIONS = ("add", "remove", "set_pose", "push", "grab", "move_hand", "release", "shake", "pull",
                 "release_pull")
"""Action kinds the live world applies (``LiveWorld.apply``): those a re-simulation replays."""

_KIND = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


def check_kind(kind: str, what: str = "event") -> str:
    """``kind`` if it is a valid name (``[a-z][a-z0-9_]*``, at most 64 characters).

    Raises:
        ValueError: it is not.
    """
    if not isinstance(kind, str) or not _KIND.match(kind):
        raise ValueError(f"{what} kind: expected a name of lower-case letters, digits and _, got {kind!r}")
    return kind


@dataclass(frozen=True)
class RecordedAction:
    """Something someone did, as recorded.

    Attributes:
        index: its place in the recording's action log, from 0.
        time: recording time (s).
        actor: who did it (a player), if known.
        kind: what it was (``grab``, ``release``, ``roll``, ``stop`` ...).
        piece: the piece it concerned, if any.
        hand: the hand that did it, if any.
        args: the rest, JSON data (targets, impulses, a die roll ...).
        world: it is a live-world action (one of :data:`WORLD_ACTIONS`), replayed by a re-simulation.
        world_time: the live world's own time (s) when it was made (world actions only).
    """

    index: int
    time: float
    actor: str | None
    kind: str
    piece: str | None = None
    hand: str | None = None
    args: Mapping = field(default_factory=dict)
    world: bool = False
    world_time: float | None = None

    def to_json(self) -> dict:
        """JSON form (times as full floats: they read back bit for bit)."""
        return {"index": self.index, "time": self.time, "actor": self.actor, "kind": self.kind, "piece": self.piece,
                "hand": self.hand, "args": dict(self.args), "world": self.world, "world_time": self.world_time}

    @classmethod
    def from_json(cls, d: Mapping) -> RecordedAction:
        """The inverse of :meth:`to_json` (KeyError, TypeError or ValueError on a malformed record)."""
        world_time = d.get("world_time")
        return cls(int(d["index"]), float(d["time"]), _opt_str(d.get("actor")), check_kind(d["kind"], "action"),
                   _opt_str(d.get("piece")), _opt_str(d.get("hand")), _mapping(d.get("args") or {}),
                   bool(d.get("world", False)), None if world_time is None else float(world_time))

    def live_json(self) -> dict:
        """The form ``LiveWorld.apply`` takes."""
        return {"kind": self.kind, "piece": self.piece, "hand": self.hand, "player": self.actor,
                "args": dict(self.args)}

    def describe(self) -> str:
        """A short phrase: ``release of b7 (right hand)``."""
        what = self.kind.replace("_", " ")
        on = f" of {self.piece}" if self.piece else ""
        hand = f" ({self.hand} hand)" if self.hand else ""
        return f"{what}{on}{hand}"


@dataclass(frozen=True)
class RecordedEvent:
    """Something that happened, as recorded.

    Attributes:
        index: its place in the recording's event log, from 0.
        time: recording time (s).
        kind: the physics', a session's or a game's (docs/recording-format.md lists them; any
            ``[a-z][a-z0-9_]*`` name is allowed).
        pieces: the pieces concerned.
        cause: index of the action that caused it (the last one before it), or None.
        data: anything else, JSON data.
    """

    index: int
    time: float
    kind: str
    pieces: tuple[str, ...] = ()
    cause: int | None = None
    data: Mapping = field(default_factory=dict)

    def to_json(self) -> dict:
        """JSON form."""
        return {"index": self.index, "time": self.time, "kind": self.kind, "pieces": list(self.pieces),
                "cause": self.cause, "data": dict(self.data)}

    @classmethod
    def from_json(cls, d: Mapping) -> RecordedEvent:
        """The inverse of :meth:`to_json` (KeyError, TypeError or ValueError on a malformed record)."""
        cause = d.get("cause")
        pieces = d.get("pieces") or []
        if not isinstance(pieces, list) or not all(isinstance(p, str) for p in pieces):
            raise TypeError(f"pieces: expected a list of ids, got {pieces!r}")
        return cls(int(d["index"]), float(d["time"]), check_kind(d["kind"]), tuple(pieces),
                   None if cause is None else int(cause), _mapping(d.get("data") or {}))


def _opt_str(v) -> str | None:
    if v is not None and not isinstance(v, str):
        raise TypeError(f"expected text or null, got {v!r}")
    return v


def _mapping(v) -> dict:
    if not isinstance(v, Mapping):
        raise TypeError(f"expected an object, got {v!r}")
    return dict(v)
