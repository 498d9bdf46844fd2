"""The pybullet side of towerlab: worlds compiled from scenes, timelines, settling and the stability verdict.

Only this package imports pybullet. ``World`` compiles a scene into its own
DIRECT client; ``simulate`` records a timeline with collapse events;
``check`` combines the exact statics with the settled dynamics; ``settle``
returns the scene at rest. Every setting lives in :mod:`sim.physics.settings`.
"""

from sim.physics.errors import BlowUpError, OverlapError
from sim.physics.settings import BULLET_DEFAULTS, TUNED, PhysicsSettings
from sim.physics.timeline import Event, PieceMotion, Timeline, run, simulate
from sim.physics.verdict import DEFAULT_SECONDS, CheckResult, Dynamics, PieceVerdict, check, settle
from sim.physics.world import World

__all__ = [
    "BULLET_DEFAULTS", "DEFAULT_SECONDS", "TUNED", "BlowUpError", "CheckResult", "Dynamics", "Event",
    "OverlapError", "PhysicsSettings", "PieceMotion", "PieceVerdict", "Timeline", "World", "check", "run",
    "settle", "simulate",
]
