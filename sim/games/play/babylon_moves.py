"""What is legal now in Babylon's two games: the tactical turn's end, the special moves, the fast game's seats,
stops and rounds, and where a tower, a bridge or a noble may be set down.

A piece's placements are the building's free spots as the rule of four's
witness finds them (:func:`sim.games.babylon.capacity.spot_placements`: tower
tops, bridges' spots, a bridge across two tops, a noble on a tower top or, in
the fast game, a bridge's spot) and table spots beside the parts standing on
the table (next to a cell, or one cell apart, where a bridge's arch may span
the gap) or, on an empty building, in the middle (tactical); in the fast game
also spread over each of the player's construction areas where no part stands. Each is free on the table
(:func:`~sim.games.play.spots.table_refusal`) and kept by the placement rules
the session judges a piece by on release; the fast game's area rule and a
lifted noble's tower are checked here as the session checks them.
"""

from __future__ import annotations

import numpy as np

from sim.games.babylon.building import CELL, LEVEL, read_layout
from sim.games.babylon.capacity import spot_placements
from sim.games.babylon.supply import BRIDGE, TOWER, BabylonError
from sim.games.play.spots import Placement, table_refusal
from sim.scene import Piece
from sim.scene.overlap import Obstacles

GAPS = (1, 2)
"""Table spots beside a part standing on the table: next to a cell, and one cell apart."""
AREA_SPOTS = 8
"""Fast game, an empty building: table spots tried in each of the player's construction areas."""


def tactical_actions(session, table) -> list[dict]:
    """The tactical game's: the turn's end when its rules hold (balance aside: the statics judge it then), the
    special moves the session accepts now, taking the turn's pieces back."""
    from sim.games.babylon.tactical import judge_turn
    from sim.games.play.babylon import building

    s = session.state
    out: list[dict] = []
    if not table.carried:
        try:
            if judge_turn(s, session.owned(building(table))).legal:
                out.append({"action": "end-turn"})
        except BabylonError:
            pass
    if session.special is None and not s.first_round and not any(session.kinds.get(p) in ("small", "large")
                                                                 for p in session.placed_now):
        nobles = sorted(s.layout.nobles.values(), key=lambda n: n.id)
        out += [{"action": "swap-nobles", "nobles": [a.id, b.id]} for a in nobles for b in nobles
                if a.id < b.id and a.size == b.size]
    if s.expert and session.special is None and not any(session.kinds.get(p) in ("small", "large")
                                                         for p in session.placed_now):
        out += [{"action": "turn-tower", "piece": t} for t, p in sorted(s.layout.parts.items())
                if p.is_tower and t in set(s.scene.ids)]
    out.append({"action": "take-back"})
    return out


def fast_actions(session, table) -> list[dict]:
    """The fast game's: any player's hands; "stop" and "done" for the seat's player when the session accepts
    them; the next round once one is over."""
    from sim.games.babylon.fast import nobles_placed, nobles_to_place

    out: list[dict] = [{"action": "seat", "player": p} for p in session.players]
    if session.ready(session.seat):
        layout = read_layout(session.built(table, carried=True))
        need = nobles_to_place(len(session.players), len(session.set_aside[session.seat]))
        if len(nobles_placed(layout, session.seat)) >= need:
            out.append({"action": "stop"})
        out.append({"action": "done"})
    if session.stopped:
        out.append({"action": "next-round"})
    return out


def placements(session, piece: str, table, built, *, fast: bool, check=None) -> list[Placement]:
    """Where the Babylon piece ``piece`` (in hand) may be set down on the buildings ``built`` (the scene without
    the supply and the hands): see the module docstring.

    Args:
        session: the game's session.
        piece: the piece.
        table: the table (for its solids).
        built: the buildings as the session reads them (its players named).
        fast: the fast game's rules (nobles on bridges too, no limits on a tower's nobles; table spots in the
            player's areas).
        check: ``check(piece_at_its_place, rule, on) -> bool``: what else the session asks of a placement.
    """
    probe = table.scene().piece(piece)
    layout = read_layout(built)
    found = spot_placements(layout, probe, len(session.players), fast=fast)
    if probe.kind in (TOWER, BRIDGE):
        found += _table_spots(layout, probe, session.areas(table) if fast else None, session.seat)
    obstacles = Obstacles(table.scene(), ignore=(piece,))
    out, seen = [], set()
    for placed, rule, on in found:
        pose = (*placed.pos, *placed.quat)
        key = tuple(np.round(pose, 5))
        if key in seen or (check is not None and not check(placed, rule, on)):
            continue
        seen.add(key)
        if table_refusal(obstacles, probe, pose) is None:
            out.append(Placement(piece, pose, rule, tuple(on)))
    return out


def _table_spots(layout, probe: Piece, areas, player) -> list[tuple[Piece, str, tuple[str, ...]]]:
    """``probe`` (a tower or a bridge) standing on the table beside the parts there, or (nothing there) in the
    middle; in the fast game also all over each of the player's construction areas where no part stands yet.

    Beside a part: a cell next to one of its cells, or one cell apart, in line with its sides; a tower on that
    cell (in the fast game turned each of the four ways); a bridge with its end on it leading away, or lying
    across the line with its centre on it (turned less than 180°: the bridge is the same turned round).
    """
    ground = [p for p in layout.parts.values() if p.upright and p.bottom < LEVEL / 4]
    centres: list[tuple[np.ndarray, float]] = []  # (centre of the piece, its yaw)
    for part in ground:
        for turn in (0.0, 90.0, 180.0, 270.0):
            yaw = (part.yaw + turn) % 360.0
            d = np.array([np.cos(np.radians(yaw)), np.sin(np.radians(yaw))])
            for cell in part.cells:
                for gap in GAPS:
                    spot = cell + d * gap * CELL
                    if probe.kind != TOWER:
                        centres += [(spot + d * CELL, yaw % 180.0), (spot, (yaw + 90.0) % 180.0)]
                    else:
                        centres += [(spot, part.yaw + t) for t in ((0.0, 90.0, 180.0, 270.0) if areas else (0.0,))]
    yaws = (0.0, 90.0) if probe.kind != TOWER else (0.0, 90.0, 180.0, 270.0) if areas else (0.0,)
    if not ground and areas is None:
        centres = [(np.zeros(2), yaw) for yaw in yaws]
    elif areas is not None:  # the fast game: an area of the player's where nothing stands yet is open all over
        bare = [a for a in areas if player in a.players and not any(a.contains(c) for p in ground for c in p.cells)]
        centres += [(xy, yaw) for a in bare for xy in _area_points(a) for yaw in yaws]
    out = []
    for xy, yaw in centres:
        if areas is not None and not any(a.contains(xy) and player in a.players for a in areas):
            continue
        out.append((_standing(probe, xy, yaw % 360.0), "table", ("table",)))
    return out


def _area_points(area) -> list[np.ndarray]:
    """Up to :data:`AREA_SPOTS` points of a construction area, two cells and more inside its outline, from the
    middle of its inner part outwards."""
    from shapely.geometry import Polygon

    from sim.games.play.spots import spread

    inner = Polygon(area.polygon).buffer(-2 * CELL)
    return [np.array(p) for p in spread(inner, 3 * CELL, AREA_SPOTS)]


def _standing(probe: Piece, xy, yaw: float) -> Piece:
    """``probe`` upright on the table, its centre over ``xy``, turned ``yaw`` degrees."""
    from sim.geometry.transforms import euler_to_quat

    half = float(probe.shape.extent[2]) / 2
    quat = tuple(float(q) for q in euler_to_quat((0.0, 0.0, yaw)))
    return probe.moved((float(xy[0]), float(xy[1]), half), quat)


__all__ = ["fast_actions", "placements", "tactical_actions"]
