"""Starting a replay: offscreen (a script and a screenshot, no window) or in the replay window.

What ``towerlab replay R`` runs once its options are checked. "Re-simulate
from here" hands the session to the viewer's controller on a
:class:`~sim.viewer.replay.resumed.ResumedWorld` (:func:`resume`): offscreen, the
script's actions after its ``resimulate`` are the viewer's, run by the
viewer's :class:`~sim.viewer.control.script.ScriptRunner`.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from sim.errors import TowerlabError
from sim.replay import ReplayError
from sim.viewer.replay.actions import load_replay_actions, split_script
from sim.viewer.replay.controller import ReplayController, Request


def headless() -> bool:
    """No display to open a window on."""
    return not os.environ.get("DISPLAY")


def check_at(recording, at: float | None) -> None:
    """Refuse an ``--at`` outside the recording.

    Raises:
        ReplayError: ``--at: expected a time within the recording, 0..2.2 s, got 7``.
    """
    if at is None:
        return
    if not (math.isfinite(at) and recording.start - 1e-9 <= at <= recording.end + 1e-9):
        raise ReplayError(f"--at: expected a time within the recording, {recording.start:g}..{recording.end:g} s, "
                          f"got {at:g}")


def load_script(path, recording):
    """Read a replay action file and check, before anything opens, the pieces its replay actions name.

    Raises:
        ActionError: ``file:line: actions[i].field: reason``.
    """
    actions = load_replay_actions(path)
    known = {pid for pid, _ in recording.roster}
    for a in split_script(actions)[0]:
        if a.name == "follow" and a["piece"] is not None and a["piece"] not in known:
            raise a.fail("piece", f"the recording holds no piece {a['piece']!r}")
    return actions


def resume(controller: ReplayController, *, threaded: bool, size=None, plugins=()):
    """Re-simulate from the frame at the cursor and build on it: a viewer
    :class:`~sim.viewer.control.controller.Controller` on the live world restored there, its camera the replay's.

    Args:
        controller: the replay.
        threaded: the statics in a worker process (a window); False: at once (scripts, tests).
        size: the window's size (default the replay's).
        plugins: the session's :class:`~sim.viewer.control.plugins.SessionPlugin` s (a window records the session
            that goes on, as ``towerlab view`` does).

    Raises:
        ReplayError: the frame cannot be reached.
    """
    from sim.viewer.control.controller import Controller
    from sim.viewer.replay.resumed import ResumedWorld

    live = controller.resimulate()
    made = []

    def factory(scene):
        if not made:  # the re-simulated world; a reset ("back to the start") starts the frame again, at rest
            made.append(True)
            return ResumedWorld(live, threaded_statics=threaded)
        from sim.physics.live import LiveWorld

        return ResumedWorld(LiveWorld(scene, live.world.settings), threaded_statics=threaded)

    source = f"{controller.recording.path} at {live.time:.2f} s"
    viewer = Controller(live.scene_now(), source=None, world_factory=factory, threaded=threaded,
                        size=size or controller.size, player=_last_player(controller), plugins=plugins)
    viewer.camera.send(controller.camera.current, at_once=True)
    viewer.say(f"re-simulated from {source}: build on (the same actions give the same timeline)")
    return viewer


def _last_player(controller: ReplayController) -> str | None:
    """Whoever acted last before the frame (the live world names them with what follows)."""
    t = float(controller.recording.times[controller.frame])
    actors = [a.actor for a in controller.recording.actions if a.time <= t + 1e-9 and a.actor]
    return actors[-1] if actors else None


def run_offscreen(recording, script, screenshot: Path | None, at: float | None, size) -> None:
    """Run a replay script without a window and save the screenshot (a replay picture, or after a
    ``resimulate`` the viewer's)."""
    from sim.render import default_renderer
    from sim.viewer.control.script import ScriptRunner, offscreen_shooter
    from sim.viewer.replay.picture import PaneGraphs
    from sim.viewer.replay.script import ReplayScript

    controller = ReplayController(recording, size=size, smooth=False)
    if at is not None:
        controller.player.seek(at)
    graphs = PaneGraphs(recording, default_renderer())
    replay_part, viewer_part = split_script(script)
    resumed = []

    def serve(request: Request) -> None:
        if request.kind == "screenshot":
            save_replay_picture(controller, graphs, request.args["path"], request.args["size"])
        else:
            resumed.append(resume(controller, threaded=False, size=size))

    ReplayScript(controller, replay_part, serve).run()
    if not resumed:
        if screenshot is not None:
            save_replay_picture(controller, graphs, str(screenshot), None)
        return
    viewer = resumed[0]
    try:
        shoot = offscreen_shooter(viewer)
        ScriptRunner(viewer, viewer_part, shoot).run()
        if screenshot is not None:
            from sim.viewer.control.controller import Request as ViewerRequest

            shoot(ViewerRequest("screenshot", {"path": str(screenshot), "size": None}))
    finally:
        viewer.close()


def save_replay_picture(controller: ReplayController, graphs, path: str, size) -> None:
    """Draw the replay now (:func:`~sim.viewer.replay.picture.replay_picture`) and save it.

    Raises:
        TowerlabError: the file cannot be written (one line naming it).
    """
    from sim.render.image import save_image
    from sim.viewer.replay.picture import replay_picture

    image = replay_picture(controller, graphs, size)
    try:
        save_image(image, path)
    except (OSError, ValueError) as e:
        raise TowerlabError(f"{path}: cannot be written ({getattr(e, 'strerror', None) or e})") from None
    controller.say(f"screenshot saved: {path}")


def run_window(recording, path, script, screenshot, at, exit_after, size) -> None:
    """Open the replay window, and the viewer's window after "re-simulate from here".

    Raises:
        TowerlabError: no window could be opened, or a scripted action failed (one line).
    """
    from sim.viewer.replay.script import ReplayScript
    from sim.viewer.window.replay.window import ReplayWindow
    from sim.viewer.window.shell import open_shell, run_shell

    scripted = script is not None
    controller = ReplayController(recording, size=size, smooth=not scripted)
    if at is not None:
        controller.player.seek(at)
    replay_part, viewer_part = split_script(script or [])
    window = open_shell(lambda: ReplayWindow(controller, f"towerlab replay: {path}", None,
                                             None if screenshot is None or viewer_part else str(screenshot),
                                             exit_after and not viewer_part))
    if scripted:
        window.script = ReplayScript(controller, replay_part, window.serve)
    run_shell(window)
    error, code, outcome = window.error, window.exit_code, window.outcome
    if outcome == "resimulate" and not error:
        plugins = []
        if not scripted:  # the session that goes on is recorded, as a viewer session is
            from sim.viewer.control.recording import SessionRecording, default_recording

            plugins.append(SessionRecording(default_recording(recording.game), recording.header.get("seed")))
        try:
            viewer = resume(controller, threaded=not scripted, plugins=plugins)
        except TowerlabError as e:
            window.close()
            raise TowerlabError(str(e)) from None
    window.close()
    if error:
        raise TowerlabError(error)
    if code:
        raise SystemExit(code)
    if outcome == "resimulate":
        _build_on(viewer, path, viewer_part if scripted else None, screenshot, exit_after)


def _build_on(viewer, path, script, screenshot, exit_after) -> None:
    """The viewer's window on the re-simulated world, in its build mode."""
    from sim.viewer.window.build import run_window

    code = run_window(viewer, f"towerlab view: re-simulated from {path}", script, screenshot, exit_after)
    if code:
        raise SystemExit(code)
