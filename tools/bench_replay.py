"""Benchmark of recordings: what recording costs the live world, how fast videos render, how large recordings get.

Run once, on an otherwise idle machine::

    .venv/bin/python tools/bench_replay.py [--quick] [--baseline REV]

Prints a Markdown report (the figures in the README come from it):

1. **overhead**: the same scripted session with and without a recorder fed after every frame (``sync`` on,
   the default): a minute of play on the Talo stock built up (55 blocks; a hand picks a block, lifts it over
   the building, carries it across and sets it down, five times), and a 24-block tower knocked down. Each
   run is a process of its own; CPU time of the process, best of ``--rounds``, so that a loaded machine's
   waits count for neither; and what the recorder itself costs, exactly: the CPU the session's own thread
   spends in ``Recorder.feed`` and ``close``, plus the CPU of the writing thread (``writer_cpu``) and of the
   syncing thread's ``os.fsync`` calls, over the live world's CPU without recording. With ``--baseline REV``
   the recorder of the git revision REV (extracted to a temporary folder) runs the same sessions in the
   same run, turn about with this one: before and after, measured together;
2. **size**: bytes per minute of the play session, of a minute of the same building at rest, and of the
   collapse;
3. **video**: frames per second of ``towerlab replay --video`` at 1280 x 720 (captions on, H.264) on the
   collapse, and of drawing alone (``update``/``draw``/``read``, no captions, no encoding);
4. **scrub**: what the replay window pays for the poses of a frame (``ReplayController``): scrubbing to
   random places of the timeline (each decoded from its keyframe, up to 10 s of deltas) and playing frame
   after frame (each from the one before), on the minute of play.

The goal (issue 17): recording costs at most 5 % of the live world's time.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SESSIONS = {"play": "{seconds} s of play on the Talo stock (56 pieces, {carries} carries)",
            "collapse": "a tower of 24 blocks struck and knocked down"}
"""The sessions measured (``--quick``: 2 carries instead of 5)."""


def session_name(session: str, quick: bool) -> str:
    carries = 2 if quick else 5
    return SESSIONS[session].format(seconds=12 * carries, carries=carries)


def talo_play(carries: int = 5):
    """The Talo stock built up, a 2-block lying on the table beside it, and the steps of a minute of play (12 s a
    carry: up, over the building, back beside it, down, and a wait)."""
    from sim.scene import from_dict, load_scene

    scene = load_scene(ROOT / "scenes/talo/all-55-blocks.json")
    spec = {"id": "carried", "kind": "talo.block", "length": 2, "pos": [-300.0, 0.0, 10.0]}
    extra = from_dict({"format": "towerlab-scene/1", "game": scene.game, "board": scene.board, "pieces": [spec]},
                      "<bench>").pieces[0]
    board = -scene.board_info.thickness
    extra = extra.moved((extra.pos[0], extra.pos[1], board + 0.01), extra.quat)
    scene = scene.with_pieces([*scene.pieces, extra])
    top = max(p.pos[2] for p in scene.pieces) + 0.06
    steps = []
    for k in range(carries):
        here, there = (-0.3, 0.0), (-0.3, 0.05 * (k + 1))
        steps += [{"kind": "grab", "piece": "carried", "hand": "right", "player": "bench"},
                  {"kind": "carry", "hand": "right", "to": [*here, top], "seconds": 1.0},
                  {"kind": "carry", "hand": "right", "to": [0.0, 0.0, top], "seconds": 2.0},
                  {"kind": "carry", "hand": "right", "to": [*there, top], "seconds": 2.0},
                  {"kind": "carry", "hand": "right", "to": [*there, board + 0.0105], "seconds": 1.0},
                  {"kind": "release", "hand": "right", "player": "bench"},
                  {"kind": "wait", "seconds": 6.0}]
    return scene, steps


def tower_collapse():
    from sim.scene import from_dict

    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "pieces": [
        {"id": f"t{k:02d}", "kind": "box", "size": [30, 30, 20], "pos": [0.0, 0.0, 10.0 + 20.0 * k]}
        for k in range(24)]}, "<tower of 24>")
    mass = scene.piece("t06").mass
    return scene, [{"kind": "wait", "seconds": 0.2},
                   {"kind": "push", "piece": "t06", "player": "bench", "args": {"impulse": [2.0 * mass, 0, 0]}},
                   {"kind": "wait", "seconds": 2.0}]


def measure_here(session: str, record: bool, quick: bool) -> dict:
    """One session in this process (``sim`` as found on ``sys.path``): its process CPU (s), simulated time
    (s), frames, and with ``record`` the recorder's CPU (s) on the session's thread, the writing thread and
    the syncing thread."""
    from sim.physics.live import LiveWorld
    from sim.replay import Recorder
    from sim.replay.script import play_script

    class TimedRecorder(Recorder):
        """Adds up the CPU time its caller's thread spends in ``feed`` (``thread_time``: a loaded machine's
        waits do not count)."""

        spent = 0.0

        def feed(self, live, report=None) -> None:
            start = time.thread_time()
            super().feed(live, report)
            self.spent += time.thread_time() - start

    synced = [0.0]
    fsync = os.fsync

    def timed_fsync(fd):  # the syncing thread's calls (the last one, at close, is the session's)
        start = time.thread_time()
        try:
            return fsync(fd)
        finally:
            if threading.current_thread().name == "recording-sync":
                synced[0] += time.thread_time() - start

    os.fsync = timed_fsync
    scene, steps = talo_play(2 if quick else 5) if session == "play" else tower_collapse()
    with tempfile.TemporaryDirectory() as tmp, LiveWorld(scene) as lw:
        rec = TimedRecorder(Path(tmp) / "r.tlrec") if record else None
        start = time.process_time()
        play_script(lw, steps, rec)
        if rec is not None:
            t = time.thread_time()
            rec.close()
            rec.spent += time.thread_time() - t
        cpu = time.process_time() - start
        out = {"cpu": cpu, "simulated": lw.time, "frames": round(lw.time * 60)}
        if rec is not None:
            out.update(session=rec.spent, writer=rec.writer_cpu, sync=synced[0])
        return out


def measure(code: Path, session: str, record: bool, quick: bool) -> dict:
    """:func:`measure_here` in a process of its own, with the ``sim`` of the tree ``code``."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--measure", session, "--code", str(code)]
    cmd += ["--record"] if record else []
    cmd += ["--quick"] if quick else []
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode:
        raise SystemExit(f"bench_replay: {' '.join(cmd)} failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def extract(rev: str, folder: Path) -> Path:
    """The tree of git revision ``rev`` of this repository, extracted into ``folder``."""
    done = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev], capture_output=True, check=False)
    if done.returncode:
        raise SystemExit(f"bench_replay: --baseline {rev}: {done.stderr.decode().strip()}")
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def bench_overhead(trees: list[tuple[str, Path]], rounds: int, quick: bool) -> list[str]:
    rows = ["| session | recorder | simulated (s) | CPU, live world alone (s) | CPU, with recording (s) | recorder: "
            "session thread + writer + sync | recorder / live world |", "|---|---|---:|---:|---:|---:|---:|"]
    for session in SESSIONS:
        name = session_name(session, quick)
        plain = {label: [] for label, _ in trees}
        recorded = {label: [] for label, _ in trees}
        for _ in range(rounds):
            for label, code in trees:  # turn about, so that a change of the machine's load meets both
                plain[label].append(measure(code, session, False, quick))
                recorded[label].append(measure(code, session, True, quick))
        for label, _ in trees:
            alone = min(m["cpu"] for m in plain[label])
            best = min(recorded[label], key=lambda m: m["session"] + m["writer"] + m["sync"])
            total = best["session"] + best["writer"] + best["sync"]
            rows.append(f"| {name} | {label} | {best['simulated']:.1f} | {alone:.2f} | "
                        f"{min(m['cpu'] for m in recorded[label]):.2f} | {best['session'] * 1e3:.0f} + "
                        f"{best['writer'] * 1e3:.0f} + {best['sync'] * 1e3:.0f} ms "
                        f"({total / best['frames'] * 1e6:.0f} us a frame) | {total / alone * 100:.1f} % |")
    return rows


def record_sessions(folder: Path, quick: bool) -> dict:
    """The two sessions recorded with this tree's recorder (for the size, video and scrub sections)."""
    from sim.physics.live import LiveWorld
    from sim.replay import Recorder
    from sim.replay.script import play_script

    files = {}
    for session in SESSIONS:
        name = session_name(session, quick)
        scene, steps = talo_play(2 if quick else 5) if session == "play" else tower_collapse()
        files[name] = folder / f"{session}.tlrec"
        with LiveWorld(scene) as lw, Recorder(files[name]) as rec:
            play_script(lw, steps, rec)
    return files


def bench_size(folder: Path, files: dict) -> list[str]:
    from sim.physics.live import LiveWorld
    from sim.replay import Recorder, load_recording
    from sim.replay.script import play_script

    rows = ["| recording | pieces | duration (s) | size (KB) | per minute |", "|---|---:|---:|---:|---:|"]
    scene, _ = talo_play(0)
    rest = folder / "rest.tlrec"
    with LiveWorld(scene) as lw, Recorder(rest) as rec:
        play_script(lw, [{"kind": "wait", "seconds": 60.0}], rec)
    for name, path in [*files.items(), ("the Talo stock at rest for a minute", rest)]:
        r = load_recording(path)
        size = path.stat().st_size
        rows.append(f"| {name} | {len(r.roster)} | {r.duration:.1f} | {size / 1e3:.0f} | "
                    f"{size / r.duration * 60 / 1e6:.2f} MB |")
    return rows


def bench_video(folder: Path, collapse: Path, quick: bool) -> list[str]:
    from sim.render import default_renderer
    from sim.replay import load_recording
    from sim.replay.video import plan_video, write_video

    r = load_recording(collapse)
    end = min(r.end, 1.0 if quick else 2.0)
    rows = ["| what | frames | wall (s) | frames per second |", "|---|---:|---:|---:|"]
    renderer = default_renderer()
    plan = plan_video(r, folder / "warm.mp4", start=0.0, end=0.1, size=(1280, 720))
    write_video(r, plan, renderer=renderer)  # the renderer's start and first upload, not counted
    plan = plan_video(r, folder / "collapse.mp4", start=0.0, end=end, size=(1280, 720))
    start = time.perf_counter()
    n = write_video(r, plan, renderer=renderer)
    wall = time.perf_counter() - start
    rows.append(f"| video, 1280 x 720, captions, H.264 | {n} | {wall:.2f} | {n / wall:.1f} |")
    from sim.render.camera import scene_camera

    graph = renderer.graph(r.scene_of_frame(0))
    view = scene_camera(r.scene_at(end), (1280, 720))
    start = time.perf_counter()
    for t in plan.times:
        ids, poses = r.poses_at(t)
        graph.set_poses(poses)
        renderer.update(graph, view)
        renderer.draw()
        renderer.read()
    wall = time.perf_counter() - start
    renderer.release()
    rows.append(f"| drawing alone (update, draw, read) | {n} | {wall:.2f} | {n / wall:.1f} |")
    return rows


def bench_scrub(play: Path, quick: bool) -> list[str]:
    import numpy as np

    from sim.replay import load_recording
    from sim.viewer.replay.controller import ReplayController

    r = load_recording(play)
    c = ReplayController(r, smooth=False)
    rng = np.random.default_rng(0)
    rows = ["| what | frames | CPU per frame (ms) |", "|---|---:|---:|"]
    places = rng.random(50 if quick else 300)
    start = time.process_time()
    for f in places:
        c.seek_fraction(float(f))
        c.poses()
    per = (time.process_time() - start) / len(places)
    rows.append(f"| scrub to a random place | {len(places)} | {per * 1e3:.2f} |")
    c.seek_fraction(0.0)
    frames = min(c.player.frames, 600 if quick else 3600)
    start = time.process_time()
    for g in range(frames):
        c.player.seek_frame(g)
        c.poses()
    rows.append(f"| play frame after frame | {frames} | {(time.process_time() - start) / frames * 1e3:.3f} |")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="Shorter sessions and clip, one round.")
    parser.add_argument("--rounds", type=int, default=2, help="Runs of each session with and without recording.")
    parser.add_argument("--baseline", metavar="REV", help="Also measure the recorder of this git revision.")
    parser.add_argument("--measure", choices=sorted(SESSIONS), help=argparse.SUPPRESS)  # one run, as JSON
    parser.add_argument("--code", type=Path, default=ROOT, help=argparse.SUPPRESS)  # the tree whose sim runs
    parser.add_argument("--record", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(args.code.resolve()))
    if args.measure:
        print(json.dumps(measure_here(args.measure, args.record, args.quick)))
        return 0
    rounds = 1 if args.quick else max(1, args.rounds)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        trees = [("this tree", ROOT)]
        if args.baseline:
            trees.insert(0, (f"baseline {args.baseline}", extract(args.baseline, folder / "baseline")))
        print(f"load average at the start: {os.getloadavg()[0]:.1f} (2 cores shared)\n")
        print("## Recording overhead on the live world\n")
        print("\n".join(bench_overhead(trees, rounds, args.quick)))
        print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
        files = record_sessions(folder, args.quick)
        print("\n## Recording size\n")
        print("\n".join(bench_size(folder, files)))
        print("\n## Videos at 1280 x 720\n")
        print("\n".join(bench_video(folder, list(files.values())[-1], args.quick)))
        print("\n## The replay window's poses\n")
        print("\n".join(bench_scrub(list(files.values())[0], args.quick)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
