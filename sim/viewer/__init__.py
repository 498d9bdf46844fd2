"""The interactive desktop builder: controllers driven by actions as data, and thin Panda3D windows.

The folders are the line between the two sides. The controller side imports no Panda3D:
:mod:`sim.viewer.control` (the build mode: state, actions, undo, time; ``control.live`` says what the viewer
needs from a live world and ``control.adapter`` provides it on today's physics), :mod:`sim.viewer.play` (the
games' referees as session plug-ins) and :mod:`sim.viewer.replay` (a recording's cursor). The window side,
:mod:`sim.viewer.window`, turns mouse and keys into actions and draws what the controllers hold. See
docs/viewer.md.
"""
