"""The thin-margin suite: structures 0.002–0.01 g from falling or just past it, holding the simulation to the statics.

Families, in proportions the physics settings were never tuned on:

* **harmonic** stacks of 150 × 40 × 30, 100 × 30 × 10 and 300 × 60 × 40 mm
  boxes, n = 2 … 20 (closed form: :func:`sim.cases.harmonic_margin`);
* **tipping** blocks, slender, on a fixed plank tilted until they are about to
  turn over downhill: margin ``tan(atan(w / h) − θ)`` (friction holds them far longer);
* **levers**: a beam over a post's edge held by a counterweight on its other
  end, on a fixed post or on a light movable one that tips first (closed form
  below);
* **ladders** leaning on a fixed wall, friction at both ends (the angle found
  on the statics; at zero load the classic ``tan α = (1 − μ²) / (2μ)``);
* **random** towers of 3–7 boxes of random sizes and offsets, square to one
  another, spread towards their tipping point (on the statics).

Beside the suite, :func:`turned_towers`: random towers whose boxes are turned
against one another, so that their contacts have 5–8 corners, more than the
4 points Bullet keeps per pair of convex parts: the simulation's limit.

Each comes at margins ``+m`` (stands) and just past the boundary (falls), and
some turned about the vertical and shifted. Margins are in g (fractions of g).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.spatial.transform import Rotation

from sim.cases.reference import FORMAT, harmonic_stack
from sim.scene import Scene, from_dict

PROPORTIONS = ((150.0, 40.0, 30.0), (100.0, 30.0, 10.0), (300.0, 60.0, 40.0))
"""Block sizes (mm) of the suite's harmonic stacks: none of them the tests' 200 × 50 × 20."""

MARGINS = (0.002, 0.005, 0.01)
"""The thin margins (g) every family is built at, standing; the falling cases lie as far past the boundary."""


@dataclass(frozen=True)
class ThinCase:
    """One case of the suite.

    Attributes:
        name: what it is, e.g. ``harmonic 150x40x30 n=8 +0.005``.
        family: ``harmonic``, ``tipping``, ``lever``, ``ladder`` or ``random``.
        scene: the structure.
        margin_g: its margin by construction (closed form or the statics' bisection); negative
            for a case past the boundary (it cannot stand).
    """

    name: str
    family: str
    scene: Scene
    margin_g: float

    @property
    def stands(self) -> bool:
        """It stands by construction."""
        return self.margin_g > 0


def turned(scene: Scene, angle_deg: float, offset_mm=(0.0, 0.0, 0.0)) -> Scene:
    """The whole scene turned about the vertical through the origin and shifted, on an endless table."""
    turn = Rotation.from_euler("z", angle_deg, degrees=True)
    offset = np.asarray(offset_mm, dtype=float) / 1000.0
    pieces = [p.moved(turn.apply(p.pos) + offset, (turn * Rotation.from_quat(p.quat)).as_quat()) for p in scene.pieces]
    return replace(scene, board="table", pieces=tuple(pieces))


def _scene(title: str, pieces: list[dict]) -> Scene:
    return from_dict({"format": FORMAT, "game": "free", "board": "table", "title": title, "pieces": pieces},
                     f"<{title}>")


def harmonic(n: int, margin_g: float, block) -> Scene:
    """A harmonic stack of ``n`` boxes ``block`` with the margin ``margin_g`` (g), or, when negative,
    as far past its critical offsets."""
    length, _, height = block
    scale = 1.0 - margin_g * n * height / length
    return harmonic_stack(n, scale, block)


def tipping_block(margin_g: float, block=(20.0, 40.0, 60.0), mu: float = 0.5) -> Scene:
    """A slender box ``block`` (width along the slope, depth, height; mm) on a fixed plank tilted so far
    that it is ``margin_g`` from turning over downhill: ``θ = atan(w / h) − atan(margin)``.

    Sliding would need ``tan(atan μ − θ)``: far more, for ``w / h`` well below μ.

    Raises:
        ValueError: a block that would slide first.
    """
    w, d, h = block
    theta = math.degrees(math.atan(w / h) - math.atan(margin_g))
    if math.tan(math.atan(mu) - math.radians(theta)) <= 2 * abs(margin_g):
        raise ValueError(f"tipping_block: with friction {mu:g} the block {block} would slide before it tips")
    plank = (300.0, 100.0, 20.0)
    a = math.radians(theta)
    lift = plank[2] / 2 + h / 2
    centre = [math.sin(a) * lift, 0.0, math.cos(a) * lift + 200.0]
    return _scene(f"block {w:g}x{d:g}x{h:g} on a {theta:.4f} deg slope", [
        {"id": "plank", "kind": "box", "size": list(plank), "pos": [0.0, 0.0, 200.0], "rot": [0, theta, 0],
         "fixed": True, "friction": mu},
        {"id": "block", "kind": "box", "size": [w, d, h], "pos": centre, "rot": [0, theta, 0], "friction": mu},
    ])


def _lever_terms(post, beam, weight: float) -> tuple[float, float, float, float, float]:
    """(z_c, z_all, a, b, v_top) of :func:`lever`: heights (mm) of the centres of mass of beam and weight
    above the post's top and of all three above the table, the movable post's terms a (mm), b, and the
    volume of beam and weight (mm³)."""
    p, _, height = post
    length, width, t = beam
    v_post, v_beam, v_weight = p * post[1] * height, length * width * t, weight**3
    v_top, v_all = v_beam + v_weight, v_post + v_beam + v_weight
    z_c = (v_beam * t / 2 + v_weight * (t + weight / 2)) / v_top
    z_all = (v_post * height / 2 + v_beam * (height + t / 2) + v_weight * (height + t + weight / 2)) / v_all
    return z_c, z_all, (p / 2) * v_post / v_all, v_top / v_all, v_top


def lever(margin_g: float, fixed_post: bool, post=(10.0, 10.0, 100.0), beam=(300.0, 20.0, 10.0),
          weight: float = 30.0) -> Scene:
    """A beam reaching far beyond a post's +x edge, held by a counterweight cube on its −x end.

    Beam and weight together have their centre of mass ``e`` inside the post's top edge,
    ``z_c`` above it: they turn over that edge at ``e / z_c`` g. A movable post carries them
    over its own base edge at ``(a + b e) / z_all`` g, with ``a = (p / 2) V_post / V``,
    ``b = (V_beam + V_weight) / V`` (volumes, one density) and ``z_all`` the height of the
    centre of mass of all three; the lighter and taller the post, the sooner that. ``e`` is
    chosen so that the weaker of the two is ``margin_g`` (negative: the lever turns over).

    Raises:
        ValueError: proportions in which the beam would not reach over the edge and lie on the post.
    """
    p, _, height = post
    length, _, t = beam
    z_c, z_all, a, b, v_top = _lever_terms(post, beam, weight)
    e = margin_g * z_c if margin_g <= 0 or fixed_post else max(margin_g * z_c, (margin_g * z_all - a) / b)
    x_beam = p / 2 - e + weight**3 * (length - weight) / 2 / v_top  # the pair's centre of mass at p/2 - e
    if not (x_beam > p / 2 and x_beam - length / 2 < p / 2):
        raise ValueError("lever: the beam must reach over the post's edge and lie on the post")
    x_weight = x_beam - length / 2 + weight / 2
    kind = "fixed" if fixed_post else "movable"
    return _scene(f"lever on a {kind} post, e = {e:.5f} mm", [
        {"id": "post", "kind": "box", "size": list(post), "pos": [0.0, 0.0, height / 2], "fixed": fixed_post},
        {"id": "beam", "kind": "box", "size": list(beam), "pos": [x_beam, 0.0, height + t / 2]},
        {"id": "weight", "kind": "box", "size": [weight] * 3, "pos": [x_weight, 0.0, height + t + weight / 2]},
    ])


def lever_margin(fixed_post: bool, e: float, post=(10.0, 10.0, 100.0), beam=(300.0, 20.0, 10.0),
                 weight: float = 30.0) -> float:
    """The closed-form margin (g) of :func:`lever` for the offset ``e`` (mm) (the weaker of its two modes)."""
    z_c, z_all, a, b, _ = _lever_terms(post, beam, weight)
    return e / z_c if fixed_post else min(e / z_c, (a + b * e) / z_all)


def ladder(angle_deg: float, length: float = 250.0, width: float = 40.0, thickness: float = 8.0,
           mu: float = 0.5) -> Scene:
    """A plank leaning at ``angle_deg`` from the table against a fixed wall whose face is at x = 0.

    Its lower edge lies on the table, its upper edge against the wall, both exactly touching;
    every surface has friction ``mu``.
    """
    a = math.radians(angle_deg)
    x = -(length / 2) * math.cos(a) - (thickness / 2) * math.sin(a)
    z = (length / 2) * math.sin(a) + (thickness / 2) * math.cos(a)
    wall = (40.0, 120.0, 300.0)
    return _scene(f"ladder at {angle_deg:.4f} deg", [
        {"id": "wall", "kind": "box", "size": list(wall), "pos": [wall[0] / 2, 0.0, wall[2] / 2], "fixed": True,
         "friction": mu},
        {"id": "ladder", "kind": "box", "size": [length, width, thickness], "pos": [x, 0.0, z],
         "rot": [0, -angle_deg, 0], "friction": mu},
    ])


def tower(rng: np.random.Generator, n: int, spread: float = 1.0, turn: bool = False) -> Scene:
    """``n`` boxes of random sizes, each on the one below, shifted at random, square to each other
    (every contact a rectangle) or, with ``turn``, turned about the vertical at random (contacts of
    up to 8 corners).

    Args:
        rng: the random stream.
        n: number of boxes.
        spread: factor on every box's shift from the centre of the box below (the draws stay the same:
            the same rng state and another spread give the same tower, further out).
        turn: turn each box by a random angle (±40°) about the vertical.
    """
    sizes = np.column_stack([rng.uniform(40, 160, n), rng.uniform(20, 60, n), rng.uniform(10, 40, n)])
    shifts = rng.uniform(-0.5, 0.5, (n, 2))
    turns = rng.uniform(-40, 40, n) if turn else np.zeros(n)
    pieces, z, centre = [], 0.0, np.zeros(2)
    for k, (size, shift, turn) in enumerate(zip(sizes, shifts, turns)):
        if k:
            below = sizes[k - 1]
            centre = centre + spread * shift * below[:2] * 0.5
        pieces.append({"id": f"t{k}", "kind": "box", "size": [round(float(v), 3) for v in size],
                       "pos": [float(centre[0]), float(centre[1]), z + size[2] / 2], "rot": [0, 0, float(turn)]})
        z += size[2]
    return _scene(f"random {'turned ' if turn else ''}tower of {n}", pieces)


def _margin(scene: Scene) -> float:
    """The statics margin (g), or the negative of the help needed when nothing holds it (infeasible: -1)."""
    from sim.statics import analyze

    r = analyze(scene)
    return float(r.margin_g) if r.feasible else -1.0


def _bisect(make, target: float, lo: float, hi: float, steps: int = 40) -> float:
    """The parameter in [lo, hi] where the statics margin of ``make(x)`` falls to ``target``
    (the margin decreasing in x); the last x with margin ≥ target."""
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        if _margin(make(mid)) >= target:
            lo = mid
        else:
            hi = mid
    return lo


def ladder_case(margin_g: float) -> tuple[Scene, float]:
    """A ladder at the angle where its statics margin is ``margin_g``; for a negative margin, that far
    below the angle where it starts to slide (the critical angle by the statics)."""
    critical = _bisect(lambda a: ladder(90.0 - a), 0.0, 0.0, 80.0)  # in degrees from the wall
    if margin_g < 0:
        return ladder(90.0 - critical * (1.0 - 4.0 * margin_g)), margin_g
    from_wall = _bisect(lambda a: ladder(90.0 - a), margin_g, 0.0, critical)
    return ladder(90.0 - from_wall), _margin(ladder(90.0 - from_wall))


def tower_case(seed: int, n: int, margin_g: float, turn: bool = False) -> tuple[Scene, float]:
    """A random tower (:func:`tower`) spread out until its statics margin is ``margin_g`` (negative:
    just past its tipping point, by that fraction of the spread), and the margin it has."""
    def make(spread: float) -> Scene:
        return tower(np.random.default_rng(seed), n, spread, turn)

    critical = _bisect(make, 0.0, 0.0, 4.0)
    if margin_g < 0:
        return make(critical * (1.0 - margin_g)), margin_g
    spread = _bisect(make, margin_g, 0.0, critical)
    return make(spread), _margin(make(spread))


def suite(quick: bool = False) -> list[ThinCase]:
    """The thin-margin cases, in a fixed order (deterministic: the random towers come from fixed seeds).

    Args:
        quick: a sample of every family (about a fifth) for a smoke run.
    """
    cases: list[ThinCase] = []
    signed = [*MARGINS, *(-m for m in MARGINS)]
    depths = (2, 4, 8, 13, 20) if not quick else (3, 10)
    for block in PROPORTIONS[:1] if quick else PROPORTIONS:
        label = "x".join(f"{v:g}" for v in block)
        for n in depths:
            for m in signed:
                cases.append(ThinCase(f"harmonic {label} n={n} {m:+g}", "harmonic", harmonic(n, m, block), m))
    for block in ((20.0, 40.0, 60.0), (30.0, 30.0, 100.0), (15.0, 50.0, 40.0))[: 1 if quick else 3]:
        label = "x".join(f"{v:g}" for v in block)
        for m in signed:
            cases.append(ThinCase(f"tipping {label} {m:+g}", "tipping", tipping_block(m, block), m))
    for fixed in (True, False):
        for m in signed:
            kind = "fixed" if fixed else "movable"
            cases.append(ThinCase(f"lever {kind} post {m:+g}", "lever", lever(m, fixed), m))
    for m in signed[: 2 if quick else None]:
        scene, margin = ladder_case(m)
        cases.append(ThinCase(f"ladder {m:+g}", "ladder", scene, margin))
    for seed in range(3 if quick else 15):
        n = 3 + seed % 5
        for m in (signed[seed % 3], -signed[seed % 3]):
            scene, margin = tower_case(seed, n, m)
            cases.append(ThinCase(f"random seed={seed} n={n} {m:+g}", "random", scene, margin))
    turns = [(37.0, (120.0, -45.0, 0.0)), (90.0, (-300.0, 80.0, 0.0)), (211.0, (40.0, 250.0, 0.0))]
    picked = cases[:: 9 if quick else 6]
    for k, case in enumerate(picked):
        angle, offset = turns[k % len(turns)]
        cases.append(ThinCase(f"{case.name} turned {angle:g}", case.family, turned(case.scene, angle, offset),
                              case.margin_g))
    return cases


def turned_towers(quick: bool = False) -> list[ThinCase]:
    """Random towers whose boxes are turned against one another (family ``turned boxes``): their contacts
    are polygons of 5 to 8 corners, of which Bullet keeps 4 points per pair of convex parts, so the
    simulation's support is smaller than the statics' (reported beside the suite, not in it)."""
    cases = []
    for seed in range(2 if quick else 10):
        n = 3 + seed % 5
        for m in (MARGINS[seed % 3], -MARGINS[seed % 3]):
            scene, margin = tower_case(seed, n, m, turn=True)
            cases.append(ThinCase(f"turned boxes seed={seed} n={n} {m:+g}", "turned boxes", scene, margin))
    return cases
