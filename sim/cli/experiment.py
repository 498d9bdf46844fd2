"""``towerlab experiment``: how likely a structure falls under perturbations, over many trials, on all cores or Dask."""

from __future__ import annotations

import secrets
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import OutputError, console, emit_json, err_console, one_output, writable_output
from sim.errors import TowerlabError


class ExperimentArgumentError(TowerlabError):
    """Options of ``towerlab experiment`` that cannot go together."""


def register(app: typer.Typer) -> None:
    app.command()(experiment)


@contextmanager
def _progress(label: str, quiet: bool):
    """A progress bar on stderr with trials done, trials/s and the time left (terminals only)."""
    if quiet or not err_console.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task) -> Text:
            return Text(f"{task.speed:.3g} trials/s" if task.speed else "… trials/s")

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), Rate(),
                  TimeRemainingColumn(), console=err_console, transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def experiment(
    scene_path: Annotated[Path, typer.Argument(metavar="SCENE", help="Scene file to perturb.", show_default=False)],
    trials: Annotated[int, typer.Option("--trials", "-n", help="Trials (per sweep value).", show_default=False)],
    perturb: Annotated[list[str] | None, typer.Option(
        "--perturb", "-p", metavar="MODEL:key=value,…",
        help="A perturbation; repeat for more. Models: noise (sigma_mm, sigma_deg, tilt_deg, axes), friction "
             "(sigma_rel), density (sigma_rel), nudge (impulse_ns, piece, direction, height, offset_mm, time_s), "
             "vibration (amplitude_mm, frequency_hz, duration_s, direction, start_s); pieces=a+b limits one to "
             "those pieces. See docs/experiments.md.", show_default=False)] = None,
    method: Annotated[str | None, typer.Option(
        "--method", help="statics (exact, fast; static perturbations), dynamics (the simulation) or both "
                         "(and their agreement). Default: statics when every perturbation is static.",
        show_default=False)] = None,
    seed: Annotated[int | None, typer.Option(
        "--seed", help="Seed of every trial's random stream (default: a fresh one, printed).",
        show_default=False)] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", "-j", help="Local processes (default: every core; 1: in this process).",
        show_default=False)] = None,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", metavar="tcp://HOST:PORT", help="Run on a Dask cluster instead of local processes.",
        show_default=False)] = None,
    out: Annotated[Path | None, typer.Option(
        "-o", "--out", help="Write every trial's record to this .csv or .parquet file.",
        show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    sweep: Annotated[str | None, typer.Option(
        "--sweep", metavar="MODEL.KEY=LO:HI:N", help="Run the trials at N values from LO to HI of one key, "
                                                    "e.g. noise.sigma_mm=0:5:11.", show_default=False)] = None,
    sweep_out: Annotated[Path | None, typer.Option(
        "--sweep-out", metavar="PREFIX", help="Where a sweep's table and plot go: PREFIX.csv and PREFIX.png "
                                              "(default: sweep-MODEL-KEY in this folder).",
        show_default=False)] = None,
    seconds: Annotated[float, typer.Option(
        "--seconds", help="Simulated time after the last nudge or shaking (s).")] = 2.0,
    margin: Annotated[bool, typer.Option(
        "--margin/--no-margin", help="Find each trial's statics margin (--no-margin: feasibility only, "
                                     "faster; no margin distribution).")] = True,
    interval: Annotated[str, typer.Option(
        "--interval", help="The 95% interval: wilson or clopper-pearson.")] = "wilson",
    old_output: Annotated[Path | None, typer.Option("--output", hidden=True, show_default=False)] = None,
) -> None:
    """How likely does a structure collapse under perturbations? Many trials, each its own random draw.

    Static perturbations (placement noise, friction, density) are answered by the
    exact statics, fast; a nudge, the table shaking or a tilt by the simulation;
    --method both gives both verdicts and their agreement. Prints P(collapse) with
    its 95% interval, the mean number of pieces knocked down and the statics
    margins' distribution. The same seed gives the same results on any number of
    workers or a cluster. Exit 0 when the trials ran; 2 on bad input.
    """
    from sim.experiments import experiment as make_experiment
    from sim.experiments import parse, parse_sweep
    from sim.experiments import sweep as run_sweep
    from sim.experiments.models import PerturbationError
    from sim.experiments.output import check_format
    from sim.experiments.stats import INTERVALS
    from sim.scene import load_scene

    if trials < 1:
        raise PerturbationError(f"--trials: expected at least 1, got {trials}")
    if workers is not None and scheduler is not None:
        raise ExperimentArgumentError("--workers and --scheduler: give one (the cluster has its own workers)")
    if workers is not None and workers < 1:
        raise ExperimentArgumentError(f"--workers: expected at least 1, got {workers}")
    if interval not in INTERVALS:
        raise ExperimentArgumentError(f"--interval: expected wilson or clopper-pearson, got {interval!r}")
    if not perturb and not sweep:
        raise ExperimentArgumentError("give at least one --perturb MODEL:key=value (or a --sweep)")
    output = one_output(out, old_output, required=False)
    if output is not None:
        check_format(writable_output(output))
    perturbations = [parse(text) for text in perturb or []]
    grid = None
    if sweep:
        grid, perturbations = parse_sweep(sweep, perturbations)
        sweep_out = sweep_out or Path(f"sweep-{grid.model}-{grid.key}")
        for suffix in (".csv", ".png"):
            writable_output(sweep_out.with_name(sweep_out.name + suffix), "--sweep-out")
    elif sweep_out is not None:
        raise ExperimentArgumentError("--sweep-out: only with --sweep")
    scene = load_scene(scene_path, solid=True)
    seed = secrets.randbits(32) if seed is None else seed
    exp = make_experiment(scene, perturbations, method, seed, seconds=seconds, margin=margin)
    total = trials * (len(grid.values) if grid else 1)
    with _progress(f"{scene_path.name}: {total} trials ({exp.method})", as_json) as update:
        results = run_sweep(exp, grid, trials, workers=workers, scheduler=scheduler, interval=interval,
                            progress=update)
    report = _report(scene_path, results, grid)
    if output is not None:
        from sim.experiments.output import write_records

        with _written("-o", output):
            write_records(output, results, grid.name if grid else None, report)
        report["output"] = str(output)
    if grid is not None:
        from sim.experiments.output import write_sweep_table
        from sim.experiments.plot import sweep_figure

        with _written("--sweep-out", sweep_out):
            table = write_sweep_table(sweep_out.with_name(sweep_out.name + ".csv"), results, grid.name)
            title = f"{scene_path.name}: {trials} trials per value, {exp.method}, seed {seed}"
            plot = sweep_figure(sweep_out.with_name(sweep_out.name + ".png"), results, grid.name, title)
        report.update(table=str(table), plot=str(plot))
    if as_json:
        emit_json(report)
        return
    _print(report, grid)


@contextmanager
def _written(option: str, path: Path):
    """An output written after the work that fails still (a full disk, a folder removed meanwhile): one line."""
    try:
        yield
    except OSError as e:
        raise OutputError(f"{option} {path}: cannot write {e.filename or path} ({e.strerror or e}); the trials "
                          "ran, their results are lost") from None


def _report(scene_path: Path, results, grid) -> dict:
    if grid is None:
        return {"scene": str(scene_path), **results[0].to_json()}
    first = results[0].to_json()
    return {"scene": str(scene_path), "sweep": grid.name, "values": list(grid.values),
            "method": first["method"], "seed": first["seed"], "interval": first["interval"],
            "trials_per_value": first["trials"], "retried": sum(r.retried for r in results),
            "where": first["where"], "seconds": first["seconds"],
            "trials_per_s": round(sum(len(r.records) for r in results) / first["seconds"], 3)
            if first["seconds"] else None,
            "points": [{"value": v, **{k: r.to_json()[k] for k in ("trials", "collapsed", "p_collapse", "ci95",
                                                                   "knocked_down_mean", "margin_g")}}
                       for v, r in zip(grid.values, results)]}


def _fmt_ci(ci) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def _print(r: dict, grid) -> None:
    interval = r["interval"].replace("-", "–").title()
    if grid is not None:
        console.print(f"{r['scene']}: sweep of {r['sweep']}, {r['trials_per_value']} trials per value, "
                      f"{r['method']}, seed {r['seed']}")
        for p in r["points"]:
            m = p["margin_g"]
            margin = f"  margin median {m['q50']:.3g} g" if m else ""
            console.print(f"  {p['value']:10.4g}  P(collapse) {p['p_collapse']:.3f}  {_fmt_ci(p['ci95'])}  "
                          f"knocked down {p['knocked_down_mean']:.2f}{margin}")
        console.print(f"  95% intervals: {interval}; table {r['table']}, plot {r['plot']}")
    else:
        console.print(f"{r['scene']}: {r['trials']} trials, {r['method']}, seed {r['seed']}")
        for text in r["perturbations"]:
            console.print(f"  {text}")
        console.print(f"  P(collapse) = {r['p_collapse']:.4f}, 95% interval {_fmt_ci(r['ci95'])} ({interval}); "
                      f"{r['collapsed']} collapsed")
        console.print(f"  pieces knocked down: mean {r['knocked_down_mean']:.3g}")
        if r.get("agreement"):
            a, s, d = r["agreement"], r["statics"], r["dynamics"]
            console.print(f"  statics P {s['p_collapse']:.4f} {_fmt_ci(s['ci95'])}, dynamics P "
                          f"{d['p_collapse']:.4f} {_fmt_ci(d['ci95'])}; they agree in {a['agree']} of "
                          f"{r['trials']} trials")
        m = r["margin_g"]
        if m:
            console.print(f"  statics margin (g): median {m['q50']:.3g}, 5–95% {m['q05']:.3g}–{m['q95']:.3g}, "
                          f"mean {m['mean']:.3g}")
        if r.get("output"):
            console.print(f"  records: {r['output']}")
    rate = f", {r['trials_per_s']:.3g} trials/s" if r.get("trials_per_s") else ""
    console.print(f"  {r['seconds']:.1f} s{rate} ({r['where']}); {r['retried']} trials retried after a worker died",
                  style="dim")
