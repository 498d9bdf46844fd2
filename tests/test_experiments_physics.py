"""Experiments against closed forms: placement noise on a shifted block, a nudge that topples a post, a shaken slab."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from sim.experiments import experiment, parse, run
from sim.experiments.perturb import start_trial
from sim.experiments.trials import Runner
from sim.tol import tol
from tests.helpers import box_record, free_scene


def shifted_stack(size, d):
    """A box resting on a box of the same footprint, shifted by d mm along x (both on the table)."""
    length, depth, height = size
    return free_scene(box_record("base", size, (0, 0, height / 2)), box_record("top", size, (d, 0, 1.5 * height)))


def p_fall(size, d, sigma, axes):
    """P(fall) of the top box under Gaussian noise σ (mm) along ``axes``: it stands while its centre of mass lies
    inside the base's footprint by more than the stable margin's tipping lever (tol.stable_margin_g · H/2)."""
    length, depth, height = size
    edge = lambda half: half - tol.stable_margin_g * height / 2
    stand_x = norm.cdf((edge(length / 2) - d) / sigma) - norm.cdf((-edge(length / 2) - d) / sigma)
    stand_y = 1.0 - 2 * norm.cdf(-edge(depth / 2) / sigma) if "y" in axes else 1.0
    return 1.0 - stand_x * stand_y


@pytest.mark.parametrize("size, d, sigma, axes, trials", [
    ((60.0, 30.0, 20.0), 28.0, 4.0, "x", 300),
    ((100.0, 40.0, 30.0), -40.0, 10.0, "xy", 200),  # other proportions, and the y axis too
])
def test_statics_p_collapse_of_a_shifted_block_holds_the_closed_form_in_its_interval(size, d, sigma, axes, trials):
    scene = shifted_stack(size, d)
    exp = experiment(scene, [f"noise:sigma_mm={sigma},axes={axes},pieces=top"], seed=11)
    result = run(exp, trials, workers=1)
    s = result.summary
    exact = p_fall(size, d, sigma, axes)
    assert s["ci95"][0] <= exact <= s["ci95"][1], (s["p_collapse"], exact)
    assert 0.1 < exact < 0.5  # a probability the test can miss on either side
    assert s["knocked_down_mean"] == pytest.approx(s["p_collapse"])  # the top box is the one not held
    assert s["margin_g"]["max"] <= 0.5 + 1e-9  # capped by sliding (μ = 0.5)


def test_dynamics_agree_with_the_statics_on_the_shifted_block_trial_by_trial():
    size, d, sigma = (60.0, 30.0, 20.0), 28.0, 4.0
    scene = shifted_stack(size, d)
    exp = experiment(scene, [f"noise:sigma_mm={sigma},axes=x,pieces=top"], "both", seed=5, seconds=1.5)
    result = run(exp, 40, workers=1)
    s = result.summary
    exact = p_fall(size, d, sigma, "x")
    assert s["dynamics"]["ci95"][0] <= exact <= s["dynamics"]["ci95"][1]
    for r in result.records:
        x = start_trial(scene, exp.perturbations, exp.seed, r.trial).scene.piece("top").pos[0] * 1000
        if abs(abs(x) - size[0] / 2) > 0.5:  # away from the knife edge, where the simulation is a witness
            assert r.statics_collapsed == r.dynamics_collapsed == (abs(x) > size[0] / 2), (r, x)
    assert s["agreement"]["rate"] >= 0.95


def post_critical_impulse(size_mm):
    """The least impulse (N s) at the top edge of a standing box that tips it over its far bottom edge.

    Pivoting about that edge: the impulse J at height H gives the angular momentum J H = I_e ω, I_e =
    m (W² + H²) / 3; it tips once ½ I_e ω² lifts the centre of mass from H/2 to half the diagonal."""
    from sim.pieces import shape

    w, _, h = (v / 1000 for v in size_mm)
    mass = shape("box", size=size_mm).mass
    inertia = mass * (w * w + h * h) / 3
    return math.sqrt(2 * mass * 9.81 * (math.hypot(w, h) / 2 - h / 2) * inertia) / h


@pytest.mark.parametrize("size", [(20.0, 20.0, 60.0), (30.0, 40.0, 75.0)])
def test_a_nudge_at_the_top_of_a_post_topples_it_above_the_closed_form_impulse_only(size):
    scene = free_scene(box_record("post", size, (0, 0, size[2] / 2)))
    critical = post_critical_impulse(size)
    results = {}
    for factor in (0.85, 1.2):
        exp = experiment(scene, [f"nudge:impulse_ns={critical * factor},piece=post,direction=0,height=1"],
                         seconds=1.5)
        results[factor] = Runner(exp).trial(0)
    assert not results[0.85].collapsed and results[0.85].max_displacement_mm < 1.0
    assert results[1.2].collapsed and results[1.2].knocked_down == 1 and results[1.2].nudged == "post"


def coulomb_slip(amplitude, frequency, duration, mu, dt=1e-5):
    """The largest excursion (m) of a block on a table shaken as ``amplitude · sin(ω t)``: the Coulomb
    stick-slip equation in the table's frame, integrated step by step (it sticks while the inertial
    force stays within μ g)."""
    w, g = 2 * math.pi * frequency, 9.81
    u = x = peak = 0.0
    for k in range(int(round(duration / dt))):
        push = amplitude * w * w * math.sin(w * k * dt)
        if u == 0.0:
            if abs(push) > mu * g:
                u = (push - math.copysign(mu * g, push)) * dt
        else:
            nu = u + (push - math.copysign(mu * g, u)) * dt
            u = 0.0 if nu * u < 0 else nu
        x += u * dt
        peak = max(peak, abs(x))
    return peak


def test_a_shaken_slab_slips_only_once_the_table_accelerates_beyond_mu_g():
    """The shaking is the probe in the table's frame: below μ g nothing slips; above, the slab slips to and
    fro about as far as the Coulomb stick-slip equation says (Bullet's friction and the drift between
    cycles make it go somewhat farther)."""
    scene = free_scene(box_record("slab", (60, 60, 10), (0, 0, 5)))
    mu, f = 0.5, 5.0  # box on table: both 0.5
    for peak, direction in ((0.85, 30.0), (1.6, 0.0), (1.6, 120.0)):
        amplitude = peak * mu * 9.81 / (2 * math.pi * f) ** 2
        exp = experiment(scene, [f"vibration:amplitude_mm={amplitude * 1000},frequency_hz={f},duration_s=1,"
                                 f"direction={direction}"], seconds=0.3)
        slipped = Runner(exp).trial(0).peak_displacement_mm
        if peak < 1:
            assert slipped < 0.05
        else:
            expected = coulomb_slip(amplitude, f, 1.0, mu) * 1000
            assert 0.7 * expected < slipped < 1.6 * expected, (slipped, expected)


def test_a_trial_gives_the_same_result_bit_for_bit_whatever_ran_before_it():
    scene = shifted_stack((60.0, 30.0, 20.0), 26.0)
    exp = experiment(scene, ["noise:sigma_mm=3,sigma_deg=2,pieces=top", "nudge:impulse_ns=0.004"], seconds=1.0)
    fresh = Runner(exp).trial(3)
    runner = Runner(exp)
    for i in (0, 1, 2):
        runner.trial(i)
    assert runner.trial(3) == fresh
    assert fresh.nudged in ("base", "top")


def test_pieces_set_down_tilted_land_on_their_faces_without_counting_as_a_fall():
    scene = shifted_stack((60.0, 30.0, 20.0), 10.0)
    exp = experiment(scene, ["noise:sigma_mm=0,tilt_deg=3"], seed=3, seconds=1.0)
    records = run(exp, 4, workers=1).records
    assert not any(r.collapsed for r in records) and all(r.margin_g == pytest.approx(0.5) for r in records)
    assert max(r.peak_displacement_mm for r in records) > 1.0  # they did drop


def test_gravity_is_the_physics_worlds():
    from sim.experiments.perturb import STANDARD_GRAVITY
    from sim.physics.world import GRAVITY

    assert STANDARD_GRAVITY == GRAVITY


def test_friction_variation_changes_whether_a_block_on_a_slope_slides():
    """A block on a plank at 26.1° holds with μ = 0.5 (atan 0.5 = 26.57°); friction spread of 20% makes it slide
    in the trials whose contact coefficient √(μ_plank μ_block) falls below tan 26.1° = 0.490."""
    from sim.cases import block_on_slope

    scene = block_on_slope(26.1)
    exp = experiment(scene, ["friction:sigma_rel=0.2,pieces=block"], seed=2)
    result = run(exp, 200, workers=1)
    exact = norm.cdf(((math.tan(math.radians(26.1)) ** 2 / 0.5) / 0.5 - 1.0) / 0.2)  # μ_block' = μ (1 + 0.2 z)
    lo, hi = result.summary["ci95"]
    assert lo <= exact <= hi and 0.2 < exact < 0.6
    assert parse("friction:sigma_rel=0.2").params["sigma_rel"] == 0.2
    assert np.isfinite(result.summary["margin_g"]["mean"])
