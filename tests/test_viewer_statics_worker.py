"""The viewer's statics worker process ends quietly when the window's process is killed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT
from tests.procs import children, cpu_seconds, state, wait_until

PARENT = """
import sys, time
from sim.viewer.control.stability import StaticsWorker
from sim.games.setup import setup
worker = StaticsWorker("process")
worker.submit(setup("talo"), 1)
print("ready", flush=True)
time.sleep(120)
"""


def _idle(workers, seen={}) -> bool:  # noqa: B006 - the CPU each worker had used when last asked
    """Whether a worker sleeps with no CPU used since it was last asked (its job done, blocked on its pipe)."""
    idle = False
    for w in workers:
        used = cpu_seconds(w)
        idle |= state(w) == "S" and used > 0 and seen.get(w) == used
        seen[w] = used
    return idle


@pytest.mark.skipif(sys.platform != "linux", reason="kill -9 semantics")
def test_a_killed_window_leaves_no_traceback_from_its_statics_worker():
    """The worker waited on its pipe; the window killed with -9 closed it, and the EOFError was printed."""
    parent = subprocess.Popen([sys.executable, "-c", PARENT], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert parent.stdout.readline() == "ready\n"
        wait_until(lambda: _idle(children(parent.pid)), 120, "the statics worker waiting on its pipe", pause=0.2)
        parent.kill()
        parent.wait()
        _, err = parent.communicate(timeout=60)  # its stderr ends when the worker, which shares it, has ended
    finally:
        if parent.poll() is None:
            parent.kill()
    assert "Traceback" not in err and "EOFError" not in err, err
