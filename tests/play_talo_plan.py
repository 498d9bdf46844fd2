"""A whole Talo game for the tests: a staircase of standing blocks to level 10, played as the seeded die allows.

:func:`staircase_game` plays the pure session on a table and returns the
steps it took, so the same game can be replayed through the viewer (the same
seed gives the same throws).
"""

from __future__ import annotations

from play_table import step_actions

from sim.games.play.judge import statics_judge
from sim.games.play.talo import TaloSession
from sim.games.registry import game_rng
from sim.games.talo import GridBlock, talo_board
from sim.games.talo.layout import block_piece

GREEN = talo_board("talo-green")
STAIRS = {n: (n, 0) for n in range(1, 10)} | {10: (9, 1)}
"""Length -> the field its block stands on: a column of level n on field (n, 0), then the 10 beside the 9."""
STARTS = {"red": (0, 0), "blue": (0, 9)}


def grid_pose(length: int, cell, layer: int = 0, axis: str = "z") -> tuple[float, ...]:
    """(7,) the pose of a block on the grid."""
    p = block_piece(GridBlock("probe", length, tuple(cell), layer, axis), GREEN)
    return (*p.pos, *p.quat)


def staircase_game(table, seed: int, players=("red", "blue"), max_turns: int = 80):
    """Play Talo on ``table`` until red climbs the staircase to level 10.

    Each turn takes the throw's combination with the most lengths the
    staircase still needs, stands those blocks on their fields and ends the
    turn; once the staircase is whole, red walks up it.

    Returns:
        (session, steps): steps are ``("act", name, args)``, ``("pick", piece)`` and
        ``("drop", piece, pose)`` in the order played.
    """
    s = TaloSession(players, game_rng(seed), statics_judge)
    steps = []

    def act(name, **args):
        steps.append(("act", name, args))
        table.act(s, name, **args)

    for color in players:
        act("start", cell=list(STARTS[color]))
    need = dict(STAIRS)
    for _ in range(max_turns):
        if s.over:
            break
        act("throw")
        if s.phase != "take":
            continue
        options = [tuple(o) for o in s.view()["options"]]
        best = max(options, key=lambda o: sum(n in need for n in set(o)))
        act("take", blocks=list(best))
        for n in best:
            if n not in need:
                continue
            piece = next(p.id for p in table.scene().pieces if p.id in table.supply and p.kind == "talo.block"
                         and p.params["length"] == n)
            steps.append(("pick", piece))
            assert table.pick(s, piece), table.last()
            pose = grid_pose(n, need.pop(n))
            steps.append(("drop", piece, pose))
            assert table.drop(s, pose), table.last()
        if not need and s.current == "red":
            act("move-pawn", cell=[9, 1], level=10)
            break
        act("end-turn")
    return s, steps


def viewer_actions(steps) -> list[dict]:
    """The steps of :func:`staircase_game` as the viewer's action file: each block picked from the stock, stood
    on end (tipped) when longer than one field, carried over its field and set down."""
    def pick(piece):
        return [{"action": "pick", "piece": piece}] + ([{"action": "tip"}] if int(piece[1:].split("-")[0]) > 1 else [])

    def place(piece, pose):
        return [{"action": "move-to", "at": [round(pose[0] * 1000, 3), round(pose[1] * 1000, 3)]}, {"action": "drop"}]

    return step_actions(steps, place, pick)
