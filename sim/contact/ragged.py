"""Ragged arrays: segments of different lengths laid end to end, and products over arrays of different lengths."""

from __future__ import annotations

import numpy as np


def ragged(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For segments of the given lengths laid end to end: each element's segment and place in it."""
    counts = np.asarray(counts, dtype=int)
    seg = np.arange(len(counts)).repeat(counts)
    return seg, np.arange(len(seg)) - (counts.cumsum() - counts).repeat(counts)


def batched_products(arrays: list, mats: np.ndarray, shifts: np.ndarray | None = None) -> list:
    """``arrays[i] @ mats[i]`` (plus ``shifts[i]``) for every i, in one stacked product per array length.

    numpy multiplies each item of a stack as it would on its own when the shapes match (the
    same kernel: a one-row product, say, takes another path than a longer one), so the results
    are the same numbers as one product at a time.

    Args:
        arrays: n arrays (k_i, a).
        mats: (n, a, b).
        shifts: (n, b) added to each product's rows, or None.

    Returns:
        n arrays (k_i, b).
    """
    out = [None] * len(arrays)
    by_len: dict[int, list[int]] = {}
    for i, x in enumerate(arrays):
        by_len.setdefault(len(x), []).append(i)
    for rows in by_len.values():
        products = np.array([arrays[i] for i in rows]) @ mats[rows]
        if shifts is not None:
            products += shifts[rows][:, None]
        for i, y in zip(rows, products):
            out[i] = y
    return out


def split(flat: np.ndarray, counts: np.ndarray, rows: np.ndarray | None = None) -> list:
    """Consecutive pieces of ``flat`` of the given lengths (views; faster than ``np.split`` for many pieces).

    Args:
        flat: the pieces laid end to end.
        counts: (r,) their lengths.
        rows: which pieces to return (all if None).
    """
    ends = counts.cumsum()
    if rows is not None:
        ends, counts = ends[rows], counts[rows]
    return [flat[e - c:e] for e, c in zip(ends.tolist(), counts.tolist())]
