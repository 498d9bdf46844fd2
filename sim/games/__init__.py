"""The three games' rules, cards and scores, on plain data (scenes, support graphs, verdicts).

Nothing here imports an engine: the rules receive the physics verdict as an
argument (:mod:`sim.games.contract`: one ``Violation``, one ``Verdict``, a
``Judge``), so they are tested without pybullet or Panda3D. :mod:`sim.games.suite`
lists the three games under that one contract.
"""
