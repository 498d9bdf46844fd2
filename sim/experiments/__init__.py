"""Stability experiments: perturbation models, Monte-Carlo trials, intervals, sweeps; local processes or Dask.

``experiment(scene, ["noise:sigma_mm=2"], seed=1)`` describes one;
``run(exp, trials)`` runs it on every core (or ``scheduler=`` a Dask cluster)
and returns per-trial records and a summary with P(collapse) and its 95%
interval; ``sweep`` runs a grid over one value. Static perturbations (placement
noise, friction, density) are answered by the exact statics, dynamic ones
(a nudge, the table shaking, a tilt) by the simulation. See docs/experiments.md.
Importing this package loads no engine: the simulation is imported by the trials that need it.
"""

from sim.experiments.campaign import Result, Sweep, parse_sweep, run, sweep
from sim.experiments.execute import ExecutionError
from sim.experiments.models import MODELS, Perturbation, PerturbationError, parse
from sim.experiments.stats import interval
from sim.experiments.trials import METHODS, Experiment, TrialRecord, experiment

__all__ = ["METHODS", "MODELS", "ExecutionError", "Experiment", "Perturbation", "PerturbationError", "Result",
           "Sweep", "TrialRecord", "experiment", "interval", "parse", "parse_sweep", "run", "sweep"]
