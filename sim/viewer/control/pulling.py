"""The controller's pull: a spring from a point of a piece to a point in space, as MuJoCo's viewer perturbs a
body (Ctrl+drag in the window).

A pull starts with the point of the piece taken (``at``) and where the spring pulls it (``to``); each later
``pull`` of the same piece moves the spring's far end, and ``release-pull`` ends it. The live world
simulates the piece while the force acts (:meth:`sim.physics.live.LiveWorld.pull`); once let go it rests
and the statics hold it again. The start of a pull is an undo step (``pull of b3``: undone, everything is
back as it was before it, what it knocked over included); the moves of the spring are not.

A part of the controller (:class:`~sim.viewer.control.state.Part`); it holds no state of its own (the world
knows its pulls).
"""

from __future__ import annotations

import numpy as np

from sim.viewer.control.actions import Action
from sim.viewer.control.history import Entry
from sim.viewer.control.state import Part


class Pulling(Part):
    """pull, release-pull (see the module)."""

    ACTIONS = ("pull", "release-pull")

    def _do_pull(self, a: Action) -> None:
        pid = self.ctl.piece_id(a)
        if self.state.world.piece(pid).fixed:
            raise a.fail("piece", f"{pid!r} is fixed to the board")
        for h, s in self.state.hands.items():
            if pid in s.pieces:
                raise a.fail("piece", f"{pid!r} is in the {h} hand: set it down before pulling it")
        to = np.asarray(a["to"], dtype=float) / 1000.0
        pulled = self.state.world.pulls()
        if a["at"] is None:
            if pid not in pulled:
                raise a.fail("at", f"{pid!r} is not pulled yet: give the point of it that is pulled")
            self.state.world.pull(pid, to)
            return
        self.ctl.may_use(a, pid, None)
        for other in pulled:  # one pull at a time: the mouse has one spring
            self.state.world.release_pull(other)
        self.state.history.go_live()
        self.state.undo.push(Entry(f"pull of {pid}", self.ctl.moment()))
        self.ctl.note("pull", pid)
        self.state.world.pull(pid, to, np.asarray(a["at"], dtype=float) / 1000.0)

    def _do_release_pull(self, a: Action) -> None:
        pulled = self.state.world.pulls()
        pieces = list(pulled) if a["piece"] is None else [a["piece"]]
        for pid in pieces:
            if pid not in pulled:
                raise a.fail("piece", f"{pid!r} is not pulled")
            self.state.world.release_pull(pid)
