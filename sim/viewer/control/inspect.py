"""What the panels say about pieces: kind, mass, what a piece rests on and carries, and the contact
forces of the latest verdict (computed once per verdict, on demand)."""

from __future__ import annotations

from sim.analysis import support_graph
from sim.viewer.control.live import LiveVerdict
from sim.viewer.control.stability import contact_forces


class Describer:
    """Answers for the hover panel and the contact overlay, cached per verdict."""

    def __init__(self):
        self._graph_of = None
        self._graph = None
        self._forces_of = None
        self._forces = None

    def graph(self, verdict: LiveVerdict | None):
        """The support graph of the verdict's configuration (None before the first verdict)."""
        if verdict is None or verdict.error is not None:
            return None
        if self._graph_of is not verdict:
            self._graph_of, self._graph = verdict, support_graph(verdict.scene, verdict.interfaces)
        return self._graph

    def forces(self, verdict: LiveVerdict | None):
        """(points (k, 3), forces (k, 3) N) holding the verdict's configuration, or None."""
        if verdict is None or verdict.error is not None or not verdict.feasible:
            return None
        if self._forces_of is not verdict:
            self._forces_of, self._forces = verdict, contact_forces(verdict.scene, verdict.interfaces)
        return self._forces

    def describe(self, world, verdict: LiveVerdict | None, piece_id: str) -> dict:
        """``{"id", "kind", "params", "mass_g", "owner", "rests_on", "carries", "held"}`` of a piece.

        ``rests_on`` and ``carries`` come from the support graph of the latest verdict (None while
        the piece is carried or not yet judged); ``held`` says whether a hand holds it.
        """
        p = world.piece(piece_id)
        info = {"id": p.id, "kind": p.kind, "params": dict(p.params), "mass_g": round(p.mass * 1000.0, 2),
                "owner": p.owner, "rests_on": None, "carries": None,
                "held": piece_id in world.held().values()}
        graph = self.graph(verdict)
        if graph is not None and piece_id in graph.ids:
            info["rests_on"] = graph.rests_on(piece_id)
            info["carries"] = graph.carries(piece_id)
        return info


def describe_text(info: dict) -> str:
    """The hover panel's lines for :meth:`Describer.describe`'s answer."""
    params = ", ".join(f"{k} {v}" for k, v in info["params"].items())
    lines = [f"{info['id']}: {info['kind']}" + (f" ({params})" if params else ""), f"mass {info['mass_g']:g} g"]
    if info["owner"]:
        lines.append(f"owner {info['owner']}")
    if info["held"]:
        lines.append("in a hand")
    elif info["rests_on"] is not None:
        lines.append("rests on " + (", ".join(info["rests_on"]) or "nothing"))
        lines.append("carries " + (", ".join(info["carries"]) or "nothing"))
    return "\n".join(lines)
