"""Write the visual mesh of every catalogue variant and board to sim/data/meshes/ (glTF binary, package data).

Run after changing anything in sim/pieces: `.venv/bin/python tools/build_meshes.py`.
Files are written atomically; a manifest records each file's fingerprint so that
the test suite notices when the meshes no longer match the catalogue.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.atomic import write_bytes  # noqa: E402
from sim.pieces import all_variants, board  # noqa: E402
from sim.pieces.boards import BOARDS  # noqa: E402
from sim.pieces.mesh import MANIFEST, fingerprint, glb_bytes, mesh_path  # noqa: E402

OUT = ROOT / "sim" / "data" / "meshes"  # what sim.pieces.mesh.MESH_DIR reads in a checkout


def mesh_shapes():
    """Every shape that gets a mesh file: the catalogue's variants and the finite boards."""
    shapes = all_variants()
    shapes += [board(name).shape for name in BOARDS if board(name).shape is not None]
    return shapes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="directory (default: sim/data/meshes/)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    manifest = {}
    for shape in mesh_shapes():
        path = mesh_path(shape, args.out)
        write_bytes(path, glb_bytes(shape))
        manifest[path.name] = fingerprint(shape)
    stale = [p for p in args.out.glob("*.glb") if p.name not in manifest]
    for p in stale:
        p.unlink()
    write_bytes(args.out / MANIFEST, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    print(f"wrote {len(manifest)} meshes to {args.out}" + (f", removed {len(stale)} stale" if stale else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
