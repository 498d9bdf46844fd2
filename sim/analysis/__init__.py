"""Pure analyses of a (settled) scene that the games build on: the support graph."""

from sim.analysis.support import SupportGraph, support_graph
from sim.names import TABLE

__all__ = ["TABLE", "SupportGraph", "support_graph"]
