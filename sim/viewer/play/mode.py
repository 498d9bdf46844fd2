"""The play mode: a game's referee as a session plug-in of the viewer's controller, in turn, hot seat.

:class:`Referee` sits between the players and the table (the seam of
:mod:`sim.viewer.plugins`). Before an action of the viewer's is done it may
refuse it (no undo in a game: the referee keeps the game); a pick is asked of
the referee first (whose turn, whose piece, what the throw allows); a piece
set down is judged where it landed, and a refused one goes back where it was
picked up, with the reason; the game's own actions (``throw``, ``end-turn``,
``swap`` ...) go to the referee; each frame the game clock runs on the
session clock (wall seconds in a window, 1/60 s a scripted frame), knocked-down
pieces reach the referee with the player whose action came last, and the table
at rest in a configuration not judged before is judged (Tohuwabohu's cards,
Babylon's majority table). Whatever the referee says is said in the window;
the last refusal stays on the panel; everything it logs goes into the
session's recording as game events.
"""

from __future__ import annotations

import numpy as np

from sim.games.play import session as play
from sim.viewer.play.actions import specs_of
from sim.viewer.play.games import Game
from sim.viewer.play.panels import panel_lines
from sim.viewer.play.table import ControllerTable, Effects
from sim.viewer.plugins import SessionPlugin

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
        recording: the session's :class:`~sim.viewer.recording.SessionRecording`, to which the referee's
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

    # --- the seam -----------------------------------------------------------------------------------

    def attach(self, controller) -> None:
        self.c = controller
        self.table = ControllerTable(controller, prepare=self.game.prepare)
        self.effects = Effects(controller, self.table)
        controller.player = self.session.seat
        self._flush()

    def check(self, controller, action) -> str | None:
        return BARRED.get(action.name)

    def may_use(self, controller, piece: str | None, hand: str | None) -> str | None:
        if piece is None:
            return None
        if controller.applying is not None and controller.applying.name != "pick":
            return None
        ok, effects = self.session.pick(piece, self.table)
        self._run(effects, quiet_refusal=True)
        return None if ok else self.refusal["reason"]

    def may_group(self, controller, pieces, hand: str) -> str | None:
        ok, effects = self.session.pick_group(tuple(pieces), self.table)
        self._run(effects, quiet_refusal=True)
        return None if ok else self.refusal["reason"]

    def perform(self, controller, action) -> None:
        self._run(self.session.act(action.name, dict(action.args), self.table))

    def judge_drop(self, controller, hand: str, piece: str, pose) -> str | None:
        ok, effects = self.session.drop(piece, np.asarray(pose, dtype=float), self.table)
        self._run([e for e in effects if not isinstance(e, play.PutBack)], quiet_refusal=True)
        return None if ok else self.refusal["reason"]

    def event(self, controller, event) -> None:
        if event.kind == "knocked_down":
            player = event.cause.player if event.cause is not None else None
            self._run(self.session.knocked(event.pieces, player, self.table))

    def tick(self, controller, dt: float) -> None:
        self.effects.tick(dt)
        if not self.session.over:
            self._run(self.session.tick(dt, self.table))

    def busy(self, controller) -> bool:
        return self.effects is not None and self.effects.busy

    def advanced(self, controller, advance) -> None:
        c = self.c
        if not c.hands and self._judged != c.world.revision and c.quiet():
            self._judged = c.world.revision
            self._run(self.session.settled(self.table))

    def close(self, controller) -> None:
        self._flush()

    # --- what the window shows ----------------------------------------------------------------------

    def view(self) -> dict:
        """The referee's view of the game (its session's ``view()``)."""
        return self.session.view()

    def panel(self) -> str:
        """The game panel's text."""
        return "\n".join(panel_lines(self.view(), self.refusal))

    def routes(self) -> list[list[tuple[float, float, float]]]:
        """Talo: the routes of the selected pawn to each spot it can reach, as world points (m) of the pawn's
        feet, step by step (empty for the other games or when no pawn is selected)."""
        v = self.view()
        sel = v.get("selected") if v["game"] == "talo" else None
        if not sel:
            return []
        grid = self.session.board.grid
        return [[(grid.origin[0] + (i + 0.5) * grid.cell, grid.origin[1] + (j + 0.5) * grid.cell, k * grid.cell)
                 for i, j, k in d["route"]] for d in sel["destinations"]]

    def spot_at(self, point) -> tuple[list[int], int] | None:
        """Talo: the field and level under a world point (m) on a surface: where a pawn is sent."""
        if self.session.game != "talo" or point is None:
            return None
        grid = self.session.board.grid
        i = int(np.floor((point[0] - grid.origin[0]) / grid.cell))
        j = int(np.floor((point[1] - grid.origin[1]) / grid.cell))
        if not (0 <= i < grid.n and 0 <= j < grid.n):
            return None
        return [i, j], max(0, int(round(point[2] / grid.cell)))

    # --- helpers ------------------------------------------------------------------------------------

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

