"""The live stability verdict: the statics of a configuration, the pieces its weakest mode moves,
one set of contact forces that holds it, and a worker that judges off the frame path.

Pure (numpy, scipy, the statics); no engine. :func:`judge` is what a live world
runs after every change; :class:`StaticsWorker` runs it on a thread of its own
so that the window's frames never wait for an LP.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from sim.contact import find_interfaces
from sim.errors import TowerlabError
from sim.scene import Scene
from sim.statics import MARGIN_CAP_G, analyze, equilibrium
from sim.statics.model import G
from sim.statics.tilt import TiltTest
from sim.viewer.control.live import LiveVerdict

MODE_BEYOND = (1.05, 1.25, 1.6)
"""Loads, as multiples of the margin, at which the weakest mode is looked for: just past the
margin the structure fails in the weakest mode only (the margin is exact to 0.5 %; a round
sliding bound may need a little more)."""
MODE_EXTRA_G = 0.005
"""... plus this much (g), so that a tiny margin still gets a load that breaks it."""


def judge(scene: Scene, revision: int = 0, margin: bool = True) -> LiveVerdict:
    """The statics' verdict of ``scene``: stands or falls, margin, weakest direction, what moves.

    Never raises for a configuration the statics cannot judge (a numerical failure on poses
    the simulation left slightly apart): the verdict then carries the reason in ``error``.

    Args:
        scene: the configuration (carried pieces already left out).
        revision: the live world's change counter for this configuration.
        margin: also the margin, its direction and mode; without, feasibility alone
            (``partial``: a feasible verdict's margin is nan).
    """
    start = time.perf_counter()
    margin_error = None
    try:
        interfaces = tuple(find_interfaces(scene))
        try:
            result = analyze(scene, interfaces, margin=margin)
        except RuntimeError as e:  # the margin's program failed (no optimum): what stands is still known
            if not margin:
                raise
            result, margin_error = analyze(scene, interfaces, margin=False), str(e)
        if margin_error is not None:
            return LiveVerdict(revision, scene, result.feasible, float("nan"), None, tuple(result.unheld),
                           tuple(result.unheld) if not result.feasible else (), interfaces,
                           elapsed_ms=(time.perf_counter() - start) * 1e3, margin_error=margin_error)
        if not result.feasible:
            mode = result.unheld
        elif not margin:
            mode = ()
        else:
            mode = weakest_mode(scene, interfaces, result.margin_g, result.weakest_direction_deg)
    except (RuntimeError, ValueError, ArithmeticError, TowerlabError) as e:
        return LiveVerdict(revision, scene, False, 0.0, None, error=f"the statics could not judge this: {e}",
                       elapsed_ms=(time.perf_counter() - start) * 1e3)
    return LiveVerdict(revision, scene, result.feasible, result.margin_g, result.weakest_direction_deg,
                   tuple(result.unheld), tuple(mode), interfaces, elapsed_ms=(time.perf_counter() - start) * 1e3,
                   partial=result.feasible and not margin)


def weakest_mode(scene: Scene, interfaces, margin_g: float, direction_deg: float | None) -> tuple[str, ...]:
    """The pieces that move first when the load of the weakest direction passes the margin.

    The load is applied a little beyond the margin (:data:`MODE_BEYOND`). In each structure
    that then fails, the moving set grows from the highest piece down, every other piece held
    fixed, until the set cannot be held (found by bisection over how many of the highest pieces
    it takes): the topmost group that gives way (a whole harmonic
    stack tipping about the table's edge, the pieces above a failing joint, a sliding base and
    all it carries). Then every piece whose fixing leaves the rest still failing is dropped
    from it (a strong tower beside a weak cantilever is not part of the cantilever's fall).

    Args:
        scene: the configuration.
        interfaces: its contact interfaces.
        margin_g: its margin (g).
        direction_deg: the weakest direction (degrees from +x), None for none.

    Returns:
        Piece ids in scene order; empty when nothing gives way below the margin cap.
    """
    if direction_deg is None or not math.isfinite(margin_g) or margin_g >= MARGIN_CAP_G:
        return ()
    eq = equilibrium(scene, list(interfaces))
    if not eq.bodies:
        return ()
    d = np.array([math.cos(math.radians(direction_deg)), math.sin(math.radians(direction_deg))])
    groups = [eq.subset(g) for g in eq.structures()]
    tests = [TiltTest(part) for part in groups]
    for factor in MODE_BEYOND:
        alpha = (margin_g * factor + MODE_EXTRA_G) * d
        moved: set[str] = set()
        for part, test in zip(groups, tests):
            if not test.holds(alpha):
                moved |= _peel(part, test, alpha)
        if moved:
            return tuple(p.id for p in scene.pieces if p.id in moved)
    return ()


def _peel(part, test: TiltTest, alpha: np.ndarray) -> set[str]:
    """The bodies of one failing structure that the load ``alpha`` (2,) g moves (see :func:`weakest_mode`)."""

    def fails(bodies) -> bool:  # these bodies, all the others of the structure fixed
        return not TiltTest(part.subset(np.array(sorted(bodies)))).holds(alpha)

    order = [int(i) for i in np.argsort(-part.com[:, 2], kind="stable")]  # highest first
    lo, hi = 1, len(order)  # the fewest top pieces that fail, by bisection (the whole structure fails)
    while lo < hi:
        mid = (lo + hi) // 2
        if fails(order[:mid]):
            hi = mid
        else:
            lo = mid + 1
    moving = order[:lo]
    for i in list(moving):
        rest = [j for j in moving if j != i]
        if rest and fails(rest):
            moving = rest
    return {part.bodies[i] for i in moving}


def contact_forces(scene: Scene, interfaces) -> tuple[np.ndarray, np.ndarray] | None:
    """One set of contact forces that holds the configuration under gravity.

    Each contact point's force is a non-negative combination of the normal and four edges of
    its friction pyramid (inscribed in the Coulomb cone); the least total force that balances
    every piece's weight and moment is taken (a linear program). Rigid-block statics are
    indeterminate: this is one distribution of many, to show where the weight goes.

    Args:
        scene: the configuration.
        interfaces: its contact interfaces.

    Returns:
        (k, 3) contact points (m) and (k, 3) the force each exerts on the piece above (N),
        or None when no such forces exist (the configuration cannot stand) or nothing rests.
    """
    eq = equilibrium(scene, list(interfaces))
    p = len(eq.points)
    if not eq.bodies or p == 0:
        return None
    n, t = eq.normals, eq.tangents
    mu = eq.mu[:, None]
    gens = np.stack([n, n + mu * t[:, 0], n - mu * t[:, 0], n + mu * t[:, 1], n - mu * t[:, 1]], axis=1)  # (p, 5, 3)
    gens /= np.linalg.norm(gens, axis=2, keepdims=True)
    rows, cols, vals = [], [], []
    for side, sign in ((eq.above, 1.0), (eq.below, -1.0)):
        live = np.flatnonzero(side >= 0)
        for g in range(5):
            f = sign * gens[live, g]  # (q, 3) force on this side's body
            arm = (eq.points[live] - eq.com[side[live]]) / eq.length
            moment = np.cross(arm, f)
            col = live * 5 + g
            for axis in range(3):
                rows += [6 * side[live] + axis, 6 * side[live] + 3 + axis]
                cols += [col, col]
                vals += [f[:, axis], moment[:, axis]]
    a = sp.csc_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                     shape=(6 * len(eq.bodies), 5 * p))
    b = np.zeros(6 * len(eq.bodies))
    b[2::6] = eq.mass * G / eq.weight  # contact forces carry each weight (up)
    sol = linprog(np.ones(5 * p), A_eq=a, b_eq=b, bounds=(0, None), method="highs")
    if sol.status != 0:
        return None
    weights = sol.x.reshape(p, 5, 1)
    forces = (weights * gens).sum(axis=1) * eq.weight
    keep = np.linalg.norm(forces, axis=1) > 1e-9 * eq.weight
    return eq.points[keep], forces[keep]


_FIELDS = ("feasible", "margin_g", "weakest_direction_deg", "unheld", "mode", "interfaces", "elapsed_ms", "error",
           "partial", "margin_error")


def _serve(conn) -> None:
    """The worker process: judge each (scene as its file form, revision, margin) it is sent, until None."""
    from sim.scene import from_dict

    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):  # the window's process is gone (killed): nobody to answer, nothing to say
            return
        if job is None:
            return
        data, revision, margin = job
        v = judge(from_dict(data), revision, margin)
        try:
            conn.send({f: getattr(v, f) for f in _FIELDS})
        except OSError:
            return


class StaticsWorker:
    """Judges configurations off the frame path: the newest request wins, stale ones are dropped.

    Each configuration is judged twice: first feasibility alone (what stands, what falls: some
    100 ms for a 140-piece city), then the margin, the weakest direction and its mode (seconds for
    that city), so that the panel answers quickly and completes itself.

    Args:
        mode: ``process`` (a worker process: the statics, pure Python for much of the margin search,
            then never hold the window's interpreter), ``thread``, or ``inline`` (scripts and tests,
            deterministic: the newest configuration is judged when a verdict is asked for, so that a script
            whose verdicts nobody reads never waits for a margin, and one configuration is judged once).
    """

    def __init__(self, mode: str = "process"):
        if mode not in ("process", "thread", "inline"):
            raise ValueError(f"mode must be process, thread or inline, got {mode!r}")
        self.mode = mode
        self._lock = threading.Lock()
        self._request: tuple | None = None  # (scene, revision[, margin]) waiting to be sent
        self._flight = None  # (scene, revision, margin) being judged
        self._latest: LiveVerdict | None = None
        self._conn = self._proc = self._pool = self._future = None
        if mode == "process":
            from multiprocessing import get_context

            ctx = get_context("spawn")  # no fork of a process with a window and its threads
            self._conn, child = ctx.Pipe()
            self._proc = ctx.Process(target=_serve, args=(child,), name="towerlab-statics", daemon=True)
            self._proc.start()
            child.close()
        elif mode == "thread":
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(1, thread_name_prefix="towerlab-statics")

    def submit(self, scene: Scene, revision: int) -> None:
        """Ask for the verdict of ``scene`` (a newer request replaces one not yet started)."""
        if self.mode == "inline":
            self._request = (scene, revision)
            return
        with self._lock:
            self._request = (scene, revision)
        self._pump()

    def _done(self) -> dict | None:
        """The fields of the verdict in flight, when it is ready."""
        if self.mode == "process":
            if not self._conn.poll():
                return None
            try:
                return self._conn.recv()
            except (EOFError, OSError) as e:
                return {"feasible": False, "margin_g": 0.0, "weakest_direction_deg": None,
                        "error": f"the statics worker stopped ({e.__class__.__name__})"}
        if not self._future.done():
            return None
        v = self._future.result()
        return {f: getattr(v, f) for f in _FIELDS}

    def _pump(self) -> None:
        """Collect a finished verdict and send the next piece of work."""
        with self._lock:
            if self._flight is not None:
                fields = self._done()
                if fields is not None:
                    scene, revision, margin = self._flight
                    self._flight = None
                    verdict = LiveVerdict(revision, scene, **fields)
                    if self._latest is None or revision >= self._latest.revision:
                        self._latest = verdict
                    if not margin and self._request is None and verdict.feasible and verdict.error is None:
                        self._request = (scene, revision, True)  # now the margin of the same configuration
            if self._flight is None and self._request is not None:
                scene, revision, *rest = self._request
                margin = bool(rest and rest[0])
                self._request = None
                if self.mode == "process":
                    from sim.scene import to_dict

                    self._conn.send((to_dict(scene), revision, margin))
                else:
                    self._future = self._pool.submit(judge, scene, revision, margin)
                self._flight = (scene, revision, margin)

    def latest(self) -> LiveVerdict | None:
        """The newest verdict reached (None before the first; inline: of the newest configuration)."""
        if self.mode == "inline":
            if self._request is not None:
                scene, revision = self._request
                self._request = None
                self._latest = judge(scene, revision)
            return self._latest
        self._pump()
        return self._latest

    @property
    def pending(self) -> bool:
        """A request is waiting or being judged (inline: never; it is judged when asked for)."""
        if self.mode == "inline":
            return False
        self._pump()
        return self._request is not None or self._flight is not None

    def wait(self, timeout: float | None = None) -> LiveVerdict | None:
        """Wait until every request is judged, margin included (at most ``timeout`` s); the newest verdict."""
        if self.mode == "inline":
            return self.latest()
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.pending:
            if deadline is not None and time.monotonic() > deadline:
                break
            time.sleep(0.005)
        return self._latest

    def close(self) -> None:
        """Stop the worker (what it is judging is dropped: a city's margin takes seconds)."""
        if self._proc is not None:
            self._proc.terminate()
            self._proc.join(timeout=5)
            self._conn.close()
            self._proc = None
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


