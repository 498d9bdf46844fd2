"""Convex parts as Wavefront files that pybullet turns into convex hulls (one file per distinct part).

pybullet builds a compound shape from several meshes only when they come as
files (``createCollisionShapeArray`` takes no vertex lists), so each part's
hull is written once per process into a private directory, named by a hash of
its vertices: equal parts share one file, and pybullet's file cache can never
mix up two different parts.
"""

from __future__ import annotations

import atexit
import hashlib
import shutil
import tempfile
from pathlib import Path

import numpy as np
import trimesh

_DIR: Path | None = None


def _directory() -> Path:
    global _DIR
    if _DIR is None or not _DIR.exists():
        _DIR = Path(tempfile.mkdtemp(prefix="towerlab-hulls-"))
        atexit.register(shutil.rmtree, _DIR, True)
    return _DIR


def hull_file(vertices: np.ndarray) -> str:
    """Path of a Wavefront file holding the convex hull of ``vertices``.

    Args:
        vertices: (k, 3) float, in the units the world counts in, centred
            near the origin (the part's own frame).

    Returns:
        The file's path (created on first use, reused afterwards).
    """
    v = np.ascontiguousarray(np.round(np.asarray(vertices, dtype=float), 12))
    key = hashlib.sha1(v.tobytes()).hexdigest()[:20]
    path = _directory() / f"{key}.obj"
    if not path.exists():
        hull = trimesh.convex.convex_hull(v)
        lines = [f"v {x:.12g} {y:.12g} {z:.12g}" for x, y, z in hull.vertices]
        lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in hull.faces]
        tmp = path.with_suffix(".tmp")
        tmp.write_text("\n".join(lines) + "\n")
        tmp.replace(path)
    return str(path)
