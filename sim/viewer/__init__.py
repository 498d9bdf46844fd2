"""The interactive desktop builder: a controller driven by actions as data, and a thin Panda3D window.

``sim.viewer.live`` says what the viewer needs from a live world and
``sim.viewer.adapter`` provides it on today's physics; the controller
(``sim.viewer.controller``) holds the state, the actions and the undo stack and
imports no Panda3D; ``sim.viewer.window`` only turns mouse and keys into
actions and draws. See docs/viewer.md.
"""
