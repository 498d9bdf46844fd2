"""Results files: the per-trial records (CSV or Parquet) and a sweep's table (CSV), written atomically."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from sim.atomic import write_bytes, write_text
from sim.errors import TowerlabError
from sim.experiments.trials import TrialRecord

FORMATS = (".csv", ".parquet")
"""The suffixes a records file may have."""

_TYPES = {"trial": "int64", "collapsed": "bool", "knocked_down": "int64", "max_displacement_mm": "float64",
          "peak_displacement_mm": "float64",
          "margin_g": "float64", "feasible": "bool", "unheld": "int64", "statics_collapsed": "bool",
          "dynamics_collapsed": "bool", "placement_mm": "float64", "nudged": "string", "value": "float64"}
"""Each column's Parquet type (every one nullable: None where a method did not run)."""

SWEEP_COLUMNS = ("value", "trials", "collapsed", "p_collapse", "ci_low", "ci_high", "knocked_down_mean",
                 "margin_mean", "margin_q05", "margin_q25", "margin_q50", "margin_q75", "margin_q95", "retried")
"""The columns of a sweep's table, one row per value."""


class OutputFormatError(TowerlabError):
    """An output file of a kind this command does not write."""


def check_format(path: Path, option: str = "-o") -> Path:
    """``path`` if it ends in .csv or .parquet.

    Raises:
        OutputFormatError: another suffix.
    """
    if Path(path).suffix.lower() not in FORMATS:
        got = Path(path).suffix or "no suffix"
        raise OutputFormatError(f"{option} {path}: expected a .csv or .parquet file, got {got!r}")
    return Path(path)


def record_rows(results, sweep_name: str | None = None) -> tuple[list[str], list[tuple]]:
    """Column names and rows of every trial of the results (with the sweep's ``value`` first when sweeping)."""
    columns = list(TrialRecord.columns())
    rows = []
    for result in results:
        value = _value(result, sweep_name)
        rows += [((value,) if sweep_name else ()) + r.row() for r in result.records]
    return (["value"] if sweep_name else []) + columns, rows


def _value(result, sweep_name: str | None):
    if not sweep_name:
        return None
    model, key = sweep_name.split(".")
    return next(p.params[key] for p in result.experiment.perturbations if p.model == model)


def write_records(path: Path, results, sweep_name: str | None = None, metadata: dict | None = None) -> Path:
    """Write every trial's record to a CSV or Parquet file (atomically).

    CSV cells are empty where a value is None; booleans are ``true``/``false``. A Parquet
    file keeps ``metadata`` (the experiment's JSON summary) under the key ``towerlab``.
    """
    path = check_format(path)
    columns, rows = record_rows(results, sweep_name)
    if path.suffix.lower() == ".csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow(["" if v is None else str(v).lower() if isinstance(v, bool) else v for v in row])
        return write_text(path, buffer.getvalue())
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([(c, pa.from_numpy_dtype(_TYPES[c]) if _TYPES[c] != "string" else pa.string())
                        for c in columns], metadata={"towerlab": json.dumps(metadata or {})})
    table = pa.table({c: [row[k] for row in rows] for k, c in enumerate(columns)}, schema=schema)
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return write_bytes(path, sink.getvalue())


def sweep_rows(results, sweep_name: str) -> list[dict]:
    """One row of :data:`SWEEP_COLUMNS` per sweep value."""
    rows = []
    for r in results:
        s = r.summary
        m = s["margin_g"] or {}
        rows.append({"value": _value(r, sweep_name), "trials": s["trials"], "collapsed": s["collapsed"],
                     "p_collapse": s["p_collapse"], "ci_low": s["ci95"][0], "ci_high": s["ci95"][1],
                     "knocked_down_mean": s["knocked_down_mean"], "margin_mean": m.get("mean"),
                     **{f"margin_{q}": m.get(q) for q in ("q05", "q25", "q50", "q75", "q95")},
                     "retried": r.retried})
    return rows


def write_sweep_table(path: Path, results, sweep_name: str) -> Path:
    """Write a sweep's table (CSV, one row per value, :data:`SWEEP_COLUMNS`), atomically."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, SWEEP_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in sweep_rows(results, sweep_name):
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return write_text(path, buffer.getvalue())
