"""Commands run under a time and memory budget: a process that has imported towerlab forks one child per command.

A hostile file must be refused in bounded time and memory, so a test of one must not be able to hang the suite or
eat the machine: each command runs in a fork of a server that imported towerlab once (so a command costs its own
work, not the imports), with ``resource.setrlimit`` on its address space and CPU time and an alarm for its wall
time. What the command did comes back as an :class:`Outcome`: exit code, the signal that ended it, stdout, stderr,
CPU seconds, wall seconds and peak resident memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SERVER = r'''
import json, os, resource, signal, sys, time
import numpy, scipy.spatial, trimesh, pydantic  # noqa: F401 (imported once, before any fork)
import sim.cli, sim.replay, sim.scene, sim.pieces.custom  # noqa: F401
import sim.viewer.control.actions, sim.viewer.control.controller  # noqa: F401

def vm_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0

for line in sys.stdin:
    job = json.loads(line)
    out_path, err_path = job["out"], job["err"]
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(job["cwd"])
            for fd, path in ((1, out_path), (2, err_path)):
                f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(f, fd)
                os.close(f)
            limit = vm_bytes() + job["memory"]
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            cpu = int(job["seconds"]) + 1
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            signal.alarm(int(job["wall"]))
            os.environ.update(job["env"])
            code = sim.cli.main(job["args"])
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code if isinstance(code, int) else 1)
        except BaseException:
            import traceback
            traceback.print_exc()
            sys.stderr.flush()
            os._exit(99)
    _, status, usage = os.wait4(pid, 0)
    wall = time.monotonic() - start
    reply = {"code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
             "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
             "cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "rss": usage.ru_maxrss * 1024}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
'''

MiB = 1 << 20


def _vm_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


@contextlib.contextmanager
def in_budget(seconds: float, memory: int):
    """The body run under a budget in this process, for fuzz tests whose commands are too cheap to fork for:
    ``memory`` bytes of address space beyond what the process holds now (a larger allocation is a MemoryError)
    and ``seconds`` on the clock (then a TimeoutError, from SIGALRM); both limits restored after.

    The test sees either as an exception or as the traceback and exit code the command made of it.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = _vm_bytes() + int(memory)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)

    def expired(*_):
        raise TimeoutError(f"over the budget of {seconds:g} s")

    before = signal.signal(signal.SIGALRM, expired)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@dataclass(frozen=True)
class Outcome:
    """What a jailed command did.

    Attributes:
        args: the command line (after ``towerlab``).
        code: its exit code (None when a signal ended it).
        signal: the signal that ended it (SIGXCPU, SIGKILL: over the CPU budget; SIGALRM: over the wall time), or
            None.
        out, err: what it printed.
        cpu: CPU seconds it used. wall: seconds it took.
        rss: its peak resident memory (bytes).
    """

    args: tuple[str, ...]
    code: int | None
    signal: int | None
    out: str
    err: str
    cpu: float
    wall: float
    rss: int

    def lines(self) -> list[str]:
        """The non-empty lines of stderr."""
        return [ln for ln in self.err.splitlines() if ln.strip()]

    def refused(self) -> str:
        """The one error line of a clean refusal (exit 2, one printable ``towerlab: error:`` line, no
        traceback); an AssertionError saying what happened instead."""
        lines = self.lines()
        assert self.code == 2 and len(lines) == 1 and lines[0].startswith("towerlab: error: "), self.report()
        assert lines[0].isprintable() and "Traceback" not in self.out + self.err, self.report()
        return lines[0]

    def clean(self) -> None:
        """Exit 0 with every line it printed printable (a file's strings escaped: no ESC, bell or bidirectional
        override reaches the terminal), or a clean refusal (see :meth:`refused`)."""
        if self.code == 0:
            assert "Traceback" not in self.out + self.err, self.report()
            assert all(line.isprintable() for line in (self.out + self.err).splitlines()), self.report()
            return
        self.refused()

    def report(self) -> str:
        ended = f"exit {self.code}" if self.code is not None else f"signal {self.signal}"
        return (f"towerlab {' '.join(self.args)}: {ended} after {self.wall:.2f} s ({self.cpu:.2f} s CPU, "
                f"{self.rss / MiB:.0f} MiB)\n{self.err[-3000:]}")


class Jail:
    """The fork server (see the module docstring); a context manager.

    Args:
        folder: where each command's stdout and stderr go (files ``out``, ``err``).
    """

    def __init__(self, folder):
        self.folder = Path(folder)
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PYTHONFAULTHANDLER": ""}
        self._proc = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True, env=env, cwd=Path(__file__).resolve().parents[1])

    def run(self, args, *, cwd=None, seconds: float = 10.0, memory: int = 768 * MiB, env=None) -> Outcome:
        """Run ``towerlab ARGS`` in a fork: at most ``seconds`` of CPU (and twice as long on the clock, at least
        10 s) and ``memory`` bytes of address space beyond what the server holds."""
        args = [str(a) for a in args]
        job = {"args": args, "cwd": str(cwd or self.folder), "seconds": seconds, "wall": max(10, int(2 * seconds)),
               "memory": int(memory), "out": str(self.folder / "out"), "err": str(self.folder / "err"),
               "env": dict(env or {})}
        self._proc.stdin.write(json.dumps(job) + "\n")
        self._proc.stdin.flush()
        reply = self._proc.stdout.readline()
        if not reply:
            raise RuntimeError("the jail's server died")
        r = json.loads(reply)
        text = {k: (self.folder / k).read_text(errors="replace") for k in ("out", "err")}
        return Outcome(tuple(args), r["code"], r["signal"], text["out"], text["err"], r["cpu"], r["wall"], r["rss"])

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.stdin.close()
            self._proc.wait(timeout=30)

    def __enter__(self) -> Jail:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
