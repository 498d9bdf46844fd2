"""hull and mesh pieces: mass properties against closed forms, convex parts exactly, bad geometry named."""

from __future__ import annotations

import json

import numpy as np
import pytest
import trimesh

from sim.cli import main
from sim.errors import SceneError
from sim.pieces import custom, shape
from sim.pieces.decompose import CACHE_ENV
from sim.scene import from_dict, load_scene, loads, save_scene
from tests.helpers import one_line

RHO = 700.0  # kg/m³: the generic pieces' default density


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """Every test keeps its decompositions in a folder of its own, not the user's cache."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))


def _scene(*pieces) -> dict:
    return {"format": "towerlab-scene/1", "game": "free", "pieces": list(pieces)}


def wedge_mm(b: float, h: float, length: float) -> np.ndarray:
    """A right-angled wedge: legs b along x and h along z at the origin, extruded over y in 0..length."""
    tri = [(0.0, 0.0), (b, 0.0), (0.0, h)]
    return np.array([(x, y, z) for y in (0.0, length) for x, z in tri])


def wedge_closed_form(b: float, h: float, length: float):
    """Mass (kg), centre of mass (m, from the right-angle corner) and inertia (kg m²) of that wedge (mm in)."""
    b, h, L = b / 1000.0, h / 1000.0, length / 1000.0
    area = b * h / 2.0
    mass = RHO * area * L
    ixx_a, izz_a, ixz_a = b * h ** 3 / 36.0, b ** 3 * h / 36.0, -b * b * h * h / 72.0  # centroidal, per unit length
    inertia = RHO * np.array([[L * ixx_a + area * L ** 3 / 12.0, 0.0, L * ixz_a],
                              [0.0, L * (ixx_a + izz_a), 0.0],
                              [L * ixz_a, 0.0, L * izz_a + area * L ** 3 / 12.0]])
    inertia[0, 2] = inertia[2, 0] = -RHO * L * ixz_a  # the tensor's product term is minus the product integral
    return mass, np.array([b / 3.0, L / 2.0, h / 3.0]), inertia


def test_a_hull_tetrahedron_has_the_closed_form_mass_centre_and_inertia():
    a = 130.0  # mm: the corner tetrahedron (0, a e1, a e2, a e3)
    s = shape("hull", vertices=[[0, 0, 0], [a, 0, 0], [0, a, 0], [0, 0, a], [a / 5, a / 5, a / 5]])  # + an inner point
    m = a / 1000.0
    assert len(s.parts) == 1 and len(s.parts[0].vertices) == 4  # the hull's corners only
    assert s.mass == pytest.approx(RHO * m ** 3 / 6.0, rel=1e-12)
    assert s.com == pytest.approx(np.full(3, m / 4.0 - m / 2.0), abs=1e-15)  # the frame is the box's centre
    moment, product = RHO * m ** 5 / 80.0, RHO * m ** 5 / 480.0
    expected = np.full((3, 3), product) + np.eye(3) * (moment - product)
    assert s.inertia == pytest.approx(expected, rel=1e-9)


def test_a_hull_wedge_and_the_same_wedge_from_an_stl_file_match_the_closed_form(tmp_path):
    b, h, length = 120.0, 45.0, 70.0
    mass, com, inertia = wedge_closed_form(b, h, length)
    corners = wedge_mm(b, h, length)
    centre = (corners.min(axis=0) + corners.max(axis=0)) / 2000.0
    trimesh.convex.convex_hull(corners).export(tmp_path / "wedge.stl")  # STL repeats every corner
    for s in (shape("hull", vertices=corners.tolist()), shape("mesh", file=str(tmp_path / "wedge.stl"))):
        assert s.mass == pytest.approx(mass, rel=1e-9)
        assert s.com == pytest.approx(com - centre, abs=1e-12)
        assert s.inertia == pytest.approx(inertia, rel=1e-9, abs=1e-15)
        assert s.extent == pytest.approx([b / 1000.0, length / 1000.0, h / 1000.0])


def test_a_mesh_of_two_convex_bodies_is_exactly_those_two_parts(tmp_path):
    a = trimesh.creation.box([40.0, 30.0, 20.0])
    b = trimesh.creation.icosphere(subdivisions=1, radius=15.0).apply_translation([80.0, 0.0, 0.0])
    trimesh.util.concatenate([a, b]).export(tmp_path / "two.obj")
    s = shape("mesh", file=str(tmp_path / "two.obj"))
    assert len(s.parts) == 2 and s.approximation is None
    volumes = sorted(p.volume for p in s.parts)
    assert volumes == pytest.approx(sorted([a.volume * 1e-9, b.volume * 1e-9]), rel=1e-9)
    assert s.mass == pytest.approx(RHO * (a.volume + b.volume) * 1e-9, rel=1e-9)


def test_a_non_convex_mesh_is_cut_exactly_into_convex_parts(tmp_path):
    # an L: a 90 x 30 x 20 bar (z 0..20) with a 30 x 30 x 50 post on its left end (z 20..70), mm
    bar = trimesh.creation.box([90.0, 30.0, 20.0]).apply_translation([45.0, 15.0, 10.0])
    post = trimesh.creation.box([30.0, 30.0, 50.0]).apply_translation([15.0, 15.0, 45.0])
    trimesh.boolean.union([bar, post], engine="manifold").export(tmp_path / "l.ply")
    s = shape("mesh", file=str(tmp_path / "l.ply"), decomposition="exact")
    assert len(s.parts) == 2 and s.approximation is None
    m_bar, m_post = RHO * 90 * 30 * 20 * 1e-9, RHO * 30 * 30 * 50 * 1e-9
    assert sum(p.volume for p in s.parts) * RHO == pytest.approx(m_bar + m_post, rel=1e-6)  # the cut's offset
    assert s.mass == pytest.approx(m_bar + m_post, rel=1e-9)
    com = (m_bar * np.array([45.0, 15.0, 10.0]) + m_post * np.array([15.0, 15.0, 45.0])) / (m_bar + m_post)
    assert s.com == pytest.approx((com - np.array([45.0, 15.0, 35.0])) / 1000.0, abs=1e-12)  # from the box centre
    with pytest.raises(Exception, match="not convex, nor made of convex bodies"):
        shape("mesh", file=str(tmp_path / "l.ply"))


def test_coacd_parts_are_said_to_be_approximate(tmp_path):
    pytest.importorskip("coacd")
    ring = trimesh.creation.annulus(r_min=20.0, r_max=40.0, height=15.0)
    ring.export(tmp_path / "ring.obj")
    s = shape("mesh", file=str(tmp_path / "ring.obj"), decomposition="coacd", threshold=0.1)
    assert len(s.parts) > 1 and s.approximation.startswith("approximate: CoACD")
    assert s.mass == pytest.approx(RHO * ring.volume * 1e-9, rel=1e-9)  # the solid's, not the parts' hulls'


def test_a_mesh_scene_saved_elsewhere_names_its_file_from_there(tmp_path):
    (tmp_path / "parts").mkdir()
    trimesh.creation.box([50.0, 40.0, 30.0]).export(tmp_path / "parts" / "block.stl")
    (tmp_path / "a.json").write_text(json.dumps(_scene(
        {"id": "m", "kind": "mesh", "file": "parts/block.stl", "scale": 2, "pos": [0, 0, 30]})))
    scene = load_scene(tmp_path / "a.json")
    assert scene.pieces[0].shape.extent == pytest.approx([0.1, 0.08, 0.06])
    save_scene(scene, tmp_path / "out" / "b.json")
    saved = json.loads((tmp_path / "out" / "b.json").read_text())["pieces"][0]
    assert saved == {"id": "m", "kind": "mesh", "file": "../parts/block.stl", "scale": 2, "pos": [0, 0, 30]}
    again = load_scene(tmp_path / "out" / "b.json")
    assert again.pieces[0].shape is scene.pieces[0].shape  # the same file, scale: the same cached shape


def _error(tmp_path, piece) -> str:
    with pytest.raises(SceneError) as e:
        from_dict(_scene(piece), "x.json", base=tmp_path)
    return str(e.value)


def test_bad_hulls_are_refused_naming_the_field(tmp_path):
    flat = [[0, 0, 0], [100, 0, 0], [0, 100, 0], [100, 100, 0]]
    assert "pieces[0].vertices: the points lie in one plane" in _error(tmp_path, {
        "id": "h", "kind": "hull", "vertices": flat, "pos": [0, 0, 10]})
    thin = flat + [[50, 50, 0.5]]
    assert "pieces[0].vertices: the points lie within 0.5 mm of one plane" in _error(tmp_path, {
        "id": "h", "kind": "hull", "vertices": thin, "pos": [0, 0, 10]})
    huge = [[0, 0, 0], [20_000, 0, 0], [0, 100, 0], [0, 0, 100]]
    assert "is 20000 mm across; a piece may be at most 10000 mm" in _error(tmp_path, {
        "id": "h", "kind": "hull", "vertices": huge, "pos": [0, 0, 100]})
    assert "pieces[0].vertices: expected a list of 4 to 10000 points" in _error(tmp_path, {
        "id": "h", "kind": "hull", "vertices": flat[:3], "pos": [0, 0, 10]})
    assert "pieces[0].vertices: expected a list of 3 numbers" in _error(tmp_path, {
        "id": "h", "kind": "hull", "vertices": [[0, 0, 0], [1, 2], [0, 1, 0], [0, 0, 1]], "pos": [0, 0, 10]})


def test_bad_mesh_files_are_refused_naming_the_file_and_field(tmp_path, monkeypatch):
    def mesh(name, **extra):
        return {"id": "m", "kind": "mesh", "file": name, "pos": [0, 0, 50], **extra}

    assert "pieces[0].file:" in _error(tmp_path, mesh("nowhere.obj")) and "cannot read the file" in \
        _error(tmp_path, mesh("nowhere.obj"))
    (tmp_path / "junk.stl").write_bytes(b"\x00\x01garbage" * 10)
    assert "not a mesh trimesh can read" in _error(tmp_path, mesh("junk.stl")) or \
        "holds no triangles" in _error(tmp_path, mesh("junk.stl"))
    box = trimesh.creation.box([40.0, 40.0, 40.0])
    trimesh.Trimesh(box.vertices, box.faces[:-2]).export(tmp_path / "open.obj")  # one side missing
    assert "the mesh is not closed (4 edges border one triangle only)" in _error(tmp_path, mesh("open.obj"))
    flat = [[0, 0, 0], [50, 0, 0], [0, 50, 0], [10, 10, 0]]  # a closed tetrahedron's faces on four points in a plane
    (tmp_path / "flat.obj").write_text("".join(f"v {x} {y} {z}\n" for x, y, z in flat)
                                       + "f 1 2 3\nf 1 4 2\nf 1 3 4\nf 2 4 3\n")
    assert "pieces[0].file:" in _error(tmp_path, mesh("flat.obj")) and "encloses no volume" in \
        _error(tmp_path, mesh("flat.obj"))
    box.export(tmp_path / "box.xyz.txt", file_type="obj")
    assert "expected an OBJ, STL, PLY or glTF file" in _error(tmp_path, mesh("box.xyz.txt"))
    box.export(tmp_path / "box.obj")
    monkeypatch.setattr("sim.pieces.custom.MAX_MESH_TRIANGLES", 10)
    assert "12 triangles, more than the 10 a mesh may have" in _error(tmp_path, mesh("box.obj"))
    (tmp_path / "big.obj").write_text("#" * (3 * 2 ** 20) + "\n" + (tmp_path / "box.obj").read_text())
    monkeypatch.setattr("sim.pieces.custom.MAX_MESH_BYTES", 2 ** 21)
    assert "the file is 3 MiB; a mesh file may be at most 2 MiB" in _error(tmp_path, mesh("big.obj"))
    assert "pieces[0].decomposition: expected one of none, exact, coacd" in _error(
        tmp_path, mesh("box.obj", decomposition="magic"))


def test_validate_names_a_broken_mesh_in_one_line_and_exits_2(tmp_path, capsys):
    (tmp_path / "s.json").write_text(json.dumps(_scene({"id": "m", "kind": "mesh", "file": "gone.stl",
                                                        "pos": [0, 0, 10]})))
    assert main(["validate", str(tmp_path / "s.json")]) == 2
    line = one_line(capsys)
    assert line.startswith(f"towerlab: error: {tmp_path / 's.json'}: pieces[0].file: ") and "gone.stl" in line


def test_hull_and_mesh_pieces_stand_in_the_statics_and_draw(tmp_path):
    from sim.render import render_scene
    from sim.statics import analyze

    trimesh.creation.box([60.0, 60.0, 20.0]).export(tmp_path / "slab.obj")
    b, h = 30.0, 90.0  # a tall wedge: its centre of mass b/3 from its vertical side, h/3 up
    text = json.dumps(_scene(
        {"id": "slab", "kind": "mesh", "file": "slab.obj", "pos": [0, 0, 10]},
        {"id": "top", "kind": "hull", "vertices": wedge_mm(b, h, 40.0).tolist(), "pos": [0, 0, 20 + h / 2]}))
    scene = loads(text, "s.json", base=tmp_path)
    r = analyze(scene)
    assert r.feasible and r.margin_g == pytest.approx((b / 3.0) / (h / 3.0), rel=1e-6)  # tips over its upright side
    assert r.weakest_direction_deg == pytest.approx(180.0, abs=1e-6)
    image = render_scene(scene, size=(96, 72))
    assert image.shape == (72, 96, 4) and len(np.unique(image.reshape(-1, 4), axis=0)) > 20


def _l_mesh(path):
    bar = trimesh.creation.box([90.0, 30.0, 20.0]).apply_translation([45.0, 15.0, 10.0])
    post = trimesh.creation.box([30.0, 30.0, 50.0]).apply_translation([15.0, 15.0, 45.0])
    trimesh.boolean.union([bar, post], engine="manifold").export(path)
    return path


def test_a_decomposition_is_kept_on_disk_and_read_back_without_cutting_again(tmp_path, monkeypatch):
    path = _l_mesh(tmp_path / "l.ply")
    first = custom.mesh(path, decomposition="exact")
    kept = sorted((tmp_path / "cache").glob("*.npz"))
    assert len(kept) == 1  # one body cut: one file, plain arrays
    with np.load(kept[0], allow_pickle=False) as f:
        assert int(f["count"]) == 2

    def no_cutting(*args, **kwargs):
        raise AssertionError("cut again")

    monkeypatch.setattr(custom, "exact_parts", no_cutting)
    again = custom.mesh(path, decomposition="exact")
    assert [p.name for p in again.parts] == [p.name for p in first.parts]
    assert all(np.array_equal(a.vertices, b.vertices) for a, b in zip(again.parts, first.parts))
    assert again.mass == first.mass and np.array_equal(again.com, first.com)
    with pytest.raises(AssertionError, match="cut again"):  # another scale is another key
        custom.mesh(path, scale=2.0, decomposition="exact")


def test_a_damaged_cache_file_is_made_again_and_a_cache_that_cannot_be_written_costs_only_time(tmp_path,
                                                                                               monkeypatch):
    path = _l_mesh(tmp_path / "l.ply")
    first = custom.mesh(path, decomposition="exact")
    (kept,) = (tmp_path / "cache").glob("*.npz")
    kept.write_bytes(b"not a zip file")
    again = custom.mesh(path, decomposition="exact")
    assert all(np.array_equal(a.vertices, b.vertices) for a, b in zip(again.parts, first.parts))
    with np.load(kept, allow_pickle=False) as f:  # written again, whole
        assert int(f["count"]) == 2
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder would be")
    monkeypatch.setenv(CACHE_ENV, str(blocked / "cache"))
    assert len(custom.mesh(path, decomposition="exact").parts) == 2
    monkeypatch.setenv(CACHE_ENV, "off")
    monkeypatch.setattr(custom, "exact_parts", lambda *a, **k: (_ for _ in ()).throw(AssertionError("cut")))
    with pytest.raises(AssertionError, match="cut"):  # switched off: nothing kept is read
        custom.mesh(path, decomposition="exact")
