"""Pure analyses of a (settled) scene that the games build on: the support graph."""

from sim.analysis.support import TABLE, SupportGraph, support_graph

__all__ = ["TABLE", "SupportGraph", "support_graph"]
