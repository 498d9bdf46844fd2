"""Benchmark of ``towerlab experiment``: trials/s of statics and simulated trials, 1 vs 2 cores, Dask vs the pool.

Scene: the Talo rulebook's counterweight (a 4 and a 1 on a standing 1), with
placement noise of 4 mm (P(collapse) about 0.3, so trials both stand and fall).

- statics trials (exact, with the margin) and simulated trials (2 s after the
  start), each in this process (1 core) and on 2 local processes;
- the same on a Dask LocalCluster of 2 single-threaded worker processes (warmed
  up: a running cluster's workers have imported towerlab), against the
  2-process local pool, which starts its processes for every run (the issue's
  goal: at most 10% overhead).

Rates are given twice: over the whole run (process start-up included: a
spawned worker imports numpy, scipy, shapely and pybullet, 1-3 s) and in the
steady state (from the first batch back to the last). The machine is shared:
read ratios from one run, not absolute times. ``--quick`` runs a tenth.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(exp, trials, **where):
    """(wall s, steady trials/s, result) of one run."""
    from sim.experiments import run

    marks = []
    start = time.perf_counter()
    result = run(exp, trials, progress=lambda done, total: marks.append((time.perf_counter(), done)), **where)
    wall = time.perf_counter() - start
    backs = [(t, d) for t, d in marks if d > 0]
    steady = (backs[-1][1] - backs[0][1]) / (backs[-1][0] - backs[0][0]) if len(backs) > 2 else trials / wall
    return wall, steady, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the trials")
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    from sim.experiments import experiment
    from sim.scene import load_scene

    scene = load_scene(ROOT / "scenes" / "talo" / "counterweight.json")
    scale = 0.1 if args.quick else 1.0
    cases = {
        "statics": (experiment(scene, ["noise:sigma_mm=4"], "statics", seed=1), int(1200 * scale)),
        "dynamics": (experiment(scene, ["noise:sigma_mm=4"], "dynamics", seed=1), int(120 * scale)),
    }
    print(f"{'trials':>10} {'where':>22} {'n':>6} {'wall s':>8} {'trials/s':>9} {'steady/s':>9}")
    rates: dict = {}
    reference = {}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster) as client:
        timed(cases["dynamics"][0], 4, scheduler=client)  # a running cluster's workers have imported towerlab
        for name, (exp, n) in cases.items():
            for label, where in (("1 core (this process)", {"workers": 1}), ("2 local processes", {"workers": 2}),
                                 ("Dask LocalCluster x2", {"scheduler": client})):
                wall, steady, result = timed(exp, n, **where)
                reference.setdefault(name, result.records)
                same = "same" if result.records == reference[name] else "DIFFERENT"
                rates[name, label] = (n / wall, steady)
                print(f"{name:>10} {label:>22} {n:>6} {wall:8.2f} {n / wall:9.1f} {steady:9.1f}  {same}")
    print()
    for name in cases:
        one = rates[name, "1 core (this process)"]
        two = rates[name, "2 local processes"]
        dask = rates[name, "Dask LocalCluster x2"]
        print(f"{name}: 2 processes / 1 core = {two[0] / one[0]:.2f}x overall, {two[1] / one[1]:.2f}x steady "
              f"(goal 1.8x); Dask overhead vs the pool = {two[0] / dask[0] - 1:+.0%} overall, "
              f"{two[1] / dask[1] - 1:+.0%} steady (goal <= 10%)")


if __name__ == "__main__":
    main()
