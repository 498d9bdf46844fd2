"""Statics against the harmonic overhang stack: verdicts on both sides of critical, the critical scale, the margin."""

from __future__ import annotations

import pytest

from sim.cases import harmonic_margin, harmonic_stack
from sim.statics import analyze
from sim.tol import tol


@pytest.mark.parametrize("n", range(2, 21))
def test_stack_stands_inside_and_falls_outside_its_critical_offsets(n):
    inside = analyze(harmonic_stack(n, 0.98))
    outside = analyze(harmonic_stack(n, 1.02), margin=False)
    assert inside.feasible and inside.stable
    assert not outside.feasible and not outside.stable
    assert outside.unheld and set(outside.unheld) <= {f"b{k}" for k in range(1, n + 1)}
    assert inside.unheld == ()


@pytest.mark.parametrize("n", range(2, 21))
def test_bisection_on_the_scale_finds_the_critical_scale_within_1e_4(n):
    lo, hi = 0.98, 1.02
    while hi - lo > 5e-5:
        mid = (lo + hi) / 2
        if analyze(harmonic_stack(n, mid), margin=False).feasible:
            lo = mid
        else:
            hi = mid
    assert abs((lo + hi) / 2 - 1.0) < 1e-4


@pytest.mark.parametrize("n", [2, 3, 7, 12, 20])
@pytest.mark.parametrize("scale", [0.95, 0.98, 0.995])
def test_margin_matches_the_closed_form_and_the_weakest_direction_is_the_overhang(n, scale):
    r = analyze(harmonic_stack(n, scale))
    assert r.margin_g == pytest.approx(harmonic_margin(n, scale), rel=1e-6, abs=1e-9)
    assert r.margin_g * (1 - tol.margin_precision_rel) - 1e-9 <= r.margin_bounds[0] <= r.margin_g
    assert r.weakest_direction_deg == pytest.approx(0.0, abs=1e-6) or r.weakest_direction_deg == pytest.approx(
        360.0, abs=1e-6)


@pytest.mark.parametrize("n", [2, 10, 20])
def test_the_critical_stack_balances_on_a_knife_edge(n):
    r = analyze(harmonic_stack(n, 1.0))
    assert r.feasible
    assert r.margin_g == pytest.approx(0.0, abs=1e-9)
    assert not r.stable
