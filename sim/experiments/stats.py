"""Summaries of trials: P(collapse) with a 95% interval, pieces knocked down, the margins' distribution (pure).

The interval is Wilson's score interval by default: of the usual intervals for
a binomial proportion its coverage stays closest to the nominal 95% for every
n and p, and it never collapses to a point at 0 or n collapses (the normal
approximation's does). ``clopper-pearson`` gives the exact interval instead,
whose coverage is at least 95% for every p (so wider). Both come from
``scipy.stats.binomtest``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest

INTERVALS = {"wilson": "wilson", "clopper-pearson": "exact"}
"""Interval name -> scipy's name for it."""

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
"""The quantiles a distribution is summarised by."""


def interval(k: int, n: int, method: str = "wilson", level: float = 0.95) -> tuple[float, float]:
    """The confidence interval of a binomial proportion: k successes in n trials.

    Args:
        k: successes (collapses).
        n: trials (n ≥ 1).
        method: ``wilson`` or ``clopper-pearson``.
        level: confidence level.

    Returns:
        (low, high), both in [0, 1].
    """
    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method=INTERVALS[method])
    return float(ci.low), float(ci.high)


def distribution(values) -> dict | None:
    """count, mean, std, min, the :data:`QUANTILES` (``q05`` …) and max of the finite values; None if there are none."""
    v = np.asarray([x for x in values if x is not None], dtype=float)
    v = v[np.isfinite(v)]
    if not len(v):
        return None
    q = np.quantile(v, QUANTILES)
    out = {"count": int(len(v)), "mean": float(v.mean()), "std": float(v.std(ddof=1)) if len(v) > 1 else 0.0,
           "min": float(v.min())}
    out.update({f"q{round(p * 100):02d}": float(x) for p, x in zip(QUANTILES, q)})
    out["max"] = float(v.max())
    return out


@dataclass(frozen=True)
class Proportion:
    """k of n, with its interval.

    Attributes:
        k: count (collapses).
        n: trials.
        ci95: (low, high).
        method: the interval's name.
    """

    k: int
    n: int
    ci95: tuple[float, float]
    method: str

    @property
    def p(self) -> float:
        """k / n."""
        return self.k / self.n if self.n else math.nan

    def to_json(self) -> dict:
        """``collapsed``, ``p_collapse``, ``ci95``."""
        return {"collapsed": self.k, "p_collapse": self.p, "ci95": list(self.ci95)}


def proportion(flags, method: str = "wilson") -> Proportion:
    """The proportion of true flags (None flags are left out) with its 95% interval."""
    f = [bool(x) for x in flags if x is not None]
    k, n = sum(f), len(f)
    return Proportion(k, n, interval(k, n, method) if n else (math.nan, math.nan), method)


def summarise(records, method: str, interval_method: str = "wilson") -> dict:
    """The summary of an experiment's trial records (:class:`~sim.experiments.trials.TrialRecord`).

    Returns:
        ``trials``, ``collapsed``, ``p_collapse``, ``ci95``, ``interval``, ``method``,
        ``knocked_down_mean``, ``margin_g`` (its distribution, or None),
        ``max_displacement_mm`` and ``peak_displacement_mm`` (distributions, or None), ``placement_mm``;
        with ``both``, also ``statics`` and ``dynamics`` (each a proportion) and ``agreement``
        (trials where they agree, the rate, and the first trials where they do not).
    """
    records = list(records)
    main = proportion([r.collapsed for r in records], interval_method)
    out = {"trials": len(records), **main.to_json(), "interval": interval_method, "method": method,
           "knocked_down_mean": float(np.mean([r.knocked_down for r in records])) if records else math.nan,
           # a margin distribution only where every trial found its margin: with --no-margin the infeasible
           # trials alone have one (0 g), and their distribution would say nothing of the others
           "margin_g": distribution(r.margin_g for r in records) if all(r.margin_g is not None for r in records)
           else None,
           "max_displacement_mm": distribution(r.max_displacement_mm for r in records),
           "peak_displacement_mm": distribution(r.peak_displacement_mm for r in records),
           "placement_mm": distribution(r.placement_mm for r in records)}
    if method == "both":
        out["statics"] = proportion([r.statics_collapsed for r in records], interval_method).to_json()
        out["dynamics"] = proportion([r.dynamics_collapsed for r in records], interval_method).to_json()
        out["dynamics"]["knocked_down_mean"] = out["knocked_down_mean"]
        differ = [r.trial for r in records if r.statics_collapsed != r.dynamics_collapsed]
        out["agreement"] = {"agree": len(records) - len(differ),
                            "rate": (len(records) - len(differ)) / len(records) if records else math.nan,
                            "disagree_trials": differ[:50]}
    return out
