"""The dynamics on the analytic cases: harmonic stacks, a block on a slope, Talo's balance rule, a level plate.

Each case runs the simulation alone (``simulate``, the probe turning around),
with the solver tolerance :func:`sim.physics.verdict.tuned_for` gives for
the case's closed-form margin, and asserts what the physics textbook or the
rulebook says: stand (nothing moves past ``tol.moved_*``) or fall.
"""

from __future__ import annotations

import pytest

from sim.cases import (
    block_on_slope,
    friction_angle,
    harmonic_margin,
    harmonic_stack,
    talo_balance,
    talo_counterweight,
    tohu_plate,
)
from sim.physics import simulate
from sim.physics.precision import tuned_for
from sim.tol import tol


def margin_or_none(n: int, scale: float) -> float | None:
    """The closed-form margin of a harmonic stack that stands; None for one that falls."""
    return harmonic_margin(n, scale) if scale < 1 else None


@pytest.mark.parametrize("n", [2, 5, 10, pytest.param(20, marks=pytest.mark.slow)])
@pytest.mark.parametrize("scale", [0.98, 1.02])
def test_harmonic_stack_stands_inside_and_falls_outside_its_critical_offsets(n, scale):
    t = simulate(harmonic_stack(n, scale), 1.0, tuned_for(margin_or_none(n, scale)))
    blocks = [i for i in t.ids if i != "table-box"]
    if scale < 1:
        assert t.moved == [], {i: t.pieces[i].displacement_mm for i in t.moved}
    else:
        assert set(t.knocked_down) & set(blocks), "nothing fell"
        assert max(t.pieces[i].displacement for i in blocks) > tol.knocked_distance


@pytest.mark.parametrize("factor", [0.9, 1.1])
def test_a_block_on_a_plank_holds_below_the_friction_angle_and_slides_above(factor):
    angle = friction_angle(0.5) * factor
    margin = None if factor > 1 else 0.04  # tan(26.6°) - tan(23.9°) in g, roughly
    t = simulate(block_on_slope(angle), 1.0, tuned_for(margin))
    block = t.pieces["block"]
    if factor < 1:
        assert not block.moved, block
    else:
        assert block.displacement > 0.02 and block.knocked_down


@pytest.mark.parametrize("length", range(1, 11))
def test_talo_balance_odd_lengths_centred_stand_even_lengths_fall(length):
    t = simulate(talo_balance(length), 3.0)  # the probe turns once in 2 s: every side gets its push
    beam = t.pieces["beam"]
    if length % 2:
        assert not beam.moved, beam
    else:
        assert beam.knocked_down and beam.tilt_deg > 10, beam
        assert not t.pieces["post"].knocked_down


def test_talo_four_and_one_together_keep_their_balance():
    t = simulate(talo_counterweight(), 3.0)
    assert t.moved == []


def test_talo_four_alone_turns_over():
    counter = talo_counterweight()
    t = simulate(counter.with_pieces(p for p in counter.pieces if p.id != "weight"), 3.0)
    assert t.pieces["four"].knocked_down


@pytest.mark.parametrize("under", ["centre", "corner"])
def test_a_level_plate_stands_on_a_brick_under_its_centre_and_falls_from_one_under_its_corner(under):
    t = simulate(tohu_plate(under), 1.5)
    plate = t.pieces["plate"]
    if under == "centre":
        assert not plate.moved, plate
    else:
        assert plate.knocked_down and plate.tilt_deg > 5, plate
