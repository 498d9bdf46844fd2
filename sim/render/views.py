"""Views that show every piece: how much of each piece a camera sees, and the search for a clear view.

A piece's *visible fraction* is the number of pixels the id pass gives it
(:meth:`~sim.render.renderer.Renderer.ids`: the same depth test as the
picture) over the area of its projected convex hull, which is at least its
silhouette: a fraction under-states what shows, never over-states it.
:func:`clear_view` looks around a scene, from high to low, for the first
elevation from which every piece shows at least a given fraction; card
illustrations use it so that no brick under a level and no figure behind
another is hidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import shapely
import trimesh

from sim.geometry.transforms import transform_points
from sim.render.camera import Camera, fit_camera
from sim.render.surfaces import piece_surfaces


@cache
def _hull_vertices(shape) -> np.ndarray:
    """(k, 3) the vertices of the convex hull of a shape's drawn surfaces (m, piece frame).

    The projection of a convex hull is the convex hull of the projected points, so these
    few points give the projected hull of the whole piece.
    """
    points = np.vstack([s.positions for s in piece_surfaces(shape)]).astype(float)
    return np.asarray(trimesh.convex.convex_hull(points).vertices, dtype=float)


def hull_areas(pieces, camera: Camera) -> np.ndarray:
    """(n,) pixel area of each piece's projected convex hull: an upper bound of its silhouette.

    Args:
        pieces: the pieces (:class:`~sim.scene.Piece`, at their poses).
        camera: the view; every piece must lie in front of it.
    """
    if not pieces:
        return np.zeros(0)
    world = [transform_points(_hull_vertices(p.shape), p.pos, p.quat) for p in pieces]
    owner = np.repeat(np.arange(len(world)), [len(w) for w in world])
    points = shapely.multipoints(camera.project(np.vstack(world)), indices=owner)
    return shapely.area(shapely.convex_hull(points))


def visible_fractions(renderer, graph, camera: Camera) -> np.ndarray:
    """(n,) the fraction of each piece of ``graph`` that ``camera`` sees, in ``graph.ids`` order.

    Args:
        renderer: a :class:`~sim.render.renderer.Renderer` (draws the id pass).
        graph: its scene graph, at the poses to judge.
        camera: the view.
    """
    return visible_fractions_many(renderer, graph, [camera])[0]


def visible_fractions_many(renderer, graph, cameras: list[Camera]) -> list[np.ndarray]:
    """:func:`visible_fractions` from several views, their id pictures drawn in one frame."""
    pieces = graph.current_scene().pieces
    out = []
    for camera, ids in zip(cameras, renderer.ids_many(graph, cameras)):
        counts = np.bincount(ids.ravel() + 1, minlength=len(graph.ids) + 1)[1:]
        out.append(counts / np.maximum(hull_areas(pieces, camera), 1.0))
    return out


def direction(azimuth_deg: float, elevation_deg: float) -> np.ndarray:
    """(3,) unit vector from the scene towards an eye at this azimuth (from +x, counter-clockwise) and elevation."""
    a, e = np.radians(azimuth_deg), np.radians(elevation_deg)
    return np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])


@dataclass(frozen=True)
class ViewSearch:
    """Where :func:`clear_view` looks, and what it asks of a view.

    Attributes:
        elevations: degrees above the horizon, tried in this order (the first that works wins:
            highest first shows the most of each level's top).
        azimuth_step: degrees between the azimuths tried at each elevation (all the way round).
        start_azimuth: the first azimuth (degrees from +x): ties go to the one tried first.
        min_fraction: every piece must show at least this fraction of its hull.
        probe_width: the search draws its id pictures this many pixels wide (the final picture's
            aspect): enough that a figure far back covers some hundred pixels, whatever the final size.
        margin: free border around the framed points (fraction of the picture's size).
    """

    elevations: tuple[float, ...] = (35.0, 30.0, 25.0, 20.0, 17.5, 15.0, 12.5, 10.0)
    azimuth_step: float = 10.0
    start_azimuth: float = -52.0
    min_fraction: float = 0.15
    probe_width: int = 256
    margin: float = 0.04


@dataclass(frozen=True)
class ClearView:
    """The result of :func:`clear_view`.

    Attributes:
        camera: the view, at the size asked for.
        azimuth, elevation: where it looks from (degrees).
        fractions: (n,) visible fraction of each piece in the probe picture, scene order.
        clear: whether every piece reaches the search's ``min_fraction`` (else this is the view
            whose least visible piece shows the most).
    """

    camera: Camera
    azimuth: float
    elevation: float
    fractions: np.ndarray
    clear: bool


def clear_view(renderer, scene, size, frame, search: ViewSearch = ViewSearch()) -> ClearView:
    """The highest view from which every piece of ``scene`` shows, framing ``frame``.

    At each elevation of the search (in its order) every azimuth is tried; the
    first elevation at which some azimuth shows every piece by at least
    ``min_fraction`` wins, with the azimuth whose least visible piece shows
    the most. If none does, the view whose least visible piece shows the most.

    Args:
        renderer: a :class:`~sim.render.renderer.Renderer`.
        scene: the :class:`~sim.scene.Scene`.
        size: (width, height) pixels of the final picture.
        frame: (k, 3) points every view keeps inside the picture (m, world).
        search: where to look and what to ask.
    """
    w, h = (int(s) for s in size)
    probe = (search.probe_width, max(16, round(search.probe_width * h / w)))
    graph = renderer.graph(scene)
    up = np.array([0.0, 0.0, 1.0])
    best = None  # (least fraction, azimuth, elevation, fractions)
    azimuths = search.start_azimuth + np.arange(0.0, 360.0, search.azimuth_step)
    for elevation in search.elevations:
        level_best = None
        cameras = [fit_camera(frame, direction(a, elevation), up, probe, margin=search.margin) for a in azimuths]
        seen = visible_fractions_many(renderer, graph, cameras) if graph.ids else [np.ones(0)] * len(cameras)
        for azimuth, fractions in zip(azimuths, seen):
            least = float(fractions.min()) if len(fractions) else 1.0
            if level_best is None or least > level_best[0]:
                level_best = (least, float(azimuth), float(elevation), fractions)
        if best is None or level_best[0] > best[0]:
            best = level_best
        if level_best[0] >= search.min_fraction:
            best = level_best
            break
    least, azimuth, elevation, fractions = best
    camera = fit_camera(frame, direction(azimuth, elevation), up, (w, h), margin=search.margin)
    return ClearView(camera, azimuth % 360.0, elevation, fractions, least >= search.min_fraction)
