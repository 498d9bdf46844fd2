"""A piece's compound children (sim.physics.children) stay what they were, bit for bit, however they are computed.

``tests/data/physics/children.json`` holds the children (points, faces, frames, flags) and mesh scales that the
per-face code of 2026-12-07 (main at ac1a965) cut for a few hulls: arch voussoirs, a box, a random hull and four
blocks of compas_cra's Armadillo vault (one a support, two with hexagonal faces), each at three narrowings. A
faster cut must give exactly the same floats: the arches' agreement and the vault's witness were measured on them.
Run this file as a script to write the file again (only from code known to cut them as before).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data" / "physics" / "children.json"
SHRINKS = (0.0, 1.7e-5, 2.93e-5)


def _voussoir(inner: float, outer: float, a0: float, a1: float, depth: float) -> list:
    pts = np.array([[r * math.cos(a), y, r * math.sin(a)] for a in (a0, a1) for r in (inner, outer)
                    for y in (-depth / 2, depth / 2)])
    return (pts - (pts.min(axis=0) + pts.max(axis=0)) / 2).tolist()


def _hulls() -> dict[str, list]:
    """name -> vertices (mm, as a scene writes them) of the hulls the file records (the vault's blocks as
    ``towerlab import compas`` made them with ``--snap 50``)."""
    with DATA.open() as f:
        vault = json.load(f)["vault_blocks"]
    rng = np.random.default_rng(3)
    return {
        "crown voussoir": _voussoir(475.0, 525.0, math.radians(80), math.radians(100), 100.0),
        "springing voussoir": _voussoir(470.0, 530.0, math.radians(160), math.radians(180), 80.0),
        "140 mm box": [[x, y, z] for x in (-70.0, 70.0) for y in (-10.0, 10.0) for z in (-10.0, 10.0)],
        "random hull": (rng.normal(size=(12, 3)) * [120.0, 80.0, 200.0]).tolist(),
        **vault,
    }


def _shape(vertices):
    from sim.scene import from_dict

    spec = [{"id": "p", "kind": "hull", "vertices": vertices, "pos": [0.0, 0.0, 1.0]}]
    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "pieces": spec}, "<hull>")
    return scene.pieces[0].shape


def _record(shape, shrink: float) -> list[dict]:
    """The children of ``shape``'s compound at narrowing ``shrink``, and the scales they are loaded with."""
    from sim.physics import TUNED
    from sim.physics.children import file_of, plan, scale_of

    squeeze = np.array([1.0 - shrink, 1.0 - shrink, 1.0])
    out = []
    for c in plan(shape, TUNED, shrink):
        f = file_of(c)
        out.append({"points": np.asarray(c.points).tolist(),
                    "faces": None if c.faces is None else np.asarray(c.faces).tolist(),
                    "position": np.asarray(c.position).tolist(), "quat": np.asarray(c.quat).tolist(),
                    "sat": bool(c.sat), "pyramid": bool(c.pyramid),
                    "scale": [scale_of(c, f, squeeze, p).tolist() for p in (1, 2)]})
    return out


def _vault_blocks(path: str) -> dict[str, list]:
    from sim.scene import load_scene

    scene = load_scene(path)
    return {f"vault {p.id}": (np.asarray(p.shape.parts[0].vertices) * 1e3).tolist()
            for p in (scene.pieces[k] for k in (0, 40, 200, 398))}


with DATA.open() as _f:
    _WANT = json.load(_f)["children"]


@pytest.mark.parametrize("name", sorted(_WANT))
def test_the_children_of_a_hull_are_those_the_per_face_code_cut(name):
    shape = _shape(_hulls()[name])
    for shrink, want in zip(SHRINKS, _WANT[name]):
        got = _record(shape, shrink)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            for key in ("points", "faces", "position", "quat", "sat", "pyramid", "scale"):
                assert g[key] == w[key], (name, shrink, key)  # exactly the same floats


if __name__ == "__main__":  # python tests/test_physics_children.py VAULT.json: write the file (see the docstring)
    blocks = _vault_blocks(sys.argv[1])
    DATA.write_text(json.dumps({"vault_blocks": blocks, "children": {}}))
    hulls = _hulls()
    DATA.write_text(json.dumps({"vault_blocks": blocks,
                                "children": {n: [_record(_shape(v), s) for s in SHRINKS] for n, v in hulls.items()}},
                               separators=(",", ":")) + "\n")
