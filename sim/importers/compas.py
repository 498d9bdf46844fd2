"""COMPAS assemblies as towerlab scenes: compas_assembly ``Assembly`` and compas_cra ``CRA_Assembly`` JSON.

The JSON is read here, as plain JSON (COMPAS 2's data format): COMPAS need not
be installed. A file holds an assembly whose graph has one node per block,
each with its mesh (corners ``vertex`` {key: {x, y, z}}, faces ``face`` {key:
[corner keys]}) and ``is_support`` (compas_cra's boundary condition); a
block's ``attributes`` may hold a ``density`` (compas_cra's
``density_setup``). Interfaces and forces stored in the file are not read:
towerlab finds the contacts from the blocks.

Every block becomes one piece of a free scene on the endless table:

* a convex block is a ``hull`` piece (its corners);
* a block that is not convex is a ``mesh`` piece: its faces written to an OBJ
  file beside the scene, cut into convex parts exactly (``decomposition:
  "exact"``), or, where that would take too many cuts (a curved block), by
  CoACD (``"coacd"``, approximate);
* with ``snap`` > 0, blocks convex within ``snap`` have their meeting faces
  cut to shared planes first (:mod:`sim.importers.planes`) and are hulls.

Supports become fixed pieces. Units: COMPAS has none; the samples are in
metres, so one unit is 1000 mm unless ``scale`` says otherwise. Densities are
relative in compas_cra (it weighs a block by its volume times its density,
1 by default): a block's density is its own (or 1) times ``density`` g/cm³.
Friction ``friction`` is every block's (compas_cra's default μ is 0.84).
The assembly is lifted so that it does not reach below the table; with
supports, so that no free block touches the table either (only supports hold
a COMPAS assembly); without, it is set on the table.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import trimesh

from sim.errors import SceneError
from sim.importers.planes import Polyhedron, snap_blocks, volume
from sim.pieces import MM
from sim.pieces.custom import FOLD_MM
from sim.pieces.decompose import is_convex
from sim.scene.io import read_json
from sim.scene.schema import FORMAT, MAX_COORD_MM, MAX_DENSITY, MAX_PIECES, got
from sim.tol import tol

ASSEMBLY_TYPES = {"compas_assembly.datastructures/Assembly": "compas_assembly Assembly",
                  "compas_cra.datastructures/CRA_Assembly": "compas_cra CRA_Assembly"}
"""The ``dtype`` of the files read, and what they are."""
GRAPH_TYPE = "compas.datastructures/Graph"
BLOCK_TYPE = "compas_assembly.datastructures/Block"
DEFAULT_SCALE = 1000.0
"""mm per COMPAS unit: the samples of compas_cra are in metres."""
DEFAULT_FRICTION = 0.84
"""compas_cra's default friction coefficient (``rbe_solve``, ``cra_solve``)."""
DEFAULT_DENSITY = 2.4
"""g/cm³ for a block of COMPAS density 1: stone (limestone 2.3–2.7, concrete 2.4)."""
DEFAULT_MIN_AREA = 1.0
"""The least overlap (mm²) of two faces that meet when snapping (compas_cra's ``amin``, in mm²)."""
CLEARANCE = 1.0
"""How high (mm) above the table a free block of an assembly with supports is set at least:
twenty times the contact gap (``tol.coplanar``), so the table never holds it."""


class CompasError(SceneError):
    """A COMPAS file that cannot be imported: names the file and the field, like a scene's errors."""


@dataclass(frozen=True)
class Block:
    """One block of a COMPAS assembly.

    Attributes:
        key: its node key in the graph (as the file writes it).
        name: its name, if the file gives one.
        vertices: (k, 3) corners, in the file's units.
        faces: each face as corner indices (into ``vertices``), as the file orders them.
        support: compas_cra's boundary condition (``is_support``).
        density: its relative density (1 unless the file sets one).
    """

    key: str
    name: str | None
    vertices: np.ndarray
    faces: tuple[tuple[int, ...], ...]
    support: bool = False
    density: float = 1.0


@dataclass(frozen=True)
class Assembly:
    """A COMPAS assembly: its blocks in key order.

    Attributes:
        source: the file.
        kind: what it is (``compas_cra CRA_Assembly``).
        name: the assembly's name.
        blocks: the blocks, by key (numerically where keys are numbers).
    """

    source: str
    kind: str
    name: str | None
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class Imported:
    """An assembly as a scene.

    Attributes:
        scene: the scene file's data (``towerlab-scene/1``), ready for :func:`sim.scene.from_dict`.
        meshes: file name (relative to the scene file) -> OBJ text, one per block that is not convex.
        ids: block key -> piece id.
        notes: what was assumed and changed, one line each (also in the scene's ``notes``).
        volume_change: (lowest, highest) relative change of a block's volume by snapping (0, 0 without).
    """

    scene: dict
    meshes: dict[str, str]
    ids: dict[str, str]
    notes: tuple[str, ...]
    volume_change: tuple[float, float] = (0.0, 0.0)


def read_assembly(path) -> Assembly:
    """Read a COMPAS assembly JSON file.

    Raises:
        CompasError: (a :class:`SceneError`) the file is not JSON, not an assembly of COMPAS 2's format,
            or a block is malformed; names the file and the field.
    """
    try:
        data = read_json(path)
    except SceneError as e:
        raise CompasError(e.source, e.field, e.reason) from None
    return parse_assembly(data, str(path))


def _need(obj, key: str, kind, where: str, source: str, expected: str):
    field = f"{where}.{key}" if where else key
    if not isinstance(obj, dict) or key not in obj:
        raise CompasError(source, field, "required field is missing")
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise CompasError(source, field, f"expected {expected}, got {got(value)}")
    return value


def parse_assembly(data, source: str = "<compas>") -> Assembly:
    """An assembly from parsed COMPAS JSON (see :func:`read_assembly`)."""
    if not isinstance(data, dict):
        raise CompasError(source, "", f"expected a JSON object, got {type(data).__name__}")
    dtype = _need(data, "dtype", str, "", source, "a COMPAS type name")
    if dtype not in ASSEMBLY_TYPES:
        raise CompasError(source, "dtype", f"expected a COMPAS assembly ({', '.join(ASSEMBLY_TYPES)}), "
                                           f"got {got(dtype)}")
    if "data" not in data and "value" in data:
        raise CompasError(source, "value", "a COMPAS 1 file (its data under \"value\"); this reads COMPAS 2's "
                                           "format: convert it with COMPAS 2 (compas_cra's samples/compas_1to2.py)")
    body = _need(data, "data", dict, "", source, "an object")
    graph = _need(body, "graph", dict, "data", source, "a COMPAS graph")
    if graph.get("dtype") != GRAPH_TYPE:
        raise CompasError(source, "data.graph.dtype", f"expected {GRAPH_TYPE!r}, got {got(graph.get('dtype'))}")
    nodes = _need(_need(graph, "data", dict, "data.graph", source, "an object"), "node", dict, "data.graph.data",
                  source, "an object of nodes")
    if not nodes:
        raise CompasError(source, "data.graph.data.node", "the assembly has no blocks")
    if len(nodes) > MAX_PIECES:
        raise CompasError(source, "data.graph.data.node", f"{len(nodes)} blocks, more than the {MAX_PIECES} a "
                                                          "scene may hold")
    blocks = [_block(key, node, f"data.graph.data.node.{key}", source) for key, node in nodes.items()]
    name = body.get("attributes", {}).get("name") if isinstance(body.get("attributes"), dict) else None
    if isinstance(name, str) and not name.isprintable():  # it becomes the scene's title, one printable line
        raise CompasError(source, "data.attributes.name", f"expected one line of printable text, got {got(name)}")
    return Assembly(source, ASSEMBLY_TYPES[dtype], name if isinstance(name, str) else None,
                    tuple(sorted(blocks, key=lambda b: _natural(b.key))))


def _natural(key: str):
    return (0, int(key), "") if re.fullmatch(r"-?\d+", key) else (1, 0, key)


def _block(key: str, node, where: str, source: str) -> Block:
    if not isinstance(node, dict):
        raise CompasError(source, where, f"expected a node object, got {got(node)}")
    support = node.get("is_support", False)
    if not isinstance(support, bool):
        raise CompasError(source, f"{where}.is_support", f"expected true or false, got {got(support)}")
    block = _need(node, "block", dict, where, source, "a block")
    if block.get("dtype") != BLOCK_TYPE:
        raise CompasError(source, f"{where}.block.dtype", f"expected {BLOCK_TYPE!r}, got {got(block.get('dtype'))}")
    mesh = _need(block, "data", dict, f"{where}.block", source, "an object")
    where = f"{where}.block.data"
    vertex = _need(mesh, "vertex", dict, where, source, "an object of corners")
    index, corners = {}, []
    for vkey, v in vertex.items():
        xyz = []
        for c in "xyz":
            x = _need(v, c, (int, float), f"{where}.vertex.{vkey}", source, "a number")
            if not math.isfinite(x):
                raise CompasError(source, f"{where}.vertex.{vkey}.{c}", f"expected a finite number, got {got(x)}")
            xyz.append(float(x))
        index[str(vkey)] = len(corners)
        corners.append(xyz)
    faces = []
    for fkey, face in _need(mesh, "face", dict, where, source, "an object of faces").items():
        if not isinstance(face, list) or len(face) < 3 or any(str(k) not in index for k in face):
            raise CompasError(source, f"{where}.face.{fkey}", f"expected a list of at least 3 corner keys of "
                                                              f"this block, got {got(face)}")
        faces.append(tuple(index[str(k)] for k in face))
    if len(corners) < 4 or len(faces) < 4:
        raise CompasError(source, where, f"a block needs at least 4 corners and 4 faces, got {len(corners)} and "
                                         f"{len(faces)}")
    attributes = mesh.get("attributes") if isinstance(mesh.get("attributes"), dict) else {}
    density = attributes.get("density", 1.0)
    if isinstance(density, bool) or not isinstance(density, (int, float)) or not density > 0:
        raise CompasError(source, f"{where}.attributes.density", f"expected a positive number, got {got(density)}")
    name = attributes.get("name")
    return Block(str(key), name if isinstance(name, str) else None, np.array(corners), tuple(faces), support,
                 float(density))


def rotation(axis, degrees: float) -> np.ndarray:
    """(3, 3) the turn by ``degrees`` about ``axis`` through the origin (compas' ``rotate_assembly``)."""
    a = np.asarray(axis, dtype=float)
    a = a / np.abs(a).max()  # first to about 1: the norm of (1e308, 1e308, 0) overflows
    a = a / np.linalg.norm(a)
    t = math.radians(degrees)
    k = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    return np.eye(3) + math.sin(t) * k + (1.0 - math.cos(t)) * (k @ k)


def to_scene(assembly: Assembly, *, scale: float = DEFAULT_SCALE, supports=(), friction: float = DEFAULT_FRICTION,
             density: float = DEFAULT_DENSITY, snap: float = 0.0, min_area: float = DEFAULT_MIN_AREA,
             rotate: tuple | None = None, mesh_folder: str = "meshes", title: str | None = None,
             decomposition: str = "exact") -> Imported:
    """An assembly as a scene's data and the mesh files its non-convex blocks need.

    Args:
        assembly: what :func:`read_assembly` read.
        scale: mm per unit of the file.
        supports: keys of blocks to hold fixed, besides those the file marks ``is_support``.
        friction: every block's Coulomb coefficient.
        density: g/cm³ of a block of COMPAS density 1.
        snap: mm; > 0 makes the faces of neighbouring blocks within it of each other one plane.
        min_area: mm², the least overlap of two faces that meet when snapping.
        rotate: ``((x, y, z), degrees)``: turn the assembly about that axis through the origin first,
            as compas_cra's examples tilt theirs.
        mesh_folder: the folder, relative to the scene file, that the mesh files go to.
        title: the scene's title (default: the assembly's name or the file's stem).
        decomposition: how a block that is not convex becomes convex parts: ``exact`` (cuts along its
            reflex edges) or ``coacd`` (approximate; for curved blocks that would need too many cuts).

    Raises:
        CompasError: an unknown support key, a block whose faces do not close, a density out of bounds,
            faces that cannot be made to fit.
    """
    source = assembly.source
    keys = {b.key for b in assembly.blocks}
    for key in supports:
        if str(key) not in keys:
            raise CompasError(source, "data.graph.data.node", f"no block with key {got(str(key))} to support")
    held = {b.key for b in assembly.blocks if b.support} | {str(k) for k in supports}
    turn = np.eye(3) if rotate is None else rotation(*rotate)
    polys = [_oriented(Polyhedron(_placed(b, turn, scale, source), b.faces)) for b in assembly.blocks]
    solids = [_solid(p, b, source) for p, b in zip(polys, assembly.blocks)]
    snapped = snap_blocks(polys, snap, min_area, tol.overlap / MM / 2.0) if snap > 0 else None
    shapes = []  # per block: ("hull", corners mm) or ("mesh", solid)
    for i, (p, s) in enumerate(zip(polys, solids)):
        if snapped is not None and snapped.vertices[i] is not None:
            shapes.append(("hull", snapped.vertices[i]))
        elif is_convex(s, FOLD_MM):
            shapes.append(("hull", p.vertices))
        else:
            shapes.append(("mesh", s))
    lows = np.array([float(np.asarray(s[1].vertices if s[0] == "mesh" else s[1])[:, 2].min()) for s in shapes])
    free = np.array([b.key not in held for b in assembly.blocks])
    if held:  # only the supports hold a COMPAS assembly: nothing reaches the table, no free block touches it
        lift = max(0.0, -float(lows.min()), CLEARANCE - float(lows[free].min()) if free.any() else 0.0)
    else:  # the table holds an assembly without supports: set it down on it
        lift = -float(lows.min())
    pieces, meshes, ids = [], {}, {}
    for b, (kind, geometry) in zip(assembly.blocks, shapes):
        pid = f"block-{b.key}"
        ids[b.key] = pid
        rho = b.density * density
        if rho > MAX_DENSITY:
            raise CompasError(source, f"data.graph.data.node.{b.key}.block.data.attributes.density",
                              f"{b.density:g} × {density:g} g/cm³ is more than the {MAX_DENSITY:g} g/cm³ a piece may "
                              "have; give a lower --density")
        piece = {"id": pid, "kind": kind}
        if kind == "hull":
            v = np.asarray(geometry, dtype=float)
            centre = (v.min(axis=0) + v.max(axis=0)) / 2.0
            piece["vertices"] = [[_mm(x) for x in row] for row in v - centre]
        else:
            v = np.asarray(geometry.vertices)
            centre = (v.min(axis=0) + v.max(axis=0)) / 2.0
            name = f"{mesh_folder}/{pid}.obj"
            meshes[name] = _obj(geometry, f"block {b.key} of {source}")
            piece.update(file=name, decomposition=decomposition)
        piece["pos"] = [_mm(centre[0]), _mm(centre[1]), _mm(centre[2] + lift)]
        if b.key in held:
            piece["fixed"] = True
        piece.update(friction=friction, density=round(rho, 9))
        pieces.append(piece)
    notes = _notes(assembly, scale, held, lift, friction, density, rotate, snapped, len(meshes), decomposition)
    change = (0.0, 0.0) if snapped is None else (float(snapped.change.min()), float(snapped.change.max()))
    stem = re.sub(r"\.json$", "", source.replace("\\", "/").rsplit("/", 1)[-1])
    named = assembly.name if assembly.name not in (None, "Assembly", "CRA_Assembly") else None  # not a class name
    scene = {"format": FORMAT, "game": "free", "board": "table", "title": title or named or stem,
             "notes": "\n".join(notes), "pieces": pieces}
    return Imported(scene, meshes, ids, tuple(notes), change)


def _placed(block: Block, turn: np.ndarray, scale: float, source: str) -> np.ndarray:
    """(n, 3) a block's corners in mm, turned.

    Raises:
        CompasError: a corner further from the origin than a scene holds (a scale too large, a typo).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        v = block.vertices @ turn.T * scale
        reach = float(np.abs(v).max())
    if not reach <= MAX_COORD_MM:
        raise CompasError(source, f"data.graph.data.node.{block.key}.block.data.vertex",
                          f"a corner lies {reach:.3g} mm from the origin at {scale:g} mm per unit, past the "
                          f"{MAX_COORD_MM:g} mm a scene holds (is --scale right?)")
    return v


def _mm(x: float) -> float:
    """A coordinate as a scene file keeps it: to the nanometre (6 decimals of mm)."""
    r = round(float(x), 6)
    return int(r) if r == int(r) else r


def _oriented(p: Polyhedron) -> Polyhedron:
    """The block with its faces wound outwards (reversed when its signed volume is negative)."""
    if volume(p) >= 0.0:
        return p
    return Polyhedron(p.vertices, tuple(tuple(reversed(f)) for f in p.faces))


def _triangles(p: Polyhedron) -> np.ndarray:
    """The faces as triangles: each polygon triangulated in its own plane (ear clipping, manifold3d)."""
    import manifold3d

    tris = []
    for face in p.faces:
        if len(face) == 3:
            tris.append(face)
            continue
        q = p.vertices[list(face)]
        c = q.mean(axis=0)
        n = np.cross(q - c, np.roll(q, -1, axis=0) - c).sum(axis=0)
        u = np.cross(np.eye(3)[int(np.argmin(np.abs(n)))], n)
        u /= np.linalg.norm(u)
        w = np.cross(n / np.linalg.norm(n), u)
        flat = np.column_stack([(q - c) @ u, (q - c) @ w])
        tris += [tuple(face[i] for i in t) for t in np.asarray(manifold3d.triangulate([flat]))]
    return np.array(tris, dtype=np.int64)


def _solid(p: Polyhedron, block: Block, source: str) -> trimesh.Trimesh:
    where = f"data.graph.data.node.{block.key}.block.data.face"
    mesh = trimesh.Trimesh(p.vertices, _triangles(p), process=True)
    mesh.update_faces(mesh.nondegenerate_faces())
    if not mesh.is_watertight or not mesh.is_winding_consistent:
        raise CompasError(source, where, "the block's faces do not close around a solid (or are wound both ways)")
    if mesh.volume <= 0.0:
        raise CompasError(source, where, "the block encloses no volume")
    return mesh


def _obj(mesh: trimesh.Trimesh, what: str) -> str:
    """A closed mesh as Wavefront OBJ text (mm, full precision)."""
    lines = [f"# {what} (mm), written by towerlab import compas"]
    lines += [f"v {x!r} {y!r} {z!r}" for x, y, z in np.asarray(mesh.vertices, dtype=float).tolist()]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in np.asarray(mesh.faces).tolist()]
    return "\n".join(lines) + "\n"


def _notes(assembly: Assembly, scale, held, lift, friction, density, rotate, snapped, meshes,
           decomposition: str) -> list[str]:
    n = len(assembly.blocks)
    out = [f"Imported from {assembly.source} ({assembly.kind}, {n} blocks, {len(held)} supports) by towerlab "
           "import compas.",
           f"Units: 1 unit = {scale:g} mm ({'metres' if scale == 1000.0 else 'given by --scale'}).",
           f"Friction {friction:g}; density {density:g} g/cm³ times each block's COMPAS density."]
    if rotate is not None:
        out.append(f"Turned by {rotate[1]:g}° about ({', '.join(f'{x:g}' for x in rotate[0])}) through the origin.")
    if held:
        out.append("Supports (fixed): " + ", ".join(f"block-{k}" for k in sorted(held, key=_natural)) + ".")
    else:
        out.append("No supports: the assembly stands on the table.")
    if lift > 0:
        out.append(f"Lifted by {lift:.6g} mm" + (" so that only the supports can hold it." if held else
                                                 " onto the table."))
    elif lift < 0:
        out.append(f"Lowered by {-lift:.6g} mm onto the table.")
    if meshes:
        out.append(f"{meshes} blocks are not convex: mesh files, " + ("cut into convex parts exactly."
                   if decomposition == "exact" else "decomposed into convex parts by CoACD (approximate)."))
    if snapped is not None:
        out.append(f"Faces within the snap tolerance joined in {snapped.groups} shared planes"
                   + (f", {snapped.separated} overlapping pairs cut apart" if snapped.separated else "")
                   + f"; block volumes changed by {100.0 * snapped.change.min():+.2f} % to "
                     f"{100.0 * snapped.change.max():+.2f} %.")
    return out
