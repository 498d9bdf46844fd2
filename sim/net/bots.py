"""Computer players at a served table: ``towerlab serve GAME --bot SEAT:LEVEL`` (docs/network.md).

A :class:`SeatBot` is a client of the table like any other: it joins SEAT by its link over loopback, on a thread
of its own with an event loop of its own, so the same admission, seat rules, answers and log apply to it as to a
person's window (a game with computer players replays bit for bit like any other, and a player that fails is a
seat that left). What it adds is the player (:mod:`sim.bots`) and the hands:

- **What it reads.** When its seat may act (its turn; where everyone builds at once, whenever its own hands are
  free), it asks the table's thread for the game as the one game interface has it (:func:`play_state`: the
  referee's session cloned on the live table as it stands, :func:`sim.viewer.play.bots.table_state`) and lets the
  player decide on that.
- **What it does.** The decision is made as the viewer's own computer players make it
  (:func:`sim.viewer.play.bots.placement_steps`): a placement as ``pick``, ``orient`` to the pose's orientation,
  ``move-to`` along the carry's way at a person's pace (:mod:`sim.bots.pace`) and ``drop``, each step sent at its
  second (the way's points :data:`STEP_HZ` a second: the hand's spring joins them up), so that every client sees
  the hand take the piece across the table; the game's own actions (``throw``, ``end-turn``, ``take`` ...) once a
  person's seconds for them have passed; a ``wait`` by waiting.
- **What it is told.** A refusal or an action answered ``lost`` (the server went back to its autosave) ends that
  move (a carry refused on the way is cancelled: the piece goes back): the player decides again from the table as
  it now is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
import time

import numpy as np

from sim.games.play.session import PlayError
from sim.net.client import Client
from sim.net.links import Link

MOTION = frozenset({"pick", "pick-group", "move-to", "rotate", "tip", "flip", "orient", "lift", "lower", "hand",
                    "seat"})
"""The hands' actions of a placement but its last (``drop``): a placement is one move of the game."""
STEP_HZ = 15.0
"""The carry's ``move-to`` steps sent a second (the viewer's bot makes one a frame; over the network every
fourth is enough: the hand closes on each within some 0.15 s, so the piece glides from one to the next)."""
QUIET_SECONDS = 60.0
"""The longest a bot waits for its placement to land (its hands free again) before it decides again."""


def play_state(table, seat: str):
    """The game on ``table`` (a :class:`~sim.net.table.ServedTable`, on its thread) as the one game interface's
    :class:`~sim.games.play.state.PlayState`, with ``seat``'s hands at work (where everyone builds at once, the
    table seats it as it would). Its history holds the table's moves (each game action, each placement once), so
    that a player's plan made this turn goes on while nobody else has moved."""
    from sim.viewer.play.bots import table_state

    moves = tuple(json.dumps(e["action"]) for e in table.log
                  if "action" in e and e["action"]["action"] not in MOTION)
    state = table_state(table.referee, moves)
    if table.simultaneous and state.current_player != seat and not state.is_terminal:
        state = state.apply({"action": "seat", "player": seat}).state
    return state


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
        self.stale = 0  # decisions not played: the seat's turn went by while it decided
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
        builds at once, each seat with hands of its own: its own hands are free)."""
        if not state or state.get("over") or state.get("stands") is not None or not self.client.connected:
            return False
        if self.runner.table.simultaneous:
            return not self._carrying(state) and not self._finished(state)
        return state.get("current") == self.seat and not state.get("hands")

    def _carrying(self, state: dict) -> bool:
        """Whether a hand of the seat's holds a piece (the table's state says whose each hand is)."""
        return any(isinstance(h, dict) and h.get("player") == self.seat for h in (state.get("hands") or {}).values())

    def _finished(self, state: dict) -> bool:
        """Where everyone builds at once: the seat is done or out for this round (the referee's view says)."""
        for p in (state.get("view") or {}).get("players", ()):
            if isinstance(p, dict) and (p.get("color") or p.get("name")) == self.seat:
                return bool(p.get("done") or p.get("out"))
        return False

    async def _move(self, c: Client) -> None:
        from sim.bots.pace import action_seconds

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
        if not self._may_act(c.state):  # its turn went by while it thought (a slow machine): the move is stale
            self.stale += 1
            return
        record = {"decision": decision.to_json(), "answers": []}
        self.decisions.append(record)
        action = dict(decision.action)
        if action["action"] == "place":
            start = state.table_json()["poses"][action["piece"]]
            await self._place(c, action, start, record)
        elif action["action"] == "wait":
            await self._idle(c, float(action.get("seconds", 1.0)) * self.pace)
        else:
            await self._pause(action_seconds(action) * self.pace)
            if self._may_act(c.state):  # (still its turn after the hand's pause)
                await self._send(c, action, record["answers"])
        if record["answers"] and not record["answers"][-1]["ok"]:
            await asyncio.sleep(0.2 * self.pace + 0.05)  # the table as it now is: decided again

    async def _place(self, c: Client, action: dict, start, record: dict) -> None:
        """A placement as a person's hand makes it (:func:`~sim.viewer.play.bots.placement_steps`), each step
        sent at its second; a step refused on the way ends it (the carry cancelled: the piece goes back)."""
        from sim.viewer.play.bots import placement_steps

        steps = placement_steps(action["piece"], start, action["pose"])
        record["carry_s"] = steps[-1][0] * self.pace  # from the grip to letting go
        answers = record["answers"]
        begun, last = time.monotonic(), -np.inf
        for k, (at, step) in enumerate(steps):
            final = k >= len(steps) - 2  # the last move-to and the drop
            if step["action"] == "move-to" and not final and at - last < 1.0 / STEP_HZ:
                continue
            last = at
            await self._pause(begun + at * self.pace - time.monotonic())
            if self._stop.is_set() or (step["action"] == "pick" and not self._may_act(c.state)):
                return  # (stopped, or its turn went by before the hand reached the piece)
            if not await self._send(c, step, answers):
                if step["action"] != "pick":
                    await self._send(c, {"action": "cancel", "hand": step.get("hand", "right")}, answers)
                return
        await c.wait_for(lambda c: not self._carrying(c.state) or c.state.get("over"), QUIET_SECONDS)

    async def _send(self, c: Client, action: dict, answers: list) -> bool:
        sent = time.monotonic()
        answer = await c.act(action, timeout=60.0)
        answers.append({"action": action, "ok": answer["ok"], "rule": answer.get("rule"), "sent": sent})
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
    Each player's random stream is its seat's of the table's seed, as at the viewer's table
    (:func:`sim.viewer.play.bots.seat_rng`)."""
    from sim.viewer.play.bots import seat_rng

    t = server.table
    host = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(server.host, server.host)
    out = []
    for seat, level in levels.items():
        bot = SeatBot(Link(host, server.port, seat, server.seats[seat].token), level, server.runner,
                      seat_rng(t.setup.seed, t.players.index(seat)), pace)
        bot.start()
        out.append(bot)
    return out


__all__ = ["MOTION", "STEP_HZ", "SeatBot", "play_state", "start_bots"]
