"""Benchmark: towerlab's renderer against pybullet's TinyRenderer on a 55-block Talo scene.

Both draw the same scene (every block, the board and its printed grid) from the
same camera at the same size; the script prints images per second for each
(towerlab with 4x multisampling, its default, and with FXAA) and saves the two
pictures side by side to docs/images/render-vs-tinyrenderer.png. Times are the
median of --repeat pictures after a warm-up, wall clock and CPU (all threads);
llvmpipe draws with LP_NUM_THREADS threads (default: one per core),
TinyRenderer with one.

    .venv/bin/python tools/bench_render.py [--size 1024] [--repeat 5] [--scene FILE]

The scene is scenes/talo/all-55-blocks.json when it exists, else
scenes/talo/render-skyline.json (also all 55 blocks).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.atomic import write_bytes  # noqa: E402
from sim.render import default_renderer, scene_camera  # noqa: E402
from sim.render.looks import LIGHTING  # noqa: E402
from sim.render.surfaces import piece_surfaces  # noqa: E402
from sim.scene import load_scene  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCENES = (ROOT / "scenes/talo/all-55-blocks.json", ROOT / "scenes/talo/render-skyline.json")
OUT = ROOT / "docs/images/render-vs-tinyrenderer.png"
TINY_DECAL_LIFT = 2e-4  # m per decal layer: TinyRenderer has no depth offset


def default_scene() -> Path:
    """The first of the 55-block scenes that exists."""
    return next(p for p in SCENES if p.exists())


def _cpu() -> float:
    """CPU seconds used by this process so far, all threads (llvmpipe draws on worker threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def time_calls(fn, repeat: int) -> tuple[float, float, object]:
    """Wall and CPU seconds per call (each the median of ``repeat``, after one warm-up call) and the last result.

    The machine may be shared: wall time then depends on the load, CPU time
    (the work done) much less.
    """
    result = fn()
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), _cpu()
        result = fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(_cpu() - cpu)
    return float(np.median(walls)), float(np.median(cpus)), result


class TinyScene:
    """The scene as pybullet bodies with mesh visual shapes (no collision shapes: drawing only)."""

    def __init__(self, scene):
        import pybullet as pb

        self.pb = pb
        self.client = pb.connect(pb.DIRECT)
        items = [(p.shape, p.pos, p.quat) for p in scene.pieces]
        board = scene.board_info
        if board.shape is not None:
            items.append((board.shape, tuple(board.pos), (0.0, 0.0, 0.0, 1.0)))
        for shape, pos, quat in items:
            for surface in piece_surfaces(shape):
                vertices = surface.positions.astype(float)
                vertices[:, 2] += surface.layer * TINY_DECAL_LIFT
                visual = pb.createVisualShape(
                    pb.GEOM_MESH, vertices=vertices.tolist(), indices=list(range(len(vertices))),
                    normals=surface.normals.astype(float).tolist(),
                    rgbaColor=surface.colors[0].astype(float).tolist(), physicsClientId=self.client)
                pb.createMultiBody(0.0, -1, visual, basePosition=pos, baseOrientation=quat,
                                   physicsClientId=self.client)

    def render(self, camera, key) -> np.ndarray:
        """(h, w, 4) uint8 from TinyRenderer with its shadows on."""
        pb = self.pb
        w, h = camera.size
        view = pb.computeViewMatrix(camera.eye, camera.target, camera.up)
        proj = pb.computeProjectionMatrixFOV(camera.fov_y, w / h, camera.near, camera.far)
        _, _, rgba, _, _ = pb.getCameraImage(w, h, view, proj, renderer=pb.ER_TINY_RENDERER, shadow=1,
                                             lightDirection=(key * 10.0).tolist(),
                                             flags=pb.ER_NO_SEGMENTATION_MASK, physicsClientId=self.client)
        return np.asarray(rgba, dtype=np.uint8).reshape(h, w, 4)

    def close(self) -> None:
        self.pb.disconnect(physicsClientId=self.client)


def side_by_side(ours: np.ndarray, tiny: np.ndarray, ours_label: str, tiny_label: str, path: Path) -> None:
    """Save the two pictures next to each other with a caption under each."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    h, w = ours.shape[:2]
    dpi = 100
    fig = plt.figure(figsize=(2 * w / dpi, (h + 70) / dpi), dpi=dpi)
    for i, (image, label) in enumerate(((ours, ours_label), (tiny, tiny_label))):
        ax = fig.add_axes((i / 2, 70 / (h + 70), 0.5, h / (h + 70)))
        ax.imshow(image[..., :3], interpolation="nearest")
        ax.set_axis_off()
        fig.text(i / 2 + 0.25, 35 / (h + 70), label, ha="center", va="center", fontsize=18)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    plt.close(fig)
    write_bytes(path, buf.getvalue())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024, help="pixels per side (default 1024)")
    parser.add_argument("--repeat", type=int, default=5, help="timed pictures per renderer (default 5)")
    parser.add_argument("--scene", type=Path, default=None, help="scene file (default: the 55-block scene)")
    parser.add_argument("--out", type=Path, default=OUT, help="side-by-side picture")
    args = parser.parse_args(argv)
    path = args.scene or default_scene()
    scene = load_scene(path)
    size = (args.size, args.size)
    camera = scene_camera(scene, size, "iso")
    key = LIGHTING.key_direction(camera.basis[2])

    load = os.getloadavg()[0]
    renderer = default_renderer()
    ours_s, ours_cpu, ours_image = time_calls(lambda: renderer.render(scene, size), args.repeat)
    graph = renderer.graph(scene)
    frame_s, _, _ = time_calls(lambda: renderer.render_graph(graph, camera), args.repeat)
    fast = default_renderer("fxaa")
    fast_s, fast_cpu, _ = time_calls(lambda: fast.render(scene, size), args.repeat)

    tiny = TinyScene(scene)
    tiny_s, tiny_cpu, tiny_image = time_calls(lambda: tiny.render(camera, key), args.repeat)
    tiny.close()

    result = {
        "scene": str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path),
        "pieces": len(scene.pieces), "size": list(size), "renderer": renderer.backend.name,
        "llvmpipe_threads": int(os.environ.get("LP_NUM_THREADS", os.cpu_count())),
        "load_average_before": round(load, 2),
        "towerlab_images_per_s": round(1.0 / ours_s, 2),
        "towerlab_same_graph_images_per_s": round(1.0 / frame_s, 2),
        "towerlab_fxaa_images_per_s": round(1.0 / fast_s, 2),
        "tinyrenderer_images_per_s": round(1.0 / tiny_s, 2),
        "speedup": round(tiny_s / ours_s, 2),
        "speedup_fxaa": round(tiny_s / fast_s, 2),
        "cpu_s_per_image": {"towerlab": round(ours_cpu, 3), "towerlab_fxaa": round(fast_cpu, 3),
                            "tinyrenderer": round(tiny_cpu, 3)},
    }
    side_by_side(ours_image, tiny_image,
                 f"towerlab (Panda3D, {renderer.backend.name}, 4x MSAA): {1 / ours_s:.2f} images/s",
                 f"pybullet TinyRenderer: {1 / tiny_s:.2f} images/s", args.out)
    result["picture"] = str(args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
