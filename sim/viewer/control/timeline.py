"""The controller's time actions: undo and redo, reset, pause and resume, single steps, slow motion and
stepping back through the time history.

A mixin of :class:`sim.viewer.control.controller.Controller`; it holds no state of its own.
"""

from __future__ import annotations

from sim.viewer.control.actions import Action
from sim.viewer.control.history import Entry

FRAME = 1.0 / 60.0
"""Simulated seconds per frame of a scripted run (and of a single step)."""


class TimeActions:
    """Undo, redo, reset, pause, resume, step, speed and step-back (see the module)."""

    def _do_undo(self, a: Action) -> None:
        entry = self.undo.take_undo(self._moment())
        if entry is None:
            self.say("nothing to undo")
            return
        self._restore(entry.moment, "undo")
        self.history.forget_after(entry.moment.time)
        self.say(f"undone: {entry.label}")

    def prepare_undo(self, budget: float | None = None) -> bool:
        """Make the next undo, then the next redo, cheap ahead of time, spending at most ``budget`` wall
        seconds now on each: the world restores the moment it would go back (or on) to on the side
        (``WorldAdapter.prepare``), so that the undo itself only swaps it in. For a window's quiet frames;
        True once both are ready.
        """
        prepare = getattr(self.world, "prepare", None)  # a world of handed-in poses has nothing to prepare
        if self.history.browsing or prepare is None:
            return False
        return all(prepare(stack[-1].moment.snapshot, budget) for stack in (self.undo.undo, self.undo.redo)
                   if stack)

    def _do_redo(self, a: Action) -> None:
        entry = self.undo.take_redo(self._moment())
        if entry is None:
            self.say("nothing to redo")
            return
        self._restore(entry.moment, "redo")
        self.history.forget_after(entry.moment.time)
        self.say(f"redone: {entry.label}")

    def _do_reset(self, a: Action) -> None:
        self.undo.push(Entry("reset", self._moment()))
        self._restore(self.initial, "reset")
        self.history.clear()
        self.history.record(self.initial)
        self.say("back at the start")

    def _do_pause(self, a: Action) -> None:
        self.paused = True

    def _do_resume(self, a: Action) -> None:
        self.paused = False
        self.history.go_live()

    def _do_step(self, a: Action) -> None:
        self.paused = True
        self.history.go_live()
        self.run(a["frames"] * FRAME)

    def _do_speed(self, a: Action) -> None:
        self.speed = a["factor"]

    def _do_step_back(self, a: Action) -> None:
        moment = self.history.back(self.world.time, a["seconds"])
        if moment is None:
            self.say("no history to step back through yet")
            return
        self.paused = True
        self._restore(moment, "step-back")
