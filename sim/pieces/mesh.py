"""Visual meshes: the union of a piece's convex parts (manifold3d) and its printed decals.

``tools/build_meshes.py`` writes them into the package (``sim/data/meshes/``,
read through :mod:`importlib.resources`, so an installed wheel has them too)
as glTF binary files with a manifest of fingerprints, so that a test can tell
when the files no longer match the catalogue.
"""

from __future__ import annotations

import hashlib
import io
import json
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

import manifold3d
import numpy as np
import trimesh

from sim.pieces.model import PieceShape

MESH_DIR: Traversable = files("sim.data").joinpath("meshes")  # a Path in a source tree or an unzipped install
MANIFEST = "manifest.json"


def body_mesh(shape: PieceShape) -> trimesh.Trimesh:
    """The piece's solid as one closed mesh: the union of its convex parts (m, piece frame)."""
    hulls = [p.hull for p in shape.parts]
    if len(hulls) == 1:
        mesh = hulls[0].copy()
    else:
        mesh = trimesh.boolean.union(hulls, engine="manifold")
    mesh.visual.face_colors = np.round(np.array(shape.color) * 255).astype(np.uint8)
    return mesh


def decal_mesh(polygons, z: float) -> trimesh.Trimesh:
    """Flat triangles covering ``polygons`` ((k, 2) each, counter-clockwise, m) at height z, facing +z."""
    verts, faces = [], []
    offset = 0
    for poly in polygons:
        p = np.asarray(poly, dtype=float)
        tris = np.asarray(manifold3d.triangulate([p]))
        verts.append(np.column_stack([p, np.full(len(p), z)]))
        faces.append(tris + offset)
        offset += len(p)
    return trimesh.Trimesh(np.vstack(verts), np.vstack(faces), process=False)


def visual_scene(shape: PieceShape) -> trimesh.Scene:
    """The body and every decal of a piece as one scene (node ``body`` and ``decal:<name>``)."""
    scene = trimesh.Scene()
    scene.add_geometry(body_mesh(shape), node_name="body", geom_name="body")
    for d in shape.decals:
        m = decal_mesh(d.polygons, d.z)
        m.visual.face_colors = np.round(np.array(d.color) * 255).astype(np.uint8)
        scene.add_geometry(m, node_name=f"decal:{d.name}", geom_name=f"decal:{d.name}")
    return scene


def fingerprint(shape: PieceShape) -> str:
    """A hash of everything the visual mesh is made from: parts, colour and decals."""
    h = hashlib.sha256()
    h.update(shape.name.encode())
    for p in shape.parts:
        h.update(np.round(p.vertices, 9).tobytes())
    h.update(np.round(np.array(shape.color), 6).tobytes())
    for d in shape.decals:
        h.update(d.name.encode())
        h.update(np.round(np.array(d.color), 6).tobytes())
        h.update(np.round(np.float64(d.z), 9).tobytes())
        for poly in d.polygons:
            h.update(np.round(np.asarray(poly), 9).tobytes())
    return h.hexdigest()


def mesh_path(shape: PieceShape, directory: Traversable = MESH_DIR) -> Traversable:
    """Where the glb file of a piece lives (in ``directory``: a path or a package folder)."""
    return directory / f"{shape.name}.glb"


def glb_bytes(shape: PieceShape) -> bytes:
    """The piece's visual scene as glTF binary."""
    return visual_scene(shape).export(file_type="glb")


def load_manifest(directory: Traversable = MESH_DIR) -> dict:
    """The manifest of ``directory``: mesh file name -> fingerprint (empty when missing)."""
    path = directory / MANIFEST
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def load_body(path: Traversable) -> trimesh.Trimesh:
    """The body mesh stored in a glb file (a path or a package file)."""
    data = path.read_bytes() if hasattr(path, "read_bytes") else Path(path).read_bytes()
    scene = trimesh.load(io.BytesIO(data), file_type="glb", force="scene")
    return scene.geometry["body"]
