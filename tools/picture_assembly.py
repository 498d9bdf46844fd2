"""A picture of a scene with its statics: the weakest direction drawn as an arrow, the margin in the caption.

`.venv/bin/python tools/picture_assembly.py SCENE.json -o docs/images/armadillo.png`
(the README's picture of the Armadillo vault: `towerlab import compas
.../compas_cra/data/samples/armadillo_cra.json -o vault.json --snap 50` first).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.render import render_scene  # noqa: E402
from sim.render.camera import scene_camera  # noqa: E402
from sim.scene import load_scene  # noqa: E402
from sim.statics import analyze  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scene", type=Path)
    parser.add_argument("-o", "--out", type=Path, required=True, help="the PNG to write")
    parser.add_argument("--size", default="1200x800", help="WIDTHxHEIGHT in pixels")
    parser.add_argument("--camera", default="iso", help="iso, front, side or top")
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    w, h = (int(x) for x in args.size.lower().split("x"))
    scene = load_scene(args.scene, solid=True)
    result = analyze(scene)
    image = render_scene(scene, size=(w, h), camera=args.camera)
    camera = scene_camera(scene, (w, h), args.camera)
    free = [p for p in scene.pieces if not p.fixed]
    masses = np.array([p.mass for p in free])
    centre = (masses[:, None] * np.array([p.pos for p in free])).sum(axis=0) / masses.sum()
    top = max(p.pos[2] + p.shape.extent[2] / 2 for p in free)
    span = float(np.ptp(np.array([p.pos for p in scene.pieces])[:, :2], axis=0).max())
    theta = math.radians(result.weakest_direction_deg)
    start = np.array([centre[0], centre[1], top])
    end = start + 0.3 * span * np.array([math.cos(theta), math.sin(theta), 0.0])
    (x0, y0), (x1, y1) = camera.project(np.array([start, end]))[:, :2]
    fig = plt.figure(figsize=(w / 100, h / 100), dpi=100)
    ax = fig.add_axes([0, 0, 1, 1])
    ax.imshow(image)
    ax.set_axis_off()
    ax.annotate("", xy=(x1, y1), xytext=(x0, y0),
                arrowprops={"arrowstyle": "-|>,head_width=0.6,head_length=1.2", "color": "#c0392b", "lw": 4})
    blocks = len(scene.pieces)
    seconds = result.timings_ms["total"] / 1000.0
    ax.text(0.02, 0.03, f"{scene.title or args.scene.stem}: {blocks} blocks ({blocks - len(free)} fixed), "
                        f"{len(result.interfaces)} contacts; stands, margin {result.margin_g:.3f} g, weakest towards "
                        f"{result.weakest_direction_deg:.1f}° (arrow); statics {seconds:.1f} s",
            transform=ax.transAxes, fontsize=12, color="black",
            bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none"})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}: margin {result.margin_g:.4f} g towards {result.weakest_direction_deg:.1f}°")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
