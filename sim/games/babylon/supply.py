"""Babylon's players and their pieces: who plays, how many pieces each gets, what is left in hand."""

from __future__ import annotations

from dataclasses import dataclass

from sim.errors import TowerlabError
from sim.pieces import dimensions as dim

TOWER = "babylon.tower"
BRIDGE = "babylon.bridge"
NOBLE = "babylon.noble"
MODES = ("tactical", "fast")
# (s) building parts per player by number of players: (towers, bridges)
ALLOTMENT = {
    "tactical": {3: (27, 6), 4: (21, 5), 5: (16, 4)},
    "fast": {3: (27, 6), 4: (21, 5), 5: (15, 4)},
}


class BabylonError(TowerlabError):
    """A scene or request that Babylon's rules cannot be applied to (no players, a wrong colour, ...)."""


def players_of(scene) -> tuple[str, ...]:
    """The players of a Babylon scene: noble colours in clockwise seat (turn) order.

    Raises:
        BabylonError: the scene is not a Babylon scene, lists no players, or
            lists a number or colour the rules do not allow.
    """
    where = scene.source or "<scene>"
    if scene.game != "babylon":
        raise BabylonError(f"{where}: game: expected \"babylon\", got \"{scene.game}\"")
    players = scene.players
    if not players:
        raise BabylonError(f"{where}: players: required for Babylon's rules (noble colours in seat order)")
    counts = sorted(ALLOTMENT["tactical"])
    if len(players) not in counts:
        raise BabylonError(f"{where}: players: expected {counts[0]} to {counts[-1]} players, got {len(players)}")
    for i, p in enumerate(players):
        if p not in dim.BABYLON_NOBLE_COLORS:
            raise BabylonError(f"{where}: players[{i}]: expected a noble colour "
                               f"({', '.join(dim.BABYLON_NOBLE_COLORS)}), got \"{p}\"")
    for i, piece in enumerate(scene.pieces):
        if piece.kind == NOBLE and piece.params["color"] not in players:
            raise BabylonError(f"{where}: pieces[{i}].color: {piece.id} is {piece.params['color']}, "
                               f"not one of the players ({', '.join(players)})")
    return tuple(players)


def player_of(piece) -> str | None:
    """Whose piece it is: a noble's colour, else the ``owner`` field (None when not given)."""
    return piece.params["color"] if piece.kind == NOBLE else piece.owner


@dataclass(frozen=True)
class Pieces:
    """A count of Babylon pieces (in hand, placed, allotted).

    Attributes:
        towers, bridges: building parts.
        small, large: nobles of each size.
    """

    towers: int = 0
    bridges: int = 0
    small: int = 0
    large: int = 0

    @property
    def total(self) -> int:
        """All pieces."""
        return self.towers + self.bridges + self.small + self.large

    @property
    def nobles(self) -> int:
        """Nobles of both sizes."""
        return self.small + self.large

    def __sub__(self, other: Pieces) -> Pieces:
        return Pieces(self.towers - other.towers, self.bridges - other.bridges,
                      self.small - other.small, self.large - other.large)

    def shortfalls(self) -> list[str]:
        """Names of the counts that are negative (more placed than allotted)."""
        return [name for name in ("towers", "bridges", "small", "large") if getattr(self, name) < 0]


def allotment(mode: str, n_players: int, large_set_aside: int = 0) -> Pieces:
    """The pieces one player gets in a game (fast game: in a round).

    Args:
        mode: ``tactical`` or ``fast``.
        n_players: 3, 4 or 5.
        large_set_aside: large nobles put aside after round wins (fast game).
    """
    towers, bridges = ALLOTMENT[mode][n_players]
    nobles = dim.BABYLON_NOBLES_PER_COLOR
    return Pieces(towers, bridges, nobles["small"], nobles["large"] - large_set_aside)


def count(pieces) -> Pieces:
    """How many towers, bridges, small and large nobles are among ``pieces`` (scene pieces)."""
    pieces = list(pieces)  # read twice: a generator would give its nobles to the first pass only
    kinds = [p.kind for p in pieces]
    sizes = [p.params["size"] for p in pieces if p.kind == NOBLE]
    return Pieces(kinds.count(TOWER), kinds.count(BRIDGE), sizes.count("small"), sizes.count("large"))


def placed_by(scene, player: str) -> Pieces:
    """The pieces of ``player`` in a scene (towers and bridges by ``owner``, nobles by colour)."""
    return count(p for p in scene.pieces if player_of(p) == player)
