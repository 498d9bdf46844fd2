"""Pawn-shaped figures (Talo pawns, Tohuwabohu figures, Babylon nobles) and round pieces."""

from __future__ import annotations

from sim.geometry import solids
from sim.pieces import dimensions as dim


def pawn_parts(base_radius: float, height: float) -> list[tuple[str, object]]:
    """A halma-like pawn standing on z = 0 (mm): a base disk, a tapering body and a ball head.

    Three convex parts with disjoint interiors; the head overhangs the narrow
    neck, so their union is not convex. Proportions scale with the two sourced
    numbers, the base diameter and the height.

    Returns:
        ``(name, (k, 3) vertices)`` pairs in millimetres.
    """
    n = dim.ROUND_SEGMENTS
    head = min(0.75 * base_radius, 0.17 * height)
    head_centre = height - head
    cut = head_centre - 0.6 * head  # the head's bottom plane; its circle has radius 0.8 * head
    base_top = 0.12 * height
    return [
        ("base", solids.frustum(base_radius, base_radius, 0.0, base_top, n)),
        ("body", solids.frustum(0.8 * base_radius, 0.45 * head, base_top, cut, n)),
        ("head", solids.spherical_cap(head, head_centre, cut, n, dim.SPHERE_RINGS)),
    ]
