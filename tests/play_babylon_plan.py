"""A whole tactical Babylon game for the tests: every turn the rules' own witness (``plan_turn``), played on a table.

:func:`witness_game` plays the pure session until the game ends and returns
the steps it took, so the same game can be replayed through the viewer.
"""

from __future__ import annotations

from dataclasses import replace

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


def witness_game(table, players=("red", "blue", "green"), max_turns: int = 60, until=None, variant="tactical",
                 short_at: int | None = None, special_from: int | None = None):
    """Play on ``table`` until the game ends (or ``until(session)`` holds), each turn the witness of the rule of four.

    Args:
        short_at: in this turn (1-based) the player first ends the turn after three pieces (refused: a turn places
            4 or 5), then places the rest.
        special_from: from this turn on, the first turn that can makes the special move first (two nobles of one
            size swapped; in the expert game a tower with nobles on it turned), then places four or five pieces
            without nobles; a special move that the turn's end refuses is taken back and the next one tried.

    Returns:
        (session, steps): steps are ``("pick", piece)``, ``("drop", piece, pose)`` and ``("act", name, args)``.
    """
    s = TacticalSession(players, variant)
    steps: list = []

    def act(name, **args):
        steps.append(("act", name, args))
        table.act(s, name, **args)

    def place(plan, player, stop=None):
        for k, like in enumerate(plan):
            if k == stop:
                return
            piece = supply_piece(table, like, player)
            pose = (*like.pos, *like.quat)
            steps.extend([("pick", piece), ("drop", piece, pose)])
            assert table.pick(s, piece), table.last()
            assert table.drop(s, pose), table.last()

    special_done = False
    for _ in range(max_turns):
        if s.over or (until is not None and until(s)):
            break
        st = s.state
        if special_from is not None and not special_done and len(st.turns) + 1 >= special_from:
            special_done = _special_turn(s, table, steps, act, place)
            if special_done:
                continue
        plan = plan_turn(st.layout, st.player, st.hand(), len(players), st.first_round)
        if len(plan) >= 4:
            if short_at == len(st.turns) + 1:
                place(plan, st.player, stop=3)
                act("end-turn")
                assert s.state.turn == st.turn and "a turn places 4 or 5" in table.last("refused")
                place(plan[3:], st.player)
            else:
                place(plan, st.player)
        act("end-turn")
        assert s.state.turn > st.turn or s.over, table.last()
    return s, steps


def _special_turn(s, table, steps, act, place) -> bool:
    """The special move, then four or five pieces without nobles, if this turn can (see :func:`witness_game`);
    the steps of a refused try are left out (it was taken back)."""
    st = s.state
    plan = plan_turn(st.layout, st.player, replace(st.hand(), small=0, large=0), len(s.players), st.first_round)
    if st.first_round or len(plan) < 4:
        return False
    nobles = sorted(st.layout.nobles.values(), key=lambda n: n.id)
    if st.expert:
        tries = [("turn-tower", {"piece": t}) for t in sorted({st.layout.tower_of(n.id) for n in nobles} - {None})]
    else:
        tries = [("swap-nobles", {"nobles": [a.id, b.id]}) for a in nobles for b in nobles
                 if a.id < b.id and a.size == b.size and a.color != b.color]
    for name, args in tries:
        mark = len(steps)
        act(name, **args)
        if s.special is None:
            del steps[mark:]
            continue
        place(plan, st.player)
        act("end-turn")
        if s.state.turn > st.turn:
            return True
        table.act(s, "take-back")
        del steps[mark:]
    return False


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
