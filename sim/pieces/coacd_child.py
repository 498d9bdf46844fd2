"""A CoACD decomposition in a process of its own, so that Ctrl-C and a time budget end it at once.

CoACD's C++ runs for seconds to minutes without returning to Python, so a
Ctrl-C in the process that called it is seen only when it ends. This script is
started by :func:`sim.pieces.decompose.coacd_parts` with the interpreter that
runs towerlab (by its path: it imports neither ``sim`` nor trimesh, only numpy
and coacd), reads the mesh from stdin and writes the parts to stdout, both as
NPZ (plain arrays, no pickle):

* in: ``vertices`` (n, 3), ``faces`` (m, 3) int32, ``threshold``, ``most``;
* out: ``count`` and ``part_0`` .. ``part_{count-1}``, (k, 3) each.

Ctrl-C's default action ends it (SIGINT is not Python's here), and it ends
when the process that started it does (Linux's parent-death signal, else a
check of its parent every second by a thread).

    python coacd_child.py PARENT_PID < mesh.npz > parts.npz
"""

import io
import os
import signal
import sys
import threading
import time


def _die_with(parent: int) -> None:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(1, signal.SIGKILL, 0, 0, 0) != 0:  # PR_SET_PDEATHSIG
            raise OSError
    except (OSError, AttributeError):
        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()
    if os.getppid() != parent:  # it died before the signal was asked for
        os._exit(1)


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    _die_with(int(sys.argv[1]))
    import coacd
    import numpy as np

    with np.load(io.BytesIO(sys.stdin.buffer.read()), allow_pickle=False) as given:
        vertices = np.asarray(given["vertices"], dtype=float)
        faces = np.asarray(given["faces"], dtype=np.int32)
        threshold, most = float(given["threshold"]), int(given["most"])
    coacd.set_log_level("error")
    hulls = coacd.run_coacd(coacd.Mesh(vertices, faces), threshold=threshold, max_convex_hull=most, seed=0)
    out = io.BytesIO()
    np.savez(out, count=np.int64(len(hulls)), **{f"part_{i}": np.asarray(v, dtype=float)
                                                 for i, (v, _) in enumerate(hulls)})
    sys.stdout.buffer.write(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
