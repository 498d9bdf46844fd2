"""Closed meshes as convex parts: convex bodies as they are, others cut exactly or decomposed approximately.

A piece is a set of convex parts (contacts, statics and the physics all work
on them), so a mesh file becomes one of three things:

* **convex bodies**: each connected body of the mesh whose edges all fold
  outwards (to ``tol.convex``) is one part, exactly;
* **exact cuts** (``decomposition: "exact"``): a body with reflex edges is cut
  in two by the plane of a face at a reflex edge, the plane through most other
  reflex edges first, until every piece is convex. A plane through a reflex
  edge leaves it convex on both sides and makes no new reflex edge, so this
  ends after at most as many cuts as the body has reflex edges, and the parts
  are the body (to the tenth of ``tol.convex`` each cut is laid off its face,
  so that the faces lying in the cut plane stay whole on their own side);
* **CoACD** (``decomposition: "coacd"``, PyPI ``coacd``, optional): an
  approximate convex decomposition within a concavity ``threshold``, for
  curved or scanned shapes whose exact cuts would be too many.

Cuts and decompositions are kept on disk (:func:`cached_parts`): CoACD takes
seconds a body (compas_cra's curve-3-blocks: 11 s to load), and every process
that loads the scene (``check``, ``view``, ``render``) would take them again.

Both are held to a budget of :data:`BUDGET` seconds a body
(``$TOWERLAB_DECOMPOSE_SECONDS``), after which one line says what to do, and
on a terminal show how long they have run once past a second. CoACD runs in a
process of its own (``coacd_child.py``): its C++ does not return to Python
until it ends, so Ctrl-C and the budget end that process instead, at once.

Pure: numpy, trimesh and manifold3d (for the cuts).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import math
import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import numpy as np
import trimesh

from sim.atomic import write_bytes
from sim.errors import ShapeError, printable
from sim.tol import tol

CACHE_ENV = "TOWERLAB_CACHE"
"""Environment variable: the folder of the decompositions kept on disk; ``off`` (or empty) keeps none."""
CACHE_VERSION = 1
"""Part of every cache key: raised when the cuts or their settings change meaning."""

MAX_PARTS = 512
"""The most convex parts one piece may have (the contact finder pairs them; more is a typo or a scan)."""

BUDGET = 300.0
"""How long one body's decomposition may run (s) unless ``$TOWERLAB_DECOMPOSE_SECONDS`` says otherwise: a
scanned block takes CoACD seconds to a minute on this project's 2-core machine (a bumpy ball of 5 120
triangles: 9 CPU-seconds), a mesh at the 50 000 triangles a file may have far longer."""
BUDGET_ENV = "TOWERLAB_DECOMPOSE_SECONDS"
"""Environment variable: the decomposition budget (s) instead of :data:`BUDGET`."""
CHILD = resources.files("sim.pieces").joinpath("coacd_child.py")
"""The script that runs CoACD in a process of its own (run by path: it imports neither sim nor trimesh)."""


def budget() -> float:
    """The seconds a body's decomposition may take: ``$TOWERLAB_DECOMPOSE_SECONDS``, else :data:`BUDGET`.

    Raises:
        ShapeError: (``decomposition``) the variable is not a positive number of seconds.
    """
    value = os.environ.get(BUDGET_ENV, "").strip()
    if not value:
        return BUDGET
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise ShapeError("decomposition", f"${BUDGET_ENV}: expected a number of seconds > 0, got {value!r}")
    return seconds


class Watch:
    """One decomposition's time: shown on a terminal once past a second, held to its budget.

    Args:
        what: what is being done, for the progress line (``CoACD decomposition of joint.obj``).
        advice: what to do when the budget runs out, for the error.
        seconds: the budget (default :func:`budget`).
    """

    def __init__(self, what: str, advice: str, seconds: float | None = None):
        self.what, self.advice = what, advice
        self.seconds = budget() if seconds is None else seconds
        self.start = time.monotonic()
        self.shown = False

    def tick(self, done: str = "") -> None:
        """Show the time so far (and ``done``, e.g. ``12 parts``) on a terminal.

        Raises:
            ShapeError: (``decomposition``) the budget is spent.
        """
        elapsed = time.monotonic() - self.start
        if elapsed > self.seconds:
            raise ShapeError("decomposition", f"{self.what} did not finish within {self.seconds:g} s; "
                                              f"{self.advice}, or allow longer with {BUDGET_ENV}=SECONDS")
        if elapsed >= 1.0 and _terminal():
            line = (f"{self.what}: {elapsed:.0f} s{', ' + done if done else ''} "
                    f"(at most {self.seconds:g} s; Ctrl-C stops)")
            sys.stderr.write(f"\r{printable(line)}\x1b[K")  # a file's name is the file's: escaped
            sys.stderr.flush()
            self.shown = True

    def close(self) -> None:
        """Clear the progress line, if one was shown."""
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed
        return False


def reflex_edges(mesh: trimesh.Trimesh, fold: float) -> np.ndarray:
    """Which of a closed mesh's face adjacencies fold inwards (a reflex edge).

    Args:
        mesh: closed, consistently wound outwards.
        fold: how far (mesh units) each face's far corner must lie above the other face's plane.

    Returns:
        (a,) bool over ``mesh.face_adjacency``. Both ways are asked, so that a step lower than
        ``fold`` (a cut's offset) is flat however long its faces are.
    """
    adj, far = mesh.face_adjacency, mesh.face_adjacency_unshared
    if len(adj) == 0:
        return np.zeros(0, dtype=bool)
    normals, corner = mesh.face_normals, mesh.vertices[mesh.faces[:, 0]]
    up01 = np.einsum("ij,ij->i", mesh.vertices[far[:, 1]] - corner[adj[:, 0]], normals[adj[:, 0]])
    up10 = np.einsum("ij,ij->i", mesh.vertices[far[:, 0]] - corner[adj[:, 1]], normals[adj[:, 1]])
    return np.minimum(up01, up10) > fold


def is_convex(body: trimesh.Trimesh, fold: float) -> bool:
    """Whether a closed connected body is convex: no edge folds inwards by more than ``fold``.

    A closed connected surface that is convex at every edge bounds a convex solid (Tietze's
    theorem); its volume must then also be its hull's, which is checked as a guard.
    """
    if reflex_edges(body, fold).any():
        return False
    hull = trimesh.convex.convex_hull(body.vertices)
    return bool(hull.volume - body.volume <= tol.volume_rel * body.volume + fold * hull.area)


def convex_bodies(mesh: trimesh.Trimesh, fold: float) -> tuple[list[trimesh.Trimesh], list[trimesh.Trimesh]]:
    """The mesh's connected bodies, split into the convex ones and the others.

    Args:
        mesh: closed, consistently wound outwards (every body of positive volume).
        fold: see :func:`is_convex`.
    """
    bodies = mesh.split(only_watertight=False) if mesh.body_count > 1 else [mesh]
    convex, other = [], []
    for body in bodies:
        (convex if is_convex(body, fold) else other).append(body)
    return convex, other


def exact_parts(body: trimesh.Trimesh, fold: float, most: int = MAX_PARTS, *, what: str = "the mesh",
                seconds: float | None = None) -> list[np.ndarray]:
    """A closed body cut along the planes of its reflex edges into convex parts, exactly.

    Args:
        body: closed, consistently wound outwards.
        fold: see :func:`is_convex`; each cut lies ``fold / 10`` off its face.
        most: the most parts to make.
        what: the mesh's name, for the progress line and the error.
        seconds: the budget (default :func:`budget`).

    Returns:
        Each part's vertices (k, 3), mesh units.

    Raises:
        ShapeError: (``decomposition``) more than ``most`` parts would be needed, or the budget ran out.
    """
    import manifold3d

    watch = Watch(f"cutting {what} into convex parts", "use decomposition \"coacd\" (approximate) or simplify "
                  "the mesh", seconds)
    solid = manifold3d.Manifold(manifold3d.Mesh64(np.ascontiguousarray(body.vertices, dtype=float),
                                                  np.ascontiguousarray(body.faces, dtype=np.uint64)))
    try:
        return _cut_all(solid, fold, most, watch)
    finally:
        watch.close()


def _cut_all(solid, fold: float, most: int, watch: Watch) -> list[np.ndarray]:
    todo, parts = [solid], []
    while todo:
        watch.tick(f"{len(parts)} parts")
        for piece in todo.pop().decompose():
            out = piece.to_mesh64()
            mesh = trimesh.Trimesh(np.asarray(out.vert_properties)[:, :3], np.asarray(out.tri_verts, dtype=np.int64),
                                   process=False)
            reflex = reflex_edges(mesh, fold)
            if not reflex.any():
                parts.append(np.asarray(mesh.vertices))
                continue
            todo.extend(_cut(piece, mesh, reflex, fold))
            if len(parts) + len(todo) > most:
                raise ShapeError("decomposition", f"cutting it into convex parts exactly takes more than {most}; "
                                                  "use decomposition \"coacd\" (approximate)")
    return parts


def _cut(piece, mesh: trimesh.Trimesh, reflex: np.ndarray, fold: float):
    """The two halves of ``piece`` cut by the plane of a face at a reflex edge: the plane holding most
    reflex edges (then the largest face), laid ``fold / 10`` outside its face."""
    faces = np.unique(mesh.face_adjacency[reflex].ravel())
    normals = mesh.face_normals[faces]
    offsets = np.einsum("ij,ij->i", normals, mesh.vertices[mesh.faces[faces, 0]])
    ends = mesh.vertices[mesh.face_adjacency_edges[reflex]]  # (r, 2, 3)
    off_plane = np.abs(np.einsum("rkj,cj->crk", ends, normals) - offsets[:, None, None]).max(axis=2)
    score = (off_plane <= fold).sum(axis=1) + mesh.area_faces[faces] / mesh.area  # count first, area breaks ties
    for c in np.argsort(-score, kind="stable"):
        above, below = piece.split_by_plane(normals[c].tolist(), float(offsets[c]) + fold / 10.0)
        if not above.is_empty() and not below.is_empty():
            return [above, below]
    raise ShapeError("decomposition", "no plane of a reflex edge cuts it: the mesh is not a clean solid")


def coacd_parts(body: trimesh.Trimesh, threshold: float, most: int = MAX_PARTS, *, what: str = "the mesh",
                seconds: float | None = None) -> list[np.ndarray]:
    """An approximate convex decomposition by CoACD (deterministic: seed 0), in a process of its own.

    Args:
        body: a closed body.
        threshold: CoACD's concavity threshold (0.01 .. 1; lower is finer, more parts).
        most: the most parts to make.
        what: the mesh's name, for the progress line and the error.
        seconds: the budget (default :func:`budget`).

    Raises:
        ShapeError: (``decomposition``) the optional ``coacd`` package is not installed, CoACD failed,
            or the budget ran out (the process is ended).
        KeyboardInterrupt: Ctrl-C (the process is ended).
    """
    if importlib.util.find_spec("coacd") is None:
        raise ShapeError("decomposition", "\"coacd\" needs the optional package coacd "
                                          "(pip install coacd, or towerlab[meshes])")
    given = io.BytesIO()
    np.savez(given, vertices=np.asarray(body.vertices, dtype=float), faces=np.asarray(body.faces, dtype=np.int32),
             threshold=np.float64(threshold), most=np.int64(most))
    watch = Watch(f"CoACD decomposition of {what}", "raise its threshold (coarser parts), simplify the mesh or "
                  "use decomposition \"exact\"", seconds)
    proc = subprocess.Popen([sys.executable, str(CHILD), str(os.getpid())], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = _answer(proc, given.getvalue(), watch)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        watch.close()
    if proc.returncode != 0:
        lines = err.decode(errors="replace").strip().splitlines()
        raise ShapeError("decomposition", f"CoACD failed ({lines[-1] if lines else f'exit {proc.returncode}'})")
    with np.load(io.BytesIO(out), allow_pickle=False) as made:
        return [np.asarray(made[f"part_{i}"], dtype=float) for i in range(int(made["count"]))]


def _answer(proc: subprocess.Popen, given: bytes, watch: Watch) -> tuple[bytes, bytes]:
    """A child's stdout and stderr once it ends, ticking ``watch`` every second meanwhile."""
    try:
        return proc.communicate(given, timeout=1.0)
    except subprocess.TimeoutExpired:
        pass
    while True:
        watch.tick()
        try:
            return proc.communicate(timeout=1.0)
        except subprocess.TimeoutExpired:
            continue


def cache_folder() -> Path | None:
    """Where decompositions are kept: ``$TOWERLAB_CACHE``, else the user cache folder
    (``$XDG_CACHE_HOME`` or ``~/.cache``) ``/towerlab/decompositions``; None when switched off."""
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        return None if value.strip() in ("", "off") else Path(value).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "towerlab" / "decompositions"


def cached_parts(key: str, make: Callable[[], list[np.ndarray]]) -> list[np.ndarray]:
    """A body's convex parts from the disk cache, or made by ``make`` and kept there.

    The file is ``<key>.npz`` (plain arrays, no pickle), written atomically; a file that cannot
    be read as parts is made again, and a cache folder that cannot be written only costs the
    time. The key must name everything the parts depend on (the caller's: the mesh file's
    sha256, the scale, the decomposition and its settings, :data:`CACHE_VERSION`).

    Args:
        key: a file-name-safe digest.
        make: () -> the parts, (k, 3) vertex arrays each (mm), when they are not kept.
    """
    folder = cache_folder()
    path = None if folder is None else folder / f"{key}.npz"
    if path is not None and path.is_file():
        try:
            with np.load(path, allow_pickle=False) as kept:
                parts = [np.asarray(kept[f"part_{i}"], dtype=float) for i in range(int(kept["count"]))]
            if parts and all(p.ndim == 2 and p.shape[1] == 3 and len(p) >= 4 and np.isfinite(p).all()
                             for p in parts):
                return parts
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            pass  # damaged or foreign: made again below
    parts = make()
    if path is not None:
        buffer = io.BytesIO()
        np.savez(buffer, count=np.int64(len(parts)), **{f"part_{i}": p for i, p in enumerate(parts)})
        with contextlib.suppress(OSError):  # a read-only or full cache folder: the parts are made each time
            write_bytes(path, buffer.getvalue())
    return parts
