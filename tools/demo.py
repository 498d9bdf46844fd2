"""`make demo`: show what towerlab does on the bundled scenes, and say where the output went.

Each step is a small function; the whole run takes a minute or two on 2 cores.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
if not sys.stdout.isatty():
    os.environ.setdefault("COLUMNS", "120")  # a log or a pipe: rich would squeeze the tables into 80 columns

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from sim.atomic import write_text  # noqa: E402
from sim.cli import main as towerlab  # noqa: E402
from sim.cli.pieces import catalogue_report  # noqa: E402
from sim.errors import TowerlabError  # noqa: E402
from sim.scene import load_scene  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
console = Console(highlight=False)


def step_scenes(out: Path) -> None:
    """Validate and summarise every bundled scene."""
    folders: dict[str, dict] = {}
    summary = []
    for path in [*sorted((ROOT / "scenes").rglob("*.json")), *sorted((ROOT / "sim/data/cards").rglob("*.json"))]:
        rel = path.relative_to(ROOT)
        row = folders.setdefault(str(rel.parent), {"scenes": 0, "pieces": 0, "invalid": [], "titles": []})
        try:
            s = load_scene(path)
        except TowerlabError as e:
            row["invalid"].append(str(e))
            continue
        mass = sum(p.mass for p in s.pieces) * 1000
        row["scenes"] += 1
        row["pieces"] += len(s.pieces)
        summary.append({"scene": str(rel), "game": s.game, "board": s.board, "pieces": len(s.pieces),
                        "mass_g": round(mass, 2), "title": s.title})
    table = Table(title="Bundled scenes (all validated)")
    for col in ("folder", "scenes", "pieces", "invalid"):
        table.add_column(col)
    for folder, row in folders.items():
        table.add_row(folder, str(row["scenes"]), str(row["pieces"]),
                      "[red]" + "; ".join(row["invalid"]) + "[/]" if row["invalid"] else "—")
    console.print(table)
    write_text(out / "scenes.json", json.dumps(summary, indent=2) + "\n")


def step_catalogue(out: Path) -> None:
    """Write the piece catalogue (dimensions and masses) as JSON."""
    report = catalogue_report()
    write_text(out / "catalogue.json", json.dumps(report, indent=2) + "\n")
    n = sum(len(k["variants"]) for k in report["kinds"])
    console.print(f"Catalogue: {len(report['kinds'])} kinds, {n} variants, {len(report['boards'])} boards")


def run(args: list[str], save: Path | None = None) -> str:
    """Run a towerlab command in this process; its stdout is shown, or saved to ``save`` and returned."""
    if save is None:
        console.print(f"[dim]$ towerlab {' '.join(args)}[/]")
        code = towerlab(args)
        if code:
            raise SystemExit(f"towerlab {' '.join(args)} failed with exit code {code}")
        return ""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = towerlab(args)
    if code:
        raise SystemExit(f"towerlab {' '.join(args)} failed with exit code {code}")
    write_text(save, buffer.getvalue())
    return buffer.getvalue()


STABILITY_SCENES = [
    "scenes/free/physics-harmonic-8-stands.json", "scenes/free/physics-harmonic-8-falls.json",
    "scenes/free/physics-knife-edge-falls.json", "scenes/free/physics-plank-stands.json",
    "scenes/free/physics-plank-falls.json", "scenes/talo/counterweight.json", "scenes/talo/all-55-blocks.json",
    "scenes/babylon/tactical-example.json",
]


def step_stability(out: Path) -> None:
    """Stability verdicts: exact statics and pybullet on analytic cases."""
    table = Table(title="towerlab check (statics + dynamics)")
    for col in ("scene", "verdict", "margin (g)", "weakest dir.", "knocked down", "statics ms", "dynamics ms"):
        table.add_column(col, no_wrap=col != "knocked down")
    for rel in STABILITY_SCENES:
        name = Path(rel).stem.removeprefix("physics-")
        report = json.loads(run(["check", str(ROOT / rel), "--json"], out / "check" / f"{name}.json"))
        verdict = "[green]stands[/]" if report["stable"] else "[red]falls[/]"
        direction = report["weakest_direction_deg"]
        table.add_row(name, verdict, f"{report['margin_g']:.4f}",
                      "—" if direction is None else f"{direction:.0f}°",
                      ", ".join(report["dynamics"]["knocked_down"]) or "—",
                      f"{report['timings_ms']['statics']:.0f}", f"{report['timings_ms']['dynamics']:.0f}")
    console.print(table)
    console.print(f"JSON verdicts in {out / 'check'}")


def step_collapse(out: Path) -> None:
    """A collapse, simulated and drawn before and after."""
    scene = ROOT / "scenes/free/physics-harmonic-8-falls.json"
    settled = out / "collapse" / "harmonic-8-after.json"
    run(["simulate", str(scene), "-o", str(settled)])
    run(["render", str(scene), "-o", str(out / "collapse" / "harmonic-8-before.png"), "--size", "800x600"])
    run(["render", str(settled), "-o", str(out / "collapse" / "harmonic-8-after.png"), "--size", "800x600"])


def step_assembly(out: Path) -> None:
    """Any rigid-block assembly: compas_cra's bridge sample imported, judged with its margin, drawn."""
    scene = out / "assembly" / "bridge.json"
    scene.parent.mkdir(parents=True, exist_ok=True)
    run(["import", "compas", str(ROOT / "tests/data/compas/bridge.json"), "-o", str(scene), "--support", "0,1",
         "--friction", "0.9"])
    run(["check", str(scene), "--seconds", "0.5"])
    run(["render", str(scene), "-o", str(out / "assembly" / "bridge.png"), "--size", "800x600"])


def step_pictures(out: Path) -> None:
    """Offscreen pictures of one scene per game."""
    scenes = ["scenes/talo/render-castle.json", "scenes/tohuwabohu/render-pillars.json",
              "scenes/babylon/tactical-example.json"]
    run(["render", *(str(ROOT / s) for s in scenes), "-o", str(out / "pictures"), "--size", "800x600"])


def step_tohuwabohu(out: Path) -> None:
    """Tohuwabohu: building rules, order cards, card illustrations."""
    run(["tohuwabohu", "check", str(ROOT / "sim/data/cards/tohuwabohu/cross-red.json")])
    run(["tohuwabohu", "check", str(ROOT / "scenes/tohuwabohu/against-the-rules.json"), "--no-physics"])
    run(["cards", "tohuwabohu", "-o", str(out / "cards"), "--only", "cross-red", "--only", "four-red",
         "--only", "seq-quad-tri-quad"])


def step_talo(out: Path) -> None:
    """Talo: rules, height map, where a pawn can climb, an automatic game."""
    run(["talo", "check", str(ROOT / "scenes/talo/spiral-staircase.json")])
    run(["talo", "moves", str(ROOT / "scenes/talo/bridge.json"), "--pawn", "red"])
    run(["talo", "auto", "--no-physics", "--seed", "5", "--players", "red,blue,green",
         "--out", str(out / "talo" / "auto-game.json"), "--script", str(out / "talo" / "auto-game.talo-game")])


def step_babylon(out: Path) -> None:
    """Babylon Tower Builders: scoring and turn legality."""
    run(["babylon", "score", str(ROOT / "scenes/babylon/tactical-example.json"), "--no-physics"])
    run(["babylon", "check-turn", str(ROOT / "scenes/babylon/first-turn.json"),
         str(ROOT / "scenes/babylon/second-turn.json"), "--player", "blue"])


def step_experiment(out: Path) -> None:
    """An experiment: how placement noise brings down the Talo counterweight, with 95% intervals."""
    folder = out / "experiment"
    folder.mkdir(parents=True, exist_ok=True)
    prefix = folder / "counterweight-noise"
    run(["experiment", str(ROOT / "scenes/talo/counterweight.json"), "-n", "200", "--seed", "1",
         "-p", "noise:sigma_mm=1", "--sweep", "noise.sigma_mm=0:8:9", "--no-margin", "--sweep-out", str(prefix)])
    console.print(f"P(collapse) against the noise's sigma: {prefix}.png (the trials' table: {prefix}.csv)")


VIEWER_SESSION = [
    {"action": "camera", "preset": "iso"},
    {"action": "zoom", "factor": 0.55, "at": [640, 420]},
    {"action": "pick", "piece": "b5-1"}, {"action": "move-to", "at": [-30, 10]}, {"action": "drop"},
    {"action": "pick", "piece": "b5-2"}, {"action": "move-to", "at": [30, 10]}, {"action": "drop"},
    {"action": "screenshot", "path": "1-two-posts.png"},
    {"action": "pick", "piece": "b7-1"}, {"action": "move-to", "at": [0, 10, 20]}, {"action": "drop"},
    {"action": "screenshot", "path": "2-a-beam-across.png"},
    {"action": "pick", "piece": "b2-1"}, {"action": "move-to", "at": [-60, 10, 40], "free": True},
    {"action": "drop", "free": True},
    {"action": "poke", "piece": "b2-1", "direction": [-1, 0, 0], "speed": 0.6}, {"action": "wait", "seconds": 1.0},
    {"action": "screenshot", "path": "3-poked-off.png"},
    {"action": "undo"},
    {"action": "screenshot", "path": "4-undone.png"},
    {"action": "save", "path": "built.json"},
]


def step_play(out: Path) -> None:
    """A game of Talo played through the viewer: two seeded turns each, the referee judging every move."""
    folder = out / "play"
    folder.mkdir(parents=True, exist_ok=True)
    actions = json.loads((ROOT / "tests/data/play/talo-seed7.json").read_text(encoding="utf-8"))
    ends = [k for k, a in enumerate(actions) if a["action"] == "end-turn"]
    script = folder / "talo-four-turns.json"
    write_text(script, "[\n" + ",\n".join("  " + json.dumps(a) for a in actions[:ends[3] + 1]) + "\n]\n")
    run(["play", "talo", "--seed", "7", "--offscreen", "--actions", str(script),
         "--screenshot", str(folder / "talo.png"), "--record", str(folder / "talo.tlrec"), "--exit"])
    run(["replay", str(folder / "talo.tlrec"), "--summary"])


def step_viewer(out: Path) -> None:
    """The viewer, scripted: a Talo session through the viewer's controller, offscreen, with its pictures."""
    folder = out / "viewer"
    folder.mkdir(parents=True, exist_ok=True)
    session = [dict(a, path=str(folder / a["path"])) if "path" in a else a for a in VIEWER_SESSION]
    actions = folder / "session.json"
    write_text(actions, "[\n" + ",\n".join("  " + json.dumps(a) for a in session) + "\n]\n")
    run(["view", "--game", "talo", "--offscreen", "--actions", str(actions), "--size", "1280x800"])
    console.print(f"Viewer session: {actions}; its pictures and the saved scene in {folder}"
                  + ("; `make demo` opens the viewer next" if os.environ.get("DISPLAY") else ""))


def step_replay(out: Path) -> None:
    """A recorded Talo collapse: replayed into a video, and settled by the rules."""
    from sim.physics.live import LiveWorld
    from sim.replay import Recorder, load_recording
    from sim.replay.script import play_script
    from sim.scene import from_dict

    scene = load_scene(ROOT / "scenes/talo/bridge.json")
    block = from_dict({"format": "towerlab-scene/1", "game": "talo", "board": scene.board, "pieces": [
        {"id": "red-1", "kind": "talo.block", "length": 1, "cell": [9, 5], "layer": 0, "axis": "z"}]}, "<demo>")
    scene = scene.with_pieces([*scene.pieces, *block.pieces])
    pillar, start = scene.piece("pillar-e").pos, block.pieces[0].pos
    steps = [{"kind": "wait", "seconds": 0.3},  # red takes a block and sweeps it, carelessly, into the bridge
             {"kind": "grab", "piece": "red-1", "hand": "right", "player": "red", "args": {"strength": 60}},
             {"kind": "carry", "hand": "right", "to": [start[0], start[1], 0.045], "seconds": 0.4},
             {"kind": "carry", "hand": "right", "to": [pillar[0] - 0.12, pillar[1], 0.045], "seconds": 0.6},
             {"kind": "release", "hand": "right", "player": "red"},
             {"kind": "wait", "seconds": 1.5}]
    recording = out / "replay" / "talo-collapse.tlrec"
    recording.parent.mkdir(parents=True, exist_ok=True)
    with LiveWorld(scene) as live, Recorder(recording) as rec:
        rec.start_live(live, game="talo", players=["red", "blue"], variant="talo")
        play_script(live, steps, rec)
    first = next(e.time for e in load_recording(recording).timeline_events if e.kind == "knocked_down")
    run(["replay", str(recording), "--summary"])
    script = out / "replay" / "before-and-now.json"  # what the replay window shows at the first knock-down
    script.write_text(json.dumps([{"action": "jump", "to": "first-knockdown"},
                                  {"action": "compare", "mode": "before"}]), encoding="utf-8")
    run(["replay", str(recording), "--offscreen", "--actions", str(script), "--screenshot",
         str(out / "replay" / "talo-collapse-before-and-now.png"), "--size", "1280x600"])
    run(["replay", str(recording), "--video", str(out / "replay" / "talo-collapse.mp4"), "--from",
         f"{max(0.0, first - 0.4):.2f}", "--to", f"{first + 1.0:.2f}", "--speed", "0.5", "--size", "640x360"])
    run(["penalty", str(recording)])


STEPS = [step_scenes, step_catalogue, step_stability, step_collapse, step_pictures, step_assembly, step_tohuwabohu,
         step_talo, step_babylon, step_experiment, step_replay, step_play, step_viewer]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "demo")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for step in STEPS:
        console.rule(step.__doc__.splitlines()[0])
        step(out)
    console.rule()
    console.print(f"Done in {time.perf_counter() - t0:.1f} s. Output: [bold]{out}[/]")
    for p in sorted(out.rglob("*")):
        if p.is_file():
            console.print(f"  {p.relative_to(out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
