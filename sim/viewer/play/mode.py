"""The play mode: a game's referee as a session plug-in of the viewer's controller, in turn, hot seat.

:class:`Referee` sits between the players and the table (the seam of
:mod:`sim.viewer.control.plugins`). Before an action of the viewer's is done it may
refuse it (no undo in a game: the referee keeps the game); a pick is asked of
the referee first (whose turn, whose piece, what the throw allows); a piece
set down is judged where it landed, and a refused one goes back where it was
picked up, with the reason (both judged for the hand's player: where everyone
builds at once with hands of their own, each seat's); the game's own actions (``throw``, ``end-turn``,
``swap`` ...) go to the referee; each frame the game clock runs on the
session clock (wall seconds in a window, 1/60 s a scripted frame), knocked-down
pieces reach the referee with the player whose action came last, and the table
at rest in a configuration not judged before is judged (Tohuwabohu's cards,
Babylon's majority table). Whatever the referee says is said in the window;
the last refusal stays on the panel; everything it logs goes into the
session's recording as game events.

**The game clock** (a timed turn, a round) begins at the first frame, with the
game's announcement (whose turn, how long); a window a person plays in asks it
to wait until the window is ready (:meth:`Referee.wait_for_window`,
:meth:`Referee.window_ready`: its first frames drawn, the order cards shown), so
that no turn runs out before its player sees it. It stands while the world is
paused, the help is open or the window holds it (:meth:`Referee.hold`: a dialog,
a file list), and runs on from where it stood.
"""

from __future__ import annotations

import json

import numpy as np

from sim.games.play import session as play
from sim.viewer.control.plugins import SessionPlugin
from sim.viewer.play.actions import SAVE_GAME as SAVE
from sim.viewer.play.actions import specs_of
from sim.viewer.play.games import Game
from sim.viewer.play.legal import LegalMoves
from sim.viewer.play.panels import panel_lines
from sim.viewer.play.table import ControllerTable, Effects
from sim.viewer.play.tape import Tape

BARRED = {"undo": "the referee keeps the game: there is no undo in a game",
          "redo": "the referee keeps the game: there is no redo in a game",
          "reset": "the referee keeps the game: the table is not reset in a game",
          "step-back": "the referee keeps the game: time does not go back in a game",
          "load": "a game is played on its own table: no scene is loaded into it",
          "recover": "a game is played on its own table: no session is recovered into it",
          "add": "a game is played with its own pieces: none is added",
          "remove": "a game is played with its own pieces: none is taken off the table"}
"""Viewer actions a game does not allow, and why."""


class Referee(SessionPlugin):
    """A game's referee on the controller (see the module docstring).

    Args:
        game: the game and its session; the controller is made on ``game.scene`` with ``game.supply``.
        recording: the session's :class:`~sim.viewer.control.recording.SessionRecording`, to which the referee's
            journal goes as game events (None: not recorded).
    """

    name = "referee"
    undoable = ()

    def __init__(self, game: Game, recording=None):
        self.game = game
        self.session = game.session
        self.actions = specs_of(self.session)
        self.recording = recording
        self.refusal: dict | None = None
        self.c = None
        self.table: ControllerTable | None = None
        self.effects: Effects | None = None
        self._journal = 0
        self._recorded = 0  # journal entries passed to the recording (once it has started)
        self._judged = None  # the world's revision last judged at rest
        self.started = False  # the game's clock has begun (and the game was announced)
        self.waiting = False  # the clock waits for the window to be ready
        self.holds: set[str] = set()  # why the window holds the clock (a dialog open ...)
        self.legal = LegalMoves(self)  # what a carried piece may do (asked by the window only)

    # --- the seam -----------------------------------------------------------------------------------

    def attach(self, controller) -> None:
        self.c = controller
        self.table = ControllerTable(controller, prepare=self.game.prepare)
        self.tape = Tape(self.session, self.table)  # every call of the session goes through it
        self.effects = Effects(controller, self.table)
        controller.port.seat(self.session.seat)
        self._flush()

    def check(self, controller, action) -> str | None:
        return BARRED.get(action.name)

    def may_use(self, controller, piece: str | None, hand: str | None) -> str | None:
        if piece is None:
            return None
        if controller.applying is not None and controller.applying.name != "pick":
            return None
        ok, effects = self.tape.ask("pick", piece, *self._player(controller, hand))
        self._run(effects, quiet_refusal=True)
        return None if ok else self.refusal["reason"]

    def may_group(self, controller, pieces, hand: str) -> str | None:
        ok, effects = self.session.pick_group(tuple(pieces), self.table)
        self._run(effects, quiet_refusal=True)
        return None if ok else self.refusal["reason"]

    def perform(self, controller, action) -> None:
        if action.name == SAVE:
            self._save(action["path"])
            return
        self._run(self.tape.ask("act", action.name, dict(action.args)))

    def judge_drop(self, controller, hand: str, piece: str, pose) -> str | None:
        ok, effects = self.tape.ask("drop", piece, np.asarray(pose, dtype=float), *self._player(controller, hand))
        self._run(effects, quiet_refusal=True)  # a refusal's PutBack puts it back, through the controller's port
        return None if ok else self.refusal["reason"]

    def judge_ghost(self, controller, hand: str, piece: str, pose) -> str | None:
        legal = self.legal.now(controller).get(hand)
        if legal is None or legal.piece != piece or legal.refusal is None or not legal.judged(pose):
            return None
        return f"{legal.refusal.rule}: {legal.refusal.reason}"

    def event(self, controller, event) -> None:
        if event.kind == "knocked_down":
            player = event.cause.player if event.cause is not None else None
            self._run(self.tape.ask("knocked", event.pieces, player))

    def tick(self, controller, dt: float) -> None:
        self.effects.tick(dt)
        if not self.started and not self.waiting:
            self.started = True
            self._run(self.session.announce())
        if not self.session.over and self.clock_stands() is None:
            self._run(self.tape.ask("tick", dt))

    def busy(self, controller) -> bool:
        return self.effects is not None and self.effects.busy

    def advanced(self, controller, advance) -> None:
        c = self.c
        if not c.hands and self._judged != c.world.revision and c.quiet():
            self._judged = c.world.revision
            self._run(self.tape.ask("settled"))

    def close(self, controller) -> None:
        self.legal.close()
        self._flush()

    # --- the game clock ------------------------------------------------------------------------------

    def wait_for_window(self) -> None:
        """The game's clock waits until :meth:`window_ready` (a window a person plays in; a script's clock runs
        from its first frame, in a window as offscreen, so that a scripted game is the same either way)."""
        self.waiting = not self.started

    def window_ready(self) -> None:
        """The window is ready: the game is announced and its clock begins with the next frame."""
        self.waiting = False

    def hold(self, reason: str, on: bool = True) -> None:
        """The window holds the game's clock for ``reason`` (a dialog open) while ``on``; it lets go with False."""
        (self.holds.add if on else self.holds.discard)(reason)

    def clock_stands(self) -> str | None:
        """Why the game's clock stands now (``waiting for the window``, ``paused``, ``help``, or a hold of the
        window's), or None while it runs."""
        if not self.started:
            return "waiting for the window"
        if self.c.paused:
            return "paused"
        if self.c.toggles.help:
            return "help"
        return min(self.holds) if self.holds else None

    # --- what the window shows ----------------------------------------------------------------------

    def view(self) -> dict:
        """The referee's view of the game (its session's ``view()``; a clock that stands says why)."""
        v = self.session.view()
        stands = self.clock_stands()
        if stands is not None and "clock" in v and not self.session.over:
            v["clock"] = f"{v['clock']} (stands: {stands})"
        return v

    def summary(self) -> str:
        """One line of what happened in the game: the turns (or rounds) played and the result."""
        s = self.session
        journal = s.journal
        turns = sum(1 for e in journal if e.kind == "turn_changed")
        rounds = 1 + sum(1 for e in journal if e.kind == "round_ended")
        timed_rounds = s.variant in ("pro", "fast", "fast-expert")  # everyone builds at once: rounds, not turns
        head = f"{s.game} ({s.variant}; {', '.join(s.players)})"
        over = [dict(e.data) for e in journal if e.kind == "game_over"]
        if over:
            o = over[-1]
            played = f"{rounds} round(s)" if timed_rounds else f"{turns} turn(s)"
            winners = " and ".join(o.get("winners") or []) or "nobody"
            loser = f"; {o['loser']} caused it and loses" if o.get("loser") else ""
            return f"{head}: game over after {played} ({o.get('reason')}): {winners} wins{loser}"
        if timed_rounds:
            return f"{head}: round {rounds} under way ({s.seat}'s hands); the game goes on"
        if turns == 0:
            return f"{head}: the game has not begun ({s.seat} to start)"
        return f"{head}: turn {turns} under way ({s.seat}'s); the game goes on"

    def legal_now(self):
        """Hand -> what is legal now for the piece it carries (:class:`~sim.viewer.play.legal.Legal`: where it may
        be set down, each place with its rule, and whether its ghost is such a place): the referee's own answers,
        kept while the game and the table stay as they are (:class:`~sim.viewer.play.legal.LegalMoves`)."""
        return self.legal.now(self.c)

    def areas(self):
        """Babylon's fast game: the construction areas of the table's seats (its session's, through the tape)."""
        return self.tape.ask("areas")

    # --- a saved game ------------------------------------------------------------------------------

    def data(self) -> dict:
        """The referee as JSON data: the record of its session's calls (:mod:`.tape`: played back, it makes the
        session again), the session's JSON to check the playing back against, the effects under way, and
        whether the table at rest now was judged."""
        return {"calls": self.tape.calls, "session": self.session.to_json(), "effects": self.effects.data(),
                "judged": self._judged == self.c.world.revision}

    def restore_data(self, field, scene) -> None:
        """Go on from :meth:`data`'s data (a :class:`~sim.fieldcheck.Field`; the controller's session restored
        first): the session's calls made again of this referee's new session, answered from the record.

        Raises:
            sim.fieldcheck.FieldError: the data is not what :meth:`data` writes, or its record does not make
                the game it says.
        """
        from sim.fieldcheck import FieldError
        from sim.viewer.play.tape import replay

        f = field.object(("calls", "session", "effects", "judged"))
        session = self.game.remake()  # as the set-up made it: the record makes it what it was
        tape = Tape(session, self.table)
        tape.calls = list(replay(session, f["calls"], scene))
        if json.dumps(session.to_json(), sort_keys=True) != json.dumps(f["session"].value, sort_keys=True):
            raise FieldError(f["session"].path, "the record of the game's calls does not make this game")
        self.session = self.game.session = session
        self.tape = tape
        self.effects.restore_data(f["effects"], set(self.c.world.ids))
        self._judged = self.c.world.revision if f["judged"].flag() else None
        self._recorded = len(self.session.journal)  # told to the recording it was saved in
        self._journal, self.refusal = 0, None
        self._flush()

    def resumed(self, path) -> None:
        """Tell the recording (started on the game as it was saved) where the game came from, and its state:
        a ``resumed`` event and the last ``game_state``."""
        if self.recording is None or not self.recording.recorder.started:
            return
        self.recording.game_event(self.c, "resumed", data={"file": str(path), "session_time": self.c.session_time})
        state = next((e for e in reversed(self.session.journal) if e.kind == "game_state"), None)
        if state is not None:
            self.recording.game_event(self.c, "game_state", data=dict(state.data))

    def _save(self, path) -> None:
        """The game saved (:mod:`sim.viewer.play.save`) to ``path`` (default: a new file here), said."""
        from sim.errors import TowerlabError
        from sim.viewer.play.save import default_path, save_game

        target = default_path(self.session.game) if path is None else path
        try:
            written = save_game(self.c, self, target)
        except (TowerlabError, OSError) as e:
            self.c.say(f"the game was not saved: {getattr(e, 'strerror', None) or e}", "error")
            return
        self.c.say(f"game saved: {written} (towerlab play --resume {written})")

    def probe(self) -> dict:
        """What a window test reads of the game (:mod:`sim.viewer.window.probe`'s ``game``): the game and variant,
        whose hands are at work, the turns begun, the clock (whether it runs, why it stands, the time left),
        the last refusal, whether it is over, the session's whole view, and what the window shows of the legal
        moves (``legal``: hand -> :meth:`~sim.viewer.play.legal.Legal.to_json`, the places' points drawn and the
        ghost's verdict; ``busy`` while some are still being worked out)."""
        v = self.session.view()
        left = v.get("time_left")
        legal = {h: k.to_json(self.table.setup_piece(k.piece)) for h, k in self.legal.shown().items()}
        return {"referee": self.session.game, "variant": self.session.variant, "player": self.session.seat,
                "legal": legal, "busy": any(k["pending"] for k in legal.values()),
                "turns": sum(1 for e in self.session.journal if e.kind == "turn_changed"),
                "clock": {"started": self.started, "stands": self.clock_stands(),
                          "time_left": None if left is None else float(left), "time": self.session.time},
                "refusal": self.refusal, "over": self.session.over, "view": v}

    def panel(self) -> str:
        """The game panel's text."""
        return "\n".join(panel_lines(self.view(), self.refusal))

    def routes(self) -> list[list[tuple[float, float, float]]]:
        """Talo: the routes of the selected pawn to each spot it can reach, as world points (m) of the pawn's
        feet, step by step (empty for the other games or when no pawn is selected)."""
        board = getattr(self.session, "board", None) if self.session.game == "talo" else None  # (not Fantasy's)
        return talo_routes(self.view(), None if board is None else board.grid)

    def spot_at(self, point) -> tuple[list[int], int] | None:
        """Talo: the field and level under a world point (m) on a surface: where a pawn is sent."""
        board = getattr(self.session, "board", None) if self.session.game == "talo" else None
        return None if board is None else talo_spot(board.grid, point)

    # --- helpers ------------------------------------------------------------------------------------

    def _player(self, controller, hand: str | None) -> tuple[str, ...]:
        """The player a pick or a drop of ``hand`` is judged for, as the session's call takes it: none in a game of
        turns and when it is the one whose hands are at work (the hot seat's: the record as it always was), else
        the hand's own (where everyone builds at once with hands of their own)."""
        if not self.session.simultaneous:
            return ()  # a game of turns: the seat's, always
        player = controller.player_of(hand)
        return () if player is None or player == self.session.seat else (player,)

    def _run(self, effects, quiet_refusal: bool = False) -> None:
        """Carry the effects out and pass on the journal; a refusal the controller says itself is not said twice."""
        if quiet_refusal:
            effects = [e for e in effects if not (isinstance(e, play.Say) and e.kind == "refused")]
        self.effects.run(effects)
        self._flush()

    def _flush(self) -> None:
        """What the referee logged since last time: the panel's last refusal, the recording's game events."""
        for e in self.session.journal[self._journal:]:
            if e.kind == "refused":
                self.refusal = dict(e.data)
            elif e.kind in ("placed", "turn_changed", "round_ended"):
                self.refusal = None
        self._journal = len(self.session.journal)
        if self.recording is not None and self.recording.recorder.started:
            for e in self.session.journal[self._recorded:]:
                self.recording.game_event(self.c, e.kind, data=e.to_json()["data"])
            self._recorded = len(self.session.journal)


def talo_routes(view: dict, grid) -> list[list[tuple[float, float, float]]]:
    """Talo: the routes of the pawn selected in a referee's ``view`` (:meth:`Referee.view`, as a served table
    sends it too) on the board's ``grid``, as world points (m) of the pawn's feet (empty: none selected, or another
    game: ``grid`` None)."""
    sel = view.get("selected") if grid is not None and view.get("game") == "talo" else None
    if not sel:
        return []
    return [[(grid.origin[0] + (i + 0.5) * grid.cell, grid.origin[1] + (j + 0.5) * grid.cell, k * grid.cell)
             for i, j, k in d["route"]] for d in sel["destinations"]]


def talo_spot(grid, point) -> tuple[list[int], int] | None:
    """Talo: the field and level of the board's ``grid`` under a world point (m) on a surface (None: off the board
    or no point)."""
    if point is None:
        return None
    i = int(np.floor((point[0] - grid.origin[0]) / grid.cell))
    j = int(np.floor((point[1] - grid.origin[1]) / grid.cell))
    if not (0 <= i < grid.n and 0 <= j < grid.n):
        return None
    return [i, j], max(0, int(round(point[2] / grid.cell)))


def pawn_move(view: dict, spot) -> tuple[str, dict]:
    """Talo: the action that sends the seat's pawn to ``spot`` ((field, level)) in the game's state ``view`` (the
    session's :meth:`view`): its start field before the first throw, a restart when it is blocked, else a walk."""
    cell, level = spot
    if view["phase"] == "start":
        return "start", {"cell": cell}
    if view["blocked"] and view["phase"] == "throw":
        return "restart", {"cell": cell}
    return "move-pawn", {"cell": cell, "level": level}

