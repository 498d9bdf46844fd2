"""The live world the viewer, recordings and experiments drive: hands, certified rest, events, snapshots.

See :class:`LiveWorld` and docs/physics.md ("What the live world promises").
"""

from sim.physics.live.hands import DEFAULT_STRENGTH, HAND_RATE
from sim.physics.live.history import LiveSnapshot
from sim.physics.live.records import AdvanceReport, Grip, WorldAction, WorldEvent
from sim.physics.live.rest import Certification, beside, certify
from sim.physics.live.world import FRAME_HZ, LiveWorld, live_settings

__all__ = ["DEFAULT_STRENGTH", "FRAME_HZ", "HAND_RATE", "AdvanceReport", "Certification", "Grip", "WorldEvent",
           "LiveSnapshot", "LiveWorld", "WorldAction", "beside", "certify", "live_settings"]
