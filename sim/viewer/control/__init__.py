"""The build mode's controller side: the session's state, its actions as data, the undo stack, time, the
seam to the live world. Nothing here imports Panda3D (a test checks); the window side is
:mod:`sim.viewer.window`."""
