"""The risk of a placement: P(collapse) when a person's hand sets the piece down with its noise (pure).

A hand never sets a piece down exactly where it aims: it lands a few
millimetres off and turned a degree or two. The model is the experiments'
placement noise (:mod:`sim.experiments.models`, ``noise``: a Gaussian shift of
``sigma_mm`` along each horizontal axis and a turn of ``sigma_deg`` about the
vertical, the piece set down against what is there by
:func:`sim.experiments.perturb.start_trial`), acting on the placed piece alone;
each sample is judged by the exact statics (:func:`sim.statics.analyze`,
feasibility: can every piece be held?). A sample collapses when some piece
cannot be held; it *brings something down* when a piece other than the placed
one cannot (what Talo calls a collapse; the placed piece alone falling is a
refused placement there).

A building's contact interfaces are found once (:class:`RiskJudge`); a
sample finds again only those of the pieces the noise moved (the placed one,
and any it pushed aside), among the pieces near them. On a large building
(Babylon's, up to 140 pieces, where one exact verdict costs a tenth of a
second) the judge may be *local*: a sample asks only whether the pieces the
noise moved are held by what they touch, that held fixed — whether the piece
set down stays on its tower top or its bridge's ends, not whether its load,
shifted a few millimetres, tips the building below (which the referee's
statics judge of the aimed placement, exactly, at the turn's end).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from sim.scene import Piece, Scene

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""
REACH_SIGMAS = 6.0
"""How many standard deviations of the hand's noise the pieces a placement may push aside lie within."""
NEAR_M = 0.004
"""How close (m) the bounding spheres of two pieces come for a moved one's contacts with the other to be found
again."""


@dataclass(frozen=True)
class HandNoise:
    """A hand's placement noise (see the module docstring).

    Attributes:
        sigma_mm: standard deviation of the shift along each horizontal axis (mm).
        sigma_deg: standard deviation of the turn about the vertical (degrees).
        samples: samples per placement judged.
    """

    sigma_mm: float = 2.0
    sigma_deg: float = 2.0
    samples: int = 12

    def perturbation(self, piece: str):
        """The experiments' ``noise`` perturbation of ``piece`` alone."""
        from sim.experiments.models import parse

        return parse(f"noise:sigma_mm={self.sigma_mm:g},sigma_deg={self.sigma_deg:g},pieces={piece}")

    @property
    def text(self) -> str:
        """``noise:sigma_mm=2,sigma_deg=2`` (the experiments' text of the model, its piece left out)."""
        return f"noise:sigma_mm={self.sigma_mm:g},sigma_deg={self.sigma_deg:g}"

    def to_json(self) -> dict:
        """``{sigma_mm, sigma_deg, samples}``."""
        return {"sigma_mm": self.sigma_mm, "sigma_deg": self.sigma_deg, "samples": self.samples}


HAND = HandNoise()
"""The noise the planning player assumes: 2 mm and 2 degrees, 12 samples a placement."""


@dataclass(frozen=True)
class Risk:
    """What the samples of one placement gave.

    Attributes:
        falls: samples in which some piece could not be held.
        brings_down: samples in which a piece other than the placed one could not be held.
        n: samples.
        stands: the placement exactly as aimed stands (feasible).
    """

    falls: int
    brings_down: int
    n: int
    stands: bool

    @property
    def p(self) -> float:
        """P(collapse): the share of samples in which something falls (1 when it does not stand as aimed)."""
        if not self.stands:
            return 1.0
        return self.falls / self.n if self.n else 0.0

    @property
    def p_others(self) -> float:
        """The share of samples that bring down a piece other than the placed one."""
        return self.brings_down / self.n if self.n else 0.0

    def interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of :attr:`p`."""
        return wilson(self.falls if self.stands else self.n, self.n)


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials ((0, 1) when n is 0)."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


class RiskJudge:
    """The risk of placements on one building (see the module docstring).

    Args:
        building: what stands (the scene the game's statics judge, without the supply and without the piece
            about to be placed).
        noise: the hand's noise.
        local: judge only the moved pieces on what they touch, held fixed (see the module docstring).
    """

    def __init__(self, building: Scene, noise: HandNoise = HAND, local: bool = False):
        self.building = building
        self.noise = noise
        self.local = local
        self._cache: dict[tuple, Risk] = {}

    @cached_property
    def _interfaces(self) -> tuple:
        from sim.contact import find_interfaces

        return tuple(find_interfaces(self.building)) if self.building.pieces else ()

    def risk(self, piece: Piece, seed: int, samples: int | None = None) -> Risk:
        """The risk of ``piece`` set down where it stands (its pose is the aim).

        Args:
            piece: the piece at its aimed pose (not in the building).
            seed: the samples' seed (sample k draws from ``SeedSequence(seed, spawn_key=(k, 0))``).
            samples: how many (default the noise's).
        """
        n = self.noise.samples if samples is None else samples
        key = (piece.id, tuple(np.round(piece.pos, 6)), tuple(np.round(piece.quat, 6)), n, seed)
        if key not in self._cache:
            self._cache[key] = self._judge(piece, seed, n)
        return self._cache[key]

    def stands(self, piece: Piece) -> tuple[bool, tuple[str, ...]]:
        """Whether ``piece`` set down exactly where it stands leaves everything held, and what cannot be."""
        scene = self._with(piece)
        result = self._analyze(scene, scene.poses(), {piece.id})
        return result.feasible, tuple(result.unheld)

    def _with(self, piece: Piece) -> Scene:
        return self.building.with_pieces([*(p for p in self.building.pieces if p.id != piece.id), piece])

    def _judge(self, piece: Piece, seed: int, n: int) -> Risk:
        from sim.experiments.perturb import start_trial

        scene = self._with(piece)
        nominal = scene.poses()
        held = self._analyze(scene, nominal, {piece.id})
        if not held.feasible:
            return Risk(0, 0, 0, False)
        noise = [self.noise.perturbation(piece.id)]
        region = self._region(scene, piece)  # what the piece can push aside: the rest keeps its poses
        rows = [k for k, p in enumerate(scene.pieces) if p.id in region]
        sub = scene.with_pieces(scene.pieces[k] for k in rows)
        falls = down = 0
        for k in range(n):
            start = start_trial(sub, noise, seed, k)
            poses = nominal.copy()
            poses[rows] = start.resting.poses()
            resting = scene.with_poses(poses)
            moved = {p.id for p, a, b in zip(scene.pieces, poses, nominal) if not np.array_equal(a, b)} | {piece.id}
            result = self._analyze(resting, poses, moved)
            if not result.feasible:
                falls += 1
                down += any(u != piece.id for u in result.unheld)
        return Risk(falls, down, n, True)

    def _region(self, scene: Scene, piece: Piece) -> set[str]:
        """The pieces the noisy piece can reach: their bounding spheres within :data:`REACH_SIGMAS` standard
        deviations of the shift (and the turn's sweep) of its own."""
        reach = REACH_SIGMAS * (self.noise.sigma_mm * 1e-3 * math.sqrt(2) + float(np.linalg.norm(
            piece.shape.extent)) / 2 * math.radians(self.noise.sigma_deg)) + NEAR_M
        centre = np.asarray(piece.pos, dtype=float)
        r0 = float(np.linalg.norm(piece.shape.extent)) / 2
        return {p.id for p in scene.pieces
                if np.linalg.norm(np.asarray(p.pos) - centre) <= r0 + float(np.linalg.norm(p.shape.extent)) / 2 + reach}

    def _analyze(self, scene: Scene, poses: np.ndarray, moved: set[str]):
        """The statics of ``scene`` whose pieces ``moved`` are not where the building had them."""
        from sim.contact import find_interfaces
        from sim.statics import analyze

        near = _near(scene, poses, moved)
        sub = scene.with_pieces(p for p in scene.pieces if p.id in near)
        if self.local:
            held = sub.with_pieces(p if p.id in moved else replace(p, fixed=True) for p in sub.pieces)
            return analyze(held, find_interfaces(held), margin=False)
        keep = [i for i in self._interfaces if i.a not in moved and i.b not in moved]
        fresh = [i for i in find_interfaces(sub) if i.a in moved or i.b in moved]
        return analyze(scene, keep + fresh, margin=False)


def _near(scene: Scene, poses: np.ndarray, moved: set[str]) -> set[str]:
    """Ids of the pieces whose bounding spheres come within :data:`NEAR_M` of a moved piece's (the moved ones too)."""
    ids = [p.id for p in scene.pieces]
    radius = np.array([float(np.linalg.norm(p.shape.extent)) / 2 for p in scene.pieces])
    centre = np.asarray(poses, dtype=float)[:, :3]
    rows = [k for k, i in enumerate(ids) if i in moved]
    out = set(moved)
    for r in rows:
        d = np.linalg.norm(centre - centre[r], axis=1)
        out.update(ids[k] for k in np.flatnonzero(d <= radius + radius[r] + NEAR_M))
    return out


__all__ = ["HAND", "HandNoise", "Risk", "RiskJudge", "wilson"]
