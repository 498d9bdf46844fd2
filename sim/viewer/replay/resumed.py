"""Re-simulate from here, in the viewer's build mode: the viewer's live world kept on a re-simulated
:class:`sim.physics.live.LiveWorld`.

A replay's "re-simulate from here" restores a ``sim.physics`` live world at
the frame (:func:`sim.replay.resimulate.resimulate`: the recorded actions
replayed up to it, bit for bit, or the frame's poses at rest); the viewer's
controller builds on it through :class:`ResumedWorld`, which answers the
viewer's :class:`sim.viewer.control.live.ViewerWorld` protocol by calling the live
world's public door (``add``, ``remove``, ``set_pose``, ``push``, ``grab``,
``move_hand``, ``release``, ``advance``, ``snapshot``/``restore``). Every
viewer action becomes live-world actions made at fixed steps, so the same
actions from the same frame give the same timeline, bit for bit (tested). The
statics' verdict runs beside it as in the viewer (it never steers the
simulation).
"""

from __future__ import annotations

from sim.viewer.control.adapter import WorldAdapter


class ResumedWorld(WorldAdapter):
    """The viewer's live world on a :class:`sim.physics.live.LiveWorld` restored at a recorded frame: the
    viewer's :class:`~sim.viewer.control.adapter.WorldAdapter` but for set-downs, which are the hand letting go where
    it is (see :meth:`release`); see the module docstring.

    Args:
        live: the live world (restored at a recorded frame); closed with this one.
        threaded_statics: judge in a worker process (the window); False judges at once (scripts, tests).
    """

    def __init__(self, live, *, threaded_statics: bool = True):
        self._attach(live, threaded_statics)

    def release(self, hand: str, pose=None) -> None:
        """The hand lets go where it is: the viewer's resting place ``pose`` (within a millimetre of where
        the hand brought the piece) is not teleported to, so that every change is one of the live world's
        own actions, which its rewind replays; the piece settles that millimetre itself."""
        super().release(hand)
