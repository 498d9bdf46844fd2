"""Render-ready triangle arrays of a piece: its body and decals, with normals and colours.

Pure numpy and trimesh, no Panda3D. The geometry comes from the piece's glTF
file among the package's meshes (``sim/data/meshes/``) when the manifest says
it matches the catalogue, else it is built on the fly from the catalogue
(free-sized boxes and cylinders, or stale meshes), so a picture never shows
outdated geometry.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cache
from importlib.resources.abc import Traversable

import numpy as np
import trimesh

from sim.pieces.mesh import MESH_DIR, fingerprint, load_manifest, mesh_path, visual_scene
from sim.pieces.model import PieceShape

# Faces meeting at less than this angle share smoothed normals (the facets of a
# pawn's round body, 15° apart); sharper edges, like a block's, stay crisp.
CREASE_DEG = 35.0
BODY = "body"
SIMPLE_CORNERS = 24
"""Corners a convex part keeps at least in :func:`simple_body`; a part with more keeps half of them (a
24-sided round base becomes 12-sided, a pawn's head of 97 corners keeps 48)."""
SIMPLE_CREASE_DEG = 50.0
"""The crease angle of :func:`simple_body`: its round facets are 30° apart, and must still shade smooth."""


@dataclass(frozen=True, eq=False)
class Surface:
    """One drawable part of a piece, unindexed (three vertices per triangle).

    Attributes:
        name: ``body`` or the decal's name (``area-red``, ``grid``, ...).
        layer: 0 for the body, 1, 2, ... for decals in the order they are printed
            (a later decal lies on top of an earlier one).
        positions: (3t, 3) float32, metres, piece frame.
        normals: (3t, 3) float32 unit normals.
        colors: (3t, 4) float32 RGBA 0..1 (sRGB-encoded, as stored in the mesh).
    """

    name: str
    layer: int
    positions: np.ndarray
    normals: np.ndarray
    colors: np.ndarray

    @property
    def triangles(self) -> int:
        """Number of triangles."""
        return len(self.positions) // 3


def corner_normals(vertices, faces, crease_deg: float = CREASE_DEG) -> np.ndarray:
    """Smoothed normal of every triangle corner, kept sharp across creases.

    The normal at a corner is the mean of the normals of the faces sharing
    its vertex that turn less than ``crease_deg`` from the corner's own face,
    each weighted by its angle at the vertex (so that how a facet happens to
    be split into triangles does not matter: a tessellated cylinder gets its
    exact radial normals).

    Args:
        vertices: (v, 3) float.
        faces: (t, 3) int, counter-clockwise seen from outside.
        crease_deg: angle above which an edge stays sharp.

    Returns:
        (t, 3, 3) float unit normals, per face and corner.
    """
    v = np.asarray(vertices, dtype=float)
    f = np.asarray(faces, dtype=np.int64)
    tri = v[f]  # (t, 3, 3)
    cross = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(cross, axis=1)
    unit = cross / np.where(length > 0, length, 1.0)[:, None]
    # the angle of every face at each of its corners
    e1 = np.roll(tri, -1, axis=1) - tri
    e2 = np.roll(tri, 1, axis=1) - tri
    cos = np.einsum("tck,tck->tc", e1, e2) / np.maximum(
        np.linalg.norm(e1, axis=2) * np.linalg.norm(e2, axis=2), 1e-300)
    angle = np.arccos(np.clip(cos, -1.0, 1.0)).ravel()
    # incidence: for every vertex, the face corners at it (flat corner index, padded with -1)
    order = np.argsort(f.ravel(), kind="stable")
    verts_sorted = f.ravel()[order]
    counts = np.bincount(verts_sorted, minlength=len(v))
    width = int(counts.max()) if len(counts) else 0
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.arange(len(order)) - starts[verts_sorted]
    incident = np.full((len(v), width), -1, dtype=np.int64)
    incident[verts_sorted, rank] = order
    neighbours = incident[f]  # (t, 3, width) corners sharing each corner's vertex
    valid = neighbours >= 0
    corner = np.where(valid, neighbours, 0)
    face = corner // 3
    cos_limit = np.cos(np.radians(crease_deg))
    similar = valid & (np.einsum("tk,tcwk->tcw", unit, unit[face]) >= cos_limit)
    summed = np.einsum("tcw,tcwk->tck", similar * angle[corner], unit[face])
    norm = np.linalg.norm(summed, axis=2, keepdims=True)
    return np.where(norm > 0, summed / np.where(norm > 0, norm, 1.0), unit[:, None, :])


def _surface(name: str, layer: int, mesh: trimesh.Trimesh, flat_up: bool) -> Surface:
    faces = np.asarray(mesh.faces)
    positions = np.asarray(mesh.vertices, dtype=float)[faces].reshape(-1, 3)
    if flat_up:
        normals = np.tile([0.0, 0.0, 1.0], (len(positions), 1))
    else:
        normals = corner_normals(mesh.vertices, faces).reshape(-1, 3)
    face_colors = np.asarray(mesh.visual.face_colors, dtype=np.float32) / 255.0
    colors = np.repeat(face_colors, 3, axis=0)
    return Surface(name, layer, positions.astype(np.float32), normals.astype(np.float32),
                   colors.astype(np.float32))


def _stored_scene(shape: PieceShape, directory: Traversable) -> trimesh.Scene | None:
    path = mesh_path(shape, directory)
    if not path.is_file() or load_manifest(directory).get(path.name) != fingerprint(shape):
        return None
    return trimesh.load(io.BytesIO(path.read_bytes()), file_type="glb", force="scene")


def _geometries(scene: trimesh.Scene) -> dict[str, trimesh.Trimesh]:
    """Node name -> mesh with the node's transform applied."""
    out = {}
    for node in scene.graph.nodes_geometry:
        matrix, geom = scene.graph[node]
        mesh = scene.geometry[geom].copy()
        if not np.allclose(matrix, np.eye(4)):
            mesh.apply_transform(matrix)
        out[node] = mesh
    return out


@cache
def piece_surfaces(shape: PieceShape, directory: Traversable = MESH_DIR) -> tuple[Surface, ...]:
    """The body and decals of a piece kind, ready to upload (cached per shape).

    Args:
        shape: the catalogue piece (or a board's slab).
        directory: where the glTF files and their manifest live (a path or a package folder).

    Returns:
        The body first, then the decals in the catalogue's order.
    """
    stored = _stored_scene(shape, directory)
    meshes = _geometries(stored if stored is not None else visual_scene(shape))
    surfaces = [_surface(BODY, 0, meshes[BODY], flat_up=False)]
    for layer, decal in enumerate(shape.decals, start=1):
        surfaces.append(_surface(decal.name, layer, meshes[f"decal:{decal.name}"], flat_up=True))
    return tuple(surfaces)


def from_file(shape: PieceShape, directory: Traversable = MESH_DIR) -> bool:
    """Whether :func:`piece_surfaces` reads this shape's glTF file (else it builds the mesh)."""
    return _stored_scene(shape, directory) is not None


def _spread(points: np.ndarray, k: int) -> np.ndarray:
    """``k`` of ``points`` spread as far apart as they go (farthest-point sampling from the highest)."""
    if len(points) <= k:
        return points
    chosen = [int(np.argmax(points[:, 2]))]
    far = np.linalg.norm(points - points[chosen[0]], axis=1)
    for _ in range(k - 1):
        chosen.append(int(np.argmax(far)))
        far = np.minimum(far, np.linalg.norm(points - points[chosen[-1]], axis=1))
    return points[sorted(chosen)]


@cache
def simple_body(shape: PieceShape) -> Surface | None:
    """A piece's body with fewer triangles, for a live picture (cached per shape): the union of its convex
    parts, each cut down to half its corners (at least :data:`SIMPLE_CORNERS`) spread over it, with coplanar
    triangles merged.

    A Babylon noble's 382 triangles become 188 (its round base and body 12-sided), a tower's 172 become 108
    (the same solid: the union's flat faces triangulated afresh). The colour is the body's own.

    Returns:
        The body, or None when it would not be smaller (or the union fails).
    """
    import manifold3d

    hulls = [trimesh.convex.convex_hull(_spread(v, max(SIMPLE_CORNERS, len(v) // 2)))
             for v in (np.asarray(p.hull.vertices, dtype=float) for p in shape.parts)]
    try:
        union = hulls[0] if len(hulls) == 1 else trimesh.boolean.union(hulls, engine="manifold")
        solid = manifold3d.Manifold(manifold3d.Mesh(np.asarray(union.vertices, dtype=np.float32),
                                                    np.asarray(union.faces, dtype=np.uint32))).simplify(1e-7)
        out = solid.to_mesh()
    except (ValueError, RuntimeError, IndexError):
        return None
    vertices, faces = np.asarray(out.vert_properties, dtype=float)[:, :3], np.asarray(out.tri_verts, dtype=np.int64)
    body = piece_surfaces(shape)[0]
    if not len(faces) or len(faces) >= body.triangles or np.ptp(body.colors, axis=0).any():
        return None  # not smaller, or a body of several colours
    positions = vertices[faces].reshape(-1, 3)
    normals = corner_normals(vertices, faces, SIMPLE_CREASE_DEG).reshape(-1, 3)
    colors = np.tile(body.colors[0], (len(positions), 1))
    return Surface(BODY, 0, positions.astype(np.float32), normals.astype(np.float32), colors)
