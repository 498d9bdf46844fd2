"""Computer players at the viewer's table: seats played by a level of :mod:`sim.bots`, each move made by a hand at
a person's pace, through the same referee as a person's (pure: no Panda3D).

:class:`BotSeats` is a session plug-in beside the game's referee (:class:`~sim.viewer.play.mode.Referee`). When
the player to act is one of its seats it asks that seat's player for a move (:meth:`sim.bots.players.Bot.decide`
on the table as it now is: :func:`table_state`), on a thread of its own in a window (a level-3 move takes a
second or two; the window goes on drawing) and at once in a script (the same moves every run). A placement is
then made as a person makes it, in the window's own actions: the hand takes the piece (``pick``), turns it
(``orient``), carries it along :func:`sim.bots.pace.carry_way` at a person's pace (a ``move-to`` every frame)
and sets it down (``drop``); the referee judges the drop as it judges anyone's. A game action (the die, a
turn's end) is applied once the seconds a person takes for it have passed. ``skip-move`` (the window's K)
makes the rest of the move at once.

While a computer player's move is under way nobody else's hands may act (the table's actions are refused
with its name); the camera, the panels and the views stay free. What each seat weighed last
(:attr:`BotSeats.reasoning`: its :class:`~sim.bots.decision.Decision`) is what the window's reasoning panel
shows.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from sim.bots.match import HOT_SEAT, TIMED
from sim.bots.pace import GRIP_S, RELEASE_S, action_seconds, along, carry_way, way_seconds
from sim.games.play.judge import statics_judge
from sim.games.play.state import PlayState
from sim.games.play.still import StillTable
from sim.viewer.control.actions import Field, specs_with
from sim.viewer.control.actions import action as checked_action
from sim.viewer.control.fields import flag
from sim.viewer.control.plugins import SessionPlugin

HAND = "right"
"""The hand a computer player builds with."""
FREE = frozenset({"camera", "orbit", "pan", "zoom", "toggle", "hover", "follow", "screenshot", "speed", "pause",
                  "resume", "wait", "save-game", "skip-move", "bot-reasoning", "hand"})
"""Actions anyone may take while a computer player's move is under way (they change no game)."""
LOWERING_S = 1.0
"""Seconds the window's hand may take to lower a piece and let it go, beyond the pace's own: a timed turn with
less than a move's seconds and these left is let run out rather than a move begun."""
SEED_STREAM = 29
"""The seed sequence's key for the computer players' streams (one a seat): ``SeedSequence([seed, 29, k])``."""


def seat_rng(seed: int, seat: int) -> np.random.Generator:
    """The random stream of the computer player in seat ``seat`` (its index in the seat order) of a game set up
    with ``seed``: the same moves from the same game every run."""
    return np.random.default_rng(np.random.SeedSequence([int(seed), SEED_STREAM, int(seat)]))


def table_state(referee, moves: tuple[str, ...] = ()) -> PlayState:
    """The game at the viewer's table as the one game interface's state: the referee's session (a copy) on the
    table as it stands (:meth:`~sim.games.play.still.StillTable.of`). ``moves``: the actions applied so far as
    JSON text (a player's plan made this turn goes on while their count is where it left it)."""
    c, game = referee.c, referee.game
    session = referee.session.clone()
    judge = getattr(session, "judge", None)
    if callable(judge) and hasattr(judge, "__wrapped__"):  # the tape's (sim.viewer.play.tape): the game's own
        session.judge = judge.__wrapped__
    table = StillTable.of(c.scene0, c.scene(), c.supply, statics_judge, game.prepare, c.port.pinned, session.seat)
    return PlayState(game.variant, tuple(session.players), int(game.seed), tuple(moves), session, table)


@dataclass
class Move:
    """A computer player's move under way: its steps (seconds from its start, the window action), done in order.

    Attributes:
        decision: what the player decided.
        steps: (seconds, action JSON) in order.
        at: seconds since the move began.
        next: the first step not yet done.
        placing: the piece being placed, or None for a game action.
    """

    decision: object
    steps: list[tuple[float, dict]]
    at: float = 0.0
    next: int = 0
    placing: str | None = None
    refusals: list[str] = field(default_factory=list)
    waiting: bool = False

    @property
    def done(self) -> bool:
        return self.next >= len(self.steps)


class BotSeats(SessionPlugin):
    """The computer players of a game at the viewer's table (see the module).

    Args:
        referee: the game's referee (a plug-in of the same controller).
        bots: seat (player name) -> its computer player (:func:`sim.bots.players.make_bot`).
        levels: seat -> level (what the panels say).
        threaded: decide on a thread of its own (the window) or at once (scripts, tests).

    Attributes:
        reasoning: seat -> its last :class:`~sim.bots.decision.Decision` that weighed candidates (a move of a
            plan made earlier in the turn weighs none: the plan's is kept).
        decided: seat -> its last decision.
        made: every move made so far: (seat, action JSON, accepted).
    """

    name = "bots"
    actions = {"skip-move": {},
               "bot-reasoning": {"show": Field(flag, True, "show (or hide) why the computer players chose their "
                                                          "moves, and what they weighed")}}

    def __init__(self, referee, bots: Mapping[str, object], levels: Mapping[str, int], threaded: bool = False):
        self.referee = referee
        self.bots = dict(bots)
        self.levels = dict(levels)
        self.threaded = threaded
        self.reasoning: dict[str, object] = {}
        self.decided: dict[str, object] = {}
        self.made: list[tuple[str, dict, bool]] = []
        self.c = None
        self.move: Move | None = None
        self._moves: list[str] = []  # the actions applied through the one interface so far (JSON)
        self._pending: threading.Thread | None = None
        self._answer: list = []  # the decision (or the error) the thread left
        self._acting = False
        self._skip = False
        self.show_reasoning = False
        self.failed: str | None = None

    # --- the seam -----------------------------------------------------------------------------------

    def attach(self, controller) -> None:
        self.c = controller

    def check(self, controller, action) -> str | None:
        seat = self.seat()
        if seat is None or self._acting or action.name in FREE:
            return None
        return f"{seat} is a computer player (level {self.levels[seat]}): its move is under way (K hurries it)"

    def perform(self, controller, action) -> None:
        if action.name == "skip-move":
            self._skip = True
        elif action.name == "bot-reasoning":
            self.show_reasoning = bool(action["show"])

    def busy(self, controller) -> bool:
        return self.seat() is not None and self.failed is None

    def event(self, controller, event) -> None:
        if self.move is not None and event.kind == "rejected" and self.move.placing is not None:
            said = controller.messages[-1] if controller.messages else None  # the rejection says its reason first
            self.move.refusals.append(said.text if said is not None and said.kind == "refused" else "")

    def tick(self, controller, dt: float) -> None:
        if self.failed is not None:
            return
        if self.move is not None:
            self._go_on(dt)
            return
        seat = self.seat()
        if seat is None or controller.hands or not self._table_ready():
            return
        decision = self._decision(seat)
        if decision is not None:
            self.decided[seat] = decision
            if decision.candidates or seat not in self.reasoning:
                self.reasoning[seat] = decision
            self.move = self._plan(decision)
            self._go_on(0.0)

    def probe(self) -> dict:
        """What a window test reads: the seats, whose move is under way and how far, what was made."""
        return {"seats": dict(self.levels), "moving": None if self.move is None else self.move.decision.player,
                "deciding": self.thinking, "made": len(self.made),
                "refused": sum(1 for *_, ok in self.made if not ok), "failed": self.failed}

    @property
    def thinking(self) -> bool:
        """A computer player is deciding on its thread."""
        return self._pending is not None

    # --- whose move ---------------------------------------------------------------------------------

    def seat(self) -> str | None:
        """The computer player to act now, or None (a person's turn, or the game is over)."""
        session = self.referee.session
        if session.over:
            return None
        player = session.current_player
        return player if player in self.bots else None

    def _table_ready(self) -> bool:
        """Nothing of the last move still going on: the hands free, the referee not walking a pawn, the world
        at rest."""
        c = self.c  # (not c.quiet(): that asks this plug-in whether it is busy)
        return not c.hands and not self.referee.busy(c) and not c.world.moving()

    def _decision(self, seat: str):
        """The seat's decision, once it is ready (None while its thread thinks)."""
        if not self.threaded:
            return self.bots[seat].decide(table_state(self.referee, tuple(self._moves)))
        if self._pending is None:
            state = table_state(self.referee, tuple(self._moves))
            self._answer = []
            self._pending = threading.Thread(target=self._think, args=(self.bots[seat], state), daemon=True,
                                             name=f"towerlab-bot-{seat}")
            self._pending.start()
            return None
        if self._pending.is_alive():
            return None
        self._pending = None
        answer = self._answer.pop()
        if isinstance(answer, BaseException):
            self.failed = f"{seat}: the computer player failed: {answer}"
            self.c.say(self.failed, "error")
            return None
        return answer

    def _think(self, bot, state: PlayState) -> None:
        try:
            self._answer.append(bot.decide(state))
        except Exception as e:  # noqa: BLE001 - said in the window; the game goes on with the people
            self._answer.append(e)

    # --- the move, step by step ---------------------------------------------------------------------

    def _plan(self, decision) -> Move:
        """The window actions that make ``decision``, each at the second a person's hand gets there."""
        a = dict(decision.action)
        name = a.pop("action")
        if name == "wait" or self._no_time_for(decision):  # the turn's clock runs out first
            seconds = float(a.get("seconds", 0.0)) if name == "wait" else self._time_left()
            return Move(decision, [(seconds, None)], waiting=True)
        if name == "place":
            return Move(decision, placement_steps(a["piece"], self.c.world.pose(a["piece"]), a["pose"]),
                        placing=a["piece"])
        return Move(decision, [(action_seconds(decision.action), {"action": name, **a})])

    def _time_left(self) -> float:
        return float(self.referee.session.view().get("time_left", 0.0))

    def _no_time_for(self, decision) -> bool:
        """Whether a timed turn has too little time left for the move (a person would not begin it)."""
        game = self.referee.game
        timed = (game.variant.game, game.variant.name) in TIMED
        return timed and decision.seconds + LOWERING_S > self._time_left()

    def _go_on(self, dt: float) -> None:
        move = self.move
        if move.waiting and self.seat() != move.decision.player:  # the turn passed
            self.move = None
            return
        move.at += dt
        if self._skip:
            move.at, self._skip = np.inf, False
        while not move.done and move.steps[move.next][0] <= move.at:
            _, step = move.steps[move.next]
            move.next += 1
            if step is not None and not self._apply(step):
                move.next = len(move.steps)  # refused: the move is over
        if move.done and not self.c.hands:
            self._finish(move)

    def _apply(self, step: dict) -> bool:
        """Apply one step through the controller (as a person's action); whether it was accepted."""
        c = self.c
        self._acting = True
        try:
            c.apply(checked_action(step, "computer player", specs_with(c.plugins)))
        except Exception as e:  # noqa: BLE001 - a refusal (said by the referee) or a step that cannot be done
            if self.move is not None:
                self.move.refusals.append(getattr(e, "reason", None) or str(e))
            return False
        finally:
            self._acting = False
        return True

    def _finish(self, move: Move) -> None:
        d = move.decision
        accepted = not move.refusals
        self.made.append((d.player, dict(d.action), accepted))
        if accepted:
            self._moves.append(json.dumps(dict(d.action)))
        else:
            self.c.say(f"{d.player} (computer) was refused: {move.refusals[0]}", "error")
        self.move = None
        game, session = self.referee.game, self.referee.session
        if (game.variant.game, game.variant.name) in HOT_SEAT and not session.over and session.seat == d.player:
            players = list(session.players)  # everyone builds at once: the hands go on to the next, as Tab
            self._apply({"action": "seat", "player": players[(players.index(d.player) + 1) % len(players)]})


def placement_steps(piece: str, start, pose) -> list[tuple[float, dict]]:
    """The window actions that place ``piece`` (now at ``start``, (7,)) at ``pose`` (7,) at a person's pace: the
    hand grips it, turns it as it lifts, carries it along :func:`~sim.bots.pace.carry_way` (one ``move-to`` a
    frame of 1/60 s, x and y in mm, placed freely: the aim is exact) and sets it down."""
    start, pose = np.asarray(start, dtype=float), np.asarray(pose, dtype=float)
    way = carry_way(start[:3], pose[:3])
    times = way_seconds(way)
    steps: list[tuple[float, dict]] = [(0.0, {"action": "pick", "piece": piece, "hand": HAND}),
                                       (GRIP_S, {"action": "orient", "hand": HAND,
                                                 "quat": [float(q) for q in np.clip(pose[3:], -1.0, 1.0)]})]
    for t in np.arange(GRIP_S, times[-1], 1.0 / 60.0)[1:]:
        xy = along(way, float(t))[:2] * 1000.0
        steps.append((float(t), {"action": "move-to", "at": [float(xy[0]), float(xy[1])], "hand": HAND,
                                 "free": True}))
    end = pose[:2] * 1000.0
    steps.append((float(times[-1]), {"action": "move-to", "at": [float(end[0]), float(end[1])], "hand": HAND,
                                     "free": True}))
    steps.append((float(times[-1] + RELEASE_S / 2), {"action": "drop", "hand": HAND, "free": True}))
    return steps





CANDIDATES_SHOWN = 5
"""How many of the candidates a computer player weighed its reasoning panel lists."""


def bots_panel(seats: BotSeats, reasoning: bool | None = None) -> str:
    """What the window's computer-player panel says (text): who plays by computer and what the one at work is
    doing; with ``reasoning`` (default: as the session's ``bot-reasoning`` left it), why it chose its last move
    and the candidates it weighed (their scores and risks of collapse)."""
    reasoning = seats.show_reasoning if reasoning is None else reasoning
    moving = seats.move.decision.player if seats.move is not None else None
    seat = moving or seats.seat()
    names = ", ".join(f"{p} (level {lv})" for p, lv in seats.levels.items())
    lines = [f"Computer players: {names}"]
    if seats.failed is not None:
        lines.append(seats.failed)
    elif seat is not None:
        lines.append(f"{seat} is {_doing(seats)}" + ("; K hurries its hand" if seats.move is not None else ""))
    shown = seats.reasoning.get(seat) if seat is not None else None
    if shown is None and seats.made:
        shown = seats.reasoning.get(seats.made[-1][0])
    if not reasoning:
        lines.append("I: its reasoning")
        return "\n".join(lines)
    if shown is None:
        lines.append("no move weighed yet (I hides this)")
        return "\n".join(lines)
    now = seats.decided.get(shown.player)
    if now is not None and now is not shown:
        lines.append(f"{shown.player}, level {shown.level}: {now.why or 'its move'}, as weighed for it (I hides "
                     f"this): {shown.why or 'its move'}")
    else:
        lines.append(f"{shown.player}, level {shown.level}: {shown.why or 'its move'} (I hides this)")
    for k, cand in enumerate(shown.candidates[:CANDIDATES_SHOWN], 1):
        risk = "" if cand.risk is None else f", risk {cand.risk:.0%}"
        lines.append(f"  {k}. {cand.label}: {cand.score:+.1f}{risk}")
    if len(shown.candidates) > CANDIDATES_SHOWN:
        lines.append(f"  ... and {len(shown.candidates) - CANDIDATES_SHOWN} more weighed")
    return "\n".join(lines)


def _doing(seats: BotSeats) -> str:
    move = seats.move
    if move is None:
        return "thinking" if seats.thinking else "about to move"
    if move.waiting:
        return "letting its turn's time run out"
    if move.placing is not None:
        return f"placing {move.placing}"
    return f"doing {move.decision.action['action']}"

__all__ = ["FREE", "HAND", "BotSeats", "Move", "bots_panel", "placement_steps", "seat_rng", "table_state"]
