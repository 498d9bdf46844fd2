"""The statics do not hang on the last nanometre: rounding, added points and rigid motions change nothing.

Assemblies written by another tool (every corner rounded to 0.001 mm, points added on edges and faces a
nanometre off, the whole turned and shifted) once split flat faces into triangles and kept a quarter of a
joint: stable arches fell. The verdict and the margin must be the same as for the scene as drawn.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from sim.cases.arches import Arch, arch_scene, critical_friction, critical_ratio, reference_margin
from sim.cases.reference import masonry_wall, wall_margin
from sim.cases.rewrite import rewritten
from sim.contact import find_interfaces, part_faces
from sim.pieces.custom import hull
from sim.statics import analyze
from sim.statics.search import precision
from sim.tol import tol

ARCHES = [Arch(5), Arch(9, 1200.0, depth=400.0, abutments="blocks"), Arch(16, 800.0, depth=300.0),
          Arch(7, 700.0, half_angle=60.0, abutments="blocks"), Arch(21, 500.0, half_angle=55.0)]
CRITICAL = {a: critical_ratio(a) for a in ARCHES}
SLIDING = Arch(9, 500.0, ratio=0.25)
SLIDING_MU = critical_friction(SLIDING)


def same_answer(original, other, moved: float = 0.0) -> None:
    """The same verdict, and the same margin to the precision the margin search proves it to (both ways),
    plus ``moved`` (g): what moving the corners as the copy does changes the structure's true margin."""
    assert other.stable == original.stable
    assert other.feasible == original.feasible
    if original.feasible:
        assert other.margin_g == pytest.approx(original.margin_g, abs=2 * precision(original.margin_g) + moved)


def rounding_effect(arch: Arch) -> float:
    """How much the arch's true margin (g, by its thrust lines) changes when it is 2 µm thicker: rounding
    every corner to 0.001 mm moves each by up to 0.87 µm, which changes a thin arch near its critical
    thickness by as much as that (a segmental arch 8 mm thick, 1 % above critical: 1.3 % of its margin)."""
    return abs(reference_margin(replace(arch, ratio=arch.ratio + 2e-3 / arch.radius)) - reference_margin(arch))


def motions():
    """A turn about the vertical (degrees) and a shift (mm): rigid motions that keep gravity where it is."""
    return st.tuples(st.floats(-180.0, 180.0), st.tuples(*[st.floats(-2000.0, 2000.0)] * 2, st.just(0.0)))


@settings(max_examples=10, deadline=None)
@given(arch=st.sampled_from(ARCHES), factor=st.sampled_from([1.01, 1.05, 0.99]), motion=motions(),
       seed=st.integers(0, 2**16))
def test_an_arch_rounded_to_the_micrometre_turned_and_shifted_keeps_its_verdict_and_margin(arch, factor, motion, seed):
    arch = replace(arch, ratio=CRITICAL[arch] * factor)
    scene = arch_scene(arch)
    original = analyze(scene)
    turn, shift = motion
    moved = rewritten(scene, turn=Rotation.from_euler("z", turn, degrees=True), shift_mm=shift)
    same_answer(original, analyze(moved))  # a rigid motion alone: the same structure
    copy = rewritten(scene, decimals=3, turn=Rotation.from_euler("z", turn, degrees=True), shift_mm=shift)
    same_answer(original, analyze(copy), rounding_effect(arch))


@settings(max_examples=10, deadline=None)
@given(arch=st.sampled_from(ARCHES), factor=st.sampled_from([1.01, 0.99]), points=st.integers(1, 12),
       seed=st.integers(0, 2**16), rounded=st.booleans())
def test_an_arch_with_points_added_on_its_edges_and_faces_keeps_its_verdict_and_margin(arch, factor, points, seed,
                                                                                         rounded):
    arch = replace(arch, ratio=CRITICAL[arch] * factor)
    scene = arch_scene(arch)
    original = analyze(scene)
    copy = rewritten(scene, extra_points=points, lift_mm=1e-6, rng=np.random.default_rng(seed),
                     decimals=3 if rounded else None)
    found = find_interfaces(copy)
    assert len(found) == len(original.interfaces)  # one face per joint: no joint lost, none split
    np.testing.assert_allclose(sorted(f.area for f in found), sorted(f.area for f in original.interfaces),
                               rtol=1e-4)
    same_answer(original, analyze(copy, found), rounding_effect(arch) if rounded else 0.0)


@settings(max_examples=6, deadline=None)
@given(factor=st.sampled_from([0.98, 1.02]), motion=motions())
def test_an_arch_about_to_slide_keeps_its_verdict_and_margin_rounded_and_turned(factor, motion):
    arch = replace(SLIDING, friction=SLIDING_MU * factor)
    scene = arch_scene(arch)
    turn, shift = motion
    copy = rewritten(scene, decimals=3, turn=Rotation.from_euler("z", turn, degrees=True), shift_mm=shift)
    same_answer(analyze(scene), analyze(copy), rounding_effect(arch))


@settings(max_examples=6, deadline=None)
@given(courses=st.integers(3, 6), bricks=st.integers(2, 3), motion=motions(), points=st.integers(0, 6),
       seed=st.integers(0, 2**16))
def test_a_running_bond_wall_keeps_its_closed_form_margin_however_it_is_written(courses, bricks, motion, points,
                                                                              seed):
    wall = masonry_wall(courses, bricks)  # b / H at most 0.4: friction (0.55 on the table) holds
    assert analyze(wall).margin_g == pytest.approx(wall_margin(courses), rel=1e-6)
    turn, shift = motion
    copy = rewritten(wall, decimals=3, turn=Rotation.from_euler("z", turn, degrees=True), shift_mm=shift,
                     extra_points=points, lift_mm=1e-6, rng=np.random.default_rng(seed))
    assert analyze(copy).margin_g == pytest.approx(wall_margin(courses), rel=1e-3)


DATA = Path(__file__).parent / "data" / "compas"


@pytest.mark.parametrize("sample", ["bridge", "shelf", "A", "type-b"])
def test_compas_cra_samples_rounded_turned_and_shifted_keep_their_verdict(sample, tmp_path):
    from tests.test_assemblies_samples import KEPT, imported_scene

    case = next(c for c in KEPT if c["sample"] == sample)
    scene = imported_scene(case, tmp_path)
    original = analyze(scene)
    copy = rewritten(scene, decimals=3, turn=Rotation.from_euler("z", 71.0, degrees=True), shift_mm=(350.0, -90.0, 0))
    assert analyze(copy).feasible == original.feasible == case["compas_cra"]["rbe_stable"]
    same_answer(original, analyze(copy))


def test_a_face_flat_to_the_micrometre_is_one_face_and_a_fold_beyond_it_is_two():
    box = np.array([[x, y, z] for x in (0.0, 120.0) for y in (0.0, 50.0) for z in (0.0, 30.0)])
    rng = np.random.default_rng(3)
    rounded = hull(np.round(box + rng.uniform(-4e-4, 4e-4, box.shape), 3)).parts[0]  # within 0.5 µm
    assert len(part_faces(rounded).normals) == 6
    assert [len(p) for p in part_faces(rounded).polygons] == [4] * 6
    # the top's middle raised by 5 µm (more than the precision): the top folds into faces of its own
    raised = hull(np.vstack([box, [[60.0, 25.0, 30.0 + 5e-3]]])).parts[0]
    assert len(part_faces(raised).normals) > 6
    # raised by a nanometre: still one top, the raised point no corner of it
    flat = hull(np.vstack([box, [[60.0, 25.0, 30.0 + 1e-6]], [[60.0, 0.0, 30.0 + 1e-6]]])).parts[0]
    faces = part_faces(flat)
    assert len(faces.normals) == 6 and [len(p) for p in faces.polygons] == [4] * 6
    top = int(np.argmax(faces.normals[:, 2]))
    np.testing.assert_allclose(faces.normals[top], [0, 0, 1], atol=1e-7)
    assert (faces.vertices @ faces.normals[top] <= faces.offsets[top] + 1e-15).all()  # the part lies behind it
    assert tol.precision == 1e-6


def test_an_arch_turned_by_a_degree_keeps_its_margin_the_weakest_direction_a_degree_from_the_first_tried():
    # strong across its plane, weak along it: the support function rises eightfold within a degree of the
    # weakest direction. The cone programs' search passed over a minimum within 0.02 rad of a direction it
    # had evaluated, and stopped with the margin 8x too large (0.018 g) and its lower bound at 0
    arch = Arch(21, 500.0, half_angle=55.0)
    arch = replace(arch, ratio=CRITICAL[arch] * 1.01)
    scene = arch_scene(arch)
    original = analyze(scene)
    turned = analyze(rewritten(scene, turn=Rotation.from_euler("z", 1.0, degrees=True)))
    same_answer(original, turned)
    assert turned.margin_bounds[0] == pytest.approx(turned.margin_g, abs=precision(turned.margin_g))
    assert math.remainder(turned.weakest_direction_deg - original.weakest_direction_deg - 1.0, 180.0) == \
        pytest.approx(0.0, abs=0.01)
