"""Exact rigid-block statics: whether a scene's pieces can stand, and their margin (pure; LP with HiGHS)."""

from sim.statics.model import Equilibrium, equilibrium
from sim.statics.problem import MARGIN_CAP_G
from sim.statics.solve import StaticsResult, analyze

__all__ = ["MARGIN_CAP_G", "Equilibrium", "StaticsResult", "analyze", "equilibrium"]
