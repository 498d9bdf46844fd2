"""The controller's time actions: undo and redo, reset, pause and resume, single steps, slow motion and
stepping back through the time history.

A part of the controller (:class:`~sim.viewer.control.state.Part`); it holds no state of its own.
"""

from __future__ import annotations

from sim.viewer.control.actions import Action
from sim.viewer.control.history import Entry
from sim.viewer.control.state import Part

FRAME = 1.0 / 60.0
"""Simulated seconds per frame of a scripted run (and of a single step)."""


class TimeActions(Part):
    """Undo, redo, reset, pause, resume, step, speed and step-back (see the module)."""

    ACTIONS = ("undo", "redo", "reset", "pause", "resume", "step", "speed", "step-back")

    def _do_undo(self, a: Action) -> None:
        entry = self.state.undo.take_undo(self.ctl.moment())
        if entry is None:
            self.ctl.say("nothing to undo")
            return
        self.ctl.restore(entry.moment, "undo")
        self.state.history.forget_after(entry.moment.time)
        self.ctl.say(f"undone: {entry.label}")

    def prepare_undo(self, budget: float | None = None) -> bool:
        """Make the next undo, then the next redo, cheap ahead of time, spending at most ``budget`` wall
        seconds now on each: the world restores the moment it would go back (or on) to on the side
        (``WorldAdapter.prepare``), so that the undo itself only swaps it in. For a window's quiet frames;
        True once both are ready.
        """
        prepare = getattr(self.state.world, "prepare", None)  # a world of handed-in poses has nothing to prepare
        if self.state.history.browsing or prepare is None:
            return False
        return all(prepare(stack[-1].moment.snapshot, budget) for stack in (self.state.undo.undo, self.state.undo.redo)
                   if stack)

    def _do_redo(self, a: Action) -> None:
        entry = self.state.undo.take_redo(self.ctl.moment())
        if entry is None:
            self.ctl.say("nothing to redo")
            return
        self.ctl.restore(entry.moment, "redo")
        self.state.history.forget_after(entry.moment.time)
        self.ctl.say(f"redone: {entry.label}")

    def _do_reset(self, a: Action) -> None:
        self.state.undo.push(Entry("reset", self.ctl.moment()))
        self.ctl.restore(self.state.initial, "reset")
        self.state.history.clear()
        self.state.history.record(self.state.initial)
        self.ctl.say("back at the start")

    def _do_pause(self, a: Action) -> None:
        self.state.paused = True

    def _do_resume(self, a: Action) -> None:
        self.state.paused = False
        self.state.history.go_live()

    def _do_step(self, a: Action) -> None:
        self.state.paused = True
        self.state.history.go_live()
        self.ctl.run(a["frames"] * FRAME)

    def _do_speed(self, a: Action) -> None:
        self.state.speed = a["factor"]

    def _do_step_back(self, a: Action) -> None:
        moment = self.state.history.back(self.state.world.time, a["seconds"])
        if moment is None:
            self.ctl.say("no history to step back through yet")
            return
        self.state.paused = True
        self.ctl.restore(moment, "step-back")
