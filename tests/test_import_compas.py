"""towerlab import compas: COMPAS assemblies as scenes, round trips, units, supports, snapping, bad files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sim.cli import main
from sim.importers.compas import CompasError, parse_assembly, read_assembly, to_scene
from sim.scene import from_dict, load_scene, save_scene
from sim.statics import analyze
from tests.helpers import one_line

DATA = Path(__file__).parent / "data" / "compas"


def block(corners, key=0, support=False):
    """A COMPAS block node of a convex polyhedron given by its corners (the faces of their hull)."""
    from scipy.spatial import ConvexHull

    hull = ConvexHull(np.asarray(corners, dtype=float))
    faces = {}
    for k, (simplex, eq) in enumerate(zip(hull.simplices, hull.equations)):
        a, b, c = np.asarray(corners, dtype=float)[simplex]
        if np.cross(b - a, c - a) @ eq[:3] < 0:  # wound outwards
            simplex = simplex[::-1]
        faces[str(k)] = [int(i) for i in simplex]
    node = {"block": {"dtype": "compas_assembly.datastructures/Block", "data": {
        "attributes": {"name": f"b{key}"}, "vertex": {str(i): dict(zip("xyz", map(float, c)))
                                                     for i, c in enumerate(corners)}, "face": faces}}}
    if support:
        node["is_support"] = True
    return node


def cube(x0, y0, z0, s=1.0):
    return [[x0 + i * s, y0 + j * s, z0 + k * s] for i in (0, 1) for j in (0, 1) for k in (0, 1)]


def assembly(*nodes, dtype="compas_cra.datastructures/CRA_Assembly"):
    return {"dtype": dtype, "data": {"attributes": {"name": "test"}, "graph": {
        "dtype": "compas.datastructures/Graph", "data": {"node": {str(k): n for k, n in enumerate(nodes)},
                                                          "edge": {}}}}}


def test_a_sample_imports_and_round_trips_through_a_scene_file(tmp_path):
    a = read_assembly(DATA / "cubes.json")
    imported = to_scene(a, supports=["0"])
    scene = from_dict(imported.scene, "cubes")
    assert [p.id for p in scene.pieces] == ["block-0", "block-1", "block-2"]
    assert [p.fixed for p in scene.pieces] == [True, False, False]
    for b, p in zip(a.blocks, scene.pieces):  # the hull's corners are the block's, in mm, where they were
        corners = np.asarray(p.params["vertices"]) + np.asarray(p.pos) * 1000.0
        assert np.sort(corners, axis=0) == pytest.approx(np.sort(b.vertices * 1000.0, axis=0), abs=1e-6)
        assert p.friction == 0.84 and p.density == pytest.approx(2400.0)
    save_scene(scene, tmp_path / "cubes.json")
    again = load_scene(tmp_path / "cubes.json")
    assert [(p.id, p.kind, p.params["vertices"], p.pos, p.fixed) for p in again.pieces] == \
        [(p.id, p.kind, p.params["vertices"], p.pos, p.fixed) for p in scene.pieces]
    assert "Units: 1 unit = 1000 mm (metres)." in again.notes
    assert again.title == "cubes"  # the file's stem: its name is only the class's ("Assembly")


def test_the_cli_writes_the_scene_and_the_meshes_of_non_convex_blocks(tmp_path, capsys):
    out = tmp_path / "out" / "joint.json"
    code = main(["import", "compas", str(DATA / "concave-short.json"), "-o", str(out), "--support", "0",
                 "--rotate", "40", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["blocks"] == 2 and report["meshes"] == 2 and report["supports"] == 1
    assert report["mesh_files"] == ["joint-meshes/block-0.obj", "joint-meshes/block-1.obj"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["joint-meshes", "joint.json"]  # no staging left
    assert main(["validate", str(out)]) == 0
    scene = load_scene(out, solid=True)
    assert all(len(p.shape.parts) > 1 for p in scene.pieces)  # cut exactly into convex parts
    assert any("Turned by 40° about (0, 1, 0)" in line for line in report["notes"])
    r = analyze(scene, margin=False)
    assert r.feasible  # compas_cra's example 11: the interlocking joint tilted by 40° holds


def test_units_lift_and_supports_are_stated(tmp_path):
    floating = assembly(block(cube(0, 0, -2.0), 0, support=True), block(cube(0.2, 0, -1.0), 1))
    imported = to_scene(parse_assembly(floating, "f.json"), scale=100.0)
    notes = "\n".join(imported.notes)
    assert "1 unit = 100 mm (given by --scale)" in notes and "Supports (fixed): block-0." in notes
    assert "Lifted by 200 mm so that only the supports can hold it." in notes
    scene = from_dict(imported.scene)
    assert min(p.pos[2] - p.shape.extent[2] / 2 for p in scene.pieces) == pytest.approx(0.0, abs=1e-9)
    unsupported = to_scene(parse_assembly(assembly(block(cube(0, 0, 3.0), 0)), "u.json"))
    assert "No supports: the assembly stands on the table." in unsupported.notes
    assert "Lowered by 3000 mm onto the table." in unsupported.notes


def test_a_free_block_level_with_the_supports_is_raised_off_the_table():
    pair = assembly(block(cube(0, 0, 0), 0, support=True), block(cube(1.0, 0, 0), 1))  # side by side at z = 0
    scene = from_dict(to_scene(parse_assembly(pair, "p.json")).scene)
    free = scene.piece("block-1")
    assert free.pos[2] - free.shape.extent[2] / 2 == pytest.approx(0.001)  # CLEARANCE: only supports hold it
    r = analyze(scene, margin=False)
    assert not r.feasible and r.unheld == ("block-1",)  # beside the support, with nothing under it: it falls


def _warped_pair(gap_mm: float):
    """A fixed cube and one on it whose bottom misses the top by up to ``gap_mm`` (a tilted bottom)."""
    top = [[x, y, 1.0 + (gap_mm / 1000.0) * x] for x in (0.0, 1.0) for y in (0.0, 1.0)] + \
        [[x, y, 2.0] for x in (0.0, 1.0) for y in (0.0, 1.0)]
    return assembly(block(cube(0, 0, 0), 0, support=True), block(top, 1))


def test_snap_joins_faces_that_do_not_quite_meet(tmp_path, capsys):
    apart = parse_assembly(_warped_pair(3.0), "w.json")
    r = analyze(from_dict(to_scene(apart).scene), margin=False)
    assert not r.feasible  # the tilted bottom touches the top along one edge at most: no face to stand on
    snapped = to_scene(apart, snap=5.0)
    scene = from_dict(snapped.scene)
    r = analyze(scene)
    assert r.feasible and r.margin_g > 0.4  # one shared plane: a cube on a cube
    assert any("joined in 1 shared planes" in line for line in snapped.notes)
    low, high = snapped.volume_change
    assert -0.002 < low <= high < 0.002  # the 3 mm tilt over 1 m moves a face by 1.5 mm on average


def test_blocks_that_overlap_are_refused_unless_snapped(tmp_path, capsys):
    path = tmp_path / "o.json"
    path.write_text(json.dumps(assembly(block(cube(0, 0, 0), 0, support=True), block(cube(0, 0, 0.998), 1))))
    assert main(["import", "compas", str(path), "-o", str(tmp_path / "o-scene.json")]) == 2
    line = one_line(capsys)
    assert line == (f"towerlab: error: {path}: blocks block-0 and block-1 overlap by 2 mm: they do not fit together; "
                    "give --snap MM (about how far their faces miss) to cut them to shared planes")
    assert not (tmp_path / "o-scene.json").exists()
    assert main(["import", "compas", str(path), "-o", str(tmp_path / "o-scene.json"), "--snap", "5"]) == 0
    assert analyze(load_scene(tmp_path / "o-scene.json", solid=True), margin=False).feasible


@pytest.mark.parametrize("data,field,reason", [
    ({"dtype": "compas.datastructures/Mesh", "data": {}}, "dtype", "expected a COMPAS assembly"),
    ({"dtype": "compas_assembly.datastructures/Assembly", "value": {}}, "value", "a COMPAS 1 file"),
    ({"dtype": "compas_assembly.datastructures/Assembly", "data": {"graph": {"dtype": "x"}}}, "data.graph.dtype",
     "expected 'compas.datastructures/Graph'"),
    (assembly(), "data.graph.data.node", "the assembly has no blocks"),
    ([1, 2], "", "expected a JSON object"),
])
def test_files_of_another_type_or_version_are_refused_naming_the_field(tmp_path, capsys, data, field, reason):
    path = tmp_path / "a.json"
    path.write_text(json.dumps(data))
    assert main(["import", "compas", str(path), "-o", str(tmp_path / "s.json")]) == 2
    line = one_line(capsys)
    assert line.startswith(f"towerlab: error: {path}: {field + ': ' if field else ''}{reason}"), line


def test_an_assembly_name_with_terminal_escapes_is_refused_naming_the_input_field(tmp_path, capsys):
    """The name becomes the scene's title: an escape in it was refused as the output's ``title`` (OUT.json: title),
    pointing at a file the user never wrote; now the input and its field."""
    data = assembly(block(cube(0, 0, 0), 0))
    data["data"]["attributes"]["name"] = "vault\x1b[2J"
    path = tmp_path / "a.json"
    path.write_text(json.dumps(data))
    assert main(["import", "compas", str(path), "-o", str(tmp_path / "s.json")]) == 2
    line = one_line(capsys)
    assert line.startswith(f"towerlab: error: {path}: data.attributes.name: expected one line of printable text"), line
    assert "\x1b" not in line and not (tmp_path / "s.json").exists()


def test_malformed_blocks_and_options_are_refused_in_one_line(tmp_path, capsys):
    bad = assembly(block(cube(0, 0, 0), 0))
    del bad["data"]["graph"]["data"]["node"]["0"]["block"]["data"]["vertex"]["3"]["z"]
    path = tmp_path / "b.json"
    path.write_text(json.dumps(bad))
    assert main(["import", "compas", str(path), "-o", str(tmp_path / "s.json")]) == 2
    assert one_line(capsys) == (f"towerlab: error: {path}: data.graph.data.node.0.block.data.vertex.3.z: "
                                "required field is missing")
    good = tmp_path / "g.json"
    good.write_text(json.dumps(assembly(block(cube(0, 0, 0), 0))))
    for args, message in [(["--support", "7"], "data.graph.data.node: no block with key \"7\" to support"),
                          (["--scale", "0"], "--scale: expected mm per unit, greater than 0, got 0"),
                          (["--about", "1,x,0", "--rotate", "5"], "--about: expected an axis X,Y,Z"),
                          (["--decomposition", "fast"], "--decomposition: expected exact or coacd")]:
        assert main(["import", "compas", str(good), "-o", str(tmp_path / "s.json"), *args]) == 2
        assert message in one_line(capsys)
    (tmp_path / "dir.json").mkdir()
    assert main(["import", "compas", str(good), "-o", str(tmp_path / "dir.json")]) == 2
    assert "-o " in one_line(capsys)
    assert main(["import", "compas", str(tmp_path / "missing.json"), "-o", str(tmp_path / "s.json")]) == 2
    assert "missing.json: cannot read the file" in one_line(capsys)


def test_a_wrongly_wound_block_is_turned_outwards():
    corners = cube(0, 0, 0)
    node = block(corners, 0)
    faces = node["block"]["data"]["face"]
    for k in faces:
        faces[k] = faces[k][::-1]
    a = parse_assembly(assembly(node), "w.json")
    scene = from_dict(to_scene(a).scene)
    assert scene.pieces[0].shape.volume == pytest.approx(1.0)


def test_compas_errors_are_scene_errors_naming_the_source():
    with pytest.raises(CompasError) as e:
        parse_assembly({"dtype": 3}, "x.json")
    assert str(e.value) == "x.json: dtype: expected a COMPAS type name, got 3"


def test_check_and_render_take_an_imported_assembly(tmp_path, capsys):
    out = tmp_path / "bridge.json"
    assert main(["import", "compas", str(DATA / "bridge.json"), "-o", str(out), "--support", "0,1",
                 "--friction", "0.9"]) == 0
    capsys.readouterr()
    assert main(["check", str(out), "--seconds", "0.5", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["stable"] is True and report["statics"]["feasible"] is True  # statics and pybullet agree
    assert main(["render", str(out), "-o", str(tmp_path / "bridge.png"), "--size", "64x48"]) == 0
    assert (tmp_path / "bridge.png").stat().st_size > 500
