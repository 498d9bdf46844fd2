"""Pieces of any shape for free scenes: a convex hull of points (``hull``) and a mesh file (``mesh``).

Both are rigid blocks of generic wood (density and friction overridable per
piece, as for every piece): the assemblies of masonry and furniture that
compas_assembly and compas_cra study, or any prop. Their mass, centre of mass
and inertia come from trimesh; their convex parts feed the contact finder,
the statics, the physics and the renderer alike.

Every check that fails raises :class:`~sim.errors.ShapeError` naming the
parameter (``vertices``, ``file``, ``decomposition``); the scene loader adds
the file and the piece.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.parse
from pathlib import Path

import numpy as np
import trimesh
from scipy.spatial import QhullError

from sim.errors import ShapeError
from sim.geometry import sat
from sim.jsontext import READ_ERRORS
from sim.limits import LIMITS, FileRefusedError, read_bytes
from sim.pieces import dimensions as dim
from sim.pieces.decompose import CACHE_VERSION, MAX_PARTS, cached_parts, coacd_parts, convex_bodies, exact_parts
from sim.pieces.generic import GENERIC_WOOD
from sim.pieces.model import MM, PieceShape, assemble
from sim.tol import tol

MAX_HULL_POINTS = 10_000
"""The most points a hull may be given."""
MESH_SUFFIXES = {".obj": "obj", ".stl": "stl", ".ply": "ply", ".glb": "glb", ".gltf": "gltf"}
"""The mesh files read (through trimesh), by suffix."""
MAX_MESH_BYTES = LIMITS["mesh"]
"""The largest mesh file read (bytes), its resources (a glTF's buffers) included: as large as a scene file may
be."""
MAX_MESH_TRIANGLES = 50_000
"""The most triangles a mesh file may have: a scan's worth; a block needs far fewer."""
DECOMPOSITIONS = ("none", "exact", "coacd")
"""How a mesh that is not made of convex bodies becomes parts: refused, cut exactly, or by CoACD."""
COACD_THRESHOLD = 0.05
"""CoACD's default concavity threshold (a fraction of the mesh's size)."""
FOLD_MM = tol.convex / MM
"""An edge folding inwards by less than this (mm) is flat (``tol.convex``)."""


def _variant(*items, full: bool = False) -> str:
    """A digest of the items: 12 hex digits (a variant name), or all 64 (``full``: a cache key)."""
    h = hashlib.sha256()
    for item in items:
        h.update(item if isinstance(item, bytes) else repr(item).encode())
    return h.hexdigest() if full else h.hexdigest()[:12]


def _check_size(extent_mm: np.ndarray, field: str, what: str) -> None:
    """Every side of a bounding box within the generic pieces' size bounds (mm)."""
    small, large = float(extent_mm.min()), float(extent_mm.max())
    if large > dim.MAX_SIZE:
        raise ShapeError(field, f"{what} is {large:g} mm across; a piece may be at most {dim.MAX_SIZE:g} mm")
    if small < dim.MIN_SIZE:
        raise ShapeError(field, f"{what} is {small:.3g} mm thin; a piece must be at least {dim.MIN_SIZE:g} mm "
                                "in every direction")


def hull(vertices) -> PieceShape:
    """A convex block: the convex hull of ``vertices`` (mm, any frame; the piece frame is their bounding box's
    centre).

    Raises:
        ShapeError: (``vertices``) fewer than four points, more than :data:`MAX_HULL_POINTS`, points
            in one plane (the hull thinner than 1 mm), or a hull outside the size bounds.
    """
    points = np.asarray(vertices, dtype=float)
    if points.ndim != 2 or points.shape[1] != 3 or not 4 <= len(points) <= MAX_HULL_POINTS:
        raise ShapeError("vertices", f"expected 4 to {MAX_HULL_POINTS} points [x, y, z] in mm")
    if not np.isfinite(points).all():
        raise ShapeError("vertices", "expected finite coordinates")
    try:
        solid = sat.polytope(points)
    except QhullError:
        raise ShapeError("vertices", "the points lie in one plane (or on one line): a hull needs four points "
                                     "not in one plane") from None
    extreme = points[np.sort(solid.vertex_index)]
    width = sat.width(solid)  # the least width across a face
    if width < dim.MIN_SIZE:
        raise ShapeError("vertices", f"the points lie within {width:.3g} mm of one plane; a hull must be at least "
                                     f"{dim.MIN_SIZE:g} mm thick")
    _check_size(np.ptp(extreme, axis=0), "vertices", "the hull")
    params = {"vertices": tuple(tuple(float(x) for x in p) for p in points)}
    return assemble("hull", _variant(points.tobytes()), params, [("hull", extreme)], GENERIC_WOOD,
                    dim.COLORS["beech"])


def mesh(file, scale: float = 1.0, decomposition: str = "none", threshold: float = COACD_THRESHOLD) -> PieceShape:
    """A block read from a mesh file: its convex bodies, or its parts by ``decomposition``.

    Args:
        file: the mesh file (OBJ, STL, PLY, glTF), a path (the scene loader resolves it against the
            scene file's folder).
        scale: millimetres per unit of the file.
        decomposition: for a mesh that is not made of convex bodies: ``none`` (refuse it),
            ``exact`` (cut along the planes of its reflex edges) or ``coacd`` (approximate).
        threshold: CoACD's concavity threshold.

    Raises:
        ShapeError: the file is missing, unreadable, too large, not closed, inside out in parts,
            of zero volume, outside the size bounds, or not convex where ``decomposition`` is ``none``.
    """
    path = Path(file)
    files = mesh_files(path)
    data = b"".join(_digestible(files))  # the file's own bytes when it names no resources
    solid = _closed_mesh(files, path, float(scale))
    convex, other = convex_bodies(solid, FOLD_MM)
    parts = [(f"body-{i}", np.asarray(b.vertices)) for i, b in enumerate(convex)]
    approximation = None
    if other and decomposition == "none":
        raise ShapeError("file", f"{path}: the mesh is not convex, nor made of convex bodies; give decomposition "
                                 "\"exact\" (cut into convex parts) or \"coacd\" (approximate)")
    digest = mesh_digest(files)
    for i, body in enumerate(other):
        what = path.name if len(other) == 1 else f"{path.name} (body {i + 1} of {len(other)})"

        def make(body=body, what=what):
            if decomposition == "exact":
                return exact_parts(body, FOLD_MM, what=what)
            return coacd_parts(body, threshold, what=what)

        key = _variant(CACHE_VERSION, digest, float(scale), decomposition, FOLD_MM, MAX_PARTS, i,
                       float(threshold) if decomposition == "coacd" else None, full=True)
        cut = cached_parts(key, make)
        parts += [(f"part-{i}-{k}", v) for k, v in enumerate(cut)]
    if len(parts) > MAX_PARTS:
        raise ShapeError("file", f"{path}: {len(parts)} convex parts; a piece may have at most {MAX_PARTS}")
    if other and decomposition == "coacd":
        hulls = sum(trimesh.convex.convex_hull(v).volume for _, v in parts[len(convex):])
        share = hulls / sum(b.volume for b in other) - 1.0
        approximation = (f"approximate: CoACD convex decomposition (threshold {threshold:g}) into "
                         f"{len(parts) - len(convex)} parts whose hulls hold {100.0 * share:+.1f} % of the volume")
    params = {"file": str(file), "scale": float(scale), "decomposition": decomposition}
    if decomposition == "coacd":
        params["threshold"] = float(threshold)
    variant = _variant(data, float(scale), decomposition, float(threshold) if decomposition == "coacd" else None)
    return assemble("mesh", variant, params, parts, GENERIC_WOOD, dim.COLORS["beech"], solid_mm=solid,
                    approximation=approximation)


def mesh_files(file) -> dict[str, bytes]:
    """Every file a mesh is read from: ``{""``: the mesh file's bytes, then each resource it names (a glTF's
    external buffers) by the name it gives``}``, read by the one policy for users' files
    (:func:`sim.limits.read_bytes`: regular files only, :data:`MAX_MESH_BYTES` for them all together).

    An OBJ's material library and a glTF's images are never read: a block is beech whatever its file says.
    Resources must lie in the mesh file's folder or below it.

    Raises:
        ShapeError: (``file``) an unknown suffix, or a file that cannot be read (missing, not a regular file,
            too large, or a resource outside the folder).
    """
    path = Path(file)
    suffix = path.suffix.lower()
    if suffix not in MESH_SUFFIXES:
        raise ShapeError("file", f"{path}: expected an OBJ, STL, PLY or glTF file "
                                 f"({', '.join(MESH_SUFFIXES)}), got {suffix or 'no suffix'}")
    try:
        out = {"": read_bytes(path, "mesh", limit=MAX_MESH_BYTES)}
        left = MAX_MESH_BYTES - len(out[""])
        for name in _gltf_buffers(out[""]) if suffix == ".gltf" else ():
            where = _resource(path, name)
            out[name] = read_bytes(where, "mesh", limit=left)
            left -= len(out[name])
    except FileRefusedError as e:
        raise ShapeError("file", str(e)) from None
    return out


def _gltf_buffers(data: bytes) -> list[str]:
    """The external buffers a glTF file's JSON names (data: URIs hold their bytes and need no file)."""
    try:
        tree = json.loads(data.decode("utf-8"))
        buffers = tree.get("buffers", []) if isinstance(tree, dict) else []
        uris = [b.get("uri") for b in buffers if isinstance(b, dict)]
    except (UnicodeDecodeError, *READ_ERRORS):
        return []  # not JSON: trimesh says what is wrong with it
    return list(dict.fromkeys(u for u in uris if isinstance(u, str) and u and not u.startswith("data:")))


def _resource(path: Path, name: str) -> Path:
    """Where a mesh file's resource ``name`` lies: in the mesh file's folder or below it, never elsewhere."""
    folder = Path(os.path.abspath(path.parent))
    where = Path(os.path.abspath(folder / urllib.parse.unquote(name)))
    if Path(name).is_absolute() or not where.is_relative_to(folder):
        raise FileRefusedError(f"{path}: {name}", "a resource outside the mesh file's folder is not read")
    return where


class _Resources(trimesh.resolvers.Resolver):
    """A trimesh resolver over resources read already (:func:`mesh_files`): it reads nothing itself."""

    def __init__(self, files: dict[str, bytes]):
        self.files = files

    def get(self, key):
        if key not in self.files:
            raise OSError(f"{key}: not read (only a glTF's buffers are)")
        return self.files[key]

    def write(self, name, data):
        raise OSError("read only")

    def namespaced(self, namespace):
        return self

    def keys(self):
        return iter(self.files)


def mesh_digest(files: dict[str, bytes]) -> str:
    """The sha256 (hex) of what a mesh is made of (:func:`mesh_files`): the file's own when it names no
    resources; the digest its shape and its cached decompositions are keyed by."""
    h = hashlib.sha256()
    for part in _digestible(files):
        h.update(part)
    return h.hexdigest()


def _digestible(files: dict[str, bytes]):
    """What a mesh's digests are made of: the file's bytes, then each resource's name and bytes (none for a file
    that names none, so that its digest is the file's own)."""
    yield files[""]
    for name in sorted(n for n in files if n):
        yield f"\0{name}\0{len(files[name])}\0".encode()
        yield files[name]


def _closed_mesh(files: dict[str, bytes], path: Path, scale: float) -> trimesh.Trimesh:
    """The file's triangles in mm, merged and checked: closed, consistently wound outwards, of volume."""
    import io

    file_type = MESH_SUFFIXES[path.suffix.lower()]
    options = {"skip_materials": True} if file_type == "obj" else {}
    try:
        loaded = trimesh.load(io.BytesIO(files[""]), file_type=file_type, force="mesh", process=False,
                              resolver=_Resources({k: v for k, v in files.items() if k}), **options)
    except Exception as e:  # noqa: BLE001 - trimesh's loaders raise anything on a broken file
        raise ShapeError("file", f"{path}: not a mesh trimesh can read ({type(e).__name__}: {e})") from None
    if not isinstance(loaded, trimesh.Trimesh) or len(loaded.faces) == 0:
        raise ShapeError("file", f"{path}: the file holds no triangles")
    if len(loaded.faces) > MAX_MESH_TRIANGLES:
        raise ShapeError("file", f"{path}: {len(loaded.faces)} triangles, more than the {MAX_MESH_TRIANGLES} "
                                 "a mesh may have")
    vertices = np.asarray(loaded.vertices, dtype=float) * scale
    if not np.isfinite(vertices).all():
        raise ShapeError("file", f"{path}: coordinates that are not finite numbers")
    faces = np.asarray(loaded.faces)
    if faces.ndim != 2 or faces.shape[1] != 3 or faces.min() < 0 or faces.max() >= len(vertices):
        raise ShapeError("file", f"{path}: a triangle names a vertex the file does not have ({len(vertices)} "
                                 f"vertices, indices {int(faces.min())}..{int(faces.max())})")
    solid = trimesh.Trimesh(vertices, loaded.faces, process=True)  # merges the corners files repeat (STL)
    solid.update_faces(solid.nondegenerate_faces())
    solid.remove_unreferenced_vertices()
    open_edges = len(trimesh.grouping.group_rows(solid.edges_sorted, require_count=1))
    if open_edges or not solid.is_watertight:
        raise ShapeError("file", f"{path}: the mesh is not closed ({open_edges} edges border one triangle "
                                 "only); a block must be a closed surface")
    if not solid.is_winding_consistent:
        raise ShapeError("file", f"{path}: the triangles are not consistently oriented (some face inwards)")
    extent = np.ptp(solid.vertices, axis=0)
    volume = _signed_volume(solid)
    if volume < 0.0:
        solid.invert()  # wound inside out as a whole: a common export mistake, and unambiguous
    if abs(volume) <= tol.volume_rel * float(np.prod(extent)):
        raise ShapeError("file", f"{path}: the mesh encloses no volume (degenerate)")
    bodies = solid.split(only_watertight=False) if solid.body_count > 1 else [solid]
    if any(b.volume <= 0.0 for b in bodies):
        raise ShapeError("file", f"{path}: a body is wound inside out (a cavity): a block must be solid")
    if len(bodies) > 1:
        _check_disjoint(bodies, path)
    _check_size(extent, "file", "the mesh")
    return solid


def _signed_volume(mesh: trimesh.Trimesh) -> float:
    """The volume a closed mesh encloses, negative when it is wound inwards (before any mass property)."""
    a, b, c = (mesh.vertices[mesh.faces[:, k]] for k in range(3))
    return float(np.einsum("ij,ij->", a, np.cross(b, c))) / 6.0


def _check_disjoint(bodies, path: Path) -> None:
    """Several bodies of one mesh must not overlap (their union's volume is their volumes' sum)."""
    import manifold3d

    union = manifold3d.Manifold.batch_boolean(
        [manifold3d.Manifold(manifold3d.Mesh64(np.ascontiguousarray(b.vertices, dtype=float),
                                               np.ascontiguousarray(b.faces, dtype=np.uint64))) for b in bodies],
        manifold3d.OpType.Add)
    total = sum(b.volume for b in bodies)
    if total - union.volume() > tol.volume_rel * total + FOLD_MM * sum(b.area for b in bodies):
        raise ShapeError("file", f"{path}: its {len(bodies)} bodies overlap; a block's bodies must be disjoint")
