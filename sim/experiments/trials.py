"""An experiment as data, and its trials: each answered by the statics, the simulation or both.

An :class:`Experiment` travels to workers as JSON text (the scene as its own
file text, the perturbations as their canonical ``MODEL:key=value`` texts):
no user data is ever pickled. :func:`run_task` is what a worker runs: it
keeps one :class:`Runner` per experiment and thread across the tasks it is
given (the nominal scene's statics and contact interfaces, when they serve
every trial); simulated trials reset the thread's one world to their scene
(:mod:`sim.experiments.dynamics`).
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import OrderedDict
from dataclasses import astuple, dataclass, fields

from sim.errors import TowerlabError
from sim.experiments.models import Perturbation, PerturbationError, check_pieces, parse
from sim.experiments.perturb import start_trial
from sim.scene import Scene, dumps, loads

FORMAT = "towerlab-experiment/1"
"""The ``format`` of an experiment's JSON text."""

METHODS = ("statics", "dynamics", "both")
"""How trials are answered."""

DEFAULT_SECONDS = 2.0
"""Simulated time after the last nudge or shaking (s): as long as ``towerlab check`` runs (a Talo
10-block balanced on an edge takes about 1.2 s to tip past ``tol.moved_angle``)."""

_LOCAL = threading.local()
_KEEP = 4  # runners kept per thread (a sweep's points come in turn)


@dataclass(frozen=True)
class Experiment:
    """What to run: a scene, its perturbations, how each trial is answered, and the seed.

    Attributes:
        scene: the scene.
        perturbations: applied in this order (a perturbation's index is its random stream's key).
        method: ``statics``, ``dynamics`` or ``both``.
        seed: the experiment's seed (trial i draws from ``SeedSequence(seed).spawn(...)[i]``).
        seconds: simulated time after the last nudge or shaking (s; dynamics).
        margin: the statics also find each trial's margin (else feasibility only: a stable
            structure then needs only to be feasible, and ``margin_g`` is None).
    """

    scene: Scene
    perturbations: tuple[Perturbation, ...]
    method: str
    seed: int
    seconds: float = DEFAULT_SECONDS
    margin: bool = True

    @property
    def static(self) -> bool:
        """Every perturbation changes only the scene a trial starts from (the statics can answer)."""
        return not any(p.dynamic for p in self.perturbations)

    def to_json(self) -> str:
        """The JSON text workers receive."""
        return json.dumps({"format": FORMAT, "scene": dumps(self.scene), "source": self.scene.source,
                           "perturb": [p.text for p in self.perturbations], "method": self.method,
                           "seed": self.seed, "seconds": self.seconds, "margin": self.margin}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Experiment:
        """An experiment from :meth:`to_json`'s text (checked as the command line's input is)."""
        d = json.loads(text)
        if d.get("format") != FORMAT:
            raise TowerlabError(f"experiment: format: expected {FORMAT!r}, got {d.get('format')!r}")
        scene = loads(d["scene"], d.get("source") or "<experiment>")
        return experiment(scene, [parse(t) for t in d["perturb"]], d["method"], d["seed"], seconds=d["seconds"],
                          margin=d["margin"])


def experiment(scene: Scene, perturbations, method: str | None = None, seed: int = 0, *,
               seconds: float = DEFAULT_SECONDS, margin: bool = True) -> Experiment:
    """A checked :class:`Experiment`.

    Args:
        scene: the scene.
        perturbations: :class:`Perturbation` objects or their texts.
        method: ``statics``, ``dynamics`` or ``both``; None: the statics when every
            perturbation is static, else the dynamics.
        seed: a non-negative integer.
        seconds: simulated time after the last nudge or shaking (s).
        margin: also find each trial's statics margin.

    Raises:
        PerturbationError: an unknown method, a dynamic perturbation for the statics
            (or for ``both``, which compares the two on static ones), a piece the scene
            lacks, a negative seed, a duration out of range.
    """
    perturbations = tuple(p if isinstance(p, Perturbation) else parse(p) for p in perturbations)
    check_pieces(perturbations, scene)
    dynamic = [p.model + (" with tilt_deg" if p.model == "noise" else "") for p in perturbations if p.dynamic]
    if method is None:
        method = "dynamics" if dynamic else "statics"
    if method not in METHODS:
        raise PerturbationError(f"--method: expected one of {', '.join(METHODS)}, got {method!r}")
    if dynamic and method != "dynamics":
        what = "answers" if method == "statics" else "compares the methods on"
        raise PerturbationError(f"--method {method}: the statics {what} static perturbations only; "
                                f"{dynamic[0]} needs --method dynamics")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise PerturbationError(f"--seed: expected a non-negative integer, got {seed!r}")
    if not (math.isfinite(seconds) and 0.0 < seconds <= 600.0):
        raise PerturbationError(f"--seconds: expected 0 < S <= 600, got {seconds:g}")
    return Experiment(scene, perturbations, method, seed, float(seconds), bool(margin))


@dataclass(frozen=True)
class TrialRecord:
    """What one trial gave.

    Attributes:
        trial: its index.
        collapsed: the verdict: by the statics (``statics``, ``both``: not stable) or the
            simulation (``dynamics``: a piece knocked down).
        knocked_down: pieces knocked down in the simulation; with the statics alone, the
            pieces they cannot hold.
        max_displacement_mm: the largest displacement of any piece at the end of the simulation (mm; None
            without it).
        peak_displacement_mm: the largest displacement of any piece at any time of the simulation (mm;
            None without it): how far a shaken piece slipped to and fro, say.
        margin_g: the statics margin (g; 0 when infeasible, None when not found).
        feasible: the statics can hold every piece (None without the statics).
        unheld: pieces the statics cannot hold (None without the statics).
        statics_collapsed, dynamics_collapsed: each method's verdict (None where it did not run).
        placement_mm: how far placement noise moved the farthest piece (mm).
        nudged: the pieces nudged, joined by ``+`` (empty without a nudge).
    """

    trial: int
    collapsed: bool
    knocked_down: int
    max_displacement_mm: float | None
    peak_displacement_mm: float | None
    margin_g: float | None
    feasible: bool | None
    unheld: int | None
    statics_collapsed: bool | None
    dynamics_collapsed: bool | None
    placement_mm: float
    nudged: str

    @classmethod
    def columns(cls) -> tuple[str, ...]:
        """The field names, in order (the columns of the results file)."""
        return tuple(f.name for f in fields(cls))

    def row(self) -> tuple:
        """Plain values in :meth:`columns` order (how a worker sends it back)."""
        return astuple(self)


class Runner:
    """Runs the trials of one experiment; keeps what does not change between them.

    The nominal scene's contact interfaces are reused while no trial moves a piece,
    and its statics while no trial changes the scene at all (dynamic perturbations only).
    """

    def __init__(self, exp: Experiment):
        self.exp = exp
        self._nominal = None  # statics of the unperturbed scene
        self._interfaces = None

    def _statics(self, start):
        from sim.statics import analyze

        exp = self.exp
        unchanged = not start.geometry_changed and not any(p.model in ("friction", "density")
                                                           for p in exp.perturbations)
        if unchanged and self._nominal is not None:
            return self._nominal
        if start.geometry_changed:
            result = analyze(start.resting, margin=exp.margin)
        else:
            if self._interfaces is None:
                from sim.contact import find_interfaces

                self._interfaces = tuple(find_interfaces(exp.scene))
            result = analyze(start.resting, self._interfaces, margin=exp.margin)
        if unchanged:
            self._nominal = result
        return result

    def trial(self, index: int) -> TrialRecord:
        """Draw, apply and answer trial ``index``.

        Raises:
            BlowUpError: the simulation blew up (its message names the trial).
        """
        exp = self.exp
        start = start_trial(exp.scene, exp.perturbations, exp.seed, index)
        statics = self._statics(start) if exp.method != "dynamics" or exp.margin else None
        s_collapsed = None
        if statics is not None:
            s_collapsed = not (statics.stable if exp.margin else statics.feasible)
        outcome = None
        if exp.method != "statics":
            outcome = self._simulate(start, statics, index)
        margin = None if statics is None or not has_margin(statics) else float(statics.margin_g)
        unheld = None if statics is None else len(statics.unheld)
        collapsed = s_collapsed if exp.method != "dynamics" else outcome.collapsed
        return TrialRecord(
            index, bool(collapsed), len(outcome.knocked_down) if outcome is not None else unheld,
            outcome.max_displacement_m * 1e3 if outcome is not None else None,
            outcome.peak_displacement_m * 1e3 if outcome is not None else None, margin,
            None if statics is None else bool(statics.feasible), unheld, s_collapsed,
            None if outcome is None else outcome.collapsed, start.placement_m * 1e3,
            "+".join(n.piece for n in start.nudges))

    def _simulate(self, start, statics, index: int):
        from sim.experiments.dynamics import simulate_trial
        from sim.physics import BlowUpError, OverlapError
        from sim.physics.precision import precision_for, support_depth

        probe = precision = None
        if statics is not None and statics.feasible and has_margin(statics):
            probe = statics.weakest_direction_deg
            precision = precision_for(statics.margin_g, depth=support_depth(start.resting, statics.interfaces))
        try:
            return simulate_trial(start, self.exp.seconds, probe_direction_deg=probe, precision=precision)
        except (BlowUpError, OverlapError) as e:
            raise TowerlabError(f"trial {index}: {e}") from None


def has_margin(statics) -> bool:
    """The statics found a margin (``analyze(margin=False)`` leaves a feasible one nan; an infeasible one has 0)."""
    return math.isfinite(statics.margin_g)


def runner_for(spec: str) -> Runner:
    """This thread's runner of the experiment whose JSON text is ``spec`` (made once, kept for the next batches)."""
    runners = getattr(_LOCAL, "runners", None)
    if runners is None:
        runners = _LOCAL.runners = OrderedDict()
    key = hashlib.sha256(spec.encode()).hexdigest()
    if key not in runners:
        runners[key] = Runner(Experiment.from_json(spec))
        while len(runners) > _KEEP:
            runners.popitem(last=False)
    runners.move_to_end(key)
    return runners[key]


def run_batch(spec: str, indices) -> list[tuple]:
    """Run the trials ``indices`` of the experiment ``spec`` (its JSON text): what every worker runs.

    Returns:
        One :meth:`TrialRecord.row` per trial, in the order given.
    """
    runner = runner_for(spec)
    return [runner.trial(int(i)).row() for i in indices]


def run_task(spec: str, indices, clock=time.thread_time) -> tuple[list[tuple], float]:
    """:func:`run_batch`, and the CPU seconds its trials took on this worker's thread: what sizes the next tasks.

    CPU time, not the wall clock: a task's overhead on a cluster (the scheduler's, the client's) is CPU time
    too, so a task sized to :data:`~sim.experiments.batching.TARGET_SECONDS` of CPU keeps it under 1% however
    loaded the machine is. (Sized by the wall clock, the counterweight's simulated trials went 2-3 to a task
    instead of 6 at a load of 6 on two cores, where a trial took twice its CPU time: twice the bookkeeping
    per trial.)

    The rows go back as plain tuples (numbers, flags and a short string): 35-60 bytes a trial pickled, and
    under a microsecond to pickle and unpickle; an array form would save nothing measurable.

    Args:
        spec: the experiment's JSON text.
        indices: the trials.
        clock: the clock measured (seconds; the thread's CPU time).
    """
    from sim.experiments.allocator import tune

    tune()  # a Dask worker's environment makes every large array a fresh mapping
    start = clock()
    rows = run_batch(spec, indices)
    return rows, clock() - start


def warm_up(spec: str) -> None:
    """Make a fresh worker process ready for the experiment ``spec``: import the statics (and the physics when
    trials are simulated) and build the scene's pieces (hulls, mass properties) and the thread's physics world,
    so that its first batch costs what the others do (the local pool's initializer)."""
    runner = runner_for(spec)
    from sim.statics import analyze

    try:
        analyze(runner.exp.scene, margin=False)
        if runner.exp.method != "statics":
            from sim.experiments.dynamics import thread_world

            thread_world(runner.exp.scene)
    except TowerlabError:  # the trials themselves will say what is wrong, with their number
        pass
