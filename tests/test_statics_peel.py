"""The peel of unheld pieces: groups that touch no ground are taken out whole, without a program, exactly."""

from __future__ import annotations

import numpy as np
import pytest

from sim.cases import harmonic_stack
from sim.contact import find_interfaces
from sim.scene import from_dict
from sim.statics import analyze
from sim.statics.model import Equilibrium, equilibrium


def _free(pieces):
    return from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": list(pieces)})


def _wall(width: int, height: int, lift: float = 0.0, prefix: str = "w", x0: float = 0.0):
    """Bricks 40 × 20 × 20 mm in courses offset by half a brick, the lowest course ``lift`` mm above the table."""
    return [{"id": f"{prefix}{row}{k}", "kind": "box", "size": [40, 20, 20],
             "pos": [x0 + k * 40.0 + (20.0 if row % 2 else 0.0), 0.0, lift + 10.0 + 20.0 * row]}
            for row in range(height) for k in range(width - row % 2)]


def _leaning():
    """A beam overhanging its post too far, and a block hanging against the beam's far end only (lower than the
    beam's centre): peeled, the beam goes first and leaves the block touching nothing grounded."""
    return _free([{"id": "post", "kind": "box", "size": [20, 20, 40], "pos": [0.0, 0.0, 20.0]},
                  {"id": "beam", "kind": "box", "size": [100, 20, 10], "pos": [45.0, 0.0, 45.0]},
                  {"id": "hang", "kind": "box", "size": [10, 20, 10], "pos": [100.0, 0.0, 42.0]}])


def _without_the_shortcut(monkeypatch):
    monkeypatch.setattr(Equilibrium, "ungrounded", lambda self, removed=None: [])


def test_a_wall_in_the_air_falls_whole_without_a_program():
    scene = _free(_wall(5, 4, lift=50.0) + [{"id": "cube", "kind": "box", "size": [20, 20, 20],
                                             "pos": [400.0, 0.0, 10.0]}])
    r = analyze(scene)
    assert not r.feasible and set(r.unheld) == {p.id for p in scene.pieces} - {"cube"}
    assert r.lp_solves == 0  # the wall touches no ground; the cube stands upright (no program either)


@pytest.mark.parametrize("scene", [
    _free(_wall(5, 4, lift=50.0) + _wall(4, 3, prefix="g", x0=400.0)),
    _free(_wall(4, 3, lift=30.0) + [{"id": "b", "kind": "box", "size": [20, 20, 60], "pos": [300.0, 0, 30.0],
                                     "rot": [0, 8, 0]}]),
    _leaning(),
    harmonic_stack(4, 1.05),
])
def test_the_shortcut_finds_what_the_one_at_a_time_peel_finds(monkeypatch, scene):
    fast = analyze(scene, margin=False)
    _without_the_shortcut(monkeypatch)
    slow = analyze(scene, margin=False)
    assert fast.feasible == slow.feasible and fast.unheld == slow.unheld
    assert fast.lp_solves <= slow.lp_solves


def test_a_piece_left_touching_nothing_grounded_is_taken_out_with_no_program_of_its_own(monkeypatch):
    fast = analyze(_leaning(), margin=False)
    assert set(fast.unheld) == {"beam", "hang"}
    _without_the_shortcut(monkeypatch)
    slow = analyze(_leaning(), margin=False)
    assert fast.lp_solves < slow.lp_solves


def test_ungrounded_groups_leave_out_removed_bodies_and_their_contacts():
    scene = _free(_wall(3, 2))
    eq = equilibrium(scene, list(find_interfaces(scene)))
    assert len(eq.ungrounded()) == 0
    lowest = [k for k, i in enumerate(eq.bodies) if i.startswith("w0")]
    removed = np.array([k in lowest for k in range(len(eq.bodies))])
    assert sorted(eq.bodies[k] for k in eq.ungrounded(removed)) == ["w10", "w11"]
