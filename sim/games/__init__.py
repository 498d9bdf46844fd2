"""The three games' rules, cards and scores, on plain data (scenes, support graphs, verdicts).

Nothing here imports an engine: the rules receive the physics verdict and the
support graph as arguments, so they are tested without pybullet or Panda3D.
"""
