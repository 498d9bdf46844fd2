"""Benchmark of ``towerlab experiment``: trials/s of statics and simulated trials, 1 vs 2 cores, Dask vs the pool.

Scene: the Talo rulebook's counterweight (a 4 and a 1 on a standing 1), with
placement noise of 4 mm (P(collapse) about 0.3, so trials both stand and fall).

- statics trials (exact, with the margin) and simulated trials (2 s after the
  start), in this process (1 core), then in rounds alternating 2 local
  processes and a Dask cluster on this machine: ``dask scheduler`` and
  ``dask worker --nworkers 2 --nthreads 1`` in processes of their own, as
  ``--scheduler`` finds one (not a LocalCluster inside this process, whose
  scheduler's and nannies' event loops would be counted in every run here);
  first a cluster started with the settings docs/experiments.md gives for
  trials (``sim.experiments.cluster.QUIET``), then one with Dask's defaults,
  one at a time, each measured idle for 10 s too.
  Not counted: the cluster's start (it runs before ``--scheduler`` is given)
  and the fork server's (once per process); each pool's start of its
  processes is. The issue's goals: 2 processes at least 1.8x one core, the
  cluster at most 10% dearer than the pool.

Per run: the wall time, the rate in the steady state (from the first task back
to the last) and the CPU time all processes spent per trial, and by part (this
one, the client; the pool's workers; the cluster's scheduler, nanny process and
workers, from /proc). On a
machine shared with other jobs the wall-clock figures swing with the load
(printed before and after); CPU per trial says what two idle cores would give
(2 x CPU per trial on one core / CPU per trial on two). Ratios between the
pool and the cluster are the median of the rounds' ratios (each round runs
both, one after the other). Read ratios from one run, not absolute
times. ``--quick`` runs a tenth, one round.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's towerlab, not the installed one


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


def _tree_cpu(pids) -> float:
    """CPU seconds used by processes and all their descendants (Linux /proc)."""
    total, todo, seen = 0.0, list(pids), set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _proc_cpu(pid)
        for task in Path(f"/proc/{pid}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                todo += [int(c) for c in task.read_text().split()]
    return total


class Cluster:
    """A Dask cluster on this machine in processes of its own (``dask scheduler``, ``dask worker --nworkers 2
    --nthreads 1``: a scheduler, a nanny process and two single-threaded workers), as ``--scheduler`` finds one,
    started with the environment ``settings`` (Dask's ``DASK_...`` variables); its CPU time read from /proc,
    so that none of it is counted in this process's."""

    def __init__(self, workers: int = 2, settings: dict | None = None):
        import socket
        import subprocess

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.address = f"tcp://127.0.0.1:{port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
        env.update(settings or {}, PYTHONPATH=str(ROOT))  # this checkout's towerlab, not the installed one
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": ROOT, "env": env}
        self.processes = [subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1",
                                            "--port", str(port), "--no-dashboard"], **quiet)]
        self.processes.append(subprocess.Popen([sys.executable, "-m", "dask", "worker", self.address, "--nworkers",
                                                str(workers), "--nthreads", "1", "--no-dashboard"], **quiet))

    def cpu(self) -> float:
        """CPU seconds used so far by the scheduler, the nanny and the workers."""
        return sum(self.parts().values())

    def parts(self) -> dict[str, float]:
        """CPU seconds used so far by the scheduler, the nanny process (``dask worker``, the workers' parent) and
        the workers."""
        scheduler, nanny = self.processes
        return {"scheduler": _tree_cpu([scheduler.pid]), "nanny": _proc_cpu(nanny.pid),
                "workers": _tree_cpu([nanny.pid]) - _proc_cpu(nanny.pid)}

    def close(self) -> None:
        for p in reversed(self.processes):
            p.terminate()
            try:
                p.wait(timeout=15)
            except Exception:
                p.kill()


def timed(exp, trials, cluster=None, **where):
    """(wall s, steady trials/s, CPU s used by every process, result, CPU s by part) of one run.

    CPU: this process (the client) plus the workers: the local pool's processes read from /proc before they
    end, the cluster's processes (scheduler, nanny, workers) from /proc before and after."""
    from sim.experiments import run

    before = cluster.parts() if cluster is not None else {}
    pool_cpu = {}
    older = {p.pid for p in multiprocessing.active_children()}  # an earlier pool's

    def progress(done, total):
        marks.append((time.perf_counter(), done))
        if done == total:
            for p in multiprocessing.active_children():
                if p.pid not in older:
                    pool_cpu[p.pid] = _proc_cpu(p.pid)

    marks = []
    own = _own_cpu()
    start = time.perf_counter()
    result = run(exp, trials, progress=progress, **where)
    wall = time.perf_counter() - start
    parts = {"client": _own_cpu() - own}
    if pool_cpu:
        parts["workers"] = sum(pool_cpu.values())
    if cluster is not None:
        parts.update({k: v - before[k] for k, v in cluster.parts().items()})
    backs = [(t, d) for t, d in marks if d > 0]
    steady = (backs[-1][1] - backs[0][1]) / (backs[-1][0] - backs[0][0]) if len(backs) > 2 else trials / wall
    return wall, steady, sum(parts.values()), result, parts


def idle_cpu(cluster: Cluster, seconds: float = 10.0) -> float:
    """CPU seconds a second the cluster's processes spend doing nothing (after a second to settle)."""
    time.sleep(1.0)
    before = cluster.cpu()
    time.sleep(seconds)
    return (cluster.cpu() - before) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the trials, one round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of pool and cluster (default 3)")
    args = parser.parse_args()
    from distributed import Client

    from sim.experiments import experiment
    from sim.experiments.cluster import quiet_environment
    from sim.scene import load_scene

    scene = load_scene(ROOT / "scenes" / "talo" / "counterweight.json")
    scale, rounds = (0.1, 1) if args.quick else (1.0, max(1, args.rounds))
    cases = {
        "statics": (experiment(scene, ["noise:sigma_mm=4"], "statics", seed=1), int(1200 * scale)),
        "dynamics": (experiment(scene, ["noise:sigma_mm=4"], "dynamics", seed=1), int(120 * scale)),
    }
    settings = {"quiet": quiet_environment(), "defaults": {}}
    labels = {"one": "1 core (this process)", "pool": "2 local processes", "quiet": "Dask x2, QUIET",
              "defaults": "Dask x2, defaults"}
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    runs: dict = {}
    references: dict = {}
    idle: dict = {}

    def measure(name, place, where):
        exp, n = cases[name]
        wall, steady, cpu, result, parts = timed(exp, n, **where)
        reference = references.setdefault(name, result.records)
        same = "same" if result.records == reference else "DIFFERENT"
        runs.setdefault((name, place), []).append((wall, steady, cpu / n, {k: v / n for k, v in parts.items()}))
        label = labels[place[0] if isinstance(place, tuple) else place]
        print(f"{name:>10} {label:>22} {n:>6} {wall:8.2f} {n / wall:9.1f} {steady:9.1f} "
              f"{cpu / n * 1e3:12.2f}  {same}  ({', '.join(f'{k} {v / n * 1e3:.2f}' for k, v in parts.items())})",
              flush=True)

    for config, env in settings.items():  # one cluster at a time: an idle one would load the other's runs
        start = time.perf_counter()
        cluster = Cluster(2, env)
        try:
            with Client(cluster.address, timeout=60, set_as_default=False) as client:
                client.wait_for_workers(2, timeout=60)
                print(f"a Dask cluster of 2 workers ({labels[config]}) started in {time.perf_counter() - start:.1f} s "
                      "(not counted below)")
                timed(cases["dynamics"][0], 4, scheduler=client)  # a running cluster's workers have imported towerlab
                idle[config] = idle_cpu(cluster)
                print(f"  idle, its processes spend {idle[config]:.3f} CPU-s a second")
                if not runs:
                    cold = time.perf_counter()
                    timed(cases["statics"][0], 4, workers=2)  # the fork server imports towerlab once per process
                    print(f"the local pool's fork server started in {time.perf_counter() - cold:.1f} s (once per "
                          "process; not counted below, each pool's own start is)")
                    print(f"{'trials':>10} {'where':>22} {'n':>6} {'wall s':>8} {'trials/s':>9} {'steady/s':>9} "
                          f"{'CPU ms/trial':>12}")
                    for name in cases:
                        measure(name, "one", {"workers": 1})
                places = {"pool": {"workers": 2}, config: {"scheduler": client, "cluster": cluster}}
                for name in cases:
                    for r in range(rounds):  # alternate which goes first, against a drifting load
                        order = ["pool", config] if r % 2 == 0 else [config, "pool"]
                        for place in order:
                            measure(name, place if place == config else ("pool", config), places[place])
        finally:
            cluster.close()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    med = statistics.median
    for name in cases:
        one = runs[name, "one"][0]
        pools = [p for config in settings for p in runs[name, ("pool", config)]]
        speed = (one[0] / med(p[0] for p in pools), med(p[1] for p in pools) / one[1],
                 2 * one[2] / med(p[2] for p in pools))
        print(f"{name}: 2 processes / 1 core = {speed[0]:.2f}x overall, {speed[1]:.2f}x steady, {speed[2]:.2f}x by "
              f"CPU per trial on idle cores (goal 1.8x; median of {len(pools)} pool runs)")
        for config in settings:
            pool, dask = runs[name, ("pool", config)], runs[name, config]
            over = [med(d[0] / p[0] for p, d in zip(pool, dask)) - 1, med(p[1] / d[1] for p, d in zip(pool, dask)) - 1,
                    med(d[2] / p[2] for p, d in zip(pool, dask)) - 1]
            print(f"  {labels[config]} (idle {idle[config]:.3f} CPU-s/s) against the pool run next to it (median of "
                  f"{len(pool)}): {over[0]:+.0%} time overall, {over[1]:+.0%} steady, {over[2]:+.0%} CPU per trial "
                  f"(goal <= 10%)")
            for where, rows in (("pool", pool), (labels[config], dask)):
                print(f"    {where}, CPU ms per trial (median): " + ", ".join(
                    f"{k} {med(r[3][k] for r in rows) * 1e3:.2f}" for k in rows[0][3]))


if __name__ == "__main__":
    main()
