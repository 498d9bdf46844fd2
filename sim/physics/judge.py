"""The physics as the games' judge: a simulation answered as a :class:`sim.verdict.Verdict`.

The games never import this module; whoever composes a game with the physics
(the CLI, the viewer) passes one of these in as the game's ``judge`` argument.
Options other than the scene are bound with :func:`functools.partial`, e.g.
``partial(judge, seconds=5.0)``.

- :func:`judge` asks :func:`sim.physics.check`: the exact statics and a
  simulation that must move nothing. Whether a building stands.
- :func:`rest` lets the scene come to rest and says what fell: for games that
  read poses at rest (Babylon's scores, which count levels where the pieces lie).
"""

from __future__ import annotations

from collections.abc import Callable

from sim.physics.settings import TUNED, PhysicsSettings
from sim.physics.timeline import run
from sim.physics.verdict import DEFAULT_SECONDS, check
from sim.physics.world import World
from sim.scene import Scene
from sim.tol import tol
from sim.verdict import Verdict


def judge(scene: Scene, seconds: float | None = None, settings: PhysicsSettings | None = None, *,
          progress: Callable[[float, float], None] | None = None) -> Verdict:
    """Whether ``scene`` stands, by the exact statics and a simulation that must move nothing.

    Args:
        scene: what the game asks about (its ``physics_scene``).
        seconds: simulated time (s); default :data:`~sim.physics.DEFAULT_SECONDS`.
        settings: world settings (default: the tuned ones).
        progress: called as ``progress(done_s, total_s)`` during the simulation.

    Returns:
        The verdict, with the scene at the end of the simulation as ``settled``.

    Raises:
        OverlapError: pieces interpenetrate at load.
        BlowUpError: the simulation blew up.
    """
    return Verdict.from_check(check(scene, DEFAULT_SECONDS if seconds is None else seconds, settings,
                                    progress=progress))


def rest(scene: Scene, seconds: float | None = None, settings: PhysicsSettings | None = None, *,
         progress: Callable[[float, float], None] | None = None) -> Verdict:
    """``scene`` let go until every piece has rested (as :func:`sim.physics.settle`), and what fell.

    No statics and no margin: ``stable`` means nothing was knocked down on the way to rest.

    Args:
        scene: what the game asks about.
        seconds: the longest it may take (s); default :data:`~sim.physics.DEFAULT_SECONDS`,
            the span of a check.
        settings: world settings (default: the tuned ones).
        progress: called as ``progress(done_s, total_s)`` during the simulation.

    Returns:
        The verdict, with the scene at rest as ``settled``.

    Raises:
        OverlapError: pieces interpenetrate at load.
        BlowUpError: the simulation blew up.
    """
    with World(scene, settings or TUNED) as world:
        timeline = run(world, DEFAULT_SECONDS if seconds is None else seconds, until_settled=True,
                       min_seconds=tol.rest_window, progress=progress)
    fallen = frozenset(timeline.knocked_down)
    return Verdict(not fallen, None, fallen, timeline.final)
