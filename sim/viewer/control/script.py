"""Scripted sessions: a list of actions run through the controller, the same in a window and offscreen.

:class:`ScriptRunner` does one thing per :meth:`~ScriptRunner.step`: apply the next
action, or advance one frame of :data:`~sim.viewer.control.controller.FRAME` while the
last action settles (the hand arrives, what it set down comes to rest, at most
:data:`~sim.viewer.control.controller.QUIET_LIMIT` seconds) or a ``wait`` runs. A window
calls it once per frame and shows every frame; offscreen it runs in a loop. The
frames are the same either way, so the same scene, actions and settings give the
same saved scene every time.
"""

from __future__ import annotations

from collections.abc import Callable

from sim.limits import MAX_SCRIPT_SECONDS
from sim.viewer.control.actions import Action, ActionError, RefusalError
from sim.viewer.control.controller import FRAME, QUIET_FRAMES, QUIET_LIMIT, Controller, Request

VIEW_ONLY = ("camera", "orbit", "pan", "zoom", "toggle", "hover", "hand", "screenshot", "speed", "pause", "save",
             "save-game")
"""Actions after which nothing needs to settle (``save-game``: a played game's save, which changes nothing: a
game resumed from it goes on at once, as the game saved goes on)."""


class Script:
    """Actions run through a controller one step at a time, the same in a window (a step a frame) and
    offscreen (:meth:`run`): the build mode's :class:`ScriptRunner` and the replay's
    :class:`~sim.viewer.replay.script.ReplayScript`.

    A step applies the next action (:meth:`do`), or runs one frame (:meth:`frame`) of a ``wait`` or of what an
    action leaves to settle (:meth:`settling`); the requests only a front end can serve (a screenshot) are
    handed to ``serve`` as they come.

    Args:
        controller: the session (it has ``apply`` and ``requests``).
        actions: the validated actions.
        serve: ``serve(request)`` serves a request (the front end's renderer, its window).
    """

    FRAME = FRAME
    """Simulated seconds of one frame of a ``wait``."""

    def __init__(self, controller, actions: list[Action], serve: Callable[[Request], None]):
        self.controller = controller
        self.actions = list(actions)
        self.serve = serve
        self.next = 0
        self._frames = 0  # frames of a wait still to run

    @property
    def done(self) -> bool:
        return self.next >= len(self.actions) and self._frames == 0 and not self.settles()

    def step(self) -> bool:
        """Do the next thing; False once the script is over.

        Raises:
            ActionError: an action cannot be done (its message names the file, line and field).
        """
        if self._frames > 0:
            self.frame()
            self._frames -= 1
            return True
        if self.settling():
            return True
        self._serve()
        if self.next >= len(self.actions):
            return False
        a = self.actions[self.next]
        self.next += 1
        if a.name == "wait":
            self._frames = int(round(a["seconds"] / self.FRAME))
            return True
        self.do(a)
        self._serve()
        return True

    def do(self, a: Action) -> None:
        """Apply one action."""
        self.controller.apply(a)

    def frame(self) -> None:
        """One frame of the session."""
        raise NotImplementedError

    def settles(self) -> bool:
        """Whether what the last action left is still settling."""
        return False

    def settling(self) -> bool:
        """Run a frame of the settling, if any is left (True), else nothing (False)."""
        return False

    def _serve(self) -> None:
        c = self.controller
        while c.requests:
            self.serve(c.requests.pop(0))

    def run(self) -> None:
        """Run to the end (offscreen)."""
        while self.step():
            pass


class ScriptRunner(Script):
    """The build mode's script: after an action that changes the world, frames run until it settles (the hand
    arrives, what it set down comes to rest, at most :data:`~sim.viewer.control.controller.QUIET_LIMIT`
    simulated seconds); an action the session's rules refuse is said and the script goes on; the session's
    simulated time is bounded (:data:`~sim.limits.MAX_SCRIPT_SECONDS`).

    Args:
        controller: the session.
        actions: the validated actions.
        shoot: ``shoot(request)`` serves a screenshot request (the front end's renderer).
    """

    def __init__(self, controller: Controller, actions: list[Action], shoot: Callable[[Request], None]):
        super().__init__(controller, actions, shoot)
        self._settle_start: float | None = None
        self._calm = 0
        self._ran = 0  # frames run so far: the session's simulated time is bounded (MAX_SCRIPT_SECONDS)
        self._most = int(round(MAX_SCRIPT_SECONDS / FRAME))

    @property
    def shoot(self) -> Callable[[Request], None]:
        """What serves a screenshot request (a window sets its own once it opens)."""
        return self.serve

    @shoot.setter
    def shoot(self, serve: Callable[[Request], None]) -> None:
        self.serve = serve

    def settles(self) -> bool:
        return self._settle_start is not None

    def settling(self) -> bool:
        if self._settle_start is None:
            return False
        c = self.controller
        self._calm = self._calm + 1 if c.quiet() else 0
        over = c.world.time - self._settle_start >= QUIET_LIMIT - 1e-9
        if self._calm < QUIET_FRAMES and not over and not c.paused:
            self.frame()
            return True
        self._settle_start = None
        return False

    def do(self, a: Action) -> None:
        c = self.controller
        try:
            c.apply(a)
        except RefusalError:
            return  # the rules said no (a message, and on the record): the game goes on
        if a.name in ("camera", "orbit", "pan", "zoom"):
            c.camera.current = c.camera.goal  # a script's camera is where it is sent, at once
        if a.name not in VIEW_ONLY:
            self._settle_start, self._calm = c.world.time, 0

    def frame(self) -> None:
        """One frame of the session, within the script's bound on simulated time."""
        if self._ran >= self._most:
            last = self.actions[self.next - 1] if self.next else None
            raise ActionError(last.where if last is not None and last.where else "script",
                              f"the script has run {MAX_SCRIPT_SECONDS:g} s of simulated time (its waits, steps "
                              "and the settling after its actions), the most a scripted session may")
        self._ran += 1
        self.controller.frame()


PIECE_FIELDS = ("piece",)


def check_pieces(actions: list[Action], scene) -> None:
    """Refuse, before anything opens, an action naming a piece the scene does not have.

    Pieces an earlier ``add`` may create (``<kind>-<n>``: ``block-1``) pass; the controller
    checks them when it gets there.

    Raises:
        ActionError: ``file:line: actions[i].piece: no piece 'x' in the scene``.
    """
    known = set(scene.ids)
    added: set[str] = set()
    for a in actions:
        if a.name == "add":
            added.add(a["kind"].split(".")[-1] + "-")
        for key in PIECE_FIELDS:
            pid = a.args.get(key)
            if pid is None or pid in known or any(pid.startswith(stem) for stem in added):
                continue
            raise ActionError(f"{a.where}.{key}" if a.where else key, f"no piece {pid!r} in the scene")


def offscreen_shooter(controller: Controller) -> Callable[[Request], None]:
    """Screenshots of a session without a window: the offscreen renderer, from the session's camera."""
    from sim.errors import TowerlabError
    from sim.render import default_renderer
    from sim.render.image import save_image

    def shoot(request: Request) -> None:
        size = request.args.get("size") or controller.camera.size
        renderer = default_renderer()
        image = renderer.render_graph(renderer.graph(controller.scene()), controller.camera.view(size=size))
        try:
            save_image(image, request.args["path"])
        except (OSError, ValueError) as e:
            raise TowerlabError(f"{request.args['path']}: cannot be written ({getattr(e, 'strerror', None) or e})") \
                from None
        controller.say(f"screenshot saved: {request.args['path']}")

    return shoot


def run_offscreen(controller: Controller, actions: list[Action], screenshot=None) -> None:
    """Run ``actions`` through ``controller`` with no window, save ``screenshot`` (a path, or None) once they
    are done, and close the controller (also after an error or Ctrl-C)."""
    try:
        shoot = offscreen_shooter(controller)
        ScriptRunner(controller, actions, shoot).run()
        if screenshot is not None:
            shoot(Request("screenshot", {"path": str(screenshot), "size": None}))
    finally:
        controller.close()
