"""The play mode: a game's referee on the viewer's controller, in turn, hot seat.

:class:`PlayMode` sits between the players and the table. Before an action
of the viewer's is done it may refuse it (no undo in a game: the referee keeps
the game); a pick is asked of the referee first (whose turn, whose piece, what
the throw allows); a piece about to be set down is judged where it would land,
and a refused one goes back where it was picked up with the reason; the
game's own actions (``throw``, ``end-turn``, ``swap`` ...) go to the referee;
each frame the game clock runs on simulated time, knocked-down pieces reach
the referee with the player whose action came last, and the table at rest in
a configuration not judged before is judged (Tohuwabohu's cards, Babylon's
majority table). Whatever the referee says is said in the window and kept as
the last refusal for the panel; everything it logs is recorded.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sim.viewer.play.actions import names
from sim.viewer.play.games import Game
from sim.viewer.play.panels import panel_lines
from sim.viewer.play.table import ControllerTable, Effects

BARRED = {"undo": "the referee keeps the game: there is no undo in a game",
          "redo": "the referee keeps the game: there is no redo in a game",
          "reset": "the referee keeps the game: the table is not reset in a game",
          "step-back": "the referee keeps the game: time does not go back in a game",
          "load": "a game is played on its own table: no scene is loaded into it",
          "recover": "a game is played on its own table: no session is recovered into it",
          "add": "a game is played with its own pieces: none is added",
          "remove": "a game is played with its own pieces: none is taken off the table",
          "poke": "a game is played with the hands: no pokes"}
"""Viewer actions a game does not allow, and why."""


class PlayMode:
    """A game played on a controller (see the module docstring).

    Args:
        controller: the viewer's controller, on the game's set-up (``game.scene``, ``game.supply``).
        game: the game and its referee.
        recorder: a started :class:`sim.replay.Recorder`, or None (not recorded).
    """

    def __init__(self, controller, game: Game, recorder=None):
        self.c = controller
        self.game = game
        self.session = game.session
        self.table = ControllerTable(controller, prepare=game.prepare)
        self.effects = Effects(controller, self.table)
        self.recorder = recorder
        self.refusal: dict | None = None
        self._journal = 0
        self._events = len(controller.events)
        self._judged = None  # the world's revision last judged at rest
        self.c.player = self.session.seat
        self._flush()

    # --- what the players do ------------------------------------------------------------------------

    @property
    def actions(self) -> tuple[str, ...]:
        """The game's own actions."""
        return names(self.session.game)

    def veto(self, name: str) -> str | None:
        """Why a viewer action may not be done in this game, or None."""
        return BARRED.get(name)

    def act(self, name: str, args: Mapping) -> None:
        """One of the game's own actions (validated), answered by the referee."""
        self._record_action(name, args)
        self.effects.run(self.session.act(name, dict(args), self.table))
        self._flush()

    def pick(self, piece: str) -> str | None:
        """A player is about to pick ``piece`` up: None if they may, else the reason (said already)."""
        ok, effects = self.session.pick(piece, self.table)
        self.effects.run(effects)
        self._flush()
        return None if ok else self.refusal["reason"]

    def drop(self, piece: str, pose) -> str | None:
        """A piece is about to be set down at ``pose`` (7,): None if it may, else the reason (it goes back)."""
        ok, effects = self.session.drop(piece, np.asarray(pose, dtype=float), self.table)
        self.effects.run(effects)
        self._flush()
        return None if ok else self.refusal["reason"]

    # --- what happens on the table ------------------------------------------------------------------

    def tick(self, seconds: float) -> None:
        """``seconds`` of simulated time passed (a frame): the clock, walks, knocked pieces, the table at rest."""
        self.effects.tick(seconds)
        if not self.session.over:
            self.effects.run(self.session.tick(seconds, self.table))
        new, self._events = self.c.events[self._events:], len(self.c.events)
        for e in new:
            if e.kind == "knocked_down":
                player = e.cause.player if e.cause is not None else None
                self.effects.run(self.session.knocked(e.pieces, player, self.table))
        if not self.c.hands and not self.effects.busy and self._judged != self.c.world.revision and self.c.quiet():
            self._judged = self.c.world.revision
            self.effects.run(self.session.settled(self.table))
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
        """Talo: the field and level of a world point (m) on a surface: where a click sends the selected pawn."""
        if self.session.game != "talo":
            return None
        grid = self.session.board.grid
        i = int(np.floor((point[0] - grid.origin[0]) / grid.cell))
        j = int(np.floor((point[1] - grid.origin[1]) / grid.cell))
        level = max(0, int(round(point[2] / grid.cell)))
        if not (0 <= i < grid.n and 0 <= j < grid.n):
            return None
        return [i, j], level

    # --- the journal --------------------------------------------------------------------------------

    def _flush(self) -> None:
        """Pass what the referee logged since last time to the recording and the panel."""
        for e in self.session.journal[self._journal:]:
            if e.kind == "refused":
                self.refusal = dict(e.data)
            elif e.kind in ("placed", "turn_changed"):
                self.refusal = None
            if self.recorder is not None:
                self.recorder.event(self._now(), e.kind, data=dict(e.data))
        self._journal = len(self.session.journal)

    def _record_action(self, name: str, args: Mapping) -> None:
        if self.recorder is not None:
            self.recorder.action(self._now(), self.session.seat, {"kind": name.replace("-", "_"),
                                                                    "args": dict(args)}, world=False)

    def _now(self) -> float:
        return float(self.c.world.time)
