"""A campaign: an experiment run, or swept over a grid of one perturbation's value; records and summaries."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from sim.experiments.execute import execute
from sim.experiments.models import MODELS, Perturbation, PerturbationError, parse
from sim.experiments.stats import summarise
from sim.experiments.trials import Experiment, TrialRecord

MAX_TRIALS = 10_000_000
"""More trials than this is a typo."""


@dataclass(frozen=True, eq=False)
class Result:
    """An experiment's trials and their summary.

    Attributes:
        experiment: what was run.
        records: one per trial, in trial order.
        summary: :func:`sim.experiments.stats.summarise` of them.
        retried: trials run again because a worker died with them.
        where: where they ran.
        seconds: wall-clock time (s).
    """

    experiment: Experiment
    records: tuple[TrialRecord, ...]
    summary: dict
    retried: int
    where: str
    seconds: float

    def to_json(self) -> dict:
        """The summary with the seed, the perturbations, the retried trials, where and how fast."""
        return {**self.summary, "seed": self.experiment.seed,
                "perturbations": [p.text for p in self.experiment.perturbations], "retried": self.retried,
                "where": self.where, "seconds": round(self.seconds, 3),
                "trials_per_s": round(len(self.records) / self.seconds, 3) if self.seconds > 0 else None}


@dataclass(frozen=True)
class Sweep:
    """A grid over one value of one perturbation.

    Attributes:
        model: the model's name.
        key: the key varied.
        values: the grid.
        index: which of the experiment's perturbations it varies (that model's only one).
    """

    model: str
    key: str
    values: tuple[float, ...]
    index: int

    @property
    def name(self) -> str:
        """``model.key``."""
        return f"{self.model}.{self.key}"


def parse_sweep(text: str, perturbations: Sequence[Perturbation]) -> tuple[Sweep, tuple[Perturbation, ...]]:
    """A sweep from ``model.key=lo:hi:n`` (n evenly spaced values from lo to hi, both included).

    A model not among ``perturbations`` is added with its defaults (the swept key set).

    Returns:
        The sweep and the perturbations, the swept one included.

    Raises:
        PerturbationError: the text is not of that form; an unknown model or key, a key
            that is not a number, n < 1, a value out of the key's range; the model given twice.
    """
    import numpy as np

    name, eq, grid = str(text).partition("=")
    model, dot, key = name.strip().partition(".")
    parts = grid.split(":")
    if not eq or not dot or len(parts) != 3:
        raise PerturbationError(f"--sweep {text!r}: expected model.key=lo:hi:n, e.g. noise.sigma_mm=0:5:11")
    if model not in MODELS:
        raise PerturbationError(f"--sweep {text!r}: unknown model {model!r} (known: {', '.join(MODELS)})")
    try:
        k = MODELS[model].key(key)
    except PerturbationError as e:
        raise PerturbationError(f"--sweep {text!r}: {e}") from None
    if not k.numeric:
        raise PerturbationError(f"--sweep {text!r}: {model}.{key} is not a number")
    try:
        lo, hi, n = float(parts[0]), float(parts[1]), int(parts[2])
    except ValueError:
        raise PerturbationError(f"--sweep {text!r}: expected numbers lo:hi and a count n, got {grid!r}") from None
    if n < 1 or n > 1000:
        raise PerturbationError(f"--sweep {text!r}: n: expected 1..1000 values, got {n}")
    if not (math.isfinite(lo) and math.isfinite(hi) and math.isfinite(hi - lo)):
        raise PerturbationError(f"--sweep {text!r}: lo and hi: expected finite numbers a finite span "
                                f"apart, got {parts[0]!r}:{parts[1]!r}")
    values = tuple(float(v) for v in np.linspace(lo, hi, n))
    found = [i for i, p in enumerate(perturbations) if p.model == model]
    if len(found) > 1:
        raise PerturbationError(f"--sweep {text!r}: {model} is given {len(found)} times; sweep one given once")
    perturbations = tuple(perturbations)
    if not found:
        required = [x.name for x in MODELS[model].keys if x.default is None and x.name != key]
        if required:
            raise PerturbationError(f"--sweep {text!r}: give --perturb {model}:… with {', '.join(required)}")
        base = parse(f"{model}:{key}={values[0]!r}")
        perturbations += (base,)
        found = [len(perturbations) - 1]
    for v in values:  # every grid value checked before any trial runs
        try:
            perturbations[found[0]].with_value(key, v)
        except PerturbationError as e:
            raise PerturbationError(f"--sweep {text!r}: {e}") from None
    return Sweep(model, key, values, found[0]), perturbations


def _records(rows) -> tuple[TrialRecord, ...]:
    return tuple(TrialRecord(*row) for row in rows)


def _check_trials(trials: int) -> None:
    if isinstance(trials, bool) or not isinstance(trials, int) or not 1 <= trials <= MAX_TRIALS:
        raise PerturbationError(f"--trials: expected 1..{MAX_TRIALS}, got {trials!r}")


def run(exp: Experiment, trials: int, *, workers: int | None = None, scheduler=None, interval: str = "wilson",
        progress: Callable[[int, int], None] | None = None) -> Result:
    """Run ``trials`` trials of an experiment.

    Args:
        exp: the experiment (:func:`sim.experiments.experiment`).
        trials: how many (≥ 1).
        workers: local processes (default every core; 1: this process).
        scheduler: a Dask scheduler address, client or cluster (instead of local processes).
        interval: ``wilson`` or ``clopper-pearson``.
        progress: called as ``progress(done, total)``.

    Raises:
        PerturbationError: trials out of range.
        ExecutionError: see :func:`sim.experiments.execute.execute`.
    """
    return sweep(exp, None, trials, workers=workers, scheduler=scheduler, interval=interval, progress=progress)[0]


def sweep(exp: Experiment, grid: Sweep | None, trials: int, *, workers: int | None = None, scheduler=None,
          interval: str = "wilson", progress: Callable[[int, int], None] | None = None) -> list[Result]:
    """Run ``trials`` trials at every value of a sweep (all points' trials in one go, so every core stays busy).

    Every point uses the experiment's seed: trial i of every point draws the same numbers
    (common random numbers), so the points differ by the value alone.

    Returns:
        One :class:`Result` per value (one with ``grid`` None).
    """
    _check_trials(trials)
    if grid is None:
        points = [exp]
    else:
        base = exp.perturbations[grid.index]
        points = [replace(exp, perturbations=exp.perturbations[:grid.index] + (base.with_value(grid.key, v),)
                          + exp.perturbations[grid.index + 1:]) for v in grid.values]
    start = time.perf_counter()
    done = execute([(point.to_json(), trials) for point in points], exp.method, workers=workers,
                   scheduler=scheduler, progress=progress)
    elapsed = time.perf_counter() - start
    results = []
    for point, rows, retried in zip(points, done.rows, done.retried):
        records = _records(rows)
        results.append(Result(point, records, summarise(records, point.method, interval), retried, done.where,
                              elapsed))
    return results
