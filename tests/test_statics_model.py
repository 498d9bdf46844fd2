"""The equilibrium system's independent structures and their subsystems."""

from __future__ import annotations

import numpy as np

from sim.contact import find_interfaces
from sim.scene import from_dict
from sim.statics.model import equilibrium


def _box(name, x, z):
    return {"id": name, "kind": "box", "size": [20, 20, 20], "pos": [x, 0.0, z]}


def _system(pieces):
    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": pieces})
    return equilibrium(scene, find_interfaces(scene))


def test_two_stacks_are_two_structures_each_with_only_its_own_contacts():
    eq = _system([_box("a", 0, 10), _box("far", 100, 10), _box("b", 0, 30), _box("c", 0, 50)])
    groups = eq.structures()
    assert [g.tolist() for g in groups] == [[0, 2, 3], [1]]  # ordered by first body, each in body order
    stack, lone = (eq.subset(g) for g in groups)
    assert stack.bodies == ("a", "b", "c") and lone.bodies == ("far",)
    assert len(stack.points) + len(lone.points) == len(eq.points)
    assert set(lone.below.tolist()) == {-1} and set(lone.above.tolist()) == {0}


def test_one_structure_of_every_body_is_the_system_itself():
    eq = _system([_box("a", 0, 10), _box("b", 0, 30)])
    (group,) = eq.structures()
    whole = eq.subset(group)
    assert whole is eq
    assert np.array_equal(eq.subset(np.array([0, 1])).points, eq.points)


def test_a_system_without_bodies_has_no_structures():
    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": [
        {"id": "t", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10], "fixed": True}]})
    assert equilibrium(scene, find_interfaces(scene)).structures() == []
