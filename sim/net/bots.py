"""Computer players at a served table: ``towerlab serve GAME --bot SEAT:LEVEL`` (docs/network.md).

A :class:`SeatBot` is a client of the table like any other: it joins SEAT by its link over loopback, on a thread
of its own with an event loop of its own, so the same admission, seat rules, answers and log apply to it as to a
person's window (a game with computer players replays bit for bit like any other, and a player that fails is a
seat that left). What it adds is the player (:mod:`sim.bots`) and the hands:

- **What it reads.** When its seat may act (its turn; where everyone builds at once, whenever the table's hands
  are free), it asks the table's thread for the game as the one game interface has it (:func:`play_state`: the
  referee's session cloned, the live pieces where they are now, still) and lets the player decide on that.
- **What it does.** The decision's action is sent as a window sends its player's: a placement ``{piece, pose}``
  as ``pick``, the turns that bring the piece to the pose's orientation (``tip``, ``flip``, ``rotate``),
  ``move-to`` its x, y and ``drop``, at a person's pace (the decision's ``seconds``, spread over the carry, so
  that every client sees the hand take the piece across the table); the game's own actions (``throw``,
  ``end-turn``, ``take`` ...) as they are; a ``wait`` by waiting.
- **What it is told.** A refusal or an action answered ``lost`` (the server went back to its autosave) ends that
  move: the player decides again from the table as it now is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
import time

import numpy as np
from scipy.spatial.transform import Rotation

from sim.games.play.session import PlayError
from sim.net.client import Client
from sim.net.links import Link

MOTION = frozenset({"pick", "pick-group", "move-to", "rotate", "tip", "flip", "lift", "lower", "hand", "seat"})
"""The hands' actions of a placement but its last (``drop``): a placement is one move of the game."""
ORIENT_RAD = 1e-3
"""How far (rad) the carried orientation may be from the pose's: a turn about the vertical closes the rest."""
QUIET_SECONDS = 60.0
"""The longest a bot waits for its placement to land (the table's hands free again) before it decides again."""


def play_state(table, seat: str):
    """The game on ``table`` (a :class:`~sim.net.table.ServedTable`, on its thread) as the one game interface's
    :class:`~sim.games.play.state.PlayState`, with ``seat``'s hands at work: the referee's session cloned, every
    piece where the live world has it now, still. Its history holds the table's moves (each game action, each
    placement once), so that a player's plan made this turn goes on while nobody else has moved.
    """
    from sim.games.play.judge import statics_judge
    from sim.games.play.state import PlayState
    from sim.games.play.still import StillTable

    c, referee, game = table.controller, table.referee, table.referee.game
    live = referee.table
    still = StillTable(game.scene, live.supply, statics_judge, game.prepare)
    present = set(c.world.ids)
    still.poses = {pid: tuple(float(x) for x in c.world.pose(pid)) if pid in present else still.homes[pid]
                   for pid in still.homes}
    still.set_aside = frozenset(pid for pid in still.homes if pid not in present)
    still.pinned = live.pinned
    session = table.session.clone()
    still.seat = session.seat
    moves = tuple(json.dumps(e["action"]) for e in table.log
                  if "action" in e and e["action"]["action"] not in MOTION)
    state = PlayState(table.variant, table.players, table.setup.seed, moves, session, still)
    if table.simultaneous and state.current_player != seat and not state.is_terminal:
        state = state.apply({"action": "seat", "player": seat}).state
    return state


def turns_to(start_quat, pose_quat) -> list[dict] | None:
    """The hands' turns that bring a piece picked up at ``start_quat`` to ``pose_quat`` (both (4,) x, y, z, w).

    The turn from one to the other is written as turns about the world's axes, vertical, x, vertical (Euler
    ZXZ: ``Rz(a) Rx(b) Rz(c)``, the first applied last): a ``rotate`` by c, ``b / 90°`` tips about x
    (:func:`~sim.viewer.control.carry.tip_over`) and a ``rotate`` by a. A hand tips by quarter turns only: None
    when b is more than :data:`ORIENT_RAD` from one (an orientation no hand gives).
    """
    import warnings

    turn = Rotation.from_quat(pose_quat) * Rotation.from_quat(start_quat).inv()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # b near 0 or 180°: a and c are one turn, c = 0 (gimbal lock)
        a, b, c = turn.as_euler("ZXZ")
    quarters = int(round(b / (np.pi / 2)))
    if abs(b - quarters * np.pi / 2) > ORIENT_RAD:
        return None
    out = [{"action": "rotate", "degrees": float(np.degrees(c))}] if quarters else []
    out += [{"action": "tip", "axis": "x"}] * quarters
    last = float(np.degrees(a if quarters else a + c))
    last = (last + 180.0) % 360.0 - 180.0
    if abs(last) > 1e-6:
        out.append({"action": "rotate", "degrees": last})
    return out


class SeatBot:
    """A computer player at a served table (see the module docstring).

    Args:
        link: its seat's link.
        level: 1, 2 or 3 (:data:`sim.bots.players.LEVELS`).
        runner: the table's :class:`~sim.net.runner.Runner` (the game is read on its thread).
        rng: the player's random stream.
        pace: a person's pace times this (1: the decision's seconds; tests go faster).
    """

    def __init__(self, link: Link, level: int, runner, rng: np.random.Generator, pace: float = 1.0):
        self.link, self.level, self.runner, self.pace = link, level, runner, float(pace)
        self.seat = link.seat
        self.rng = rng
        self.bot = None
        self.client: Client | None = None
        self.decisions: list[dict] = []  # each decision's JSON and its answers (tests, the status line)
        self.failed: BaseException | None = None
        self.stuck: list[str] = []  # why the player found no move, each time it found none
        self._stop = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._run, name=f"towerlab-bot-{self.seat}", daemon=True)

    def start(self) -> None:
        from sim.bots.players import make_bot

        t = self.runner.table
        self.bot = make_bot(self.level, t.setup.game, t.variant.name, self.rng)
        self._thread.start()

    def leave(self) -> None:
        """Leave the table (within half a second; :meth:`stop` waits for it)."""
        self._stop.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Leave the table and wait for the thread."""
        self.leave()
        self._thread.join(timeout)

    # --- the thread ---------------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            asyncio.run(self._play())
        except BaseException as e:  # noqa: BLE001 - said once; the seat is one that left
            self.failed = e
            if not self._stop.is_set():
                print(f"towerlab serve: the computer player at {self.seat} stopped: {type(e).__name__}: {e}",
                      file=sys.stderr)

    async def _play(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.client = c = Client(self.link, name=f"towerlab bot {self.level}")
        await c.join()
        try:
            while not self._stop.is_set():
                try:
                    await c.wait_for(lambda c: self._stop.is_set() or self._may_act(c.state), 0.5)
                except TimeoutError:
                    continue
                if self._stop.is_set():
                    break
                await self._move(c)
        finally:
            await c.close()

    def _may_act(self, state: dict) -> bool:
        """The seat may act now: the game goes on, its clock runs, and it is the seat's turn (where everyone
        builds at once: the table's hands are free)."""
        if not state or state.get("over") or state.get("stands") is not None or not self.client.connected:
            return False
        if self.runner.table.simultaneous:
            return not state.get("hands") and not self._finished(state)
        return state.get("current") == self.seat and not state.get("hands")

    def _finished(self, state: dict) -> bool:
        """Where everyone builds at once: the seat is done or out for this round (the referee's view says)."""
        for p in (state.get("view") or {}).get("players", ()):
            if isinstance(p, dict) and (p.get("color") or p.get("name")) == self.seat:
                return bool(p.get("done") or p.get("out"))
        return False

    async def _move(self, c: Client) -> None:
        state = await asyncio.wrap_future(self.runner.call(play_state, self.seat))
        if state.is_terminal or state.current_player != self.seat:
            await asyncio.sleep(0.1)
            return
        try:
            decision = await asyncio.to_thread(self.bot.decide, state)
        except PlayError as e:  # nothing it may do now: it waits until the table changes
            self.stuck.append(str(e))
            frame = c.frame
            with contextlib.suppress(TimeoutError):
                await c.wait_for(lambda c: self._stop.is_set() or c.state.get("frame", frame) > frame + 30, 5.0)
            return
        record = {"decision": decision.to_json(), "answers": []}
        self.decisions.append(record)
        action, seconds = dict(decision.action), decision.seconds * self.pace
        if action["action"] == "place":
            start = state.table_json()["poses"][action["piece"]]
            await self._place(c, action, start, seconds, record["answers"])
        elif action["action"] == "wait":
            await self._idle(c, float(action.get("seconds", 1.0)) * self.pace)
        else:
            await self._pause(seconds)
            await self._send(c, action, record["answers"])
        if record["answers"] and not record["answers"][-1]["ok"]:
            await asyncio.sleep(0.2 * self.pace + 0.05)  # the table as it now is: decided again

    async def _place(self, c: Client, action: dict, start, seconds: float, answers: list) -> None:
        """A placement as a person's hand makes it: take the piece, turn it, carry it there, set it down."""
        pose = action["pose"]
        turns = turns_to(start[3:], pose[3:])
        if turns is None:
            answers.append({"action": action, "ok": False, "rule": "bot"})  # an orientation no hand gives
            return
        if not await self._send(c, {"action": "pick", "piece": action["piece"]}, answers):
            return
        await self._pause(0.25 * seconds)
        for a in [*turns, {"action": "move-to", "at": [1000.0 * pose[0], 1000.0 * pose[1]], "free": True}]:
            if not await self._send(c, a, answers):
                await self._send(c, {"action": "cancel"}, answers)
                return
        await self._pause(0.6 * seconds)
        if await self._send(c, {"action": "drop", "free": True}, answers):
            await c.wait_for(lambda c: not c.state.get("hands") or c.state.get("over"), QUIET_SECONDS)
        await self._pause(0.15 * seconds)

    async def _send(self, c: Client, action: dict, answers: list) -> bool:
        answer = await c.act(action, timeout=60.0)
        answers.append({"action": action, "ok": answer["ok"], "rule": answer.get("rule")})
        return bool(answer["ok"])

    async def _pause(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while not self._stop.is_set() and time.monotonic() < end:
            await asyncio.sleep(min(0.1, end - time.monotonic()))

    async def _idle(self, c: Client, seconds: float) -> None:
        """Wait as the player asked, or until the game moves on (a turn, a round)."""
        turn = c.state.get("current")
        with contextlib.suppress(TimeoutError):
            await c.wait_for(lambda c: self._stop.is_set() or c.state.get("current") != turn, max(seconds, 0.1))


def start_bots(server, levels: dict[str, int], pace: float = 1.0) -> list[SeatBot]:
    """A :class:`SeatBot` for each seat of ``levels`` at ``server`` (listening), started: they join over loopback.
    Each player's random stream is its seat's of the table's seed (:func:`sim.bots.match.game_streams`)."""
    from sim.bots.match import game_streams

    t = server.table
    _, streams = game_streams(t.setup.seed, len(t.players))
    host = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(server.host, server.host)
    out = []
    for seat, level in levels.items():
        bot = SeatBot(Link(host, server.port, seat, server.seats[seat].token), level, server.runner,
                      streams[t.players.index(seat)], pace)
        bot.start()
        out.append(bot)
    return out


__all__ = ["MOTION", "SeatBot", "play_state", "start_bots", "turns_to"]
