"""Pieces as files pybullet loads: each convex part a Wavefront hull, large pieces a URDF link.

A piece is one rigid body whose collision shape is the compound of its
convex parts. pybullet builds compounds of meshes only from files
(``createCollisionShapeArray`` takes no vertex lists), and that call holds at
most 16 shapes, writing past its buffer beyond (a Babylon bridge has 33
parts); larger pieces are therefore written as a URDF link with one
``<collision>`` per part and their inertial frame. Files go once per process
into a private directory, named by a hash of their content: equal parts
share one file, and pybullet's file cache can never mix up two different ones.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import trimesh

_DIR: Path | None = None
_BODIES: dict = {}
"""The arguments of :func:`body_file` -> its path: a body remade as it was (an undo) formats and hashes nothing."""
REMEMBERED = 4096
"""Entries a memo of file names keeps at most (then it starts again): bodies differ by their narrowing and how
they lie, and a long sweep of random trials must not grow it without end."""


def remember(memo: dict, key, value):
    """Keep ``value`` under ``key`` in ``memo`` (emptied first when full); returns ``value``."""
    if len(memo) >= REMEMBERED:
        memo.clear()
    memo[key] = value
    return value


MEMORY = Path("/dev/shm")
"""Where the files go when it is there (a directory in memory: a vault's 3 800 hull files took 2 ms each to write
on a busy disk, 0.2 ms here); the system's temporary directory otherwise."""


def _directory() -> Path:
    global _DIR
    if _DIR is None or not _DIR.exists():
        where = str(MEMORY) if MEMORY.is_dir() and os.access(MEMORY, os.W_OK) else None
        _DIR = Path(tempfile.mkdtemp(prefix="towerlab-hulls-", dir=where))
        atexit.register(shutil.rmtree, _DIR, True)
    return _DIR


def hull_directory() -> str:
    """The directory the files are written to (a new one if it was taken away: files named before are gone)."""
    return str(_directory())


def _write(path: Path, text: str) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def hull_file(vertices: np.ndarray, faces: np.ndarray | None = None) -> str:
    """Path of a Wavefront file holding the convex hull of ``vertices``.

    Args:
        vertices: (k, 3) float, in the units the world counts in, centred
            near the origin (the part's own frame).
        faces: (f, 3) int triangles of their hull, when known (a part's hull
            keeps its faces under any linear map); computed otherwise.

    Returns:
        The file's path (created on first use, reused afterwards).
    """
    v = np.ascontiguousarray(np.round(np.asarray(vertices, dtype=float), 12))
    key = hashlib.sha1(v.tobytes()).hexdigest()[:20]
    path = _directory() / f"{key}.obj"
    if not path.exists():
        if faces is None:
            hull = trimesh.convex.convex_hull(v)
            v, faces = hull.vertices, hull.faces
        lines = [f"v {x:.12g} {y:.12g} {z:.12g}" for x, y, z in v]
        lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in faces]
        _write(path, "\n".join(lines) + "\n")
    return str(path)


def face_corners(hull: trimesh.Trimesh) -> int:
    """The most corners any face of a convex hull has (coplanar triangles merged into one face).

    A convex face of k corners is triangulated into k - 2 triangles (a hull has no points inside
    its faces).

    Args:
        hull: a convex part's hull.
    """
    return max((len(facet) for facet in hull.facets), default=1) + 2


def body_file(parts: list, mass: float, com, rpy, moments) -> str:
    """Path of a URDF file with one link: the given hulls as its collision shape, and its inertia.

    Args:
        parts: (hull file, (3,) position of the hull's frame in the link frame (world units), (3,) its roll,
            pitch and yaw (rad), (3,) its mesh scale along its own axes) per hull.
        mass: kg; 0 for a static body.
        com: (3,) centre of mass in the link frame (world units).
        rpy: (3,) roll, pitch, yaw (rad) of the principal axes in the link frame.
        moments: (3,) principal moments of inertia (kg · unit²).
    """
    key = (tuple((name, *(np.asarray(v, dtype=float).tobytes() for v in rest)) for name, *rest in parts),
           *(np.asarray(v, dtype=float).tobytes() for v in (com, rpy, moments)), float(mass), hull_directory())
    if key in _BODIES:
        return _BODIES[key]

    def xyz(v) -> str:
        return " ".join(f"{float(x):.17g}" for x in v)

    # one element a line: pybullet's reader breaks lines longer than its buffer (about 8 kB), and a mesh's file
    # name split across two lines is a file it cannot find (a compound of 43 hulls failed at its 34th)
    collisions = "".join(f'\n<collision><origin xyz="{xyz(pos)}" rpy="{xyz(turn)}"/><geometry><mesh filename="{name}" '
                         f'scale="{xyz(scale)}"/></geometry></collision>' for name, pos, turn, scale in parts)
    ixx, iyy, izz = (f"{float(m):.15g}" for m in moments)
    text = (f'<?xml version="1.0"?><robot name="piece"><link name="body"><inertial>'
            f'<origin xyz="{xyz(com)}" rpy="{xyz(rpy)}"/><mass value="{float(mass):.15g}"/>'
            f'<inertia ixx="{ixx}" ixy="0" ixz="0" iyy="{iyy}" iyz="0" izz="{izz}"/></inertial>'
            f"{collisions}\n</link></robot>\n")
    path = _directory() / f"{hashlib.sha1(text.encode()).hexdigest()[:20]}.urdf"
    if not path.exists():
        _write(path, text)
    return remember(_BODIES, key, str(path))
