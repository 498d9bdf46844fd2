"""Benchmark of ``towerlab experiment``: trials/s of statics and simulated trials, 1 vs 2 cores, Dask vs the pool.

Scene: the Talo rulebook's counterweight (a 4 and a 1 on a standing 1), with
placement noise of 4 mm (P(collapse) about 0.3, so trials both stand and fall).

- statics trials (exact, with the margin) and simulated trials (2 s after the
  start), each in this process (1 core) and on 2 local processes;
- the same on a Dask LocalCluster of 2 single-threaded worker processes (warmed
  up: a running cluster's workers have imported towerlab), against the
  2-process local pool, which starts its processes for every run (the issue's
  goal: at most 10% overhead).

Rates are given over the whole run (start-up included) and in the steady
state (from the first batch back to the last), and the CPU time all processes
spent per trial (this one, the pool's workers, the cluster's workers and
scheduler): on a machine shared with other jobs the wall-clock ratios swing,
while CPU per trial says what two idle cores would give (2 × CPU per trial on
one core / CPU per trial on two). Read ratios from one run, not absolute
times. ``--quick`` runs a tenth.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _own_cpu() -> float:
    t = os.times()
    return t.user + t.system


def _proc_cpu(pid: int) -> float:
    """CPU seconds a process has used (Linux /proc), 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(exp, trials, **where):
    """(wall s, steady trials/s, CPU s used by every process, result) of one run.

    CPU: this process (the client and, for a LocalCluster, its scheduler) plus the workers: the local
    pool's processes read from /proc before they end, the cluster's workers asked for theirs."""
    from sim.experiments import run

    client = where.get("scheduler")
    before = sum(client.run(time.process_time).values()) if client is not None else 0.0
    pool_cpu = {}
    older = {p.pid for p in multiprocessing.active_children()}  # the cluster's, an earlier pool's

    def progress(done, total):
        marks.append((time.perf_counter(), done))
        if done == total:
            for p in multiprocessing.active_children():
                if p.pid not in older:
                    pool_cpu[p.pid] = _proc_cpu(p.pid)

    marks = []
    cpu = _own_cpu()
    start = time.perf_counter()
    result = run(exp, trials, progress=progress, **where)
    wall = time.perf_counter() - start
    cpu = _own_cpu() - cpu + sum(pool_cpu.values())
    if client is not None:
        cpu += sum(client.run(time.process_time).values()) - before
    backs = [(t, d) for t, d in marks if d > 0]
    steady = (backs[-1][1] - backs[0][1]) / (backs[-1][0] - backs[0][0]) if len(backs) > 2 else trials / wall
    return wall, steady, cpu, result


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
    print(f"{'trials':>10} {'where':>22} {'n':>6} {'wall s':>8} {'trials/s':>9} {'steady/s':>9} {'CPU ms/trial':>12}")
    rates: dict = {}
    reference = {}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=50) as cluster, Client(cluster) as client:
        timed(cases["dynamics"][0], 4, scheduler=client)  # a running cluster's workers have imported towerlab
        for name, (exp, n) in cases.items():
            for label, where in (("1 core (this process)", {"workers": 1}), ("2 local processes", {"workers": 2}),
                                 ("Dask LocalCluster x2", {"scheduler": client})):
                wall, steady, cpu, result = timed(exp, n, **where)
                reference.setdefault(name, result.records)
                same = "same" if result.records == reference[name] else "DIFFERENT"
                rates[name, label] = (n / wall, steady, cpu / n)
                print(f"{name:>10} {label:>22} {n:>6} {wall:8.2f} {n / wall:9.1f} {steady:9.1f} {cpu / n * 1e3:12.2f}"
                      f"  {same}")
    print()
    for name in cases:
        one = rates[name, "1 core (this process)"]
        two = rates[name, "2 local processes"]
        dask = rates[name, "Dask LocalCluster x2"]
        print(f"{name}: 2 processes / 1 core = {two[0] / one[0]:.2f}x overall, {two[1] / one[1]:.2f}x steady, "
              f"{2 * one[2] / two[2]:.2f}x by CPU per trial on idle cores (goal 1.8x); Dask against the pool: "
              f"{two[0] / dask[0] - 1:+.0%} time overall, {two[1] / dask[1] - 1:+.0%} steady, "
              f"{dask[2] / two[2] - 1:+.0%} CPU per trial (goal <= 10%)")


if __name__ == "__main__":
    main()
