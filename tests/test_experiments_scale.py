"""The same seed gives the same trials in this process, on 2 local processes and on a Dask LocalCluster;
a worker that dies has its trials run again (a scheduler out of reach: tests/test_experiments_cli.py)."""

from __future__ import annotations

import multiprocessing
import os
import signal
from dataclasses import replace
from pathlib import Path

import pytest

from sim.experiments import ExecutionError, experiment, parse_sweep, run, sweep
from tests.helpers import box_record, free_scene


def scene():
    return free_scene(box_record("base", (60, 30, 20), (0, 0, 10)), box_record("top", (60, 30, 20), (27, 0, 30)),
                      box_record("cap", (20, 20, 20), (27, 0, 50)))


STATIC = experiment(scene(), ["noise:sigma_mm=3,sigma_deg=2", "density:sigma_rel=0.2,pieces=cap"], seed=42)
DYNAMIC = experiment(scene(), ["noise:sigma_mm=2,pieces=top+cap", "nudge:impulse_ns=0.003,height=random"],
                     seed=42, seconds=0.5)


@pytest.fixture(scope="module")
def reference():
    return {"static": run(STATIC, 48, workers=1), "dynamic": run(DYNAMIC, 24, workers=1)}


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=50) as c, distributed.Client(c, set_as_default=False) as client:
        # not the default client, as --scheduler ADDRESS makes none
        yield client


def test_two_local_processes_give_the_trials_of_one(reference):
    for name, exp, n in (("static", STATIC, 48), ("dynamic", DYNAMIC, 24)):
        result = run(exp, n, workers=2)
        assert result.where == "2 local processes" and result.retried == 0
        assert result.records == reference[name].records
        assert result.summary == reference[name].summary
    assert 0 < reference["static"].summary["collapsed"] < 48  # trials that differ, so equality means something


def test_a_dask_local_cluster_gives_the_trials_of_one_process(reference, cluster):
    for name, exp, n in (("static", STATIC, 48), ("dynamic", DYNAMIC, 24)):
        result = run(exp, n, scheduler=cluster)
        assert result.records == reference[name].records and result.retried == 0
        assert result.where.startswith("tcp://")
    by_address = run(STATIC, 48, scheduler=cluster.scheduler.address)  # the command line's way
    assert by_address.records == reference["static"].records


def test_a_sweep_gives_the_same_trials_in_one_process_on_two_and_on_a_cluster(cluster):
    """Several experiments at once (the sweep's points, each sent to the cluster once), tasks of every size."""
    grid, perturbations = parse_sweep("noise.sigma_mm=1:5:3", STATIC.perturbations)
    exp = replace(STATIC, perturbations=perturbations)
    one = sweep(exp, grid, 40, workers=1)
    assert len({r.summary["collapsed"] for r in one}) > 1  # the points differ
    for where in ({"workers": 2}, {"scheduler": cluster}):
        got = sweep(exp, grid, 40, **where)
        assert [r.records for r in got] == [r.records for r in one] and all(r.retried == 0 for r in got)


def test_a_local_worker_that_dies_has_its_trials_run_again(reference):
    killed = []

    def kill_one(done, total):
        if done and not killed:
            workers = [p for p in multiprocessing.active_children()
                       if p.name.startswith(("ForkServerProcess", "SpawnProcess"))]
            os.kill(workers[0].pid, signal.SIGKILL)
            killed.append(workers[0].pid)

    result = run(DYNAMIC, 24, workers=2, progress=kill_one)
    assert killed and result.retried > 0
    assert result.records == reference["dynamic"].records


def test_a_dask_worker_that_dies_has_its_trials_run_again(reference, cluster):
    pids = list(cluster.run(os.getpid).values())
    killed = []

    def kill_one(done, total):
        if done and not killed:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    result = run(DYNAMIC, 24, scheduler=cluster, progress=kill_one)
    assert killed and result.retried > 0
    assert result.records == reference["dynamic"].records
    cluster.wait_for_workers(2, timeout=60)  # the nanny brings it back for the next test


def test_a_scheduler_address_that_is_none_is_one_error():
    with pytest.raises(ExecutionError, match="not a scheduler address"):
        run(STATIC, 4, scheduler="nonsense://x")


def test_the_quiet_cluster_settings_are_dasks_own_and_read_back_from_the_environment():
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")  # its settings join Dask's on import
    from sim.experiments.cluster import QUIET, quiet_environment

    for key in QUIET:
        dask.config.get(key)  # a key Dask knows (a misspelt one would be silently ignored by the workers)
    with dask.config.set(dask.config.collect_env(quiet_environment())):
        for key, value in QUIET.items():
            assert dask.config.get(key) == value, key
    docs = (Path(__file__).parents[1] / "docs" / "experiments.md").read_text()
    for name, value in quiet_environment().items():  # the command lines the docs give
        assert f"{name}={value}" in docs, name
