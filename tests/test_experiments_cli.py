"""``towerlab experiment``: its JSON, text, records files, sweeps with their plot, and every bad input as one line."""

from __future__ import annotations

import csv
import json

import pytest

from sim.cli import main
from sim.scene import dumps
from tests.helpers import box_record, free_scene

ISSUE_KEYS = {"trials", "collapsed", "p_collapse", "ci95", "method"}


@pytest.fixture()
def scene_file(tmp_path):
    scene = free_scene(box_record("base", (60, 30, 20), (0, 0, 10)), box_record("top", (60, 30, 20), (26, 0, 30)))
    path = tmp_path / "stack.json"
    path.write_text(dumps(scene))
    return path


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_has_the_issue_keys_and_reproduces_from_its_seed(scene_file, capsys):
    args = ["experiment", scene_file, "--trials", 60, "-p", "noise:sigma_mm=3,pieces=top", "--json", "-j", 1]
    code, out, err = run(capsys, *args)
    assert code == 0 and err == ""
    r = json.loads(out)
    assert set(r) >= ISSUE_KEYS and r["trials"] == 60 and r["method"] == "statics" and r["interval"] == "wilson"
    assert r["ci95"][0] <= r["p_collapse"] <= r["ci95"][1] and r["collapsed"] == round(r["p_collapse"] * 60)
    assert r["margin_g"]["count"] == 60 and r["retried"] == 0 and isinstance(r["seed"], int)
    again = json.loads(run(capsys, *args, "--seed", r["seed"])[1])
    assert {k: again[k] for k in ISSUE_KEYS | {"margin_g"}} == {k: r[k] for k in ISSUE_KEYS | {"margin_g"}}


def test_text_output_and_records_as_csv_and_parquet(scene_file, tmp_path, capsys):
    base = ["experiment", scene_file, "-n", 30, "-p", "noise:sigma_mm=3", "--seed", 4, "-j", 1]
    code, out, _ = run(capsys, *base, "-o", tmp_path / "r.csv", "--interval", "clopper-pearson")
    assert code == 0 and "P(collapse) =" in out and "Clopper–Pearson" in out and "margin" in out
    rows = list(csv.DictReader((tmp_path / "r.csv").open()))
    assert len(rows) == 30 and rows[0]["trial"] == "0" and rows[0]["max_displacement_mm"] == ""
    assert {r["collapsed"] for r in rows} <= {"true", "false"}
    code, _, _ = run(capsys, *base, "-o", tmp_path / "r.parquet")
    import pyarrow.parquet as pq

    table = pq.read_table(tmp_path / "r.parquet")
    assert table.num_rows == 30 and table.column("trial").to_pylist() == list(range(30))
    assert [str(v).lower() for v in table.column("collapsed").to_pylist()] == [r["collapsed"] for r in rows]
    assert json.loads(table.schema.metadata[b"towerlab"])["seed"] == 4


def test_both_reports_each_method_and_their_agreement(scene_file, capsys):
    code, out, _ = run(capsys, "experiment", scene_file, "-n", 6, "-p", "noise:sigma_mm=2,pieces=top",
                       "--method", "both", "--seed", 1, "-j", 1, "--seconds", 1, "--json")
    r = json.loads(out)
    assert code == 0 and r["method"] == "both" and r["agreement"]["agree"] + len(r["agreement"]["disagree_trials"]) == 6
    assert set(r["statics"]) >= {"collapsed", "p_collapse", "ci95"} and r["max_displacement_mm"]["count"] == 6


def test_a_sweep_writes_its_table_and_plot(scene_file, tmp_path, capsys):
    prefix = tmp_path / "out" / "sigma"
    code, out, _ = run(capsys, "experiment", scene_file, "-n", 20, "-p", "noise:pieces=top", "--sweep",
                       "noise.sigma_mm=0:6:4", "--sweep-out", prefix, "--seed", 2, "-j", 1, "--json",
                       "-o", tmp_path / "all.csv")
    assert code == 0
    r = json.loads(out)
    assert r["sweep"] == "noise.sigma_mm" and r["values"] == [0.0, 2.0, 4.0, 6.0] and len(r["points"]) == 4
    assert r["points"][0]["p_collapse"] == 0.0 and all(ISSUE_KEYS - {"method"} <= set(p) for p in r["points"])
    with open(r["table"]) as f:
        table = list(csv.DictReader(f))
    assert [float(t["value"]) for t in table] == r["values"] and float(table[0]["margin_q50"]) > 0
    with open(r["plot"], "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    records = list(csv.DictReader((tmp_path / "all.csv").open()))
    assert len(records) == 80 and records[-1]["value"] == "6.0"


@pytest.mark.parametrize("args, message", [
    (["-n", 10, "-p", "wobble:x=1"], "unknown model 'wobble'"),
    (["-n", 10, "-p", "noise:sigma=1"], "unknown key 'sigma'"),
    (["-n", 10, "-p", "noise:sigma_mm=-2"], "noise.sigma_mm: expected 0 <= x"),
    (["-n", 0, "-p", "noise"], "--trials: expected at least 1, got 0"),
    (["-n", 10], "give at least one --perturb"),
    (["-n", 10, "-p", "nudge:impulse_ns=0.1", "--method", "statics"], "nudge needs --method dynamics"),
    (["-n", 10, "-p", "noise:pieces=cap"], "no piece 'cap'"),
    (["-n", 10, "-p", "noise", "-j", 2, "--scheduler", "tcp://127.0.0.1:9"], "give one"),
    (["-n", 10, "-p", "noise", "-j", 0], "--workers: expected at least 1"),
    (["-n", 10, "-p", "noise", "-o", "{tmp}/r.xlsx"], "expected a .csv or .parquet file"),
    (["-n", 10, "-p", "noise", "-o", "{tmp}"], "is a folder"),
    (["-n", 10, "-p", "noise", "--sweep", "noise.sigma_mm=0:1"], "expected model.key=lo:hi:n"),
    (["-n", 10, "-p", "noise", "--sweep-out", "{tmp}/x"], "--sweep-out: only with --sweep"),
    (["-n", 10, "-p", "noise", "--interval", "normal"], "--interval"),
    (["-n", 10, "-p", "noise", "--seconds", 0], "--seconds"),
])
def test_bad_input_is_one_line_and_exit_2(scene_file, tmp_path, capsys, args, message):
    args = [str(a).replace("{tmp}", str(tmp_path)) for a in args]
    code, out, err = run(capsys, "experiment", scene_file, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("towerlab: error: ") and message in err, err


def test_an_unreachable_scheduler_is_one_line_within_seconds(scene_file, capsys):
    import time

    start = time.perf_counter()
    code, _, err = run(capsys, "experiment", scene_file, "-n", 5, "-p", "noise", "--scheduler", "tcp://127.0.0.1:9")
    assert code == 2 and err.count("\n") == 1 and "tcp://127.0.0.1:9: cannot reach the scheduler" in err
    assert time.perf_counter() - start < 15.0


def test_a_missing_scene_is_one_line(tmp_path, capsys):
    code, _, err = run(capsys, "experiment", tmp_path / "nope.json", "-n", 5, "-p", "noise")
    assert code == 2 and "nope.json" in err and err.count("\n") == 1


def test_ctrl_c_exits_130_and_writes_nothing(scene_file, tmp_path, capsys, monkeypatch):
    import sim.experiments.campaign as runs

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runs, "execute", interrupted)
    code, out, _ = run(capsys, "experiment", scene_file, "-n", 5, "-p", "noise", "-o", tmp_path / "r.csv")
    assert code == 130 and out == "" and list(tmp_path.iterdir()) == [scene_file]


def test_without_margins_no_margin_distribution_is_reported(tmp_path, capsys):
    """With --no-margin only the trials that cannot be held have a margin (0 g): no distribution of those."""
    from sim.cases import talo_counterweight

    scene = tmp_path / "cw.json"
    scene.write_text(dumps(talo_counterweight()))
    code, out, _ = run(capsys, "experiment", scene, "-n", 60, "--seed", 3, "-p", "noise:sigma_mm=6", "--no-margin",
                       "-j", 1, "--json")
    r = json.loads(out)
    assert code == 0 and 0 < r["collapsed"] < 60 and r["margin_g"] is None
