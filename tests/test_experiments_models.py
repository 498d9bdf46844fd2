"""Perturbation models without an engine: parsing and checking, random streams, placement noise, impulses, intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from sim.experiments import PerturbationError, experiment, parse, parse_sweep
from sim.experiments.impulse import impulse_response, strike_point
from sim.experiments.perturb import STANDARD_GRAVITY, Shaking, positive_factor, start_trial, trial_rng
from sim.experiments.placement import PUSH_DEPTH, set_down
from sim.experiments.stats import interval, summarise
from sim.experiments.trials import TrialRecord
from sim.geometry.transforms import transform_points
from tests.helpers import box_record, free_scene


def stack(d=28.0, size=(60.0, 30.0, 20.0)):
    """A box on a box of the same footprint, shifted by d mm along x."""
    length, depth, height = size
    return free_scene(box_record("base", size, (0, 0, height / 2)), box_record("top", size, (d, 0, 1.5 * height)))


# --- parsing ------------------------------------------------------------------------------------


def test_parse_fills_defaults_and_its_canonical_text_parses_back_to_it():
    p = parse("noise:sigma_mm=2.5,pieces=top+cap")
    assert p.params["sigma_mm"] == 2.5 and p.params["sigma_deg"] == 0.0 and p.pieces == ("top", "cap")
    assert not p.dynamic
    assert parse(p.text) == p and parse(p.text).text == p.text
    for text in ("noise", "friction", "vibration:direction=30", "nudge:impulse_ns=0.5,height=random"):
        assert parse(parse(text).text) == parse(text)
    nudge = parse("nudge:impulse_ns=0.02,piece=b3")
    assert nudge.dynamic and nudge.params["direction"] == "random" and nudge.params["height"] == 0.5
    assert parse("noise:tilt_deg=1").dynamic  # a tilt lands on a face: only the simulation tells
    assert parse("vibration").params["frequency_hz"] == 5.0


@pytest.mark.parametrize("text, message", [
    ("wobble:x=1", "unknown model 'wobble'"),
    ("noise:sigma=1", "unknown key 'sigma'"),
    ("noise:sigma_mm=-1", "noise.sigma_mm: expected 0 <= x"),
    ("noise:sigma_mm=abc", "noise.sigma_mm: expected a number, got 'abc'"),
    ("noise:sigma_mm=nan", "expected a finite number"),
    ("noise:sigma_mm=1,sigma_mm=2", "given twice"),
    ("noise:axes=z", "expected x, y or xy"),
    ("noise:sigma_mm", "expected key=value"),
    ("nudge:piece=a", "nudge.impulse_ns: required"),
    ("nudge:impulse_ns=0", "nudge.impulse_ns: expected 0 < x"),
    ("nudge:impulse_ns=1,height=1.5", "nudge.height: expected 0 <= x <= 1"),
    ("nudge:impulse_ns=1,piece=a,pieces=b", "give piece= or pieces=, not both"),
    ("friction:sigma_rel=-0.1", "friction.sigma_rel"),
    ("vibration:frequency_hz=0", "vibration.frequency_hz: expected 0 < x"),
    ("noise:pieces=a++b", "expected piece ids joined by +"),
])
def test_bad_perturbations_name_the_model_and_key(text, message):
    with pytest.raises(PerturbationError, match=message.replace("(", r"\(").replace("+", r"\+")):
        parse(text)


def test_experiment_checks_pieces_and_which_method_can_answer():
    scene = stack()
    with pytest.raises(PerturbationError, match="no piece 'cap'"):
        experiment(scene, ["noise:pieces=cap"])
    fixed = free_scene(box_record("floor", (60, 30, 20), (0, 0, 10), fixed=True), box_record("b", (20, 20, 20),
                                                                                             (0, 0, 30)))
    with pytest.raises(PerturbationError, match="'floor' is fixed"):
        experiment(fixed, ["nudge:impulse_ns=1,piece=floor"])
    with pytest.raises(PerturbationError, match="nudge needs --method dynamics"):
        experiment(scene, ["nudge:impulse_ns=0.01"], "statics")
    with pytest.raises(PerturbationError, match="noise with tilt_deg needs --method dynamics"):
        experiment(scene, ["noise:tilt_deg=1"], "both")
    with pytest.raises(PerturbationError, match="--method: expected one of"):
        experiment(scene, ["noise"], "exact")
    with pytest.raises(PerturbationError, match="--seed"):
        experiment(scene, ["noise"], seed=-1)
    assert experiment(scene, ["noise"]).method == "statics"
    assert experiment(scene, ["noise", "vibration"]).method == "dynamics"


def test_sweep_grid_and_its_errors():
    grid, perturbations = parse_sweep("noise.sigma_mm=0:5:11", [parse("noise:pieces=top")])
    assert grid.values == tuple(np.linspace(0, 5, 11)) and grid.index == 0 and len(perturbations) == 1
    grid, perturbations = parse_sweep("friction.sigma_rel=0:0.2:3", [parse("noise")])
    assert [p.model for p in perturbations] == ["noise", "friction"] and grid.index == 1
    for text, message in [("noise.sigma_mm=0:5", "expected model.key=lo:hi:n"),
                          ("noise.axes=0:1:2", "is not a number"),
                          ("noise.sigma_mm=-1:1:3", "noise.sigma_mm: expected 0 <= x"),
                          ("noise.sigma_mm=0:1:0", "n: expected 1..1000"),
                          ("nudge.height=0:1:3", "with impulse_ns"),
                          ("spin.rate=0:1:3", "unknown model")]:
        with pytest.raises(PerturbationError, match=message):
            parse_sweep(text, [])
    with pytest.raises(PerturbationError, match="given 2 times"):
        parse_sweep("noise.sigma_mm=0:1:2", [parse("noise"), parse("noise:pieces=top")])


# --- random streams ----------------------------------------------------------------------------


def test_each_trial_and_perturbation_draws_from_its_seed_sequence_child():
    children = np.random.SeedSequence(7).spawn(5)
    for trial in (0, 3):
        streams = children[trial].spawn(2)
        for k in (0, 1):
            expected = np.random.default_rng(streams[k]).random(4)
            assert np.array_equal(trial_rng(7, trial, k).random(4), expected)


def test_noise_is_gaussian_per_axis_scales_with_sigma_and_keeps_other_pieces():
    scene = free_scene(box_record("a", (20, 20, 20), (0, 0, 10)), box_record("b", (20, 20, 20), (100, 0, 10)))
    shifts = np.array([start_trial(scene, [parse("noise:sigma_mm=2,pieces=a")], 3, i).scene.poses()[0, :2]
                       for i in range(1500)]) * 1000
    assert abs(shifts.mean(axis=0)).max() < 4 * 2 / math.sqrt(1500)
    assert shifts.std(axis=0) == pytest.approx([2.0, 2.0], rel=0.06)
    assert abs(np.corrcoef(shifts.T)[0, 1]) < 0.08
    one = start_trial(scene, [parse("noise:sigma_mm=1,pieces=a")], 3, 9).scene
    two = start_trial(scene, [parse("noise:sigma_mm=2,pieces=a")], 3, 9).scene
    assert np.allclose(two.poses()[0, :2], 2 * one.poses()[0, :2])  # the same draws: common random numbers
    assert np.array_equal(one.poses()[1], scene.poses()[1])
    along_x = start_trial(scene, [parse("noise:sigma_mm=2,axes=x")], 3, 9).scene.poses()
    assert np.array_equal(along_x[:, 1:], scene.poses()[:, 1:]) and not np.array_equal(along_x, scene.poses())


def test_zero_noise_leaves_the_scene_bit_for_bit():
    from sim.scene import load_scene
    from tests.helpers import SCENES

    scene = load_scene(SCENES / "talo" / "bridge.json")
    start = start_trial(scene, [parse("noise:sigma_mm=0")], 1, 0)
    assert not start.geometry_changed and start.scene is not None
    assert np.array_equal(start.scene.poses(), scene.poses())


def test_friction_and_density_factors_are_positive_with_relative_sigma():
    u = (np.arange(20000) + 0.5) / 20000
    f = positive_factor(u, 0.1)
    assert f.min() > 0 and f.mean() == pytest.approx(1.0, abs=1e-3) and f.std() == pytest.approx(0.1, rel=0.01)
    assert positive_factor(u, 2.0).min() > 0
    scene = stack()
    start = start_trial(scene, [parse("friction:sigma_rel=0.2,pieces=top"), parse("density:sigma_rel=0.3")], 5, 1)
    base, top = start.scene.pieces
    assert base.friction is None and top.friction != pytest.approx(0.5)
    assert base.density != top.density and base.mass != scene.pieces[0].mass


# --- setting pieces down -----------------------------------------------------------------------


def _world_parts(scene):
    return [transform_points(p.shape.vertices, p.pos, p.quat) for p in scene.pieces]


def _min_gap(scene):
    """For boxes lying square: the least gap along x between consecutive pieces (negative: overlap)."""
    parts = sorted(_world_parts(scene), key=lambda v: v[:, 0].min())
    return min(b[:, 0].min() - a[:, 0].max() for a, b in zip(parts, parts[1:]))


def test_pieces_pushed_into_each_other_are_set_flush_at_their_heights():
    row = free_scene(*[box_record(f"r{k}", (20, 20, 20), (20 * k, 0, 10)) for k in range(6)])
    poses = row.poses()
    poses[2, 0] += 0.004  # pressed into r3 by 4 mm, r4 into r5 by 3 mm
    poses[5, 0] -= 0.003
    out, left = set_down(row, poses)
    assert left <= PUSH_DEPTH
    settled = row.with_poses(out)
    assert _min_gap(settled) == pytest.approx(0.0, abs=PUSH_DEPTH)
    assert np.array_equal(out[:, 2], poses[:, 2]) and np.array_equal(out[:, 3:], poses[:, 3:])
    wall = free_scene(box_record("wall", (20, 100, 40), (0, 0, 20), fixed=True), box_record("b", (20, 20, 20),
                                                                                             (20, 0, 10)))
    poses = wall.poses()
    poses[1, 0] -= 0.005
    out, _ = set_down(wall, poses)
    assert np.array_equal(out[0], wall.poses()[0]) and out[1, 0] == pytest.approx(0.020, abs=PUSH_DEPTH)


def test_a_tilted_piece_is_lifted_onto_what_it_lies_on():
    scene = stack(d=0.0)
    start = start_trial(scene, [parse("noise:sigma_mm=0,tilt_deg=3,pieces=top")], 2, 0)
    base, top = _world_parts(start.scene)
    assert top[:, 2].min() == pytest.approx(base[:, 2].max(), abs=PUSH_DEPTH)
    assert start.overlap_m <= PUSH_DEPTH and start.geometry_changed
    assert np.array_equal(start.resting.poses(), scene.poses())  # it will rest where it was, untilted


# --- impulses and shaking ------------------------------------------------------------------------


def test_an_impulse_at_a_point_against_newton_euler():
    mass, moments = 0.2, np.array([1e-4, 2e-4, 3e-4])
    j = np.array([0.01, 0.0, 0.0])
    dv, dw = impulse_response(mass, moments, [0, 0, 0, 1], [0, 0, 0], j)
    assert np.allclose(dv, j / mass) and np.allclose(dw, 0.0)
    dv, dw = impulse_response(mass, moments, [0, 0, 0, 1], [0, 0, 0.03], j)  # struck 3 cm above: spins about +y
    assert np.allclose(dw, [0.0, 0.03 * 0.01 / 2e-4, 0.0])
    turn = [0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4)]  # principal x along world y
    dv, dw = impulse_response(mass, moments, turn, [0, 0, 0.03], j)
    assert np.allclose(dw, [0.0, 0.03 * 0.01 / 1e-4, 0.0])
    p = strike_point([0.1, 0.2, 0.03], 0.0, 0.06, 0.0, 1.0, 0.01)
    assert np.allclose(p, [0.1, 0.21, 0.06])


def test_the_shaking_table_accelerates_as_the_second_derivative_of_its_sinusoid():
    s = Shaking(0.002, 4.0, 1.0, 0.5, 0.0)
    w = 2 * math.pi * 4.0
    t = 0.5 + np.linspace(0.0, 0.99, 7)
    x = lambda t: 0.002 * np.sin(w * (t - 0.5))
    h = 1e-5
    numeric = (x(t + h) - 2 * x(t) + x(t - h)) / h**2
    assert np.allclose([s.acceleration(v) for v in t], numeric, rtol=1e-4, atol=1e-6)
    assert s.acceleration(0.4) == 0.0 and s.acceleration(1.5) == 0.0 and s.end == 1.5
    assert s.peak_g == pytest.approx(0.002 * w * w / STANDARD_GRAVITY)


# --- intervals and summaries -----------------------------------------------------------------------


@pytest.mark.parametrize("n, p", [(40, 0.3), (100, 0.05), (200, 0.5)])
def test_the_intervals_cover_as_they_say(n, p):
    """Exact coverage over every outcome k: Clopper–Pearson's is at least 95%, Wilson's close to it."""
    pmf = binom.pmf(np.arange(n + 1), n, p)
    for method, low in (("clopper-pearson", 0.95), ("wilson", 0.925)):
        inside = [lo <= p <= hi for lo, hi in (interval(k, n, method) for k in range(n + 1))]
        assert pmf[inside].sum() >= low
    assert interval(0, 20)[0] == 0.0 and interval(20, 20)[1] == 1.0
    lo, hi = interval(7, 20)
    assert lo < 0.35 < hi and (1 - hi, 1 - lo) == pytest.approx(interval(13, 20))


def test_summary_has_the_issue_keys_and_the_agreement_of_both():
    records = [TrialRecord(i, i % 3 == 0, i % 3 == 0, 1.0, 1.0, 0.1 * i, True, 0, i % 3 == 0, i % 4 == 0, 0.5, "")
               for i in range(12)]
    s = summarise(records, "both")
    assert {"trials", "collapsed", "p_collapse", "ci95", "method", "knocked_down_mean", "margin_g"} <= set(s)
    assert s["trials"] == 12 and s["collapsed"] == 4 and s["p_collapse"] == pytest.approx(1 / 3)
    assert s["statics"]["collapsed"] == 4 and s["dynamics"]["collapsed"] == 3
    assert s["agreement"]["agree"] == 12 - len(s["agreement"]["disagree_trials"])
    assert s["margin_g"]["q50"] == pytest.approx(0.55) and s["interval"] == "wilson"


def test_the_docs_name_every_model_and_key():
    from sim.experiments import MODELS
    from tests.helpers import ROOT

    text = (ROOT / "docs" / "experiments.md").read_text()
    for model in MODELS.values():
        assert f"| `{model.name}` |" in text
        for key in model.keys:
            assert f"`{key.name}`" in text, (model.name, key.name)


def test_importing_the_experiments_loads_no_engine():
    import subprocess
    import sys

    from tests.helpers import ROOT

    code = "import sys, sim.experiments, sim.cli.experiment; print('pybullet' in sys.modules, 'panda3d' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
