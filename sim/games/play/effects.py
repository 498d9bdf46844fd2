"""What a session asks the table to do: the effects a referee's answer is made of (:mod:`sim.games.play.session`).

Each is a frozen value the viewer's play mode carries out on the table (say something, put a piece back, place
one at a pose, clear the table for a new round ...). Pure: no engine, no window.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Effect:
    """Something the table must do for the referee."""


@dataclass(frozen=True)
class Say(Effect):
    """Tell the players.

    Attributes:
        text: one line.
        kind: ``info``, ``turn``, ``refused``, ``collapse``, ``score`` or ``win``.
    """

    text: str
    kind: str = "info"


@dataclass(frozen=True)
class PutBack(Effect):
    """The piece in a hand goes back where it was picked up (a refused placement).

    Attributes:
        piece: the piece.
    """

    piece: str


@dataclass(frozen=True)
class Place(Effect):
    """Put a piece at a pose, at rest (a pawn's step, a swap, a fallen piece put back).

    Attributes:
        piece: the piece.
        pose: (7,) xyz m + quaternion xyzw.
    """

    piece: str
    pose: tuple[float, ...]


@dataclass(frozen=True)
class Walk(Effect):
    """Walk a piece step by step through poses (a pawn along its route), at rest at each.

    Attributes:
        piece: the piece.
        poses: (7,) poses, the first step first.
    """

    piece: str
    poses: tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class ToSupply(Effect):
    """Pieces go back to where the set-up put them, in the supply.

    Attributes:
        pieces: their ids.
    """

    pieces: tuple[str, ...]


@dataclass(frozen=True)
class SetAside(Effect):
    """Pieces leave the table for the rest of the round or game (knocked-down parts, won large nobles).

    Attributes:
        pieces: their ids.
    """

    pieces: tuple[str, ...]


@dataclass(frozen=True)
class Clear(Effect):
    """The table as the set-up left it: a new round."""


@dataclass(frozen=True)
class EmptyHands(Effect):
    """Every piece in a hand goes back where it was picked up (the turn passed, "Stop" was called).

    Attributes:
        player: only this player's hands (where everyone builds at once, each with hands of their own: the
            player who is out of the round), or None for every hand.
    """

    player: str | None = None


@dataclass(frozen=True)
class Pin(Effect):
    """Hold a piece where it is, fixed, until :class:`Unpin` (the first block of a 4 + 1 placed together).

    Attributes:
        piece: the piece.
        pose: (7,) where it is held.
    """

    piece: str
    pose: tuple[float, ...]


@dataclass(frozen=True)
class Unpin(Effect):
    """Let a pinned piece go: it stays where it is, at rest (or goes back to the supply with ``home``).

    Attributes:
        piece: the piece.
        home: put it back in the supply instead.
    """

    piece: str
    home: bool = False


@dataclass(frozen=True)
class Seat(Effect):
    """Whose hands are at work from now (whose actions are blamed for what happens).

    Attributes:
        player: the player.
    """

    player: str
