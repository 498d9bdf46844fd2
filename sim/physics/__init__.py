"""The pybullet side of towerlab: worlds compiled from scenes, timelines, settling and the stability verdict.

Only this package imports pybullet. ``World`` compiles a scene into its own
DIRECT client (pieces can be set, added and removed while it runs, its state
saved and restored); ``simulate`` records a timeline with collapse events
(``MotionTracker`` says who moved); ``check`` combines the exact statics with
the simulation; ``settle`` returns the scene at rest. Every setting lives in
:mod:`sim.physics.settings`.
"""

from sim.physics.errors import BlowUpError, OverlapError
from sim.physics.settings import BULLET_DEFAULTS, TUNED, PhysicsSettings
from sim.physics.timeline import Timeline, TimelineFileError, run, settle, simulate
from sim.physics.tracker import TIMELINE_THRESHOLDS, MotionEvent, MotionThresholds, MotionTracker, PieceMotion
from sim.physics.verdict import DEFAULT_SECONDS, CheckResult, Dynamics, PieceVerdict, check
from sim.physics.world import RayHit, World, WorldState

__all__ = [
    "BULLET_DEFAULTS", "DEFAULT_SECONDS", "TIMELINE_THRESHOLDS", "TUNED", "BlowUpError", "CheckResult", "Dynamics",
    "MotionEvent", "MotionThresholds", "MotionTracker", "OverlapError", "PhysicsSettings", "PieceMotion",
    "PieceVerdict", "RayHit", "Timeline", "TimelineFileError", "World", "WorldState", "check", "run", "settle",
    "simulate",
]
