"""Babylon's tactical game played through the viewer offscreen: how long its turns take, before and after a change.

    .venv/bin/python tools/bench_play.py [--turns 5] [--rounds 2] [--against CHECKOUT]

The turns are the rules' own witness game (``tests/play_babylon_plan.py``: each turn the pieces that keep the
rule of four), picked from the supply, turned, carried over their places and set down with the viewer's actions,
the turn ended with ``end-turn``: ``towerlab play babylon --actions F --offscreen`` in a process of its own. With
``--against`` another checkout (the code before a change: ``git archive COMMIT | tar -x -C DIR``) plays the same
actions, its runs taking turns with ours, so that a loaded machine slows both alike; each run's recording is read
back and both must have placed the same pieces. Prints a Markdown table: wall seconds per run (best of
``--rounds``), simulated seconds, and how many times faster ours is.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

PLAYERS = ("red", "blue", "green")


def witness_actions(turns: int) -> list[dict]:
    """The viewer's actions of the first ``turns`` turns of the witness game."""
    from play_babylon_plan import viewer_actions, witness_game
    from play_table import StillTable

    from sim.games.play.judge import statics_judge
    from sim.games.setup import setup

    scene = setup("babylon", PLAYERS)
    table = StillTable(scene, [p.id for p in scene.pieces], statics_judge)
    _, steps = witness_game(table, PLAYERS, until=lambda s: len(s.state.turns) >= turns)
    return viewer_actions(steps, scene)


def run(checkout: Path, actions: Path, record: Path) -> float:
    """One game in a process of its own, with ``checkout``'s code: its wall time (s)."""
    env = dict(os.environ, PYTHONPATH=str(checkout), TOWERLAB_RECORDINGS=str(record.parent))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "sim", "play", "babylon", "--players", ",".join(PLAYERS),
                           "--actions", str(actions), "--offscreen", "--record", str(record)], env=env,
                          cwd=record.parent, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: exit {done.returncode}: {done.stderr[-1500:]}")
    return wall


def placed(record: Path) -> tuple[list, float]:
    """The pieces each turn placed, and the simulated seconds the game took, from a recording."""
    from sim.replay import load_recording

    rec = load_recording(record)
    turns = [dict(e.data)["pieces"] for e in rec.events if e.kind == "placed"]
    return turns, float(rec.times[-1]) if len(rec.times) else 0.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=5, help="turns of the witness game (default 5)")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each checkout; the best counts")
    parser.add_argument("--against", type=Path, help="another checkout, e.g. the code before a change")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        actions = work / "actions.json"
        script = witness_actions(args.turns)
        actions.write_text(json.dumps(script))
        sides = [("this checkout", ROOT)] + ([("against", args.against.resolve())] if args.against else [])
        walls: dict[str, list[float]] = {name: [] for name, _ in sides}
        games = {}
        for k in range(args.rounds):
            for name, checkout in sides:
                record = work / f"{name.replace(' ', '-')}-{k}.tlrec"
                walls[name].append(run(checkout, actions, record))
                games[name] = placed(record)
        load = os.getloadavg()
    print(f"Babylon, {args.turns} turns of the witness game, {len(script)} viewer actions; load "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; best of {args.rounds}\n")
    print("| code | wall (s) | simulated (s) | turns placed |")
    print("|---|---|---|---|")
    for name, checkout in sides:
        turns, simulated = games[name]
        print(f"| {name} ({checkout}) | {min(walls[name]):.1f} | {simulated:.1f} | {len(turns)} |")
    if args.against:
        if games["this checkout"][0] != games["against"][0]:
            print("\nthe two checkouts placed different pieces: not the same game")
            return 1
        print(f"\nthis checkout is {min(walls['against']) / min(walls['this checkout']):.2f}x as fast")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
