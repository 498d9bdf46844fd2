"""Convex parts, visual meshes, anchors and the meshes/ directory against the catalogue."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import ConvexHull

from sim.geometry import solids
from sim.pieces import all_variants, board
from sim.pieces.boards import BOARDS
from sim.pieces.mesh import MESH_DIR, body_mesh, fingerprint, load_body, load_manifest, mesh_path
from sim.tol import tol

SHAPES = all_variants() + [board(n).shape for n in BOARDS if board(n).shape is not None]
IDS = [s.name for s in SHAPES]


@pytest.mark.parametrize("s", SHAPES, ids=IDS)
def test_every_part_is_convex_and_exactly_its_hull(s):
    for part in s.parts:
        hull = ConvexHull(part.vertices)
        # every vertex of the part is a corner of its hull: the part *is* that convex solid
        assert len(hull.vertices) == len(part.vertices), part.name
        assert hull.volume > 0
        assert part.hull.is_convex and part.hull.is_watertight


@pytest.mark.parametrize("s", SHAPES, ids=IDS)
def test_visual_mesh_is_watertight_union_of_disjoint_parts(s):
    mesh = body_mesh(s)
    assert mesh.is_watertight and mesh.is_volume
    # the parts' volumes add up to the union's: the parts do not overlap and leave no gap
    assert mesh.volume == pytest.approx(s.volume, rel=10 * tol.volume_rel)
    assert np.allclose(mesh.bounds, s.bounds, atol=1e-9)


@pytest.mark.parametrize("s", SHAPES, ids=IDS)
def test_piece_frame_is_bounding_box_centre(s):
    if s.kind != "board":
        assert np.allclose(s.bounds[0], -s.bounds[1], atol=1e-12)


@pytest.mark.parametrize("s", SHAPES, ids=IDS)
def test_box_corners_are_the_bounding_boxs_eight_corners_in_order(s):
    lo, hi = s.bounds
    expected = [[(lo, hi)[x][0], (lo, hi)[y][1], (lo, hi)[z][2]] for x in (0, 1) for y in (0, 1) for z in (0, 1)]
    assert np.array_equal(s.box_corners, expected)


def test_box_takes_every_coordinate_exactly_from_its_corners():
    lo, hi = np.array([-0.1, 0.2, 0.7]), np.array([0.3, 0.9, 1.1])
    assert not np.array_equal(lo + (hi - lo), hi)  # a formula through the size would round
    corners = solids.box(lo, hi)
    assert corners.shape == (8, 3)
    assert np.array_equal(corners[0], lo) and np.array_equal(corners[-1], hi)
    assert np.array_equal(corners[5], [hi[0], lo[1], hi[2]])


def test_meshes_directory_matches_catalogue():
    manifest = load_manifest()
    expected = {mesh_path(s).name: fingerprint(s) for s in SHAPES}
    stale = sorted(k for k in expected if manifest.get(k) != expected[k])
    extra = sorted(set(manifest) - set(expected))
    assert not stale and not extra, (
        f"meshes/ is out of date with the catalogue (stale {stale}, extra {extra}): "
        "run .venv/bin/python tools/build_meshes.py")
    on_disk = {p.name for p in MESH_DIR.glob("*.glb")}
    assert on_disk == set(expected)


@pytest.mark.parametrize("s", [s for s in SHAPES if s.kind in ("tohuwabohu.arch", "babylon.tower", "talo.block")],
                         ids=lambda s: s.name)
def test_stored_mesh_matches_parts(s):
    body = load_body(mesh_path(s))
    assert body.is_watertight
    assert body.volume == pytest.approx(s.volume, rel=10 * tol.volume_rel)


def _inside(point, polygon) -> bool:
    import shapely.geometry as sg

    return sg.Polygon(polygon).contains(sg.Point(point))


@pytest.mark.parametrize("level", ["quad", "tri"])
def test_figure_points_lie_in_their_own_coloured_area(level):
    from sim.pieces import shape

    s = shape("tohuwabohu.level", shape=level)
    areas = {d.name.removeprefix("area-"): d.polygons[0] for d in s.decals if d.name.startswith("area-")}
    points = [a for a in s.anchors if a.kind == "figure_point"]
    assert sorted(a.color for a in points) == ["blue", "green", "red"]
    for a in points:
        import shapely.geometry as sg

        circle = sg.Point(a.position[:2]).buffer(a.radius)
        assert sg.Polygon(areas[a.color]).contains(circle), a.name
        assert a.position[2] == pytest.approx(s.bounds[1][2])  # on the top face
    # the three areas tile the plate
    total = sum(abs(_area(p)) for p in areas.values())
    assert total == pytest.approx(s.volume / s.extent[2], rel=1e-9)


def _area(p):
    x, y = np.asarray(p).T
    return 0.5 * (x @ np.roll(y, -1) - y @ np.roll(x, -1))


def test_bridge_spots_are_on_its_deck_one_tower_apart():
    from sim.pieces import shape

    b = shape("babylon.bridge")
    t = shape("babylon.tower")
    spots = sorted((a for a in b.anchors if a.kind == "spot"), key=lambda a: a.position[0])
    xs = [a.position[0] for a in spots]
    assert [a.name for a in spots] == ["spot-left", "spot-center", "spot-right"]
    assert np.allclose(np.diff(xs), t.extent[0])  # towers stand side by side
    assert all(a.position[2] == pytest.approx(b.bounds[1][2]) for a in spots)
    assert xs[0] - t.extent[0] / 2 == pytest.approx(b.bounds[0][0])  # an end spot is flush with the end


def test_tower_orientations_are_distinguishable():
    """The opening is on one side only: the four quarter turns about z give four different shapes."""
    from sim.geometry.transforms import euler_to_quat, transform_points
    from sim.pieces import shape

    t = shape("babylon.tower")
    opening = np.array(t.anchor("opening").position)
    seen = set()
    for k in range(4):
        q = euler_to_quat([0, 0, 90 * k])
        p = transform_points(opening[None], [0, 0, 0], q)[0]
        seen.add((round(p[0], 6), round(p[1], 6)))
    assert len(seen) == 4


def test_island_board_fields():
    b = board("talo-island")
    assert len(b.buildable) == 40
    assert len(b.starts) == 36
    assert (4, 4) in b.buildable and (4, 4) not in b.starts
    assert (4, 0) not in b.buildable  # water between the corner islands
    assert board("talo-green").buildable is None
