"""Mass properties of the catalogue against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.pieces import dimensions as dim
from sim.pieces import shape

MM = 1e-3
REL = 1e-6


def box_inertia(m, a, b, c):
    return np.diag([m * (b * b + c * c), m * (a * a + c * c), m * (a * a + b * b)]) / 12.0


@pytest.mark.parametrize("n", range(1, 11))
def test_talo_block_mass_volume_inertia(n):
    s = shape("talo.block", length=n)
    a, b, c = 20 * n * MM, 20 * MM, 20 * MM
    volume = a * b * c
    assert s.volume == pytest.approx(volume, rel=REL)
    assert s.mass == pytest.approx(volume * dim.TALO_DENSITY * 1000, rel=REL)
    assert np.allclose(s.com, 0.0, atol=1e-12)
    assert np.allclose(s.inertia, box_inertia(s.mass, a, b, c), rtol=REL, atol=1e-15)
    assert np.allclose(s.extent, [a, b, c])


@pytest.mark.parametrize("size", ["small", "large"])
def test_tohuwabohu_brick_mass(size):
    s = shape("tohuwabohu.brick", size=size, color="red")
    x, y, z = (v * MM for v in dim.TOHU_BRICK[size])
    assert s.mass == pytest.approx(x * y * z * 700.0, rel=REL)
    assert np.allclose(s.inertia, box_inertia(s.mass, x, y, z), rtol=REL, atol=1e-15)


def test_generic_box_default_density():
    s = shape("box", size=(200, 50, 20))
    assert s.mass == pytest.approx(0.2 * 0.05 * 0.02 * 700.0, rel=REL)


def test_arch_is_box_minus_half_cylinder():
    a = dim.TOHU_ARCH
    L, D, H, r = (a[k] * MM for k in ("length", "depth", "height", "opening_radius"))
    half_cyl = math.pi * r * r / 2 * D
    volume = L * D * H - half_cyl
    s = shape("tohuwabohu.arch")
    assert s.volume == pytest.approx(volume, rel=REL)
    assert s.mass == pytest.approx(volume * 700.0, rel=REL)
    # centre of mass height: the box's (H/2 above the base) minus the half-cylinder's (4r/3π)
    z_box, z_cyl = H / 2, 4 * r / (3 * math.pi)
    com_z = (L * D * H * z_box - half_cyl * z_cyl) / volume
    assert s.com[2] + H / 2 == pytest.approx(com_z, rel=1e-4)  # exact area, tessellated first moment
    assert abs(s.com[0]) < 1e-12 and abs(s.com[1]) < 1e-12


def test_triangular_level_plate():
    side, t = dim.TOHU_TRI_SIDE * MM, dim.TOHU_LEVEL_THICKNESS * MM
    area = math.sqrt(3) / 4 * side**2
    s = shape("tohuwabohu.level", shape="tri")
    assert s.volume == pytest.approx(area * t, rel=REL)
    assert s.mass == pytest.approx(area * t * dim.TOHU_CARDBOARD_DENSITY * 1000, rel=REL)
    # bounding box: the side along x, the height sqrt(3)/2 side along y
    assert np.allclose(s.extent, [side, math.sqrt(3) / 2 * side, t])
    # centroid a third of the height above the base edge, i.e. h/2 - h/3 below the box centre
    h = math.sqrt(3) / 2 * side
    assert s.com[1] == pytest.approx(-(h / 2 - h / 3), rel=1e-6)
    # equilateral triangle plate: Ixx = Iyy = m s^2 / 24 + m t^2 / 12 about the centroid
    m = s.mass
    assert s.inertia[0, 0] == pytest.approx(m * side**2 / 24 + m * t**2 / 12, rel=1e-5)
    assert s.inertia[1, 1] == pytest.approx(m * side**2 / 24 + m * t**2 / 12, rel=1e-5)
    assert s.inertia[2, 2] == pytest.approx(m * side**2 / 12, rel=1e-5)


def test_quad_level_plate():
    s = shape("tohuwabohu.level", shape="quad")
    a, t = dim.TOHU_QUAD_SIDE * MM, dim.TOHU_LEVEL_THICKNESS * MM
    assert s.mass == pytest.approx(a * a * t * 800.0, rel=REL)


def test_cylinder_exact_volume_and_inertia():
    s = shape("cylinder", radius=10.0, height=40.0)
    r, h = 0.01, 0.04
    assert s.volume == pytest.approx(math.pi * r * r * h, rel=REL)
    m = s.mass
    assert s.inertia[2, 2] == pytest.approx(m * r * r / 2, rel=2e-3)  # polygon vs circle: second moment
    assert s.inertia[0, 0] == pytest.approx(m * (3 * r * r + h * h) / 12, rel=2e-3)


def test_hollow_tower_mass_is_its_shell():
    t = dim.BABYLON_TOWER
    sx, sy, sz = t["size"]
    w = dim.BABYLON_WALL
    deck = sx * sy * w - t["slit"][0] * t["slit"][1] * w
    walls = 2 * sx * (sz - w) * w + 2 * (sy - 2 * w) * (sz - w) * w
    r = t["opening_width"] / 2
    opening = (t["opening_width"] * (t["opening_height"] - r) + math.pi * r * r / 2) * w
    volume = (deck + walls - opening) * MM**3
    s = shape("babylon.tower")
    assert s.volume == pytest.approx(volume, rel=REL)


def test_bridge_mass_is_its_shell():
    b = dim.BABYLON_BRIDGE
    sx, sy, sz = b["size"]
    w = dim.BABYLON_WALL
    deck = sx * sy * w
    ends = 2 * (sy - 2 * w) * (sz - w) * w
    sides = 2 * sx * (sz - w) * w
    r = b["opening_width"] / 2
    openings = 2 * (b["opening_width"] * (b["opening_height"] - r) + math.pi * r * r / 2) * w
    s = shape("babylon.bridge")
    assert s.volume == pytest.approx((deck + ends + sides - openings) * MM**3, rel=REL)


@pytest.mark.parametrize("size,expect", [("small", (11.0, 18.0)), ("large", (15.0, 28.0))])
def test_noble_dimensions(size, expect):
    s = shape("babylon.noble", size=size, color="red")
    assert s.extent[2] == pytest.approx(expect[1] * MM)
    assert s.extent[0] == pytest.approx(expect[0] * MM, rel=0.02)  # tessellated round base
    assert s.com[2] < 0  # bottom-heavy: it stands


def test_every_friction_and_density_comes_from_the_dimensions():
    # dimensions.py promises every friction and density lives there: pieces, boards and tables alike
    from sim.pieces import all_variants, board
    from sim.pieces.boards import BOARDS, TABLE_MATERIAL
    from sim.pieces.model import G_CM3

    frictions = {v for k, v in vars(dim).items() if k.endswith("_FRICTION")}
    densities = {v * G_CM3 for k, v in vars(dim).items() if k.endswith("_DENSITY")}
    shapes = all_variants() + [board(n).shape for n in BOARDS if board(n).shape is not None]
    materials = {s.material for s in shapes} | {TABLE_MATERIAL}  # the table also lies around every board
    for m in materials:
        assert m.friction in frictions, m
        assert m.density in densities, m
    assert board("talo-green").shape.material.friction == dim.BOARD_FRICTION
    assert board("babylon-table").shape.material.density == dim.TABLE_DENSITY * G_CM3
