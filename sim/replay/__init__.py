"""Recordings of sessions and runs, their exact replay, videos and the collapse penalty.

* :class:`Recorder` writes a recording as it goes (docs/recording-format.md);
  ``feed(live_world)`` records a :class:`~sim.physics.live.LiveWorld`;
* :func:`load_recording` reads one back, checked, as a :class:`Recording`;
* :class:`ReplayPlayer` is a cursor over it (what the viewer's replay mode draws);
* :func:`sim.replay.penalty.settle` applies the game's collapse rule.

Nothing here imports pybullet or Panda3D at import time: re-simulation
(``sim.physics``) and videos (``sim.render``) load them when used.
"""

from sim.replay.errors import RecorderError, RecordingError, ReplayError
from sim.replay.player import ReplayPlayer
from sim.replay.recorder import Recorder
from sim.replay.recording import Recording, load_recording
from sim.replay.records import FORMAT, RecordedAction, RecordedEvent

__all__ = ["FORMAT", "RecordedAction", "RecordedEvent", "Recorder", "RecorderError", "Recording", "RecordingError",
           "ReplayError", "ReplayPlayer", "load_recording"]
