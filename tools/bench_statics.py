"""Benchmark the statics: Talo 55s, two Babylon scenes, harmonic stacks beside compas_cra's rigid-block equilibrium.

Run once, at the end, on a quiet machine: `.venv/bin/python tools/bench_statics.py`.
compas_cra is the optional `bench` extra (`.venv/bin/pip install compas_cra`);
without it only our side is measured. Ratios are measured in the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.cases import (
    harmonic_stack,  # noqa: E402
    talo_all_blocks,  # noqa: E402
)
from sim.contact import find_interfaces  # noqa: E402
from sim.scene import load_scene  # noqa: E402
from sim.statics import analyze  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TALO_55 = ROOT / "scenes" / "talo" / "all-55-blocks.json"
SETTLED = ROOT / "tests" / "data" / "statics" / "talo-pyramid-settled.json"  # tilted by 4e-7 rad: the LP's restart
BABYLON = ROOT / "scenes" / "babylon"
CRA_TENSION = 1e-4  # compas_cra's verdict: unstable when it needs tension above this share of a block's weight

# A game-like structure of all 55 blocks, grown one block at a time where the statics kept it stable
# (margin at least 0.08 g): sparser than the stepped pyramid, and it leans on side contacts (vertical
# forces alone cannot hold it): the expensive case, where every bound of the margin comes from
# support evaluations with an exact Coulomb cone. Kept with the tests (tests/test_statics_paths.py).
GAME_55 = ROOT / "tests" / "data" / "statics" / "talo-game-55.json"


def game_55():
    """The game-like 55-block Talo structure as a scene."""
    return load_scene(GAME_55)


def timed(fn, repeat: int):
    """(best wall time in ms, last result) of ``repeat`` calls: the least disturbed on a shared machine."""
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - start) * 1e3)
    return min(times), out


@contextlib.contextmanager
def quiet():
    """Silence stdout, also what native code writes to file descriptor 1."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
        try:
            with contextlib.redirect_stdout(null):
                yield
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def cra_verdict(scene):
    """compas_cra on a scene of boxes: (stable by its tension, ms for the assembly + interfaces, ms to solve)."""
    from compas.geometry import Box, Frame
    from compas_assembly.datastructures import Block
    from compas_cra.algorithms import assembly_interfaces_numpy
    from compas_cra.datastructures import CRA_Assembly
    from compas_cra.equilibrium import rbe_solve

    start = time.perf_counter()
    asm = CRA_Assembly()
    supports = []
    for p in scene.pieces:
        sx, sy, sz = p.params["size"]
        key = asm.add_block(Block.from_shape(Box(sx, sy, sz, frame=Frame([c * 1000 for c in p.pos], [1, 0, 0],
                                                                          [0, 1, 0]))))
        if p.fixed:
            supports.append(key)
    asm.set_boundary_conditions(supports)
    assembly_interfaces_numpy(asm, amin=1e-6, tmax=1e-4)
    found = time.perf_counter()
    density = 1e-6
    with quiet():
        rbe_solve(asm, mu=0.5, density=density)
    solved = time.perf_counter()
    block_weight = density * scene.pieces[-1].params["size"][0] * scene.pieces[-1].params["size"][1] * \
        scene.pieces[-1].params["size"][2]
    tension = max((f["c_nn"] for e in asm.graph.edges() for i in asm.graph.edge_attribute(e, "interfaces")
                   for f in i.forces), default=0.0)
    return tension < CRA_TENSION * block_weight, (found - start) * 1e3, (solved - found) * 1e3


def scenes() -> list[tuple[str, object, int]]:
    """(name, scene, timed runs divisor) of the benchmark's larger scenes: four Talo 55s and two Babylon ones."""
    return [("talo all-55-blocks (stepped pyramid)", load_scene(TALO_55), 1),
            ("talo pyramid after 0.025 s of pybullet", load_scene(SETTLED), 1),
            ("talo game-like 55", game_55(), 1),
            ("talo 55 as a mat (sim.cases)", talo_all_blocks(), 1),
            ("babylon tactical-example", load_scene(BABYLON / "tactical-example.json"), 1),
            ("babylon bench-140", load_scene(BABYLON / "bench-140.json"), 2)]


def bench_talo(repeat: int) -> list[dict]:
    rows = []
    for name, scene, divisor in scenes():
        runs = max(1, repeat // divisor)
        analyze(scene)  # warm the catalogue caches
        t_if, ifaces = timed(lambda s=scene: find_interfaces(s), runs)
        t_feas, _ = timed(lambda s=scene: analyze(s, margin=False), runs)
        t_all, r = timed(lambda s=scene: analyze(s), runs)
        rows.append({"scene": name, "pieces": len(scene.pieces), "interfaces": len(ifaces), "stable": r.stable,
                     "margin_g": round(r.margin_g, 4), "lp_solves": r.lp_solves, "ms_interfaces": round(t_if, 1),
                     "ms_feasibility_incl_interfaces": round(t_feas, 1), "ms_statics_incl_interfaces": round(t_all, 1)})
    return rows


def bench_against(checkout: Path, repeat: int) -> list[dict]:
    """The larger scenes' full statics, ours beside another checkout's (main's, before a change), in turns.

    Each of the other checkout's runs is a process of its own (``bench_assemblies.against``: one
    feasibility and one full analysis after a warm-up), taking turns with one of ours; each figure is
    the best of ``repeat`` (wall and CPU, ms).
    """
    from bench_assemblies import against

    from sim.scene import save_scene

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, scene, _ in scenes():
            path = save_scene(scene, Path(folder) / "scene.json")
            analyze(scene)
            theirs, wall, cpu = [], [], []
            for _ in range(repeat):
                theirs.append(against(checkout, path))
                t, c = time.perf_counter(), time.process_time()
                r = analyze(scene)
                wall.append((time.perf_counter() - t) * 1e3)
                cpu.append((time.process_time() - c) * 1e3)
            rows.append({"scene": name, "margin_g": r.margin_g, "weakest_deg": r.weakest_direction_deg,
                         "solves": r.lp_solves, "ms_with_margin": round(min(wall), 1),
                         "cpu_ms_with_margin": round(min(cpu), 1),
                         "against": {"margin_g": theirs[0]["margin_g"], "weakest_deg": theirs[0]["weakest_deg"],
                                     "solves": theirs[0]["solves"],
                                     "ms_with_margin": round(min(t["ms_with_margin"] for t in theirs), 1),
                                     "cpu_ms_with_margin": round(min(t["cpu_ms_with_margin"] for t in theirs), 1)}})
    return rows


def spread(runs: int = 30) -> dict:
    """Best and median of ``runs`` full analyses of the Talo pyramid (ms): the 50 ms goal, in the median too."""
    scene = load_scene(TALO_55)
    analyze(scene)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        analyze(scene)
        times.append((time.perf_counter() - start) * 1e3)
    return {"runs": runs, "ms_best": round(min(times), 1), "ms_median": round(float(np.median(times)), 1)}


def bench_harmonic(repeat: int, with_cra: bool, cra_repeat: int) -> list[dict]:
    """Ours (feasibility alone, and with the margin) beside compas_cra on the harmonic stacks.

    The two are timed in alternating rounds (ours ``repeat`` times over, compas_cra's once per round), so
    that a slow spell of the shared machine slows both alike; each figure is its best.
    """
    rows = []
    for n in range(2, 21):
        for scale in (0.98, 1.02):
            scene = harmonic_stack(n, scale)
            rounds = cra_repeat if with_cra else 1
            feas_times, all_times, cra_runs = [], [], []
            for _ in range(rounds):
                t, feas = timed(lambda s=scene: analyze(s, margin=False), max(1, repeat // rounds))
                feas_times.append(t)
                t, full = timed(lambda s=scene: analyze(s), max(1, repeat // rounds))
                all_times.append(t)
                if with_cra:
                    cra_runs.append(cra_verdict(scene))
            t_feas, t_all = min(feas_times), min(all_times)
            row = {"n": n, "scale": scale, "ours_stable": full.stable, "ms_ours_feasibility": round(t_feas, 2),
                   "ms_ours_with_margin": round(t_all, 2)}
            if with_cra:
                stable = cra_runs[-1][0]
                t_build, t_solve = min(r[1] for r in cra_runs), min(r[2] for r in cra_runs)
                row.update(cra_stable=stable, ms_cra_interfaces=round(t_build, 1), ms_cra_solve=round(t_solve, 1),
                           same_verdict=stable == full.stable and feas.feasible == full.feasible)
            rows.append(row)
    return rows


def _against_table(rows: list[dict]) -> str:
    lines = [f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores shared); full statics with "
             "the margin, ms, best of the runs; theirs -> ours"]
    for r in rows:
        a = r["against"]
        lines.append(f"  {r['scene']:38s} margin {a['margin_g']:.7f} -> {r['margin_g']:.7f} g"
                     f"  direction {a['weakest_deg']:.3f} -> {r['weakest_deg']:.3f}"
                     f"  solves {a['solves']} -> {r['solves']}"
                     f"  wall {a['ms_with_margin']:8.1f} -> {r['ms_with_margin']:8.1f}"
                     f"  CPU {a['cpu_ms_with_margin']:8.1f} -> {r['cpu_ms_with_margin']:8.1f}"
                     f"  ({a['cpu_ms_with_margin'] / r['cpu_ms_with_margin']:.2f}x less CPU)")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5,
                        help="timed runs of ours per case (best of); 8× that on the harmonic stacks")
    parser.add_argument("--cra-repeat", type=int, default=5,
                        help="timed runs of compas_cra per case (best of), alternating with ours")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--against", type=Path, help="another checkout (main's, before a change): the larger "
                        "scenes' full statics timed beside ours, in turns, and nothing else")
    args = parser.parse_args(argv)
    if args.against is not None:
        rows = bench_against(args.against, args.repeat)
        print(json.dumps({"load_average": os.getloadavg(), "against": str(args.against), "scenes": rows}, indent=1)
              if args.json else _against_table(rows))
        return 0
    try:
        import compas_cra  # noqa: F401
        with_cra = True
    except ImportError:
        with_cra = False
    load = os.getloadavg()
    talo = bench_talo(args.repeat)
    pyramid = spread()
    harmonic = bench_harmonic(8 * args.repeat, with_cra, args.cra_repeat)
    if args.json:
        print(json.dumps({"load_average": load, "talo": talo, "pyramid_spread": pyramid, "harmonic": harmonic},
                         indent=2))
        return 0
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 cores shared)")
    print(f"\nTalo 55s and Babylon (best of {args.repeat} runs, of {args.repeat // 2} for bench-140; ms)")
    for r in talo:
        print(f"  {r['scene']:38s} {r['pieces']:4d} pieces {r['interfaces']:4d} interfaces"
              f"  stable={r['stable']}  margin {r['margin_g']:.4f} g"
              f"  LPs {r['lp_solves']:3d}  interfaces {r['ms_interfaces']:7.1f}"
              f"  feasibility {r['ms_feasibility_incl_interfaces']:7.1f}"
              f"  with margin {r['ms_statics_incl_interfaces']:7.1f}")
    print(f"\nTalo pyramid, full statics with interfaces, {pyramid['runs']} runs: best {pyramid['ms_best']} ms,"
          f" median {pyramid['ms_median']} ms (goal: 50 ms)")
    print(f"\nHarmonic stacks (ms, best of {8 * args.repeat} / {args.cra_repeat}, alternating;"
          " ours include finding the interfaces;"
          " speed-ups: compas_cra's interfaces + solve over ours)")
    head = "   n  scale  ours  feas-only  +margin"
    if with_cra:
        head += "   cra  cra-interfaces  cra-solve  same  speed-up(feas)  speed-up(+margin)  vs cra-solve"
    print(head)
    for r in harmonic:
        line = f"  {r['n']:2d}  {r['scale']:.2f}  {'S' if r['ours_stable'] else 'F'}  {r['ms_ours_feasibility']:9.2f}" \
               f"  {r['ms_ours_with_margin']:7.2f}"
        if with_cra:
            cra_total = r["ms_cra_interfaces"] + r["ms_cra_solve"]
            line += f"   {'S' if r['cra_stable'] else 'F'}  {r['ms_cra_interfaces']:14.1f}  {r['ms_cra_solve']:9.1f}" \
                    f"  {'yes' if r['same_verdict'] else 'NO':>4s}  {cra_total / r['ms_ours_feasibility']:14.1f}" \
                    f"  {cra_total / r['ms_ours_with_margin']:17.1f}" \
                    f"  {r['ms_cra_solve'] / r['ms_ours_with_margin']:12.1f}"
        print(line)
    if not with_cra:
        print("\ncompas_cra is not installed (pip install compas_cra): no comparison")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
