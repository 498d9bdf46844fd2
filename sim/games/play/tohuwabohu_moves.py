"""What is legal now in Tohuwabohu: the swap, "Stop!", the choice after a collapse, the hot seat, time passing,
and where a piece may be set down.

The referee refuses no piece set down (a card is judged once the area is at
rest), so a piece's placements are where it can rest: on the playing area and
on the tops of the pieces built (bricks lying or on end, arches on their feet,
levels flat, each turned square both ways), spread over the whole of each top's
free part (what stands on it cut away: :func:`~sim.games.play.spots.free_tops`)
at about the piece's own size or coarser, a figure on every free figure point of
a level (:data:`~sim.pieces.model.Anchor` ``figure_point``), and a piece in play
back where the set-up laid it beside the area (``supply``: loose beside the
area, it is in no structure; the way to take a construction apart). Each is free on the
table (:func:`~sim.games.play.spots.table_refusal`).
"""

from __future__ import annotations

import numpy as np

from sim.games.play.spots import (
    Placement,
    Top,
    free_tops,
    lying,
    on_tops,
    piece_tops,
    resting_pose,
    table_refusal,
    turned,
)
from sim.scene.overlap import Obstacles

AREA_POINTS = 16
"""Points tried on the playing area per orientation."""
TOP_POINTS = 4
"""Points tried on a piece's top per orientation."""

_LEVEL_TOP = "tohuwabohu.level"


def actions(session) -> list[dict]:
    """Every play action the session accepts now (the variant's own), and a wait to the end of the turn or round."""
    s = session.state
    out: list[dict] = []
    if session.basic:
        if not s.swapped and s.hand(s.active).pile:
            out.append({"action": "swap"})
    elif session.collapse_by is not None:
        out += [{"action": "continue"}, {"action": "punish"}]
    else:
        out.append({"action": "stop"})
    if not session.basic:
        out += [{"action": "seat", "player": p} for p in session.players]
    out.append({"action": "wait", "seconds": float(s.time_left)})
    return out


def placements(session, piece: str, table) -> list[Placement]:
    """Where the piece ``piece`` (in hand) can rest on the area or on what is built (see the module docstring)."""
    scene = table.scene()
    probe = scene.piece(piece)
    out_of_play = set(table.supply) | set(table.carried.values())
    built = [p for p in scene.pieces if p.id not in out_of_play]
    obstacles = Obstacles(scene, ignore=(piece,))
    size = float(min(probe.shape.extent[:2]))
    free = free_tops([Top("board", 0.0, _area(scene)), *(t for p in built for t in piece_tops(p))], built, size / 2)
    area = [t for t in free if t.on == "board"]
    tops = [t for t in free if t.on != "board"]
    quats = _orientations(probe)
    out = on_tops(probe, quats, area, obstacles, lambda t: "area", 2 * size, AREA_POINTS)
    rule_of = {p.id: "level" if p.kind == _LEVEL_TOP else "on-piece" for p in built}
    out += on_tops(probe, quats, tops, obstacles, lambda t: rule_of[t.on], size, TOP_POINTS)
    if probe.kind == "tohuwabohu.figure":
        out += _on_points(probe, built, obstacles)
    if piece not in table.supply:  # in play: back where the set-up laid it, beside the area
        home = tuple(table.home(piece))
        if tuple(table.scene().piece(piece).pos) != home[:3] and table_refusal(obstacles, probe, home) is None:
            out.append(Placement(piece, home, "supply", ("table",)))
    return out


def _area(scene):
    """The playing area's top, seen from above."""
    from shapely.geometry import box

    board = scene.board_info
    half = np.asarray(board.shape.extent[:2]) / 2
    return box(board.pos[0] - half[0], board.pos[1] - half[1], board.pos[0] + half[0], board.pos[1] + half[1])


def _orientations(piece) -> list[tuple[float, ...]]:
    """How a piece of this kind is set down: lying (and a brick also on end), turned square both ways."""
    quats = turned(lying(), (0.0, 90.0))
    if piece.kind == "tohuwabohu.brick":
        quats += turned(lying((0.0, 90.0, 0.0)), (0.0,))
    return quats


def _on_points(figure, built, obstacles) -> list[Placement]:
    """A figure standing on every free figure point of the levels built."""
    from sim.geometry.transforms import transform_points

    out = []
    for level in built:
        if level.kind != _LEVEL_TOP:
            continue
        points = [a for a in level.shape.anchors if a.kind == "figure_point"]
        if not points:
            continue
        world = transform_points(np.array([a.position for a in points]), level.pos, level.quat)
        for xyz in world:
            pose = resting_pose(figure, lying(), xyz[:2], float(xyz[2]))
            if table_refusal(obstacles, figure, pose) is None:
                out.append(Placement(figure.id, pose, "figure-point", (level.id,)))
    return out


__all__ = ["actions", "placements"]
