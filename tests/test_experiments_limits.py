"""Experiments bounded: a scheduler that never answers or answers garbage, a killed run's processes, bad sweeps."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from sim.experiments.cluster import connect
from sim.experiments.execute import ExecutionError
from tests import test_experiments_cli
from tests.helpers import ROOT

scene_file = test_experiments_cli.scene_file  # the same two-box stack, a fixture


def serve(answer: bytes | None):
    """A loopback server that accepts every connection and sends ``answer`` (None: nothing, ever)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held = []

    def run():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            if answer is not None:
                conn.sendall(answer)

    threading.Thread(target=run, daemon=True).start()
    return server, f"tcp://127.0.0.1:{server.getsockname()[1]}"


def test_a_scheduler_that_accepts_and_never_answers_is_given_up_on_in_time():
    """Distributed's connect bounds the TCP connection, not the handshake: it waited for ever."""
    server, address = serve(None)
    start = time.monotonic()
    try:
        said = rf"--scheduler {address}: cannot reach the scheduler: no answer within 1 s"
        with pytest.raises(ExecutionError, match=said):
            connect(address, timeout=1.0)
    finally:
        server.close()
    assert time.monotonic() - start < 5.0


def test_a_server_that_answers_garbage_is_no_scheduler_and_one_line(scene_file):
    """An HTTP answer read as a Dask frame claimed 3 EiB: a MemoryError traceback, then Client.__del__'s."""
    server, address = serve(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 4)
    try:
        done = subprocess.run([sys.executable, "-m", "sim", "experiment", str(scene_file), "-n", "2", "-p", "noise",
                               "--scheduler", address], cwd=ROOT, capture_output=True, text=True, timeout=120)
    finally:
        server.close()
    assert done.returncode == 2
    assert done.stderr == f"towerlab: error: --scheduler {address}: what answered is not a Dask scheduler " \
                          "(MemoryError)\n"


def group(pgid: int) -> list[int]:
    """The live processes of a process group (zombies left out)."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                out.append(int(name))
    return out


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_kill_9_of_an_experiment_takes_its_workers_fork_server_and_tracker_along(scene_file):
    """The workers are the fork server's children and held its pipes and the resource tracker's: they ran on,
    and so did both."""
    proc = subprocess.Popen([sys.executable, "-m", "sim", "experiment", str(scene_file), "-n", "2000", "-j", "2",
                             "-p", "nudge:impulse_ns=0.01,piece=top"], cwd=ROOT, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while len(group(proc.pid)) < 5:  # the run, the tracker, the fork server and two workers
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 10
        while group(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert group(proc.pid) == []
    finally:
        for pid in group(proc.pid):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("grid", ["0:inf:3", "-inf:0:3", "nan:1:2", "-1e308:1e308:3"])
def test_a_sweep_beyond_the_numbers_is_one_line_without_a_warning(grid, scene_file, capsys):
    import warnings

    from sim.cli import main

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's 'invalid value encountered in multiply' came first
        assert main(["experiment", str(scene_file), "--sweep", f"noise.sigma_mm={grid}", "-n", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "lo and hi: expected finite numbers a finite span apart" in err, err
