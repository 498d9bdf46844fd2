"""What a test can see of a running process through /proc (Linux): its children, whether it lives, its state,
the CPU it has used; and a wait on any of these, so that a test waits for what a process does, never a fixed
time."""

from __future__ import annotations

import os
import time


def children(pid: int) -> list[int]:
    """The process's children (ids)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except FileNotFoundError:
        return []


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return None


def alive(pid: int) -> bool:
    """Whether the process exists and is no zombie."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def state(pid: int) -> str | None:
    """The process's state letter (``R`` running, ``S`` sleeping, ...), or None when it is gone."""
    fields = _stat(pid)
    return None if fields is None else fields[0]


def cpu_seconds(pid: int) -> float:
    """The CPU time (s, user and system) the process has used so far; 0 when it is gone."""
    fields = _stat(pid)
    if fields is None:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_until(ready, timeout: float, what: str, pause: float = 0.02) -> None:
    """Poll ``ready()`` until it holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        time.sleep(pause)  # (a polling pause)
