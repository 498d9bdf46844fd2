"""A worker process's memory allocator set for trials: large arrays from the heap, not a fresh mapping each.

glibc's malloc serves a request above its mmap threshold (128 KiB at the
start) with a new memory mapping, and gives it back on free; normally the
threshold rises to the size of the largest block freed (up to 32 MiB), so a
program that allocates the same large arrays again and again soon serves them
from its heap. Setting ``MALLOC_TRIM_THRESHOLD_`` or ``MALLOC_MMAP_THRESHOLD_``
in the environment turns that rise off, and Dask's nanny sets the first for
every worker (``distributed.nanny.pre-spawn-environ``, to give memory back to
the system). A simulated trial then maps and unmaps its largest arrays every
time, and a trim threshold of 64 KiB hands the top of the heap back as soon as
it is free: measured on the Talo counterweight, 2490 page faults a trial
against 320 and 6 ms of system time against 1–2, a fifth more CPU per trial
than in a local pool's process. :func:`tune` sets both thresholds to where
glibc's own rise would take them (32 MiB): 250–520 faults a trial. A worker then
keeps up to 32 MiB of freed memory instead of giving it back at once.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform

THRESHOLD = 32 << 20
"""Requests from this size get a mapping of their own, and free memory from this size at the top of the heap
goes back to the system (bytes): glibc's own ceiling for its rising thresholds."""

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
"""``mallopt``'s parameter numbers (glibc's malloc.h)."""

ENVIRONMENT = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_")
"""Environment variables that turn glibc's rising mmap threshold off."""

_done = False


def tune() -> bool:
    """Once per process: where glibc's rising thresholds were turned off by the environment, set the mmap and
    the trim threshold to :data:`THRESHOLD`. Nothing elsewhere (another C library, another system, the
    default environment).

    Returns:
        Whether the thresholds were set (now or by an earlier call).
    """
    global _done
    if _done:
        return True
    if not any(os.environ.get(name) for name in ENVIRONMENT) or platform.libc_ver()[0] != "glibc":
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        _done = all([libc.mallopt(M_MMAP_THRESHOLD, THRESHOLD), libc.mallopt(M_TRIM_THRESHOLD, THRESHOLD)])
    except (OSError, AttributeError):
        return False
    return _done
