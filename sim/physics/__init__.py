"""The pybullet side of towerlab: worlds compiled from scenes, timelines, settling and the verdict."""

from sim.physics.errors import BlowUpError, OverlapError
from sim.physics.settings import BULLET_DEFAULTS, TUNED, PhysicsSettings
from sim.physics.world import World

__all__ = ["BULLET_DEFAULTS", "TUNED", "BlowUpError", "OverlapError", "PhysicsSettings", "World"]
