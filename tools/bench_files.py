"""Benchmark of reading users' files: what checking costs, and that it grows with the file, not faster.

Run once, on an otherwise idle machine::

    .venv/bin/python tools/bench_files.py [--baseline REV] [--rounds 3]

Prints a Markdown report:

1. **action files**: CPU time to check an action file of 5 000 to 100 000 actions (``orbit``, 40 bytes each),
   the last one bad, and of a 4 MB file of 5 000 actions; the count limit (5 000) left out, so that the
   growth itself is measured. Issue 31 measured 1.9 / 7.4 / 30 s for 25k / 50k / 100k (quadratic: each
   action's line was counted from the file's start);
2. **recordings**: CPU time of ``load_recording`` on recordings of free runs of 2 and 10 s (the statics of a
   tower falling, 9 pieces) and of a recording made of a minute of a synthetic session with pieces coming
   and going: what reading them with every check costs;
3. **hostile recordings**: CPU time and peak memory to refuse a 16 GiB zip bomb and an NPY header that claims
   8 TiB (with ``--baseline``: what the old reader did with them, in a process limited to 1 GiB).

With ``--baseline REV`` the same measurements run on the code of git revision REV (extracted to a temporary
folder), turn about with this one: before and after, measured in one run. Each measurement is a process of its
own; CPU time inside it, best of ``--rounds``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r'''
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
job = json.loads(sys.argv[2])
limit = job.get("memory")
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
kind, arg = job["kind"], job["arg"]
if kind == "actions":
    import sim.viewer.control.actions as A
    text = open(arg, encoding="utf-8").read()
    start = time.process_time()
    try:
        if hasattr(A, "action_items"):
            for value, where in A.action_items(text, "a.json", most=None):
                A.action(value, where)
        else:
            A.parse_actions(text, "a.json")
        outcome = "accepted"
    except A.ActionError as e:
        outcome = str(e)[:80]
    seconds = time.process_time() - start
else:
    from sim.replay import load_recording
    from sim.errors import TowerlabError
    start = time.process_time()
    try:
        r = load_recording(arg)
        outcome = f"{len(r.times)} frames"
    except TowerlabError as e:
        outcome = str(e).split(": ", 1)[1][:90]
    except MemoryError as e:
        outcome = f"MemoryError: {str(e)[:70]}"
    seconds = time.process_time() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "outcome": outcome, "peak": peak}))
'''


def measure(tree: Path, kind: str, arg: str, rounds: int, memory: int | None = None) -> dict:
    best = None
    for _ in range(rounds):
        job = json.dumps({"kind": kind, "arg": str(arg), "memory": memory})
        out = subprocess.run([sys.executable, "-c", CHILD, str(tree), job], capture_output=True, text=True,
                             cwd=tree, env={"OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
        if out.returncode != 0:
            last = (out.stderr.strip().splitlines() or ["?"])[-1]
            return {"seconds": float("nan"), "outcome": f"crashed: {last[:80]}", "peak": 0}
        r = json.loads(out.stdout.strip().splitlines()[-1])
        if best is None or r["seconds"] < best["seconds"]:
            best = r
    return best


def extract(rev: str, into: Path) -> Path:
    data = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        t.extractall(into, filter="data")
    return into


def action_files(folder: Path) -> list[tuple[str, Path]]:
    out = []
    for n in (5_000, 25_000, 50_000, 100_000):
        rows = ['{"action": "orbit", "degrees": [10, 0]}'] * (n - 1) + ['{"action": "orbit", "degrees": "left"}']
        path = folder / f"orbit-{n}.json"
        path.write_text("[" + ",\n".join(rows) + "]")
        out.append((f"{n} actions, {path.stat().st_size / 1e6:.1f} MB, the last bad", path))
    shot = '{"action": "screenshot", "path": "shots/' + "x" * 780 + '.png"}'
    path = folder / "shots.json"
    path.write_text("[" + ",\n".join([shot] * 4_999 + ['{"action": "orbit", "degrees": "left"}']) + "]")
    out.append((f"5000 actions, {path.stat().st_size / 1e6:.1f} MB, the last bad", path))
    return out


def recordings(folder: Path) -> list[tuple[str, Path]]:
    sys.path.insert(0, str(ROOT))
    from sim.cli import main
    from tests import forge
    from tests.test_replay_format import synthetic

    out = []
    for seconds in (2, 10):
        path = folder / f"fall-{seconds}.tlrec"
        with contextlib.redirect_stdout(io.StringIO()):
            main(["simulate", str(ROOT / "scenes/free/physics-harmonic-8-falls.json"), "-o", str(folder / "a.json"),
                  "--record", str(path), "--seconds", str(seconds), "--json"])
        out.append((f"a free run of {seconds} s ({path.stat().st_size / 1e3:.0f} kB)", path))
    path = folder / "session.tlrec"
    synthetic(path, seconds=60.0)
    out.append((f"a synthetic session of 60 s ({path.stat().st_size / 1e3:.0f} kB)", path))
    items = forge.members(out[0][1].read_bytes())
    chunk = next(n for n, _ in items if n.endswith("000000.npz"))
    hostile = []
    for name, member in (("a 16 GiB zip bomb", forge.bomb_npz("times.npy", 16 << 30)),
                         ("an NPY header claiming 8 TiB", forge.lying_npz("times.npy", (2 ** 40,), data=bytes(480)))):
        path = folder / f"hostile-{len(hostile)}.tlrec"
        forge.build(path, [(n, member if n == chunk else raw) for n, raw in items])
        hostile.append((f"{name} ({path.stat().st_size / 1e6:.1f} MB)", path))
    return out, hostile


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", help="a git revision to measure beside this tree")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        trees = {"now": ROOT}
        if args.baseline:
            trees[args.baseline] = extract(args.baseline, folder / "baseline")
        names = list(trees)
        header = "| file | " + " | ".join(f"{n}: CPU s | {n}: outcome" for n in names) + " |"
        rule = "|---|" + "---|---|" * len(names)
        print("## Action files (checked, the count limit left out)\n")
        print(header + "\n" + rule)
        for label, path in action_files(folder):
            cells = [measure(trees[n], "actions", path, args.rounds) for n in names]
            print(f"| {label} | " + " | ".join(f"{c['seconds']:.3f} | {c['outcome']}" for c in cells) + " |")
        honest, hostile = recordings(folder)
        print("\n## Recordings read and checked\n")
        print(header + "\n" + rule)
        for label, path in honest:
            cells = [measure(trees[n], "recording", path, args.rounds) for n in names]
            print(f"| {label} | " + " | ".join(f"{c['seconds']:.3f} | {c['outcome']}" for c in cells) + " |")
        print("\n## Hostile recordings (each process limited to 1 GiB of address space)\n")
        print("| file | " + " | ".join(f"{n}: CPU s | {n}: peak MiB | {n}: outcome" for n in names) + " |")
        print("|---|" + "---|---|---|" * len(names))
        for label, path in hostile:
            cells = [measure(trees[n], "recording", path, 1, memory=1 << 30) for n in names]
            print(f"| {label} | " + " | ".join(f"{c['seconds']:.3f} | {c['peak'] / 2**20:.0f} | {c['outcome']}"
                                               for c in cells) + " |")


if __name__ == "__main__":
    main()
