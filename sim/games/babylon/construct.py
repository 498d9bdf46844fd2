"""Babylon pieces placed correctly by hand: towers and bridges on 25 mm cells at whole levels, nobles on towers.

Coordinates here are millimetres, as in scene files. Towers and bridges stand
upright with their bottom on a whole level (20 mm steps); nobles stand on a
tower's top, spread so that two or three of them fit side by side.
"""

from __future__ import annotations

from sim.games.babylon.supply import BRIDGE, NOBLE, TOWER
from sim.geometry.transforms import euler_to_quat
from sim.pieces import MM, shape
from sim.pieces import dimensions as dim
from sim.scene import Piece, Scene

_HEIGHT = dim.BABYLON_TOWER["size"][2]
# where one, two or three nobles stand on a tower top, from its centre (mm): apart by more than a small
# noble's base and inside the 25 mm top
NOBLE_SPOTS = {1: ((0.0, 0.0),), 2: ((-6.2, 0.0), (6.2, 0.0)), 3: ((-6.2, -6.2), (6.2, -6.2), (0.0, 5.9))}
# a small and a large noble (the fast game allows it) fit only along the diagonal
MIXED_SPOTS = {"small": (-5.2, -5.2), "large": (4.4, 4.4)}


def _piece(piece_id: str, kind: str, params: dict, x: float, y: float, z: float, yaw: float,
           owner: str | None) -> Piece:
    rot = (0.0, 0.0, float(yaw))
    quat = tuple(float(q) for q in euler_to_quat(rot))
    return Piece(piece_id, kind, params, (x * MM, y * MM, z * MM), quat, owner=owner,
                 rot=rot if yaw else None)


def tower(piece_id: str, x: float, y: float, level: int = 0, *, facing: int = 0,
          owner: str | None = None) -> Piece:
    """A tower on the cell centred at (x, y) mm with ``level`` levels beneath it.

    Args:
        facing: its orientation: the direction its opening faces, degrees from +x (0, 90, 180, 270).
    """
    return _piece(piece_id, TOWER, {}, x, y, level * _HEIGHT + _HEIGHT / 2, facing, owner)


def bridge(piece_id: str, x: float, y: float, level: int = 0, *, along: str = "x",
           owner: str | None = None) -> Piece:
    """A bridge centred at (x, y) mm, spanning three cells along ``x`` or ``y``, ``level`` levels up."""
    return _piece(piece_id, BRIDGE, {}, x, y, level * _HEIGHT + _HEIGHT / 2, 0.0 if along == "x" else 90.0, owner)


def noble(piece_id: str, on: Piece, size: str, color: str, spot: tuple[float, float] = (0.0, 0.0)) -> Piece:
    """A noble standing on the top of the tower ``on``, ``spot`` mm from its centre."""
    top = on.pos[2] / MM + _HEIGHT / 2
    height = float(shape(NOBLE, size=size, color=color).extent[2]) / MM
    return _piece(piece_id, NOBLE, {"size": size, "color": color}, on.pos[0] / MM + spot[0],
                  on.pos[1] / MM + spot[1], top + height / 2, 0.0, None)


def nobles_on(on: Piece, nobles: list[tuple[str, str, str]]) -> list[Piece]:
    """One to three nobles ``(id, size, colour)`` spread over the top of the tower ``on``."""
    sizes = {size for _, size, _ in nobles}
    if len(nobles) == 2 and sizes == {"small", "large"}:
        spots = [MIXED_SPOTS[size] for _, size, _ in nobles]
    else:
        spots = NOBLE_SPOTS[len(nobles)]
    return [noble(i, on, size, color, spot) for (i, size, color), spot in zip(nobles, spots)]


def babylon_scene(pieces, players, title: str | None = None, notes: str | None = None) -> Scene:
    """A Babylon scene on the ``babylon-table`` with these pieces and players (seat order)."""
    return Scene("babylon", "babylon-table", tuple(pieces), title, notes, tuple(players))
