"""Benchmark of recordings: what recording costs the live world, how fast videos render, how large recordings get.

Run once, on an otherwise idle machine::

    .venv/bin/python tools/bench_replay.py [--quick]

Prints a Markdown report (the figures in the README come from it):

1. **overhead**: the same scripted session with and without a recorder fed after every frame (``sync`` on,
   the default): a minute of play on the Talo stock built up (55 blocks; a hand picks a block, lifts it over
   the building, carries it across and sets it down, five times), and a 24-block tower knocked down. CPU
   time of the process (every thread: the recorder's writer too), best of ``--rounds``, so that a loaded
   machine's waits count for neither; and what the recorder itself costs, exactly: the CPU the session's own
   thread spends in ``Recorder.feed`` and ``close`` plus the CPU of the writing thread (``writer_cpu``), over the
   live world's CPU without recording;
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
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.physics.live import LiveWorld  # noqa: E402
from sim.replay import Recorder, load_recording  # noqa: E402
from sim.replay.script import play_script  # noqa: E402
from sim.scene import from_dict, load_scene  # noqa: E402


class TimedRecorder(Recorder):
    """A recorder that adds up the CPU time its caller's thread spends in :meth:`feed` (``thread_time``: a
    loaded machine's waits do not count)."""

    spent = 0.0

    def feed(self, live, report=None) -> None:
        start = time.thread_time()
        super().feed(live, report)
        self.spent += time.thread_time() - start


def talo_play(carries: int = 5):
    """The Talo stock built up, a 2-block lying on the table beside it, and the steps of a minute of play (12 s a
    carry: up, over the building, back beside it, down, and a wait)."""
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
    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "pieces": [
        {"id": f"t{k:02d}", "kind": "box", "size": [30, 30, 20], "pos": [0.0, 0.0, 10.0 + 20.0 * k]}
        for k in range(24)]}, "<tower of 24>")
    mass = scene.piece("t06").mass
    return scene, [{"kind": "wait", "seconds": 0.2},
                   {"kind": "push", "piece": "t06", "player": "bench", "args": {"impulse": [2.0 * mass, 0, 0]}},
                   {"kind": "wait", "seconds": 2.0}]


def run(scene, steps, path: Path | None) -> tuple[float, float, float, float]:
    """(process CPU s, simulated s, CPU s of the session's thread in the recorder, CPU s of the writing thread)
    of one session. Process CPU counts every thread."""
    with LiveWorld(scene) as lw:
        rec = None if path is None else TimedRecorder(path)
        start = time.process_time()
        play_script(lw, steps, rec)
        if rec is not None:
            t = time.thread_time()
            rec.close()
            rec.spent += time.thread_time() - t
        cpu = time.process_time() - start
        return cpu, lw.time, 0.0 if rec is None else rec.spent, 0.0 if rec is None else rec.writer_cpu


def bench_overhead(folder: Path, rounds: int, quick: bool) -> tuple[list[str], dict]:
    rows = ["| session | simulated (s) | CPU, live world alone (s) | CPU, with recording (s) | recorder: session "
            "thread + writer | recorder / live world |", "|---|---:|---:|---:|---:|---:|"]
    files = {}
    for name, (scene, steps) in (("a minute of play on the Talo stock (56 pieces, 5 carries)",
                                  talo_play(2 if quick else 5)),
                                 ("a tower of 24 blocks struck and knocked down", tower_collapse())):
        path = folder / f"{len(files)}.tlrec"
        plain, recorded, spent = [], [], []
        for _ in range(rounds):
            plain.append(run(scene, steps, None)[0])
            cpu, simulated, inside, writer = run(scene, steps, path)
            recorded.append(cpu)
            spent.append((inside + writer, inside, writer))
        frames = simulated * 60
        total, inside, writer = min(spent)
        rows.append(f"| {name} | {simulated:.1f} | {min(plain):.2f} | {min(recorded):.2f} | "
                    f"{inside * 1e3:.0f} + {writer * 1e3:.0f} ms ({total / frames * 1e6:.0f} us a frame) | "
                    f"{total / min(plain) * 100:.1f} % |")
        files[name] = path
    return rows, files


def bench_size(folder: Path, files: dict) -> list[str]:
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
    args = parser.parse_args(argv)
    rounds = 1 if args.quick else max(1, args.rounds)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        overhead, files = bench_overhead(folder, rounds, args.quick)
        print("## Recording overhead on the live world\n")
        print("\n".join(overhead))
        print("\n## Recording size\n")
        print("\n".join(bench_size(folder, files)))
        print("\n## Videos at 1280 x 720\n")
        print("\n".join(bench_video(folder, list(files.values())[-1], args.quick)))
        print("\n## The replay window's poses\n")
        print("\n".join(bench_scrub(list(files.values())[0], args.quick)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
