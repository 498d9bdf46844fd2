"""Scripted replays: a list of replay actions run through the controller, the same in a window and offscreen.

:class:`ReplayScript` does one thing per :meth:`~ReplayScript.step`: apply the
next action, or run one frame of :data:`~sim.viewer.replay.controller.FRAME`
of a ``wait``. A window calls it once a frame and shows every frame; offscreen
it runs in a loop. Time moves only in waits, by whole frames, so a script
shows the same frames whatever the machine: a bug report's screenshot is the
same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable

from sim.viewer.control.actions import Action
from sim.viewer.replay.controller import FRAME, ReplayController, Request


class ReplayScript:
    """Runs replay actions through a controller, one step at a time.

    Args:
        controller: the session.
        actions: the validated actions.
        serve: ``serve(request)`` does what only the front end can (a screenshot, going on in the live world).
    """

    def __init__(self, controller: ReplayController, actions: list[Action], serve: Callable[[Request], None]):
        self.controller = controller
        self.actions = list(actions)
        self.serve = serve
        self.next = 0
        self._frames = 0

    @property
    def done(self) -> bool:
        return self.next >= len(self.actions) and self._frames == 0

    def step(self) -> bool:
        """Do the next thing; False once the script is over.

        Raises:
            ActionError: an action cannot be done (its message names the file, line and field).
        """
        c = self.controller
        if self._frames > 0:
            c.tick(FRAME)
            self._frames -= 1
            return True
        self._serve()
        if self.next >= len(self.actions):
            return False
        a = self.actions[self.next]
        self.next += 1
        if a.name == "wait":
            self._frames = int(round(a["seconds"] / FRAME))
            return True
        c.apply(a)
        self._serve()
        return True

    def _serve(self) -> None:
        c = self.controller
        while c.requests:
            self.serve(c.requests.pop(0))

    def run(self) -> None:
        """Run to the end (offscreen)."""
        while self.step():
            pass
