"""Talo-Fantasy games for the tests: the seeded die, every taken block laid on the table where the next row is
free (some turned at a slant, off any grid), played on a table of still pieces; the same steps as the viewer's
actions."""

from __future__ import annotations

import numpy as np
from play_table import step_actions

from sim.games.play.fantasy import FantasySession
from sim.games.play.judge import statics_judge
from sim.games.registry import game_rng
from sim.pieces import dimensions as dim

UNIT = dim.TALO_UNIT / 1000.0
SLANT = 8.0
"""Degrees every other row is turned by: nothing here is bound to a grid."""


def row_pose(k: int, length: int) -> tuple[float, ...]:
    """(7,) the ``k``-th row's block lying flat on the table in the middle of the Fantasy table (rows 50 mm
    apart, along x, every other one turned by :data:`SLANT`: never touching)."""
    yaw = np.radians(SLANT if k % 2 else 0.0)
    return (0.0, -0.12 + 0.05 * k, UNIT / 2, 0.0, 0.0, float(np.sin(yaw / 2)), float(np.cos(yaw / 2)))


def rows_game(table, seed: int, players=("ann", "ben"), turns: int = 200, rows=None):
    """Play Fantasy on ``table``: each turn throws, takes the throw's first option and lays its blocks in rows;
    stops after ``turns`` turns, once ``rows`` rows are laid, or when the game is over.

    Returns:
        (session, steps): steps are ``("act", name, args)``, ``("pick", piece)``, ``("drop", piece, pose)``.
    """
    s = FantasySession(players, game_rng(seed), statics_judge)
    steps, k = [], 0

    def act(name, **args):
        steps.append(("act", name, args))
        table.act(s, name, **args)

    for _ in range(turns):
        if s.over or (rows is not None and k >= rows):
            break
        act("throw")
        if s.phase != "take":
            continue
        act("take", blocks=list(s.view()["options"][0]))
        for n in list(s.view()["hand"]):
            piece = next(p.id for p in table.scene().pieces if p.id in table.supply and p.params["length"] == n)
            pose = row_pose(k, n)
            steps += [("pick", piece), ("drop", piece, pose)]
            assert table.pick(s, piece), table.last()
            assert table.drop(s, pose), table.last()
            k += 1
        act("end-turn")
    return s, steps


def viewer_actions(steps) -> list[dict]:
    """The steps of :func:`rows_game` as the viewer's actions: each block picked from the stock, carried over its
    place, turned to its row's heading there (clear of the stock) and set down freely (no snapping)."""
    from sim.viewer.control.carry import heading

    def place(piece, pose):
        return [{"action": "move-to", "at": [round(pose[0] * 1000, 3), round(pose[1] * 1000, 3)], "free": True},
                {"action": "rotate", "degrees": round(heading(pose[3:]) - _start_heading(piece), 4)},
                {"action": "drop", "free": True}]

    return step_actions(steps, place)


def _start_heading(piece: str) -> float:
    """The heading a block has in the stock (short ones lengthwise front to back, long ones crosswise)."""
    from sim.games.registry import fantasy_table
    from sim.viewer.control.carry import heading

    return heading(fantasy_table().piece(piece).quat)
