"""The broad phase: pairs of parts of different pieces whose bounding boxes overlap (sort and sweep)."""

from __future__ import annotations

import numpy as np

from sim.contact.ragged import ragged


def candidate_pairs(lo: np.ndarray, hi: np.ndarray, owner: np.ndarray, margin: float) -> np.ndarray:
    """Pairs (i, j) of boxes of different owners whose bounds overlap.

    Owners' boxes (the union of theirs) are paired first, then the boxes of each pair of owners:
    a Babylon tower's dozens of wall parts all overlap each other, and are never paired.

    Args:
        lo, hi: (m, 3) box corners.
        owner: (m,) integer owner of each box; boxes of one owner are never paired.
        margin: how far apart two boxes may be and still pair.

    Returns:
        (p, 2) int indices.
    """
    if len(lo) < 2:
        return np.zeros((0, 2), dtype=int)
    if (owner[1:] > owner[:-1]).all():  # one box per owner: the owners' boxes are the boxes
        return np.column_stack(_sweep(lo, hi, margin))
    owners, group = np.unique(owner, return_inverse=True)
    glo = np.full((len(owners), 3), np.inf)
    ghi = np.full((len(owners), 3), -np.inf)
    np.minimum.at(glo, group, lo)
    np.maximum.at(ghi, group, hi)
    ga, gb = _sweep(glo, ghi, margin)
    members = group.argsort(kind="stable")
    size = np.bincount(group, minlength=len(owners))
    start = size.cumsum() - size
    pair, at = ragged(size[ga] * size[gb])  # every box of one owner with every box of the other
    i = members[start[ga][pair] + at // size[gb][pair]]
    j = members[start[gb][pair] + at % size[gb][pair]]
    keep = ((lo[j] <= hi[i] + margin) & (lo[i] <= hi[j] + margin)).all(axis=1)
    return np.column_stack([i[keep], j[keep]])


def _sweep(lo: np.ndarray, hi: np.ndarray, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i, j) of boxes whose bounds overlap, within ``margin`` (sort and sweep on the widest axis)."""
    m = len(lo)
    axis = int((hi.max(axis=0) - lo.min(axis=0)).argmax())
    order = lo[:, axis].argsort(kind="stable")
    slo, shi = lo[order], hi[order]
    ends = np.searchsorted(slo[:, axis], shi[:, axis] + margin, side="right")
    first, later = ragged(np.maximum(ends - np.arange(m) - 1, 0))
    second = first + 1 + later
    keep = ((slo[second] <= shi[first] + margin) & (slo[first] <= shi[second] + margin)).all(axis=1)
    return order[first[keep]], order[second[keep]]
