"""Scripted replays: a list of replay actions run through the controller, the same in a window and offscreen.

:class:`ReplayScript` does one thing per :meth:`~ReplayScript.step`: apply the
next action, or run one frame of :data:`~sim.viewer.replay.controller.FRAME`
of a ``wait``. A window calls it once a frame and shows every frame; offscreen
it runs in a loop. Time moves only in waits, by whole frames, so a script
shows the same frames whatever the machine: a bug report's screenshot is the
same everywhere.
"""

from __future__ import annotations

from sim.viewer.control.script import Script
from sim.viewer.replay.controller import FRAME


class ReplayScript(Script):
    """Runs replay actions through a replay controller, one step at a time (a :class:`Script` whose frames are
    the replay's ticks: time moves only in waits).

    Args:
        controller: the session (a :class:`~sim.viewer.replay.controller.ReplayController`).
        actions: the validated actions.
        serve: ``serve(request)`` does what only the front end can (a screenshot, going on in the live world).
    """

    FRAME = FRAME

    def frame(self) -> None:
        self.controller.tick(FRAME)
