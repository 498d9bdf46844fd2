"""Frame rate and undo time of the viewer at 1280 x 800 with physics live: empty table, the full Talo
stock, the 140-piece Babylon bench, a piece carried round in circles (the live quality; the camera turns a
little every frame so the full-quality still never steps in); and two games played in the play window, a
piece carried round in circles while the window draws its legal places and judges its ghost (Talo's block
over the board, snapping field to field; Babylon's tower round red's first turn).

Each case runs in a process of its own, in a real window: on the desktop's display, else under an
Xvfb this script starts. Prints frames per second (wall), CPU milliseconds per frame (both of the
process's threads: Python and llvmpipe's), the real-time factor and the ratio to the empty table.
The machine is shared: read the ratios, and the CPU time, before the wall-clock figures. Talo's block
is carried from its stock to circles over the board; Babylon's noble from the top of the city in
circles over it.

The camera's lag: an orbit as a drag applies it, a wheel click as its button event, a pan over the table as
the held W key applies it; frames counted from the frame that takes the input until a frame draws the camera
where it was sent (0: that very frame draws it; a camera that glides takes 20 frames and more).

Then the carried piece is set down and, once everything rests, undone: at once (the undo makes its
engine then), and again (after a redo) once the window has made the undo ahead in its quiet frames
(``Controller.prepare_undo``; at most 20 s of frames: the camera stands still meanwhile). Each undo is
timed from the action to the end of the frame that draws it; "ahead in" is how long the quiet frames
took to make it, from the first in which the window starts.

``--against DIR`` runs every case also with the code of another checkout (``sim`` imported from DIR,
e.g. main), alternating, and prints the ratios of this code's figures to those.

    python tools/bench_view.py [--frames 150] [--size 1280x800] [--json] [--against DIR] [--rounds 1]
        [--cases talo-play babylon-play ...]
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
PLAYED = {  # a game played with its referee and play window (the legal places drawn, the ghost judged): its
    # variant, players, seed, the actions before the piece is picked up and the centre of its circle (mm)
    "talo-play": ("talo", "green", None, 7, [{"action": "start", "cell": [0, 0]}, {"action": "start", "cell": [0, 9]},
                                             {"action": "throw"}, {"action": "take", "blocks": [1, 3]}],
                  "b3-1", (0.0, 0.0)),  # seed 7: red throws 4
    "babylon-play": ("babylon", "tactical", ["red", "blue", "green"], 0, "babylon-first-turn.json",
                     "blue-tower-1", (10.0, 25.0)),  # red's first turn built; blue's tower round it
}
CASES.update({name: (game, piece, around) for name, (game, _, _, _, _, piece, around) in PLAYED.items()})
LABELS = {"empty": "empty table", "talo": "Talo: board and full stock (61 pieces)",
          "babylon": "Babylon bench (140 pieces)", "talo-play": "Talo played: a block over the board",
          "babylon-play": "Babylon played: a tower over red's first turn"}


def run_case(name: str, frames: int, size: tuple[int, int]) -> dict:
    """One case, in this process: the window, a piece picked up and carried round."""
    import numpy as np

    try:
        from sim.games.setup import setup
    except ImportError:  # --against a checkout from before the set-ups moved into sim.games
        from sim.viewer.setup import setup
    from sim.scene import load_scene
    from sim.viewer.control.actions import action
    from sim.viewer.control.controller import Controller
    from sim.viewer.window.build import ViewerWindow

    what, piece, around = CASES[name]
    if name in PLAYED:
        controller, window = _played(name, size)
    else:
        if what.endswith(".json"):
            scene, supply = load_scene(what), ()
        else:
            scene = setup(what)
            supply = tuple(p.id for p in scene.pieces)
        controller = Controller(scene, threaded=True, size=size, supply=supply)
        window = ViewerWindow(controller, f"towerlab view bench {name}")
    scene = controller.scene0
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
    result.update(_camera_lag(controller, window))
    if piece is not None and name not in PLAYED:  # a game has no undo
        result.update(_undo_times(controller, window))
    window.close()
    return result


def _played(name: str, size: tuple[int, int]):
    """A game of :data:`PLAYED` in a window with its referee and play window, its opening actions played (each
    until the table rests)."""
    from sim.viewer.control.actions import action, specs_with
    from sim.viewer.control.controller import Controller
    from sim.viewer.play.games import new_game
    from sim.viewer.play.mode import Referee
    from sim.viewer.window.build import ViewerWindow
    from sim.viewer.window.play.draw import PlayWindow

    game, variant, players, seed, opening, _, _ = PLAYED[name]
    if isinstance(opening, str):
        opening = json.loads((ROOT / "tests" / "data" / "play" / opening).read_text())
    g = new_game(game, players, variant, seed)
    referee = Referee(g)
    controller = Controller(g.scene, threaded=True, size=size, supply=g.supply, plugins=[referee])
    window = ViewerWindow(controller, f"towerlab play bench {name}", plugins=[PlayWindow(referee)])
    specs = specs_with(controller.plugins)
    for _ in range(10):
        window.taskMgr.step()
    for a in opening:
        controller.apply(action(a["action"], specs=specs, **{k: v for k, v in a.items() if k != "action"}))
        deadline = time.monotonic() + 30
        while not controller.quiet() and time.monotonic() < deadline:
            window.taskMgr.step()
    return controller, window


LAG_INPUTS = {  # name -> how the input reaches the window: an event (as a button's), or an action of its frame
    "drag": ("action", "orbit", {"degrees": [6.0, 2.0]}),  # a drag: the frame's _follow_mouse applies it
    "wheel": ("event", "wheel_up", None),
    "keys": ("action", "pan", {"fraction": [0.0, 0.02], "plane": "table"}),  # W held: the frame's own keys
}


def _camera_lag(controller, window, limit: int = 120) -> dict:
    """Frames from each kind of camera input until a frame draws the camera where the input sent it: 0 when the
    frame that takes the input draws it. The drawn camera is the window's Panda3D camera after the frame;
    where it was sent is the controller's goal. An input this code does not know (an older window) is None."""
    step = window.taskMgr.step
    out = {}
    for name, (how, what, fields) in LAG_INPUTS.items():
        for _ in range(3):
            step()
        was = np.asarray(controller.camera.view(controller.camera.goal).eye)
        if how == "event":
            window.messenger.send(what)  # handled by the event manager in the next frame, as a button is
        elif not window._act(what, fields):  # what the frame's input code applies before it draws
            out[f"lag_{name}_frames"] = None  # an older window without this input
            continue
        frames = None
        for k in range(limit):
            step()
            goal = np.asarray(controller.camera.view(controller.camera.goal).eye)
            drawn = np.asarray(window.camera.get_pos(window.render))
            if not np.allclose(goal, was) and np.allclose(drawn, goal, atol=1e-6):
                frames = k
                break
        out[f"lag_{name}_frames"] = frames
    return out


def _undo_times(controller, window) -> dict:
    """Set the carried piece down, then undo it at once and, after a redo, once the window has made it
    ahead in its idle frames (or 5 s of them have passed): milliseconds from the action to the frame drawn."""
    from sim.viewer.control.actions import action

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
    server = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1600x1200x24", "-nolisten", "tcp", "-noreset"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        if Path(f"/tmp/.X11-unix/X{number}").exists():
            break
        time.sleep(0.05)
    env["DISPLAY"] = f":{number}"
    return env, server


FIGURES = (("fps", "fps", ".1f"), ("cpu_ms_per_frame", "CPU ms/frame", ".1f"),
           ("real_time_factor", "real-time", ".2f"), ("lag_drag_frames", "lag drag", ".0f"),
           ("lag_wheel_frames", "lag wheel", ".0f"), ("lag_keys_frames", "lag keys", ".0f"),
           ("undo_ms", "undo ms", ".0f"),
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
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES),
                        help="the cases to run (the empty table is always run: the ratios are to it)")
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
            for name in dict.fromkeys(["empty", *args.cases]):
                for code in codes:  # alternating, so that both meet the same load
                    runs.setdefault((str(code), name), []).append(_run(name, code, args, env))
    finally:
        if server is not None:
            server.terminate()
    load.append(os.getloadavg()[0])
    results = {key: _median(r) for key, r in runs.items()}
    names = list(dict.fromkeys(["empty", *args.cases]))
    for code in codes:
        empty = results[(str(code), "empty")]["fps"]
        for name in names:
            results[(str(code), name)]["ratio_to_empty"] = results[(str(code), name)]["fps"] / empty
    if args.json:
        print(json.dumps({"size": args.size, "load": load, "rounds": args.rounds,
                          "results": [{"code": code, **r} for (code, _), r in results.items()]}, indent=2))
        return
    print(f"viewer at {args.size}, a piece carried round in circles, physics live; then set down and undone "
          f"(load average {load[0]:.1f} to {load[1]:.1f} on {os.cpu_count()} cores; medians of {args.rounds})")
    print(f"{'case':42s} {'code':>6s}" + "".join(f" {label:>13s}" for _, label, _ in FIGURES) + f" {'vs empty':>9s}")
    for name in names:
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
