"""Assemblies from other tools as towerlab scenes (pure: no pybullet, no Panda3D).

``sim.importers.compas``: compas_assembly / compas_cra assemblies (COMPAS 2 JSON).
"""
