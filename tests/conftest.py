"""Test-wide settings and fixtures: the tests never write into the user's cache folder; window tests get an
Xvfb server of their own."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("towerlab", derandomize=True, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "towerlab"))
"""Property tests draw the same examples on every run (``make test`` and CI give one answer); a search for new
ones: ``HYPOTHESIS_PROFILE=default``."""


def pytest_configure(config):
    """Keep mesh decompositions of this run in a folder of its own (``$TOWERLAB_CACHE``)."""
    os.environ.setdefault("TOWERLAB_CACHE", tempfile.mkdtemp(prefix="towerlab-test-cache-"))


def _lock_holder(number: int) -> int | None:
    """The process id that holds the lock of X display ``number`` (its server), or None."""
    try:
        return int(Path(f"/tmp/.X{number}-lock").read_text().strip())
    except (OSError, ValueError):
        return None


def _accepts(number: int, deadline: float) -> bool:
    """Whether the X server on display ``number`` takes a client before ``deadline``: its socket can exist a
    moment before it answers (a window opened then cannot open the display)."""
    env = {**os.environ, "DISPLAY": f":{number}"}
    while time.monotonic() < deadline:
        probe = subprocess.run(["xdotool", "getdisplaygeometry"], env=env, capture_output=True, timeout=10)
        if probe.returncode == 0:
            return True
        time.sleep(0.1)
    return False


@pytest.fixture(scope="module")
def display(request):
    """A fresh Xvfb server on a free display number, a little larger than the module's ``SIZE``: its DISPLAY.

    Each pytest-xdist worker takes its numbers from a range of its own, so that two window tests running in
    parallel never start their servers on the same display; a number another test session took meanwhile (its
    server holds the display's lock, ours gave up) is passed over.
    """
    missing = [tool for tool in ("Xvfb", "xdotool") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {' and '.join(missing)} (make test installs them)")
    width, height = request.module.SIZE
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").lstrip("gw") or 0)
    server = number = None
    for n in range(140 + 40 * worker, 400 + 40 * worker):
        if Path(f"/tmp/.X{n}-lock").exists() or Path(f"/tmp/.X11-unix/X{n}").exists():
            continue
        server = subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", f"{width + 100}x{height + 100}x24",
                                   "-nolisten", "tcp", "-noreset", "-r"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # -noreset: no reset as the last window closes (the next one could not open the display meanwhile);
        # -r: no auto-repeat (a key whose release comes late on a loaded machine would be pressed twice: F
        # flipped a piece over and back)
        deadline = time.monotonic() + 20
        while server.poll() is None and not Path(f"/tmp/.X11-unix/X{n}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        if server.poll() is None and _lock_holder(n) == server.pid and _accepts(n, deadline):
            number = n
            break
        # another run (a test session of its own) took this number meanwhile: the next one
        server.kill()
        server.wait(timeout=10)
    if number is None:
        pytest.skip("no Xvfb server could start")
    try:
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)
