"""Tohuwabohu built by hand through the viewer for the tests: a card's example construction picked from around the
area, turned, carried and set down piece by piece, the area cleared between cards, within the turns' time.

:class:`HandBuilder` drives a controller with the referee plugged in, one viewer action at a time (as a script
would), and keeps every action it ran: the same list, played again (``towerlab play --actions``), is the same
game.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from sim.games.tohuwabohu.illustrate import CARD_SCENES
from sim.scene import load_scene
from sim.viewer.control.actions import action, specs_with
from sim.viewer.control.script import ScriptRunner

TIPS = ((), ("x",), ("y",), ("x", "x"), ("x", "y"), ("y", "x"), ("y", "y"))
"""Tip sequences tried, fewest first."""
SYMMETRY = {
    "tohuwabohu.brick": [Rotation.identity(), *(Rotation.from_euler(a, 180, degrees=True) for a in "xyz")],
    "tohuwabohu.arch": [Rotation.identity(), Rotation.from_euler("z", 180, degrees=True)],
    "tohuwabohu.level": [Rotation.identity()],
}
"""Turns of a piece that leave its shape and colours where they were (a figure: any turn about its axis)."""
MOVE_SECONDS = 3.5
"""Turn time a piece's move is given at least (a move is not begun with less left)."""


def card_pieces(card: str):
    """The example construction of ``card``, lowest pieces first."""
    scene = load_scene(CARD_SCENES / f"{card}.json")
    return sorted(scene.pieces, key=lambda p: (round(float(p.pos[2]), 4), p.id))


def turns(kind: str, q_from, q_to) -> list[dict]:
    """The viewer's ``rotate`` and ``tip`` actions that bring a piece held at ``q_from`` to ``q_to`` (up to the
    piece's symmetry): squared up to the world's axes first (tips are about them), fewest tips, a last turn."""
    from sim.viewer.control.carry import heading

    h = heading(q_from)
    square = -(((h + 45.0) % 90.0) - 45.0)
    start = Rotation.from_euler("z", square, degrees=True) * Rotation.from_quat(q_from)
    want = Rotation.from_quat(q_to)
    first = [{"action": "rotate", "degrees": round(square, 4)}] if abs(square) > 0.01 else []
    for tips in TIPS:
        r = start
        for axis in tips:
            r = Rotation.from_euler(axis, 90, degrees=True) * r
        options = []
        for s in SYMMETRY.get(kind, [Rotation.identity()]):
            m = (want * s.inv() * r.inv()).as_matrix()
            if m[2, 2] < 1 - 1e-6:
                continue
            options.append(0.0 if kind == "tohuwabohu.figure" else float(np.degrees(np.arctan2(m[1, 0], m[0, 0]))))
        if options:
            angle = min(options, key=abs)
            last = [{"action": "rotate", "degrees": round(angle, 4)}] if abs(angle) > 0.01 else []
            return first * bool(tips) + [{"action": "tip", "axis": a} for a in tips] + (
                last if tips else [{"action": "rotate", "degrees": round(angle + square, 4)}] * (
                    abs(angle + square) > 0.01))
    raise AssertionError(f"no tips and turns bring {kind} from {q_from} to {q_to}")


def move(piece, q_now, pose) -> list[dict]:
    """Pick ``piece`` (a Piece of the table), turn it and set it down over ``pose`` (7,)."""
    return [{"action": "pick", "piece": piece.id}, *turns(piece.kind, q_now, pose[3:]),
            {"action": "move-to", "at": [round(pose[0] * 1000, 3), round(pose[1] * 1000, 3)]}, {"action": "drop"}]


class HandBuilder:
    """Builds order cards by hand through a controller with the Tohuwabohu referee (see the module docstring).

    Args:
        controller: the viewer's controller.
        referee: its :class:`~sim.viewer.play.mode.Referee`.
    """

    def __init__(self, controller, referee):
        self.c = controller
        self.ref = referee
        self.done: list[dict] = []  # every action run, in order
        self._specs = specs_with(controller.plugins)
        self._home = {p.id: p for p in controller.scene0.pieces}
        half = float(controller.scene0.board_info.shape.extent[0]) / 2
        self._half = half

    def run(self, actions) -> None:
        script = [action(a, f"actions[{len(self.done) + k}]", self._specs) for k, a in enumerate(actions)]
        ScriptRunner(self.c, script, lambda request: None).run()
        self.done += list(actions)

    @property
    def session(self):
        return self.ref.session

    def wait_for(self, player: str, seconds: float = MOVE_SECONDS) -> None:
        """Wait (whole frames) until it is ``player``'s turn with at least ``seconds`` left (more than a turn: till
        the player's next turn begins)."""
        s = self.session
        seconds = min(seconds, s.state.turn_seconds - 0.1) if s.basic else seconds
        while not s.over and not (s.seat == player and s.state.time_left >= seconds):
            left = s.state.time_left
            self.run([{"action": "wait", "seconds": round(left + 1 / 60, 4) if left > 0 else 1 / 60}])

    def built(self) -> list:
        """The pieces on the area now (not in the supply, not beside the area), highest first."""
        scene = self.c.scene()
        out = [p for p in scene.pieces if p.id not in self.c.supply
               and max(abs(float(p.pos[0])), abs(float(p.pos[1]))) < self._half]
        return sorted(out, key=lambda p: -float(p.pos[2]))

    def place(self, piece, pose, player: str) -> None:
        """``player`` moves ``piece`` over ``pose`` (7,) and sets it down in one turn: begun again in the next
        turn when the time ran out on the way (the piece went back where it was picked up)."""
        for _ in range(5):
            self.wait_for(player)
            if self.session.over:
                return
            steps = move(piece, self.c.world.pose(piece.id)[3:], pose)
            for a in steps:
                if a["action"] != "pick" and piece.id not in {s.piece for s in self.c.hands.values()}:
                    break  # the time ran out: the hands were emptied
                self.run([a])
            else:
                return
        raise AssertionError(f"{piece.id} could not be set down over {pose}")

    def clear(self, player: str) -> None:
        """Take every piece off the area, top down, back where the set-up put it."""
        for p in self.built():
            home = self._home[p.id]
            self.place(p, (*home.pos, *home.quat), player)

    def build(self, card: str, player: str) -> None:
        """Clear the area and build ``card``'s example construction, in ``player``'s turns."""
        self.clear(player)
        used = {p.id for p in self.built()}
        scene = self.c.scene()
        for q in card_pieces(card):
            p = next(p for p in scene.pieces if p.id not in used and p.kind == q.kind and p.params == q.params)
            used.add(p.id)
            self.place(p, (*q.pos, *q.quat), player)

    def order(self, player: str) -> str | None:
        """``player``'s face-up card."""
        return self.session.state.order_card(player) if self.session.basic else None

    def play(self, player: str, max_cards: int = 40) -> None:
        """``player`` builds each face-up card in turn until the game is over (the others let their turns pass)."""
        for _ in range(max_cards):
            card = self.order(player)
            if self.session.over or card is None:
                return
            self.build(card, player)
            while not self.session.over and self.order(player) == card:  # fulfilled at ann's next change
                self.wait_for(player)
                self.run([{"action": "wait", "seconds": 0.5}])
                if self.order(player) == card:
                    raise AssertionError(f"{card} built but not fulfilled: {[m.text for m in self.c.messages][-4:]}")


def opening_for_the_mouse(card: str, players, seed: int, turn_seconds: float | None = None,
                          left: float = 100.0):
    """The viewer's actions that build ``card``'s example but its last piece in the first player's turns, then
    wait until that player's turn has ``left`` seconds on the clock (more than a turn: till the player's next
    turn begins); with the piece left to place by hand and where it goes. ``turn_seconds``: a house rule's
    turn length (``--turn-seconds``), None for the rulebook's.

    Returns:
        (actions, piece id, target pose (7,)): the same actions offscreen and in a window give the same table.
    """
    from sim.viewer.control.controller import Controller
    from sim.viewer.play.games import new_game
    from sim.viewer.play.mode import Referee

    g = new_game("tohuwabohu", players, None, seed, turn_seconds)
    referee = Referee(g)
    c = Controller(g.scene, threaded=False, supply=g.supply, plugins=[referee])
    hands = HandBuilder(c, referee)
    player = players[0]
    assert hands.order(player) == card
    pieces = card_pieces(card)
    used: set[str] = set()
    for q in pieces[:-1]:
        p = next(p for p in c.scene().pieces if p.id not in used and p.kind == q.kind and p.params == q.params)
        used.add(p.id)
        hands.place(p, (*q.pos, *q.quat), player)
    hands.wait_for(player, left)
    last = pieces[-1]
    piece = next(p.id for p in c.scene().pieces if p.id not in used and p.kind == last.kind and p.params == last.params)
    c.close()
    return hands.done, piece, (*last.pos, *last.quat)
