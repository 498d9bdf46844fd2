"""towerlab: physics simulation and rendering of Tohuwabohu, Talo and Babylon Tower Builders.

The import package is `sim`; the distribution and console script are `towerlab`.
Importing `sim` pulls in neither pybullet nor Panda3D: the engines are reached
only through `sim.physics` and `sim.render`.
"""

__version__ = "0.1.0"
