"""What both Babylon games share on the table: the building (the table without the supply), the placement
rules asked of a piece as it is set down, turning a tower, and pieces put back where they were."""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from sim.games.babylon.building import Layout
from sim.games.babylon.placement import congruent_bridges, noble_violations, part_violations
from sim.games.babylon.supply import NOBLE, player_of
from sim.games.contract import Violation
from sim.games.play.session import Refused, Table
from sim.scene import Piece, Scene


def building(table: Table) -> Scene:
    """The pieces built: the table without the supply's pieces and those in a hand."""
    scene = table.scene()
    out = set(table.supply) | set(table.carried.values())
    return scene.with_pieces(p for p in scene.pieces if p.id not in out)


def with_piece(scene: Scene, piece: Piece) -> Scene:
    """``scene`` with ``piece`` where it lies (in place of the scene's piece of its id, if any)."""
    return scene.with_pieces([*(q for q in scene.pieces if q.id != piece.id), piece])


def placement_violations(layout: Layout, piece: str, n_players: int) -> list[Violation]:
    """The placement rules ``piece`` breaks where it stands in ``layout``: a part's (upright, square, on a
    tower's top or a bridge's spot, no arch on a piece, no congruent bridges, not on a noble), or a
    noble's (upright on a tower, how many and which colours a tower holds)."""
    if piece in layout.nobles:
        return noble_violations(layout, [piece], n_players)
    return part_violations(layout, [piece]) + congruent_bridges(layout, [piece])


def refuse_placement(layout: Layout, piece: str, n_players: int) -> None:
    """Raise a refusal naming the rules ``piece`` breaks where it would stand.

    Raises:
        Refused: it breaks one.
    """
    broken = placement_violations(layout, piece, n_players)
    if broken:
        raise Refused(broken[0].rule, "; ".join(v.reason for v in broken))


def owner(table: Table, piece: str) -> str | None:
    """Whose piece it is: a noble's colour, a part's owner."""
    return player_of(table.scene().piece(piece))


def is_noble(table: Table, piece: str) -> bool:
    """Whether the piece is a noble."""
    return table.scene().piece(piece).kind == NOBLE


def quarter_turn(layout: Layout, tower: str, poses: dict) -> dict[str, tuple[float, ...]]:
    """Poses after turning ``tower`` by 90° about its vertical axis, with the nobles standing on it.

    Args:
        layout: the building.
        tower: the tower's id.
        poses: id -> (7,) current pose of every piece concerned.

    Returns:
        id -> (7,) new pose, for the tower and each noble on it.
    """
    centre = np.asarray(poses[tower][:3], dtype=float)
    turn = Rotation.from_euler("z", 90.0, degrees=True)
    out = {}
    for pid in [tower, *sorted(n.id for n in layout.nobles_on(tower))]:
        pose = np.asarray(poses[pid], dtype=float)
        rel = pose[:3] - centre
        pos = centre + np.array([*turn.apply([rel[0], rel[1], 0.0])[:2], rel[2]])
        quat = (turn * Rotation.from_quat(pose[3:])).as_quat()
        out[pid] = (*(float(x) for x in pos), *(float(x) for x in quat))
    return out
