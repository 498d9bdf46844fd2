"""Typed errors of the physics world: overlapping pieces at load, runs that blow up."""

from __future__ import annotations

from sim.errors import TowerlabError


class OverlapError(TowerlabError):
    """Pieces interpenetrate at load deeper than ``tol.overlap``.

    Attributes:
        pairs: ``(id_a, id_b, depth_m)`` for every overlapping pair, deepest first;
            ``board`` names the board or table.
    """

    def __init__(self, source: str, pairs: list[tuple[str, str, float]]):
        self.pairs = pairs
        shown = ", ".join(f"{a} and {b} ({depth * 1000:.2f} mm)" for a, b, depth in pairs[:5])
        more = f" and {len(pairs) - 5} more pairs" if len(pairs) > 5 else ""
        super().__init__(f"{source}: overlapping pieces: {shown}{more}")


class BlowUpError(TowerlabError):
    """A simulation that lost its numbers (NaN) or gained energy it cannot have.

    Attributes:
        time: simulated time (s) at which it was caught.
        pieces: ids of the pieces with the wrong numbers or the most excess energy.
    """

    def __init__(self, source: str, time: float, pieces: list[str], reason: str):
        self.time = time
        self.pieces = pieces
        super().__init__(f"{source}: the simulation blew up at t = {time:.3f} s ({reason}; pieces "
                         f"{', '.join(pieces)}); check densities, frictions and overlapping pieces")
