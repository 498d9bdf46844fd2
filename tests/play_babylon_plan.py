"""A whole tactical Babylon game for the tests: every turn the rules' own witness (``plan_turn``), played on a table.

:func:`witness_game` plays the pure session until the game ends and returns
the steps it took, so the same game can be replayed through the viewer.
"""

from __future__ import annotations

from play_table import step_actions

from sim.games.babylon.capacity import plan_turn
from sim.games.play.babylon_tactical import TacticalSession


def supply_piece(table, like, player: str) -> str:
    """The first supply piece of ``player`` of the kind and parameters of ``like``."""
    for p in table.scene().pieces:
        if (p.id in table.supply and p.kind == like.kind and dict(p.params) == dict(like.params)
                and (p.owner == player or p.params.get("color") == player)):
            return p.id
    raise AssertionError(f"{player} has no {like.kind} {dict(like.params)} left in the supply")


def witness_game(table, players=("red", "blue", "green"), max_turns: int = 60, until=None):
    """Play on ``table`` until the game ends (or ``until(session)`` holds), each turn the witness of the rule of four.

    Returns:
        (session, steps): steps are ``("pick", piece)``, ``("drop", piece, pose)`` and ``("act", name, args)``.
    """
    s = TacticalSession(players)
    steps = []
    for _ in range(max_turns):
        if s.over or (until is not None and until(s)):
            break
        st = s.state
        plan = plan_turn(st.layout, st.player, st.hand(), len(players), st.first_round)
        if len(plan) >= 4:
            for like in plan:
                piece = supply_piece(table, like, st.player)
                pose = (*like.pos, *like.quat)
                steps += [("pick", piece), ("drop", piece, pose)]
                assert table.pick(s, piece), table.last()
                assert table.drop(s, pose), table.last()
        steps.append(("act", "end-turn", {}))
        table.act(s, "end-turn")
        assert s.state.turn > st.turn or s.over, table.last()
    return s, steps


def _yaw(quat) -> float:
    from scipy.spatial.transform import Rotation

    return float(Rotation.from_quat(quat).as_euler("xyz", degrees=True)[2])


def viewer_actions(steps, scene) -> list[dict]:
    """The steps of :func:`witness_game` as the viewer's actions: each piece picked from its player's supply,
    turned to its heading (90° steps), carried over its place and set down."""
    yaw = {p.id: _yaw(p.quat) for p in scene.pieces}

    def place(piece, pose):
        turn = (_yaw(pose[3:]) - yaw[piece] + 180.0) % 360.0 - 180.0
        out = [{"action": "rotate", "degrees": round(turn, 6)}] if abs(turn) > 1.0 else []
        return out + [{"action": "move-to", "at": [round(pose[0] * 1000, 3), round(pose[1] * 1000, 3)]},
                      {"action": "drop"}]

    return step_actions(steps, place)
