"""Render-ready surfaces: normals, decal layers, stored meshes versus the catalogue (no Panda3D)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import trimesh

from sim.pieces import board, shape
from sim.pieces.mesh import visual_scene
from sim.render.looks import FINISHES, grain_seed
from sim.render.surfaces import BODY, corner_normals, from_file, piece_surfaces


def test_box_corners_keep_their_face_normals():
    box = trimesh.creation.box((0.04, 0.02, 0.02))
    normals = corner_normals(box.vertices, box.faces)
    np.testing.assert_allclose(normals, np.repeat(box.face_normals[:, None, :], 3, axis=1), atol=1e-12)


def test_round_sides_are_smoothed_but_the_rims_stay_sharp():
    cyl = trimesh.creation.cylinder(radius=0.01, height=0.04, sections=24)
    normals = corner_normals(cyl.vertices, cyl.faces)
    side = np.abs(cyl.face_normals[:, 2]) < 1e-9
    corners = cyl.vertices[cyl.faces[side]]
    radial = corners.copy()
    radial[..., 2] = 0.0
    radial /= np.linalg.norm(radial, axis=2, keepdims=True)
    np.testing.assert_allclose(normals[side], radial, atol=1e-9)  # smooth: the true cylinder normal
    caps = ~side
    np.testing.assert_allclose(normals[caps], np.repeat(cyl.face_normals[caps, None, :], 3, axis=1), atol=1e-12)


def test_level_plate_has_body_then_decals_in_print_order_facing_up():
    plate = shape("tohuwabohu.level", shape="quad")
    surfaces = piece_surfaces(plate)
    assert [s.name for s in surfaces] == [BODY] + [d.name for d in plate.decals]
    assert [s.layer for s in surfaces] == list(range(len(surfaces)))
    top = plate.bounds[1, 2]
    for s in surfaces[1:]:
        np.testing.assert_allclose(s.positions[:, 2], top, atol=1e-7)
        np.testing.assert_allclose(s.normals, np.tile([0, 0, 1], (len(s.normals), 1)))
    red = next(s for s in surfaces if s.name == "area-red")
    np.testing.assert_allclose(red.colors[0], np.round(np.array(plate.decals[0].color) * 255) / 255, atol=1e-6)


@pytest.mark.parametrize("piece", [shape("talo.pawn", color="red"), shape("babylon.tower"),
                                   board("talo-island").shape], ids=lambda s: s.name)
def test_stored_meshes_give_the_same_surfaces_as_the_catalogue(piece):
    assert from_file(piece)
    stored = piece_surfaces(piece)
    built = visual_scene(piece)
    area = sum(s.triangles for s in stored)
    assert area == sum(len(g.faces) for g in built.geometry.values())
    body = stored[0]
    tri = body.positions.reshape(-1, 3, 3).astype(float)
    surface_area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1).sum()
    assert surface_area == pytest.approx(built.geometry["body"].area, rel=1e-5)


def test_free_sizes_are_built_on_the_fly():
    odd = shape("box", size=(33.0, 21.0, 7.0))
    assert not from_file(odd)
    body = piece_surfaces(odd)[0]
    np.testing.assert_allclose(np.ptp(body.positions, axis=0), [0.033, 0.021, 0.007], atol=1e-7)


def test_looks_are_deterministic_and_tell_materials_apart():
    assert grain_seed("a") == grain_seed("a") != grain_seed("b")
    wood, plastic, card = FINISHES["wood"], FINISHES["plastic"], FINISHES["cardboard"]
    assert (wood.pattern, card.pattern, plastic.pattern) == ("grain", "mottle", "plain")
    assert wood.strength > 0 and card.strength > 0
    assert plastic.specular > wood.specular > card.specular == 0
    assert plastic.sheen > wood.sheen


def test_importing_the_render_layer_does_not_start_panda3d():
    code = ("import sys, sim, sim.cli, sim.render, sim.render.camera, sim.render.surfaces; "
            "print(sorted(m for m in sys.modules if m.startswith('panda3d')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "[]"


def test_each_surface_pattern_compiles_only_its_own_code():
    from sim.render.shaders import PATTERNS, piece_fragment

    for pattern in PATTERNS:
        for support in (False, True):
            src = piece_fragment(pattern, support)
            assert f"#define {pattern.upper()}" in src and ("#define SUPPORT" in src) == support
            assert sum(f"#define {p.upper()}" in src for p in PATTERNS) == 1
    with pytest.raises(ValueError, match="pattern"):
        piece_fragment("marble", False)


def _solid(surface) -> trimesh.Trimesh:
    mesh = trimesh.Trimesh(surface.positions, np.arange(len(surface.positions)).reshape(-1, 3), process=True)
    mesh.merge_vertices()
    return mesh


def test_a_simple_body_is_the_same_solid_with_fewer_triangles_where_it_is_flat_faced():
    from sim.render.surfaces import simple_body

    for kind in ("babylon.tower", "babylon.bridge"):
        s = shape(kind)
        body, simple = piece_surfaces(s)[0], simple_body(s)
        assert simple.triangles < 0.75 * body.triangles
        a, b = _solid(body), _solid(simple)
        assert b.is_watertight
        assert b.volume == pytest.approx(a.volume, rel=1e-6)  # the same solid, triangulated afresh
        np.testing.assert_allclose(b.bounds, a.bounds, atol=1e-7)
        assert np.allclose(simple.colors, body.colors[0])


def test_a_simple_round_body_keeps_its_outline_within_a_fraction_of_a_millimetre():
    from sim.render.surfaces import simple_body

    for kind, params in (("babylon.noble", {"size": "small", "color": "red"}), ("talo.pawn", {"color": "blue"})):
        s = shape(kind, **params)
        body, simple = piece_surfaces(s)[0], simple_body(s)
        assert simple.triangles <= 0.5 * body.triangles
        a, b = _solid(body), _solid(simple)
        assert b.is_watertight and 0.9 * a.volume < b.volume <= a.volume * (1 + 1e-9)  # inside the true solid
        assert np.abs(b.bounds - a.bounds).max() < 3e-4
        outside = np.full(len(b.vertices), np.inf)  # how far each corner lies outside the true solid (m)
        for part in s.parts:
            h = part.hull
            depth = (b.vertices @ h.face_normals.T - np.einsum("ij,ij->i", h.face_normals, h.triangles[:, 0])).max(1)
            outside = np.minimum(outside, depth)
        assert outside.max() < 1e-6  # every corner in one of its convex parts: nothing sticks out
        up = np.abs(simple.normals[:, 2]) > 0.99  # the base stays flat, its rim sharp
        assert up.any() and np.allclose(np.linalg.norm(simple.normals, axis=1), 1.0, atol=1e-6)


def test_a_box_has_no_simpler_body():
    from sim.render.surfaces import simple_body

    assert simple_body(shape("talo.block", length=3)) is None
