"""The free simulation beside the statics on voussoir arches: a fast subset of the masonry suite.

The whole suite (48 arches at ±1 % and ±5 % of their critical thickness and ±2 % of their critical friction,
turned and shifted) is ``tools/bench_agreement.py --arches --simulate`` (docs/physics.md); here a few that take a
second or two each, both verdicts, both abutments, both families, and the long arch whose thrust crosses 23
pieces (it collapsed with the iterations its margin alone asks for).
"""

from __future__ import annotations

import pytest

from sim.cases.arches import suite
from sim.physics import check

FAST = (
    ("semicircular n=5 R=500 d=250 fixed a=0.5x0.3", "t/R x0.99"),
    ("semicircular n=5 R=500 d=250 fixed a=0.5x0.3", "t/R x1.01"),
    ("semicircular n=7 R=300 d=150 fixed a=0.5x0.3", "t/R x1.01"),
    ("segmental 60° n=5 R=700 d=250 blocks a=0.5x0.3", "t/R x0.95"),
    ("segmental 60° n=5 R=700 d=250 blocks a=0.5x0.3", "t/R x1.01"),
    ("segmental 60° n=7 R=400 d=180 fixed a=0.5x0.3", "t/R=0.2 mu x0.98"),
    ("segmental 60° n=7 R=400 d=180 fixed a=0.5x0.3", "t/R=0.2 mu x1.02"),
    ("segmental 55° n=21 R=500 d=250 blocks a=0.8x0.3", "t/R x1.05"),
)
CASES = {c.name: c for c in suite()}


@pytest.mark.parametrize("name", [f"{label} {what}" for label, what in FAST])
def test_the_free_simulation_agrees_with_the_statics_on_an_arch(name):
    case = CASES[name]
    r = check(case.scene)
    assert r.stable == case.stands  # the statics, held to the thrust lines (tests/test_cases_arches.py)
    assert r.dynamics.stable == r.stable and r.disagreement is None, (r.dynamics, r.disagreement)
    if case.stands:  # it stands still, not merely up: a few micrometres of settling at most
        assert r.dynamics.max_displacement_mm < 0.02
    else:  # and what falls comes down (a collapse or, on friction, a slide), not a creep
        assert r.dynamics.max_displacement_mm > 1.0
