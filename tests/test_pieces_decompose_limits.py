"""Decompositions held to a budget and ended at once: Ctrl-C, a spent budget or a killed parent end CoACD's process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import trimesh

from sim.errors import ShapeError
from sim.pieces import decompose
from sim.pieces.custom import FOLD_MM
from sim.pieces.decompose import BUDGET_ENV, CACHE_ENV, Watch, exact_parts
from tests.helpers import ROOT
from tests.procs import alive, children, cpu_seconds, wait_until

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc for the child process")


def bumpy_scene(folder) -> str:
    """A lumpy ball of 5 120 triangles under CoACD (9 CPU-seconds on this project's machine)."""
    ball = trimesh.creation.icosphere(subdivisions=4, radius=40.0)
    v = ball.vertices / np.linalg.norm(ball.vertices, axis=1, keepdims=True)
    ball.vertices = v * (40.0 + 6.0 * np.sin(5 * v[:, :1]) * np.cos(4 * v[:, 1:2]) + 0.5 * np.sin(23 * v[:, 2:]))
    ball.export(folder / "bumpy.obj")
    path = folder / "bumpy.json"
    path.write_text(json.dumps({"format": "towerlab-scene/1", "game": "free", "pieces": [
        {"id": "rock", "kind": "mesh", "file": "bumpy.obj", "decomposition": "coacd", "pos": [0, 0, 60]}]}))
    return str(path)





def start_validate(tmp_path, **env):
    """``towerlab validate`` of the bumpy ball in a session of its own, once its CoACD process runs."""
    pytest.importorskip("coacd")
    scene = bumpy_scene(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "sim", "validate", scene], cwd=ROOT, start_new_session=True,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, CACHE_ENV: "off", **env})
    deadline = time.monotonic() + 60
    while not children(proc.pid):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() else "slow"
        time.sleep(0.05)
    return proc, children(proc.pid)[0]


def ended_within(proc, child: int, seconds: float) -> float:
    start = time.monotonic()
    proc.wait(timeout=30)
    while alive(child) and time.monotonic() - start < seconds:
        time.sleep(0.02)
    took = time.monotonic() - start
    assert not alive(child)
    return took


def test_ctrl_c_ends_a_coacd_decomposition_at_once(tmp_path):
    """Ctrl-C reaches the terminal's whole process group: CoACD's process dies of it and the command says
    "interrupted" with 130 (in-process, the C++ ran on to its end, 35 s late)."""
    proc, child = start_validate(tmp_path)
    wait_until(lambda: cpu_seconds(child) >= 1.0, 60, "CoACD's process at work")
    os.killpg(proc.pid, signal.SIGINT)
    assert ended_within(proc, child, 5.0) < 3.0
    assert proc.returncode == 130 and proc.stderr.read() == "towerlab: interrupted\n"


def own_children() -> list[int]:
    """This process's live CoACD processes (other tests in the same worker may leave children of their own)."""
    return [c for c in children(os.getpid()) if alive(c) and "coacd_child" in cmdline(c)]


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def bumpy_ball(folder):
    pytest.importorskip("coacd")
    bumpy_scene(folder)
    return trimesh.load(folder / "bumpy.obj", force="mesh")


def test_a_ctrl_c_to_towerlab_alone_ends_its_coacd_process_too(tmp_path):
    """The signal reaches only the process that runs towerlab (from another program, say): it ends the
    decomposition's process as it stops waiting for it."""
    ball = bumpy_ball(tmp_path)
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            decompose.coacd_parts(ball, 0.05, what="bumpy.obj")
    finally:
        timer.cancel()
    assert time.monotonic() - start < 3.0 and not own_children()


def test_a_spent_budget_ends_coacd_and_says_what_to_do(tmp_path):
    ball = bumpy_ball(tmp_path)
    with pytest.raises(ShapeError, match=r"CoACD decomposition of bumpy.obj did not finish within 1 s; raise its "
                                         rf"threshold .* allow longer with {BUDGET_ENV}=SECONDS"):
        decompose.coacd_parts(ball, 0.05, what="bumpy.obj", seconds=1.0)
    assert not own_children()


def test_coacd_s_process_dies_with_a_killed_parent(tmp_path):
    """kill -9 of the process that started it (no finally runs there): the parent-death signal ends it."""
    ball = bumpy_ball(tmp_path)
    given = tmp_path / "given.npz"
    np.savez(given, vertices=ball.vertices, faces=ball.faces.astype(np.int32), threshold=0.05, most=512)
    parent = subprocess.Popen([sys.executable, "-c", (
        "import os, subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, {str(decompose.CHILD)!r}, str(os.getpid())], "
        f"stdin=open({str(given)!r}, 'rb'), stdout=subprocess.DEVNULL)\n"
        "time.sleep(60)\n")])
    deadline = time.monotonic() + 30
    while not children(parent.pid):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    child = children(parent.pid)[0]
    wait_until(lambda: cpu_seconds(child) >= 1.0, 60, "CoACD's process at work")  # into CoACD's C++
    parent.kill()
    assert ended_within(parent, child, 5.0) < 3.0


def test_the_budget_is_a_positive_number_of_seconds(monkeypatch):
    for bad in ("abc", "0", "-3", "nan", "inf"):
        monkeypatch.setenv(BUDGET_ENV, bad)
        with pytest.raises(ShapeError, match=rf"\${BUDGET_ENV}: expected a number of seconds > 0"):
            decompose.budget()
    monkeypatch.setenv(BUDGET_ENV, "12.5")
    assert decompose.budget() == 12.5
    monkeypatch.delenv(BUDGET_ENV)
    assert decompose.budget() == decompose.BUDGET


def test_exact_cuts_keep_to_the_budget_too():
    notch = trimesh.creation.box([40, 40, 20]).difference(trimesh.creation.box([20, 60, 30]).apply_translation(
        [10, 0, 10]), engine="manifold")
    with pytest.raises(ShapeError, match="cutting notch.stl into convex parts did not finish within 1e-09 s; use "
                                         "decomposition \"coacd\""):
        exact_parts(notch, FOLD_MM, what="notch.stl", seconds=1e-9)
    assert len(exact_parts(notch, FOLD_MM, what="notch.stl")) > 1


def test_a_long_decomposition_shows_its_time_on_a_terminal_and_clears_it(monkeypatch, capsys):
    monkeypatch.setattr(decompose, "_terminal", lambda: True)
    clock = iter([100.0, 100.5, 103.2])
    monkeypatch.setattr(decompose.time, "monotonic", lambda: next(clock))
    watch = Watch("CoACD decomposition of rock.obj", "simplify it", 60.0)
    watch.tick()  # 0.5 s: nothing yet
    assert capsys.readouterr().err == ""
    watch.tick("3 parts")
    watch.close()
    assert capsys.readouterr().err == ("\rCoACD decomposition of rock.obj: 3 s, 3 parts (at most 60 s; Ctrl-C "
                                       "stops)\x1b[K\r\x1b[K")
