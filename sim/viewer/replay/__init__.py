"""The replay window: a recording played back exactly, and re-simulated from any frame in the viewer's build mode.

:mod:`~sim.viewer.replay.controller` holds a replay's state (the cursor, the
speed, the followed piece, the side-by-side panes, the captions) and imports no
Panda3D; :mod:`~sim.viewer.replay.actions` are its actions as data;
:mod:`~sim.viewer.replay.script` runs them; :mod:`~sim.viewer.replay.picture`
draws a replay's picture with a renderer; :mod:`~sim.viewer.replay.resumed`
keeps the viewer's live world on a re-simulated ``sim.physics`` live world; the
window part turns keys and the mouse into actions and draws. See the "Replay
window" section of docs/recording-format.md.
"""
