"""Bullet's hull rounding replayed, and hulls Bullet holds where the scene puts their faces (sim.physics.exact)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from sim.physics import TUNED
from sim.physics.bodies import pb, place_body
from sim.physics.exact import QUANTA, bullet_points, face_pyramids, quads, tuned_scale
from sim.physics.hulls import hull_file
from sim.physics.world import World
from sim.scene import from_dict


def _loaded(points: np.ndarray, scale=(1.0, 1.0, 1.0)) -> np.ndarray:
    """The points pybullet keeps of a hull file loaded with ``scale`` (its own frame), in the order given."""
    cid = pb.connect(pb.DIRECT)
    try:
        shape = pb.createCollisionShape(pb.GEOM_MESH, fileName=hull_file(points), meshScale=list(scale),
                                        flags=pb.URDF_INITIALIZE_SAT_FEATURES, physicsClientId=cid)
        uid = pb.createMultiBody(0.0, shape, physicsClientId=cid)
        got = np.array(pb.getMeshData(uid, -1, physicsClientId=cid)[1])
    finally:
        pb.disconnect(cid)
    want = np.asarray(points, dtype=float) * np.asarray(scale)
    return got[np.argmin(np.linalg.norm(got[None] - want[:, None], axis=2), axis=1)]


def _voussoir(inner: float, outer: float, a0: float, a1: float, depth: float) -> np.ndarray:
    pts = [[r * math.cos(a), y, r * math.sin(a)] for a in (a0, a1) for r in (inner, outer)
           for y in (-depth / 2, depth / 2)]
    pts = np.array(pts)
    return pts - (pts.min(axis=0) + pts.max(axis=0)) / 2


SHAPES = {
    "a crown voussoir": _voussoir(475.0, 525.0, math.radians(80), math.radians(100), 100.0),
    "a springing voussoir": _voussoir(470.0, 530.0, math.radians(160), math.radians(180), 80.0),
    "a 140 mm box": np.array([[x, y, z] for x in (-70.0, 70.0) for y in (-10.0, 10.0) for z in (-10.0, 10.0)]),
    "a random hull": np.random.default_rng(3).normal(size=(12, 3)) * [120.0, 80.0, 200.0],
}


@pytest.mark.parametrize("name", SHAPES)
@pytest.mark.parametrize("scale", [(1.0, 1.0, 1.0), (1 - 1.7e-5, 1 - 1.7e-5, 1.0)])
def test_the_replay_of_bullets_rounding_is_what_pybullet_keeps(name, scale):
    from scipy.spatial import ConvexHull

    points = SHAPES[name][ConvexHull(SHAPES[name]).vertices]
    got = _loaded(points, scale)
    assert np.abs(got - bullet_points(points, scale)).max() <= 1e-9 * np.ptp(points)


def test_bullet_moves_a_voussoirs_corner_by_up_to_a_ten_thousandth_of_its_extent():
    """The cause of the arches' collapse: the crown voussoir's corners move by up to 18 µm (a step of its 182 mm)."""
    points = SHAPES["a crown voussoir"]
    moved = np.abs(_loaded(points) - points).max(axis=0)
    assert 1e-3 < moved[0] <= np.ptp(points[:, 0]) / QUANTA * 1.001  # mm: over a micrometre, a step at most


def test_a_tuned_scale_holds_a_box_exactly():
    box = SHAPES["a 140 mm box"]
    assert np.abs(_loaded(box) - box).max() > 0.01  # 14 µm short at each end as it comes
    scale = tuned_scale(box)
    assert np.abs(scale - 1.0).max() < 1e-14
    assert np.abs(_loaded(box, scale) - box * scale).max() < 1e-9


def _holds_ends(points, scale, axis, passes) -> bool:
    """Whether the replay of Bullet's rounding keeps ``points``' coordinates at both ends of ``axis``."""
    want = points.astype(np.float32).astype(np.float64)[:, axis] * scale[axis]
    held = bullet_points(points, scale, passes)[:, axis]
    ends = (want == want.max()) | (want == want.min())
    return bool(np.abs(held[ends] - want[ends]).max() <= 1e-12 * np.ptp(want))


@pytest.mark.parametrize("passes", [1, 2])
def test_a_tuned_scale_is_the_nearest_nudge_that_holds_both_ends_of_every_axis(passes):
    """Every nudge of every axis is tried at once: the scale found holds the ends (as the replay rounds them), and
    no nudge nearer the wanted scale (0, +1, -1, +2 ... units in the last place) does."""
    rng = np.random.default_rng(7)
    for _ in range(60):
        points = rng.normal(size=(int(rng.integers(4, 10)), 3)) * rng.uniform(1.0, 400.0)
        wanted = rng.uniform(0.5, 1.5, 3)
        got = tuned_scale(points, wanted, passes)
        for axis in range(3):
            nearer, up, down = [], wanted[axis], wanted[axis]
            while len(nearer) < 64 and got[axis] not in (up, down):
                nearer += [up, down]
                up, down = np.nextafter(up, np.inf), np.nextafter(down, -np.inf)
            assert _holds_ends(points, got, axis, passes) or got[axis] == wanted[axis]
            for x in nearer[1:]:
                assert not _holds_ends(points, np.where(np.arange(3) == axis, x, got), axis, passes)


def test_quads_cut_a_polygon_into_pieces_of_at_most_four_corners_that_cover_it():
    for k in range(3, 11):
        pieces = quads(k)
        assert all(3 <= len(q) <= 4 for q in pieces) and {i for q in pieces for i in q} == set(range(k))
        assert len(pieces) == max(1, math.ceil((k - 2) / 2))


def test_face_pyramids_hold_every_face_in_its_plane_within_its_polygon():
    from sim.contact.faces import part_faces
    from sim.pieces import ConvexPart

    points = SHAPES["a random hull"]
    faces = part_faces(ConvexPart("hull", points / 1000))
    polygons = [p * 1000 for p in faces.polygons]
    inner = faces.vertices.mean(axis=0) * 1000
    pyramids = face_pyramids(polygons, faces.normals, inner, shrink=1.3e-5)
    assert len(pyramids) == sum(len(quads(len(p))) for p in polygons)
    from scipy.spatial.transform import Rotation

    for pyr in pyramids:
        held = bullet_points(pyr.vertices, tuned_scale(pyr.vertices))
        world = Rotation.from_quat(pyr.quat).apply(held) + pyr.position
        base = world[:-1]
        normal = Rotation.from_quat(pyr.quat).apply([0.0, 0.0, 1.0])
        k = int(np.argmax(faces.normals @ normal))
        assert faces.normals[k] @ normal > 1 - 1e-12
        assert np.abs(base @ faces.normals[k] - faces.offsets[k] * 1000).max() < 1e-9  # in its plane
        assert (points @ faces.normals.T - faces.offsets * 1000 <= 1e-9).all()
        assert (base @ faces.normals.T - faces.offsets * 1000 <= 1e-9).all()  # inside every other face's plane
        tri = pyr.faces  # its hull's triangles as built, no hull computed: closed, outward, the hull's volume
        mesh = trimesh.Trimesh(pyr.vertices, tri, process=False)
        assert mesh.is_watertight and mesh.volume > 0
        assert mesh.volume == pytest.approx(trimesh.convex.convex_hull(pyr.vertices).volume, rel=1e-9)


def _arch_pair(exact: bool):
    """Two voussoirs of a semicircular arch (R 500 mm, t 50 mm), touching exactly at their joint."""
    spec = []
    for k, (a0, a1) in enumerate(((math.radians(60), math.radians(80)), (math.radians(80), math.radians(100)))):
        pts = [[r * math.cos(a), y, r * math.sin(a)] for a in (a0, a1) for r in (475.0, 525.0) for y in (-50, 50)]
        pts = np.array(pts)
        centre = (pts.min(axis=0) + pts.max(axis=0)) / 2
        spec.append({"id": f"v{k}", "kind": "hull", "vertices": (pts - centre).tolist(), "pos": centre.tolist(),
                     "fixed": k == 0})
    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "pieces": spec}, "<pair>")
    # rounded, the joint gapes by more than the tuned breaking threshold: 20 µm keeps its contact, to measure it
    settings = TUNED.with_(exact_hulls=exact, contact_breaking_threshold=TUNED.contact_breaking_threshold if exact
                           else 2e-5)
    return World(scene, settings), scene


@pytest.mark.parametrize("exact", [False, True])
def test_two_voussoirs_touching_exactly_touch_in_bullet_only_with_exact_hulls(exact):
    world, scene = _arch_pair(exact)
    with world:
        if not exact:  # rounded, the joint gapes: pressed 30 µm and back, its contact kept within 20 µm
            p = scene.pieces[1]
            pose = np.array([*p.pos, *p.quat])
            into = np.array([math.sin(math.radians(80)), 0.0, -math.cos(math.radians(80))])  # the joint's normal
            place_body(world.client, 1000.0, world.bodies["v1"], pose + np.r_[3e-5 * into, 0, 0, 0, 0])
            pb.performCollisionDetection(physicsClientId=world.client)
            place_body(world.client, 1000.0, world.bodies["v1"], pose)
            pb.performCollisionDetection(physicsClientId=world.client)
        gaps = [c[8] * 1000 for c in pb.getContactPoints(physicsClientId=world.client)]  # µm, as the world made them
    assert len(gaps) == 4
    if exact:
        assert max(abs(g) for g in gaps) < 1e-3
    else:
        assert max(gaps) > 5.0  # the joint gapes by Bullet's rounding


@pytest.mark.parametrize("size_mm, kept_mm, lost_mm", [(10.0, 0.01, 0.05), (100.0, 0.2, 1.0), (1000.0, 4.0, 20.0)])
def test_bullets_contact_breaking_threshold_is_relative_to_the_bodys_size(size_mm, kept_mm, lost_mm):
    """Bullet keeps a contact point while the surfaces are within the threshold times the body's bounding radius
    (0.005 units: 0.043 mm on a 10 mm cube, 0.43 mm on a 100 mm one), not within the threshold itself
    (``PhysicsSettings.contact_breaking_threshold``); the cubes are turned so that their boxes overlap apart."""
    half = size_mm / 2
    corners = np.array([[x, y, z] for x in (-half, half) for y in (-half, half) for z in (-half, half)])
    turn = [math.sin(math.radians(15)), 0.0, 0.0, math.cos(math.radians(15))]
    normal = np.array([0.0, -math.sin(math.radians(30)), math.cos(math.radians(30))])
    kept = {}
    for gap in (kept_mm, lost_mm):
        client = pb.connect(pb.DIRECT)
        try:
            pb.setPhysicsEngineParameter(contactBreakingThreshold=TUNED.contact_breaking_threshold * TUNED.length_scale,
                                         enableSAT=1, physicsClientId=client)
            shape = pb.createCollisionShapeArray([pb.GEOM_MESH], fileNames=[hull_file(corners)],
                                                 collisionFramePositions=[[0, 0, 0]], meshScales=[[1, 1, 1]],
                                                 flags=[pb.URDF_INITIALIZE_SAT_FEATURES], physicsClientId=client)
            a = pb.createMultiBody(0, shape, basePosition=[0, 0, 0], baseOrientation=turn, physicsClientId=client)
            b = pb.createMultiBody(1, shape, basePosition=list(normal * (size_mm - 0.002)), baseOrientation=turn,
                                   physicsClientId=client)
            pb.performCollisionDetection(physicsClientId=client)
            assert len(pb.getContactPoints(a, b, physicsClientId=client)) == 4  # pressed in: the face's corners
            pb.resetBasePositionAndOrientation(b, list(normal * (size_mm + gap)), turn, physicsClientId=client)
            pb.performCollisionDetection(physicsClientId=client)
            kept[gap] = len(pb.getContactPoints(a, b, physicsClientId=client))
        finally:
            pb.disconnect(client)
    assert kept == {kept_mm: 4, lost_mm: 0}
