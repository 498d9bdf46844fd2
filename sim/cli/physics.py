"""``towerlab check`` and ``towerlab simulate``: does a scene stand, and where do its pieces come to rest?"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import (
    console,
    distinct_files,
    emit_json,
    one_output,
    progress,
    safe,
    seconds_option,
    writable_output,
)
from sim.errors import TowerlabError
from sim.names import listing

RECORD_HELP = "Also write the run as a recording R (towerlab replay R, towerlab penalty R)."


class PhysicsArgumentError(TowerlabError):
    """A physics output that cannot be written."""


def register(app: typer.Typer) -> None:
    app.command()(check)
    app.command()(simulate)


def check(
    scene_path: Annotated[Path, typer.Argument(metavar="SCENE", help="Scene file to judge.", show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
    seconds: Annotated[float | None, typer.Option(
        "--seconds", help="Simulated time of the dynamic check in seconds (default 2).", show_default=False)] = None,
    record: Annotated[Path | None, typer.Option("--record", metavar="R", help=RECORD_HELP, show_default=False)] = None,
) -> None:
    """Does a scene stand? The exact statics decide (margin in g); a pybullet simulation is the witness.

    Stable means: the rigid-block equilibrium holds with a margin above 0.001 g
    (a knife-edge balance does not count). The simulation runs freely beside
    it and shows what moves (more than 1 mm or 1°) and falls; where it
    disagrees, the output says why that is the simulation's limit. Exit 0
    whatever the verdict; 2 on bad input.
    """
    from sim.physics import DEFAULT_SECONDS
    from sim.physics import check as physics_check
    from sim.scene import load_scene

    seconds = seconds_option(seconds) or DEFAULT_SECONDS
    scene = load_scene(scene_path, solid=True)
    if record is not None:
        writable_output(record, "--record")
        distinct_files(("SCENE", scene_path), ("--record", record))
    with progress(f"checking {scene_path.name}", quiet=as_json, unit="s simulated") as update, \
            _recording(record, "check", seconds) as on_frame:
        result = physics_check(scene, seconds=seconds, progress=update, on_frame=on_frame)
        if on_frame is not None:
            on_frame.close(result.timeline.events)
    if as_json:
        emit_json(result.to_json())
        return
    _print_check(scene_path, result)


@contextmanager
def _recording(record: Path | None, source: str, seconds: float | None):
    """The run's recording, written as it goes (None without ``--record``): a Ctrl-C or a failed run keeps what
    ran, closed."""
    if record is None:
        yield None
        return
    from sim.replay.runs import RunRecorder

    with RunRecorder(record, source=source, seconds=seconds) as on_frame:
        yield on_frame


def _print_check(path: Path, r) -> None:
    from rich.table import Table

    if not r.judged:
        console.print(f"{safe(path)}: nothing to judge (no movable pieces)")
        return
    verdict = "[bold green]stands[/]" if r.stable else "[bold red]does not stand[/]"
    console.print(f"{safe(path)}: {verdict}")
    s = r.statics
    if s.feasible:
        towards = "" if r.weakest_direction_deg is None else f", weakest towards {r.weakest_direction_deg:.1f}°"
        console.print(f"  statics:  equilibrium, margin {r.margin_g:.4g} g{towards}")
    else:
        console.print(f"  statics:  no equilibrium; cannot hold {safe(', '.join(s.unheld))}")
    d = r.dynamics
    state = "settled" if d.settled else "still moving"
    moved = f"moved: {safe(listing(d.moved, 12))}" if d.moved else "nothing moved"
    console.print(f"  dynamics: {d.sim_seconds:g} s simulated, {state}, max displacement "
                  f"{d.max_displacement_mm:.3f} mm, {moved}")
    if d.moved:
        table = Table(box=None, padding=(0, 2), show_edge=False)
        for col in ("piece", "displacement mm", "tilt °", "knocked down"):
            table.add_column(col, justify="left" if col == "piece" else "right")
        for pid in d.moved:
            p = r.pieces[pid]
            table.add_row(safe(pid), f"{p.displacement_mm:.2f}", f"{p.tilt_deg:.1f}", "yes" if p.knocked_down else "")
        console.print(table)
    if r.disagreement:
        console.print(f"  [yellow]disagreement:[/] {r.disagreement}")
    console.print(f"  time: statics {r.timings_ms['statics']:.0f} ms, dynamics {r.timings_ms['dynamics']:.0f} ms",
                  style="dim")


def simulate(
    scene_path: Annotated[Path, typer.Argument(metavar="SCENE", help="Scene file to simulate.", show_default=False)],
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Where to write the settled scene (a .json file).",
                                             show_default=False)] = None,
    seconds: Annotated[float | None, typer.Option(
        "--seconds", help="Simulate exactly this long in seconds (default: until every piece rests, at most 10 s).",
        show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print what happened as JSON.")] = False,
    record: Annotated[Path | None, typer.Option("--record", metavar="R", help=RECORD_HELP, show_default=False)] = None,
    old_output: Annotated[Path | None, typer.Option("--output", hidden=True, show_default=False)] = None,
) -> None:
    """Let a scene's pieces fall and settle; write the scene at rest and report what moved.

    The output is a scene file of the same format (written atomically), with
    every piece at its settled pose. Exit 0 whatever happened; 2 on bad input.
    """
    from sim.physics import simulate as physics_simulate
    from sim.scene import load_scene, save_scene

    seconds = seconds_option(seconds)
    output = writable_output(one_output(out, old_output, what="the settled scene file"))
    if record is not None:
        writable_output(record, "--record")
        distinct_files(("SCENE", scene_path), ("--record", record))
        distinct_files(("-o", output), ("--record", record))  # (-o SCENE settles the scene in place)
    scene = load_scene(scene_path, solid=True)
    with progress(f"simulating {scene_path.name}", quiet=as_json, unit="s simulated") as update, \
            _recording(record, "simulate", seconds) as on_frame:
        timeline = physics_simulate(scene, seconds, until_settled=seconds is None, progress=update,
                                    on_frame=on_frame)
        if on_frame is not None:
            on_frame.close(timeline.events)
    try:
        save_scene(timeline.final, output)
    except OSError as e:
        raise PhysicsArgumentError(f"-o {output}: cannot write ({e.strerror or e})") from None
    report = {"file": str(scene_path), "output": str(output), "sim_seconds": round(timeline.seconds, 6),
              "settled": timeline.settled, "moved": timeline.moved, "knocked_down": timeline.knocked_down,
              "events": [e.to_json() for e in timeline.events],
              "pieces": {i: {"displacement_mm": round(m.displacement_mm, 4), "tilt_deg": round(m.tilt_deg, 4),
                             "knocked_down": m.knocked_down,
                             "began_moving_s": None if m.began_moving is None else round(m.began_moving, 4)}
                         for i, m in timeline.pieces.items()}}
    if as_json:
        emit_json(report)
        return
    state = "settled" if timeline.settled else "still moving"
    console.print(f"{safe(scene_path)} -> {safe(output)}: {timeline.seconds:.2f} s simulated, {state}")
    for e in timeline.events:
        pieces = f": {safe(', '.join(e.pieces))}" if e.pieces else ""
        console.print(f"  {e.time:6.2f} s  {e.kind.replace('_', ' ')}{pieces}")
    if not timeline.events:
        console.print("  nothing moved")
