"""Costs that grow with the input, and runs that must end: before and after, measured in one run.

Rows:

* ``overlap-hull-N``: the overlap check (``find_overlaps``) of one ``hull`` of N points on a sphere of
  50 mm, pressed 1 mm into the Talo board (so that it is checked against the slab), N up to the
  10 000 a hull may have; ``overlap-two-hulls``: two of 10 000 points pressed 0.5 mm into each other;
  ``overlap-stl-T``: a convex mesh file of T triangles on the board (``load`` is reading and checking
  the mesh, ``overlap`` the check), T up to the 200 000 a mesh may have;
* ``talo-N``: the memory every state of a Talo game of N throws takes (each throw taken and handed
  back), all kept as the viewer's undo stack keeps them: the peak resident size over the interpreter's;
* ``coacd-ctrl-c``: ``towerlab validate`` of a lumpy ball under ``decomposition: "coacd"``, Ctrl-C
  to its process group once the decomposition runs: seconds until it has exited;
* ``scheduler-mute``: ``towerlab experiment --scheduler`` at a loopback server that accepts and never
  answers: seconds until it has exited;
* ``experiment-kill-9``: processes of ``towerlab experiment -j 2`` alive 3 s after ``kill -9`` of the
  run (its workers, the fork server, the resource tracker).

Each row runs in a process of its own, with ``sim`` from this checkout and, with ``--against DIR``, from
another (the code before a change: ``git archive COMMIT | tar -x -C DIR``), the two in turns, each under a
time cap (``--cap``, 60 s) and an address-space cap (``--memory``, 4 GiB): a row past either says so.
The machine is shared: compare the two columns, not the figures with another day's.

    python tools/bench_limits.py [--against DIR] [--only overlap,talo,coacd,scheduler,kill] [--cap 60] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = Path(os.environ.get("TOWERLAB_BENCH_CODE") or ROOT)  # whose ``sim`` is measured in a child
ROWS = (["overlap-hull-1000", "overlap-hull-2000", "overlap-hull-4000", "overlap-hull-10000", "overlap-two-hulls",
         "overlap-stl-20480", "overlap-stl-50000", "overlap-stl-200000", "talo-1000", "talo-2000", "talo-4000",
         "talo-10000", "coacd-ctrl-c", "scheduler-mute", "experiment-kill-9"])


# --- in the child: the rows measured in-process ------------------------------------------------------

def _sphere(n: int, radius: float, seed: int):
    import numpy as np

    p = np.random.default_rng(seed).normal(size=(n, 3))
    return radius * p / np.linalg.norm(p, axis=1, keepdims=True)


def _hull(name: str, points, lowest: float, shift=(0.0, 0.0, 0.0)) -> dict:
    import numpy as np

    z = float(np.ptp(points[:, 2])) / 2 + lowest  # the piece frame is the box's centre
    return {"id": name, "kind": "hull", "pos": [shift[0], shift[1], z + shift[2]],
            "vertices": np.round(points, 6).tolist()}


def _timed_overlaps(data: dict, source: str = "<bench>") -> dict:
    from sim.scene import find_overlaps, from_dict

    start = time.perf_counter()
    scene = from_dict(data, source)
    loaded = time.perf_counter()
    found = find_overlaps(scene)
    done = time.perf_counter()
    return {"load_s": loaded - start, "overlap_s": done - loaded, "found": len(found)}


def child_overlap(row: str) -> dict:
    if row.startswith("overlap-hull-"):
        n = int(row.rsplit("-", 1)[1])
        return _timed_overlaps({"format": "towerlab-scene/1", "game": "talo",
                                "pieces": [_hull("ball", _sphere(n, 50.0, 1), -1.0)]})
    if row == "overlap-two-hulls":
        return _timed_overlaps({"format": "towerlab-scene/1", "game": "talo", "pieces": [
            _hull("a", _sphere(10_000, 50.0, 1), 1.0), _hull("b", _sphere(10_000, 50.0, 2), 1.0, (0, 99.5, 0))]})
    import trimesh

    triangles = int(row.rsplit("-", 1)[1])
    if triangles == 20480:
        mesh = trimesh.creation.icosphere(subdivisions=5, radius=50.0)
    else:
        mesh = trimesh.convex.convex_hull(_sphere(triangles // 2 + 2, 50.0, 3))
    folder = Path(tempfile.mkdtemp(prefix="bench-limits-"))
    mesh.export(folder / "ball.stl")
    return _timed_overlaps({"format": "towerlab-scene/1", "game": "talo", "pieces": [  # its lowest point 1 mm down
        {"id": "ball", "kind": "mesh", "file": str(folder / "ball.stl"), "pos": [0, 0, mesh.extents[2] / 2 - 1.0]}]},
        str(folder / "scene.json"))


def child_talo(row: str) -> dict:
    import numpy as np

    from sim.games.talo import game as talo

    throws = int(row.rsplit("-", 1)[1])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rng = np.random.default_rng(0)
    s = talo.new_game({"red": (0, 0), "blue": (0, 9)})
    states = [s]
    start = time.perf_counter()
    for _ in range(throws):
        s = talo.throw(s, rng)
        if s.phase == "take":
            s = talo.end_turn(talo.take(s, s.options[0]))
        states.append(s)
    return {"seconds": time.perf_counter() - start, "events": len(s.log),
            "mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024}


def child(row: str, memory_gib: float) -> None:
    sys.path.insert(0, str(CODE))
    limit = int(memory_gib * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        got = child_overlap(row) if row.startswith("overlap") else child_talo(row)
    except MemoryError:
        got = {"error": f"MemoryError (over {memory_gib:g} GiB)"}
    print(json.dumps(got))


# --- in the bench: the rows that watch a command ------------------------------------------------------

def _env(code: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(code), "TOWERLAB_CACHE": "off"}


def _group(pgid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                out.append(int(name))
    return out


def _end(proc: subprocess.Popen) -> None:
    for pid in _group(proc.pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    proc.wait()


def _bumpy(folder: Path) -> Path:
    import numpy as np
    import trimesh

    ball = trimesh.creation.icosphere(subdivisions=4, radius=40.0)
    v = ball.vertices / np.linalg.norm(ball.vertices, axis=1, keepdims=True)
    ball.vertices = v * (40.0 + 6.0 * np.sin(5 * v[:, :1]) * np.cos(4 * v[:, 1:2]) + 0.5 * np.sin(23 * v[:, 2:]))
    ball.export(folder / "bumpy.obj")
    path = folder / "bumpy.json"
    path.write_text(json.dumps({"format": "towerlab-scene/1", "game": "free", "pieces": [
        {"id": "rock", "kind": "mesh", "file": "bumpy.obj", "decomposition": "coacd", "pos": [0, 0, 60]}]}))
    return path


def row_coacd(code: Path, cap: float) -> dict:
    """Ctrl-C to the group once the decomposition runs (its process seen, or 8 s after the start)."""
    with tempfile.TemporaryDirectory() as folder:
        scene = _bumpy(Path(folder))
        proc = subprocess.Popen([sys.executable, "-m", "sim", "validate", str(scene)], cwd=code, env=_env(code),
                                start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            start = time.monotonic()
            while len(_group(proc.pid)) < 2 and time.monotonic() - start < 8.0 and proc.poll() is None:
                time.sleep(0.05)
            time.sleep(1.0)
            os.killpg(proc.pid, signal.SIGINT)
            asked = time.monotonic()
            try:
                proc.wait(timeout=cap)
            except subprocess.TimeoutExpired:
                return {"error": f"still running {cap:g} s after Ctrl-C"}
            return {"seconds": time.monotonic() - asked, "exit": proc.returncode}
        finally:
            _end(proc)


def row_scheduler(code: Path, cap: float) -> dict:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held = []

    def accept():
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    scene = ROOT / "scenes" / "free" / "cube-tower.json"
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "sim", "experiment", str(scene), "-n", "4", "-p", "noise",
                             "--scheduler", f"tcp://127.0.0.1:{server.getsockname()[1]}"], cwd=code, env=_env(code),
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _, err = proc.communicate(timeout=cap)
        return {"seconds": time.monotonic() - start, "exit": proc.returncode, "said": err.strip()[-160:]}
    except subprocess.TimeoutExpired:
        return {"error": f"no answer within {cap:g} s"}
    finally:
        _end(proc)
        server.close()


def row_kill(code: Path, cap: float) -> dict:
    scene = ROOT / "scenes" / "free" / "cube-tower.json"
    proc = subprocess.Popen([sys.executable, "-m", "sim", "experiment", str(scene), "-n", "4000", "-j", "2", "-p",
                             "nudge:impulse_ns=0.01"], cwd=code, env=_env(code), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        start = time.monotonic()
        while len(_group(proc.pid)) < 5:
            if time.monotonic() - start > cap or proc.poll() is not None:
                return {"error": "its workers never all started"}
            time.sleep(0.1)
        proc.kill()
        proc.wait()
        time.sleep(3.0)
        return {"left": len(_group(proc.pid))}
    finally:
        _end(proc)


# --- the table ------------------------------------------------------------------------------------------

def measure(row: str, code: Path, cap: float, memory: float) -> dict:
    if row == "coacd-ctrl-c":
        return row_coacd(code, cap)
    if row == "scheduler-mute":
        return row_scheduler(code, cap)
    if row == "experiment-kill-9":
        return row_kill(code, cap)
    env = {**os.environ, "TOWERLAB_BENCH_CODE": str(code), "TOWERLAB_CACHE": "off"}
    try:
        done = subprocess.run([sys.executable, __file__, "--child", row, "--memory", str(memory)], env=env,
                              capture_output=True, text=True, timeout=cap)
    except subprocess.TimeoutExpired:
        return {"error": f"over {cap:g} s"}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1][:160]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def figure(row: str, got: dict) -> tuple[str, float | None]:
    """The row's figure as text and as a number (None: over a cap)."""
    if "error" in got:
        return got["error"], None
    if row.startswith("overlap"):
        return f"{got['overlap_s']:.3f} s (load {got['load_s']:.2f} s, {got['found']} found)", got["overlap_s"]
    if row.startswith("talo"):
        return f"{got['mb']:.0f} MB ({got['events']} events, {got['seconds']:.1f} s)", got["mb"]
    if row == "experiment-kill-9":
        return f"{got['left']} processes left", float(got["left"])
    return f"{got['seconds']:.1f} s (exit {got['exit']})", got["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, help="another checkout (the code before a change), measured in turns")
    parser.add_argument("--only", help="rows whose names contain one of these, comma-separated")
    parser.add_argument("--cap", type=float, default=60.0, help="seconds a row may take (default 60)")
    parser.add_argument("--memory", type=float, default=4.0, help="GiB of address space a row may take (default 4)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.memory)
        return
    rows = [r for r in ROWS if not args.only or any(w in r for w in args.only.split(","))]
    sides = [("this", ROOT)] + ([("against", args.against.resolve())] if args.against else [])
    results = {}
    for row in rows:
        results[row] = {}
        for name, code in (sides if len(results) % 2 else sides[::-1]):  # alternate which goes first
            results[row][name] = measure(row, code, args.cap, args.memory)
        if not args.json:
            cells = [figure(row, results[row][name]) for name, _ in sides]
            line = f"{row:20s} " + " | ".join(f"{name}: {text}" for (name, _), (text, _) in zip(sides, cells))
            print(line, flush=True)
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
