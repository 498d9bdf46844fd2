"""A scene as another tool writes it: every block a hull of its corners where it stands, rounded, with extra points.

Assemblies come from CAD programs, other solvers and scans, which write each
block's corners in world coordinates to some precision, may add points on its
edges and faces, and put the whole somewhere else. None of that changes the
structure, so none of it may change what the statics decide:
:func:`rewritten` makes such copies of a scene, for tests (pure, no engine).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import ConvexHull
from scipy.spatial.transform import Rotation

from sim.cases.reference import FORMAT
from sim.scene import Scene, from_dict
from sim.scene.io import piece_to_dict

MM = 1e-3


def rewritten(scene: Scene, *, decimals: int | None = None, turn: Rotation | None = None, shift_mm=(0.0, 0.0, 0.0),
              extra_points: int = 0, lift_mm: float = 0.0, rng: np.random.Generator | None = None) -> Scene:
    """The scene with every single-part piece written as a ``hull`` of its corners in world coordinates (mm).

    The hulls keep each piece's id, owner, fixed flag, friction and density (so its mass); pieces of
    several convex parts are moved as they are. The copy stands on the endless table.

    Args:
        scene: the scene.
        decimals: round every corner's coordinates (mm) to this many decimals (3: to a micrometre); None
            keeps them as they are.
        turn: a rotation of the whole scene about the origin (a rigid motion with ``shift_mm``), or None.
        shift_mm: then a translation (mm).
        extra_points: this many more points per hull, each on one of its edges or faces (half each, at
            random), before rounding.
        lift_mm: how far (mm) each extra point lies outside the face it is on (1e-6: a nanometre), so that
            it is a corner of the hull and the faces around it fold by that much.
        rng: the random stream for the extra points (required when there are any).

    Raises:
        ValueError: extra points without an rng.
    """
    if extra_points and rng is None:
        raise ValueError("rewritten: extra points need an rng")
    turn = Rotation.identity() if turn is None else turn
    shift = np.asarray(shift_mm, dtype=float)
    pieces = []
    for p in scene.pieces:
        rot = turn * Rotation.from_quat(p.quat)
        pos_mm = turn.apply(np.asarray(p.pos) / MM) + shift
        if len(p.shape.parts) != 1:
            d = piece_to_dict(p.moved(pos_mm * MM, rot.as_quat()))
            d.pop("rot", None)
            pieces.append(d)
            continue
        corners = rot.apply(p.shape.parts[0].vertices / MM) + pos_mm
        if extra_points:
            corners = np.vstack([corners, _extra_points(corners, extra_points, lift_mm, rng)])
        if decimals is not None:
            corners = np.round(corners, decimals)
        d = {"id": p.id, "kind": "hull", "vertices": corners.tolist(),
             "pos": ((corners.min(axis=0) + corners.max(axis=0)) / 2.0).tolist(),
             "friction": p.friction_coefficient, "density": p.shape.material.density / 1000.0 if p.density is None
             else p.density / 1000.0}
        if p.owner is not None:
            d["owner"] = p.owner
        if p.fixed:
            d["fixed"] = True
        pieces.append(d)
    title = f"{scene.title or 'scene'}, rewritten"
    return from_dict({"format": FORMAT, "game": "free", "board": "table", "title": title, "pieces": pieces},
                     f"<{title}>")


def _extra_points(corners: np.ndarray, k: int, lift: float, rng: np.random.Generator) -> np.ndarray:
    """``k`` points on the hull of ``corners`` (mm): on an edge or inside a facet, ``lift`` outside it."""
    hull = ConvexHull(corners)
    facet = rng.integers(0, len(hull.simplices), k)
    weights = rng.dirichlet(np.ones(3), k)
    on_edge = rng.random(k) < 0.5
    weights[on_edge, rng.integers(0, 3, k)[on_edge]] = 0.0  # one corner's weight gone: a point on an edge
    weights /= weights.sum(axis=1, keepdims=True)
    points = np.einsum("kj,kjd->kd", weights, corners[hull.simplices[facet]])
    return points + lift * hull.equations[facet, :3]
