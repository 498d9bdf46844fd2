"""The convex hull of a few points in a plane, without Qhull's fixed cost.

scipy's ``ConvexHull`` spends some 0.2 ms a call setting Qhull up, whatever the
number of points; the statics merge hundreds of small coplanar contact sets a
verdict (a Babylon city: 250, the whole of a pick's certification twice), each a
few dozen points. Andrew's monotone chain over the sorted points does the same
in tens of microseconds.
"""

from __future__ import annotations

import numpy as np

COLLINEAR = 1e-9
"""Three points whose turn (the cross product of its two legs) is below this fraction of the squared spread of
all the points lie on one line (rounding in the points' projection into their plane leaves some 1e-19 m²)."""


def hull_indices(xy: np.ndarray) -> np.ndarray:
    """The indices of the convex hull's vertices of (k, 2) points, anticlockwise, from the lowest-x point
    (ties: lowest y). Points on an edge between two vertices (to :data:`COLLINEAR`) and repeated points are left
    out. All points on one line: its two ends; a single point (or all the same): that point.
    """
    xy = np.asarray(xy, dtype=float)
    order = np.lexsort((xy[:, 1], xy[:, 0])).tolist()
    pts = xy.tolist()
    span = float(np.ptp(xy, axis=0).max()) if len(xy) else 0.0
    flat = COLLINEAR * span * span  # a turn this small (a cross product, relative to the points' spread) is none

    def chain(indices):
        out: list[int] = []
        for i in indices:
            px, py = pts[i]
            while len(out) >= 2:
                ax, ay = pts[out[-2]]
                bx, by = pts[out[-1]]
                if (bx - ax) * (py - ay) - (by - ay) * (px - ax) > flat:  # a left turn: b stays
                    break
                out.pop()
            out.append(i)
        return out

    lower = chain(order)
    upper = chain(reversed(order))
    hull = lower[:-1] + upper[:-1]
    if len(hull) < 3:  # on one line (or one point): its ends
        ends = [order[0], order[-1]]
        return np.array(ends if pts[ends[0]] != pts[ends[1]] else ends[:1], dtype=int)
    return np.array(hull, dtype=int)


__all__ = ["hull_indices"]
