"""Frame rate and undo time of the viewer at 1280 x 800 with physics live: empty table, the full Talo
stock, the 140-piece Babylon bench, a piece carried round in circles (the live quality; the camera turns a
little every frame so the full-quality still never steps in).

Each case runs in a process of its own, in a real window: on the desktop's display, else under an
Xvfb this script starts. Prints frames per second (wall), CPU milliseconds per frame (both of the
process's threads: Python and llvmpipe's), the real-time factor and the ratio to the empty table.
The machine is shared: read the ratios, and the CPU time, before the wall-clock figures. Talo's block
is carried from its stock to circles over the board; Babylon's noble from the top of the city in
circles over it.

Then the carried piece is set down and, once everything rests, undone: at once (the undo makes its
engine then), and again (after a redo) once the window has made the undo ahead in its quiet frames
(``Controller.prepare_undo``; at most 20 s of frames: the camera stands still meanwhile). Each undo is
timed from the action to the end of the frame that draws it; "ahead in" is how long the quiet frames
took to make it, from the first in which the window starts.

``--against DIR`` runs every case also with the code of another checkout (``sim`` imported from DIR,
e.g. main), alternating, and prints the ratios of this code's figures to those.

    python tools/bench_view.py [--frames 150] [--size 1280x800] [--json] [--against DIR] [--rounds 1]
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

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CODE = Path(os.environ.get("TOWERLAB_BENCH_CODE") or ROOT)  # whose ``sim`` is measured (--against: another's)
sys.path.insert(0, str(CODE))

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

    from sim.games.setup import setup
    from sim.scene import load_scene
    from sim.viewer.actions import action
    from sim.viewer.controller import Controller
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
    if piece is not None:
        result.update(_undo_times(controller, window))
    window.close()
    return result


def _undo_times(controller, window) -> dict:
    """Set the carried piece down, then undo it at once and, after a redo, once the window has made it
    ahead in its idle frames (or 5 s of them have passed): milliseconds from the action to the frame drawn."""
    from sim.viewer.actions import action

    step = window.taskMgr.step
    after = getattr(sys.modules[type(window).__module__], "PREPARE_AFTER", None)  # an older window: none

    def rest(limit: float = 20.0) -> None:
        deadline = time.monotonic() + limit
        while not controller.quiet() and time.monotonic() < deadline:
            step()

    def undo() -> tuple[float, float]:
        start, cpu = time.perf_counter(), time.process_time()
        controller.apply(action("undo"))
        step()
        return (time.perf_counter() - start) * 1e3, (time.process_time() - cpu) * 1e3

    controller.apply(action("drop"))
    rest()
    at_once = undo()
    controller.apply(action("redo"))
    rest()
    state = controller.undo.undo[-1].moment.snapshot.state[0].state
    world = controller.world.live.world
    deadline, calm = time.monotonic() + 20.0, None
    while time.monotonic() < deadline and state not in getattr(world, "prepared", ()):
        step()
        if calm is None and after is not None and window.quiet_frames >= after:
            calm = time.monotonic()  # from here the window makes the undo ahead
    ready = time.monotonic() - calm if calm is not None and state in getattr(world, "prepared", ()) else None
    ahead = undo()
    return {"undo_ms": at_once[0], "undo_cpu_ms": at_once[1], "undo_ahead_ms": ahead[0],
            "undo_ahead_cpu_ms": ahead[1], "made_ahead_in_s": ready}


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


FIGURES = (("fps", "fps", ".1f"), ("cpu_ms_per_frame", "CPU ms/frame", ".1f"),
           ("real_time_factor", "real-time", ".2f"), ("undo_ms", "undo ms", ".0f"),
           ("undo_cpu_ms", "undo CPU ms", ".0f"), ("undo_ahead_ms", "made ahead ms", ".0f"),
           ("made_ahead_in_s", "ahead in s", ".1f"))


def _run(name: str, code: Path, args, env: dict) -> dict:
    """One case in a process of its own, ``sim`` imported from ``code``."""
    env = {**env, "TOWERLAB_BENCH_CODE": str(code)}
    done = subprocess.run([sys.executable, __file__, "--case", name, "--frames", str(args.frames), "--size",
                           args.size], env=env, capture_output=True, text=True, timeout=900)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        raise SystemExit(f"bench_view: {name} ({code}) failed:\n{done.stderr[-2000:]}")
    return json.loads(lines[-1])


def _median(runs: list[dict]) -> dict:
    out = dict(runs[0])
    for key, _, _ in FIGURES:
        values = [r[key] for r in runs if r.get(key) is not None]
        out[key] = float(np.median(values)) if values else None
    return out


def _cell(value, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=150)
    parser.add_argument("--size", default="1280x800")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--against", type=Path, help="another checkout to measure alternately (e.g. /work/main)")
    parser.add_argument("--rounds", type=int, default=1, help="runs of every case (medians are printed)")
    parser.add_argument("--case", choices=list(CASES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x"))
    if args.case:
        print(json.dumps(run_case(args.case, args.frames, size)))
        return
    codes = [ROOT] + ([args.against.resolve()] if args.against else [])
    load = [os.getloadavg()[0]]
    env, server = _display()
    runs: dict = {}
    try:
        for _ in range(args.rounds):
            for name in CASES:
                for code in codes:  # alternating, so that both meet the same load
                    runs.setdefault((str(code), name), []).append(_run(name, code, args, env))
    finally:
        if server is not None:
            server.terminate()
    load.append(os.getloadavg()[0])
    results = {key: _median(r) for key, r in runs.items()}
    for code in codes:
        empty = results[(str(code), "empty")]["fps"]
        for name in CASES:
            results[(str(code), name)]["ratio_to_empty"] = results[(str(code), name)]["fps"] / empty
    if args.json:
        print(json.dumps({"size": args.size, "load": load, "rounds": args.rounds,
                          "results": [{"code": code, **r} for (code, _), r in results.items()]}, indent=2))
        return
    print(f"viewer at {args.size}, a piece carried round in circles, physics live; then set down and undone "
          f"(load average {load[0]:.1f} to {load[1]:.1f} on {os.cpu_count()} cores; medians of {args.rounds})")
    print(f"{'case':42s} {'code':>6s}" + "".join(f" {label:>13s}" for _, label, _ in FIGURES) + f" {'vs empty':>9s}")
    for name in CASES:
        rows = [results[(str(code), name)] for code in codes]
        for code, r in zip(codes, rows):
            tag = "this" if code == ROOT else "other"
            print(f"{LABELS[name]:42s} {tag:>6s}" + "".join(f" {_cell(r.get(k), f):>13s}" for k, _, f in FIGURES)
                  + f" {r['ratio_to_empty']:9.2f}")
        if len(rows) == 2:
            ratios = [None if rows[0].get(k) is None or not rows[1].get(k) else rows[0][k] / rows[1][k]
                      for k, _, _ in FIGURES]
            print(f"{'':42s} {'ratio':>6s}" + "".join(f" {_cell(v, '.2f'):>13s}" for v in ratios))
    if len(codes) == 2:
        print(f"(this: {ROOT}; other: {codes[1]})")


if __name__ == "__main__":
    main()
