"""Frame rate of the viewer at 1280 x 800 with physics live: empty table, the full Talo stock, the
140-piece Babylon bench, a piece carried round in circles (the live quality; the camera turns a
little every frame so the full-quality still never steps in).

Each case runs in a process of its own, in a real window: on the desktop's display, else under an
Xvfb this script starts. Prints frames per second (wall), CPU milliseconds per frame (both of the
process's threads: Python and llvmpipe's), the real-time factor and the ratio to the empty table.
The machine is shared: read the ratios, and the CPU time, before the wall-clock figures. Talo's block
is carried from its stock to circles over the board; Babylon's noble from the top of the city in
circles over it.

    python tools/bench_view.py [--frames 150] [--size 1280x800] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CASES = {  # what is set up, the piece carried, the centre of its circle (mm; None: where it was)
    "empty": ("free", None, None),
    "talo": ("talo", "b2-8", (0.0, 0.0)),  # from the stock to circles over the board
    "babylon": (str(ROOT / "scenes" / "babylon" / "bench-140.json"), "n-red-small-28", None),  # over the city
}
LABELS = {"empty": "empty table", "talo": "Talo: board and full stock (61 pieces)",
          "babylon": "Babylon bench (140 pieces)"}


def run_case(name: str, frames: int, size: tuple[int, int]) -> dict:
    """One case, in this process: the window, a piece picked up and carried round."""
    import numpy as np

    from sim.scene import load_scene
    from sim.viewer.actions import action
    from sim.viewer.controller import Controller
    from sim.viewer.setup import setup
    from sim.viewer.window import ViewerWindow

    what, piece, around = CASES[name]
    if what.endswith(".json"):
        scene, supply = load_scene(what), ()
    else:
        scene = setup(what)
        supply = tuple(p.id for p in scene.pieces)
    controller = Controller(scene, threaded=True, size=size, supply=supply)
    window = ViewerWindow(controller, f"towerlab view bench {name}")
    step = window.taskMgr.step
    for _ in range(10):
        step()
    centre = np.zeros(2)
    if piece is not None:
        centre = controller.world.pose(piece)[:2] * 1000.0 if around is None else np.array(around)
        controller.apply(action("pick", piece=piece))

    def frame(k: int) -> None:
        if piece is not None:
            a = 2 * np.pi * k / 120
            controller.apply(action("move-to", at=list(centre + 60.0 * np.array([np.cos(a), np.sin(a)]))))
        controller.apply(action("orbit", degrees=[0.05, 0.0]))
        step()

    for k in range(40):
        frame(k)
    deadline = time.monotonic() + 60
    while controller.world.verdict_pending and time.monotonic() < deadline:  # the statics of the pick
        frame(0)
    start, cpu = time.perf_counter(), time.process_time()
    simulated = controller.world.time
    for k in range(frames):
        frame(k)
    wall = time.perf_counter() - start
    result = {"case": name, "pieces": len(scene.pieces), "frames": frames, "fps": frames / wall,
              "cpu_ms_per_frame": (time.process_time() - cpu) / frames * 1e3,
              "real_time_factor": (controller.world.time - simulated) / wall,
              "physics_ms_per_frame": float(np.mean(window.work_times[-frames:])) * 1e3}
    window.close()
    return result


def _display() -> tuple[dict, subprocess.Popen | None]:
    """An environment with a display: the desktop's, else a new Xvfb."""
    env = dict(os.environ)
    if env.get("DISPLAY"):
        return env, None
    if shutil.which("Xvfb") is None:
        raise SystemExit("bench_view: no DISPLAY and no Xvfb to start one (apt-get install xvfb)")
    number = next(n for n in range(150, 400) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    server = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1600x1200x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        if Path(f"/tmp/.X11-unix/X{number}").exists():
            break
        time.sleep(0.05)
    env["DISPLAY"] = f":{number}"
    return env, server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=150)
    parser.add_argument("--size", default="1280x800")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--case", choices=list(CASES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x"))
    if args.case:
        print(json.dumps(run_case(args.case, args.frames, size)))
        return
    env, server = _display()
    results = []
    try:
        for name in CASES:
            done = subprocess.run([sys.executable, __file__, "--case", name, "--frames", str(args.frames),
                                   "--size", args.size], env=env, capture_output=True, text=True, timeout=900)
            lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
            if done.returncode or not lines:
                raise SystemExit(f"bench_view: {name} failed:\n{done.stderr[-2000:]}")
            results.append(json.loads(lines[-1]))
    finally:
        if server is not None:
            server.terminate()
    empty = results[0]["fps"]
    for r in results:
        r["ratio_to_empty"] = r["fps"] / empty
    if args.json:
        print(json.dumps({"size": args.size, "load": os.getloadavg()[0], "results": results}, indent=2))
        return
    print(f"viewer at {args.size}, a piece carried round in circles, physics live "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"{'case':42s} {'fps':>6s} {'CPU ms/frame':>13s} {'real-time':>10s} {'vs empty':>9s}")
    for r in results:
        print(f"{LABELS[r['case']]:42s} {r['fps']:6.1f} {r['cpu_ms_per_frame']:13.1f} "
              f"{r['real_time_factor']:10.2f} {r['ratio_to_empty']:9.2f}")


if __name__ == "__main__":
    main()
