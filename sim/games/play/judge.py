"""The exact statics as a session's judge: whether a building stands, answered at once, without a simulation.

A played game asks on every release whether the building would stand; the
viewer's physics then shows what happens. The statics answer in a fraction
of a second where a simulated check takes seconds, and they are what the
stability panel shows, so the referee and the panel never disagree. A knife
edge (margin at or below ``tol.stable_margin_g``) does not stand.
"""

from __future__ import annotations

from sim.games.contract import Verdict
from sim.scene import Scene
from sim.statics import analyze


def statics_judge(scene: Scene) -> Verdict:
    """The statics' verdict on ``scene`` (a game's ``physics_scene``) as the games read it.

    Returns:
        ``stable`` with the margin (g); the pieces that cannot be held as ``knocked_down``
        (none when it stands); no settled scene (nothing was simulated).
    """
    if not any(not p.fixed for p in scene.pieces):
        return Verdict.standing()
    result = analyze(scene)
    fallen = frozenset() if result.feasible else frozenset(result.unheld)
    return Verdict(result.stable, float(result.margin_g) if result.feasible else 0.0, fallen)


__all__ = ["statics_judge"]
