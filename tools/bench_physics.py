"""Benchmark of the physics side: the whole ``check`` verdict, the world's per-step overhead, tuned vs defaults.

Run once, at the end, on an otherwise idle machine::

    .venv/bin/python tools/bench_physics.py [--quick]

Prints a Markdown report (the figures in docs/physics.md come from it):

1. ``check`` (statics + 2 s of dynamics) for a 20-block harmonic stack, the
   55 Talo blocks, the 39-piece Babylon example and the 140-piece Babylon bench;
2. the world's per-step cost over a bare ``stepSimulation`` loop on the same
   bodies (the probe's gravity update and the blow-up watch);
3. pybullet with its default settings beside the tuned world: wall time per
   simulated second and whether the harmonic stacks come out right;
4. with ``--vault VAULT`` (compas_cra's Armadillo vault imported as the README
   says): ``check`` of it and of it without its supports, the witness's
   largest move and the wall-clock and CPU seconds of the statics, the
   witness's world and its run (each check in an interpreter of its own).

The statics have their own benchmark (``tools/bench_statics.py``); ``make
bench`` runs all three. Ratios are measured within one run, so a loaded
machine slows both sides alike.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.cases import harmonic_margin, harmonic_stack, talo_all_blocks  # noqa: E402
from sim.games.babylon.examples import bench_city  # noqa: E402
from sim.physics import BULLET_DEFAULTS, TUNED, World, check, simulate  # noqa: E402
from sim.physics.precision import tuned_for  # noqa: E402
from sim.physics.world import pb  # noqa: E402
from sim.scene import load_scene  # noqa: E402


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def bench_check(quick: bool) -> list[str]:
    rows = ["| scene | pieces | verdict | margin (g) | statics (ms) | dynamics (ms) | wall (s) |",
            "|---|---:|---|---:|---:|---:|---:|"]
    scenes = [("harmonic stack, 20 blocks at 0.98×", harmonic_stack(20, 0.98)),
              ("Talo, all 55 blocks", talo_all_blocks()),
              ("Babylon tactical example", load_scene(ROOT / "scenes/babylon/tactical-example.json")),
              ("Babylon bench, scenes/babylon/bench-140.json", bench_city())]
    for name, scene in scenes[:1] if quick else scenes:
        r, wall = timed(check, scene)
        rows.append(f"| {name} | {len(scene.pieces)} | {'stands' if r.stable else 'falls'} | {r.margin_g or 0:.4f} | "
                    f"{r.timings_ms['statics']:.0f} | {r.timings_ms['dynamics']:.0f} | {wall:.1f} |")
    return rows


def bench_vault(path: str, seconds: float) -> list[str]:
    """``check`` of compas_cra's Armadillo vault (imported as the README says) and of the same vault without its
    supports (every block falls): the witness's creep, and the wall-clock and CPU seconds (``time.process_time``:
    the steadier figure on a shared machine) of the statics, of building the witness's world and of its run,
    with the load average of the minute before each. Each in an interpreter of its own, as ``towerlab check``
    runs it: in one, the second would find the shapes and faces the first made (the same blocks)."""
    import multiprocessing

    rows = ["| scene | pieces | verdict | margin (g) | witness: largest move (mm) | knocked down | statics (s) | "
            "world (s) | run (s) | witness (s) | load |", "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    spawn = multiprocessing.get_context("spawn")
    for name, supports in (("Armadillo vault, 33 supports", True), ("the same without its supports", False)):
        with spawn.Pool(1) as pool:
            rows.append(pool.apply(_vault_row, (name, path, supports, seconds)))
    return rows


def _vault_row(name: str, path: str, supports: bool, seconds: float) -> str:
    """One row of :func:`bench_vault` (run in a fresh interpreter)."""
    scene = load_scene(path)
    if not supports:
        scene = scene.with_pieces([p for p in scene.pieces if not p.fixed])
    load = os.getloadavg()[0]
    r = check(scene, seconds)

    def both(*phases) -> str:
        wall, cpu = (sum(r.phases_ms[kind][p] for p in phases) / 1e3 for kind in ("wall", "cpu"))
        return f"{wall:.1f} / {cpu:.1f} CPU"

    return (f"| {name} | {len(scene.pieces)} | {'stands' if r.stable else 'falls'} | {r.margin_g or 0:.4f} | "
            f"{r.dynamics.max_displacement_mm:.4f} | {len(r.dynamics.knocked_down)} | {both('statics')} | "
            f"{both('world')} | {both('run')} | {both('world', 'run')} | {load:.1f} |")


def bench_overhead(steps: int, repeats: int) -> list[str]:
    """World.step against a bare stepSimulation loop on the very same client and bodies, all awake
    (``set_probe`` wakes every island before each round: a round is shorter than it takes to fall asleep)."""
    rows = ["| scene | bare loop (ms/step) | World.step (ms/step) | ratio |", "|---|---:|---:|---:|"]
    scenes = (("Talo, all 55 blocks", talo_all_blocks()), ("harmonic stack, 10 blocks", harmonic_stack(10, 0.98)))
    for name, scene in scenes:
        with World(scene) as world:
            world.step(steps)  # past the start
            bare, ours = [], []
            for _ in range(repeats):
                world.set_probe(TUNED.probe_g, 0.0)
                start = time.perf_counter()
                for _ in range(steps):
                    pb.stepSimulation(physicsClientId=world.client)
                bare.append(time.perf_counter() - start)
                world.set_probe(TUNED.probe_g, 0.0)
                start = time.perf_counter()
                world.step(steps)
                ours.append(time.perf_counter() - start)
        b, o = min(bare) / steps * 1e3, min(ours) / steps * 1e3  # the least disturbed of many rounds
        rows.append(f"| {name} | {b:.3f} | {o:.3f} | {o / b:.3f} |")
    return rows


def bench_defaults(quick: bool) -> list[str]:
    """pybullet's defaults beside the tuned world: right answers and wall time per simulated second."""
    rows = ["| case | expected | pybullet defaults | time/sim s | tuned | time/sim s | slower |",
            "|---|---|---|---:|---|---:|---:|"]
    cases = [(10, 0.95), (10, 1.05), (20, 0.98), (20, 1.02)]
    for n, scale in cases[:2] if quick else cases:
        scene = harmonic_stack(n, scale)
        margin = harmonic_margin(n, scale) if scale < 1 else None
        expected = "stands" if scale < 1 else "falls"
        answers = []
        for settings in (BULLET_DEFAULTS, tuned_for(margin, TUNED)):
            t, wall = timed(simulate, scene, 2.0, settings)
            answers.append(("falls" if t.moved else "stands", wall / t.seconds))
        (a_def, t_def), (a_tun, t_tun) = answers
        mark = {True: "right", False: "**wrong**"}
        rows.append(f"| harmonic n={n} × {scale} | {expected} | {a_def} ({mark[a_def == expected]}) | {t_def:.3f} s | "
                    f"{a_tun} ({mark[a_tun == expected]}) | {t_tun:.3f} s | {t_tun / t_def:.0f}× |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer cases (a smoke run, not for the figures)")
    parser.add_argument("--only", choices=("check", "overhead", "defaults", "vault"), help="run one section only")
    parser.add_argument("--vault", help="compas_cra's Armadillo vault as imported in the README (--snap 50): "
                                        "also check it, and it without its supports")
    parser.add_argument("--seconds", type=float, default=2.0, help="simulated time of the vault's checks (s)")
    args = parser.parse_args()
    if args.only in (None, "check"):
        print("## check: the whole verdict (statics + 2 s of dynamics)\n")
        print("\n".join(bench_check(args.quick)), flush=True)
    if args.only in (None, "overhead"):
        print("\n## per-step overhead of World over a bare pybullet loop\n")
        print("\n".join(bench_overhead(48, 5 if args.quick else 25)), flush=True)
    if args.only in (None, "defaults"):
        print("\n## pybullet defaults (fast but wrong) beside the tuned world\n")
        print("\n".join(bench_defaults(args.quick)), flush=True)
    if args.vault and args.only in (None, "vault"):
        print(f"\n## check of the Armadillo vault ({args.seconds:g} s of witness)\n")
        print("\n".join(bench_vault(args.vault, args.seconds)), flush=True)


if __name__ == "__main__":
    main()
