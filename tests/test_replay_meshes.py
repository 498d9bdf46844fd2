"""A recording carries the mesh files its pieces need: it plays on another machine, and names no file there."""

from __future__ import annotations

import json
import shutil
import zipfile

import numpy as np
import pytest

from sim.cli import main
from sim.replay import Recorder, RecordingError, load_recording
from sim.scene import load_scene
from tests.test_hostile_files import CUBE_OBJ, cube_buffer, gltf_cube


@pytest.fixture()
def mesh_scene(tmp_path):
    folder = tmp_path / "made"
    folder.mkdir()
    (folder / "cube.obj").write_text(CUBE_OBJ)
    (folder / "parts").mkdir()
    (folder / "parts" / "cube data.bin").write_bytes(cube_buffer())
    (folder / "cube.gltf").write_text(json.dumps(gltf_cube("parts/cube%20data.bin")))
    path = folder / "scene.json"
    path.write_text(json.dumps({"format": "towerlab-scene/1", "game": "free", "pieces": [
        {"id": "a", "kind": "mesh", "file": "cube.obj", "pos": [0, 0, 10]},
        {"id": "b", "kind": "mesh", "file": "cube.gltf", "pos": [60, 0, 10]},
        {"id": "c", "kind": "mesh", "file": "cube.obj", "pos": [0, 60, 10], "scale": 0.5}]}))
    return path


def test_a_recordings_meshes_travel_inside_it(mesh_scene, tmp_path):
    record = tmp_path / "made" / "r.tlrec"
    assert main(["simulate", str(mesh_scene), "-o", str(tmp_path / "made" / "after.json"), "--record", str(record),
                 "--seconds", "0.3", "--json"]) == 0
    with zipfile.ZipFile(record) as z:
        meshes = sorted(n for n in z.namelist() if n.startswith("meshes/"))
        header = json.loads(z.read("header.json"))
    assert len(meshes) == 3  # the OBJ once (two pieces), the glTF and its buffer
    assert meshes[0].endswith("/cube.gltf") or meshes[0].endswith("/cube.obj")
    assert any(n.endswith("/parts/cube%20data.bin") for n in meshes)
    files = [p["file"] for p in header["scene"]["pieces"]]
    assert all(f.startswith("meshes/") for f in files) and files[0] == files[2]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.move(record, elsewhere / "r.tlrec")
    shutil.rmtree(tmp_path / "made")  # the reader's machine has none of the files
    r = load_recording(elsewhere / "r.tlrec")
    assert r.complete and [p.kind for p in r.scene.pieces] == ["mesh"] * 3
    a, b, c = (r.scene.piece(i).shape for i in "abc")
    assert a.mass == pytest.approx(b.mass, rel=1e-9) and c.mass == pytest.approx(a.mass / 8, rel=1e-9)
    assert np.isfinite(r.scene_at(r.end).poses()).all()
    assert main(["penalty", str(elsewhere / "r.tlrec"), "--json"]) == 0
    from sim.replay.resimulate import resimulate

    live = resimulate(r, r.end)  # a live world of the recorded meshes, from the recording's own copies
    assert sorted(live.ids) == ["a", "b", "c"]
    live.close()
    folder = r.meshes.path
    assert folder.is_dir()
    del r
    import gc

    gc.collect()
    assert not folder.exists()  # the private copy goes with the recording


def test_a_session_that_adds_a_mesh_piece_records_its_file(tmp_path):
    (tmp_path / "cube.obj").write_text(CUBE_OBJ)
    scene = tmp_path / "s.json"
    scene.write_text(json.dumps({"format": "towerlab-scene/1", "game": "free", "pieces": [
        {"id": "floor", "kind": "box", "size": [200, 200, 10], "pos": [0, 0, 5], "fixed": True}]}))
    actions = tmp_path / "a.json"
    actions.write_text(json.dumps([{"action": "add", "kind": "mesh", "params": {"file": str(tmp_path / "cube.obj")}},
                                   {"action": "drop"}, {"action": "wait", "seconds": 0.5}]))
    record = tmp_path / "r.tlrec"
    assert main(["view", str(scene), "--offscreen", "--no-recovery", "--record", str(record), "--actions",
                 str(actions)]) == 0
    (tmp_path / "cube.obj").unlink()
    with zipfile.ZipFile(record) as z:
        pieces = [p for n in z.namelist() if n.startswith("chunks/") and n.endswith(".json")
                  for p in json.loads(z.read(n))["pieces"]]
        assert any(n.startswith("meshes/") for n in z.namelist())
    assert [p["piece"]["file"][:7] for p in pieces] == ["meshes/"]  # the member, not the path it came from
    r = load_recording(record)
    assert r.roster[-1][1]["file"].startswith(str(r.meshes.path))
    piece = r.piece(len(r.roster) - 1)
    assert piece.kind == "mesh" and piece.shape.mass == pytest.approx(8e-6 * 700, rel=0.05)


def test_a_recording_naming_a_mesh_outside_it_is_refused(mesh_scene, tmp_path):
    """What an older towerlab wrote (the path on the recorder's disk) is refused: the reader's disk is not read."""
    from tests import forge

    scene = load_scene(mesh_scene)
    record = tmp_path / "r.tlrec"
    with Recorder(record, sync=False) as rec:
        rec.start(scene)
        for k in range(70):
            rec.frame(k / 60, scene.ids, scene.poses())
    assert load_recording(record).complete
    on_disk = str(mesh_scene.parent / "cube.obj")
    items = forge.edit_json(forge.members(record.read_bytes()), "header.json",
                            lambda h: h["scene"]["pieces"][0].update(file=on_disk))
    forge.build(tmp_path / "outside.tlrec", items)
    with pytest.raises(RecordingError, match=r"scene.pieces\[0\].file: a recording's meshes travel inside it"):
        load_recording(tmp_path / "outside.tlrec")


@pytest.mark.parametrize("names", [("a%2Fb.obj", "a/b.obj"), ("a", "a/b.obj"), ("../x.obj",), ("x/./y.obj",),
                                   ("%2E%2E/x.obj",)])
def test_mesh_members_that_would_collide_or_leave_the_folder_are_refused(tmp_path, names):
    from tests import forge

    scene = load_scene_free(tmp_path)
    record = tmp_path / "r.tlrec"
    with Recorder(record, sync=False) as rec:
        rec.start(scene)
        for k in range(70):
            rec.frame(k / 60, scene.ids, scene.poses())
    items = forge.members(record.read_bytes())
    digest = "0" * 64
    items[1:1] = [(f"meshes/{digest}/{n}", b"v 0 0 0\n") for n in names]
    forge.build(tmp_path / "odd.tlrec", items)
    with pytest.raises(RecordingError, match=r"meshes/0{64}/"):
        load_recording(tmp_path / "odd.tlrec")


def load_scene_free(folder):
    path = folder / "free.json"
    path.write_text(json.dumps({"format": "towerlab-scene/1", "game": "free", "pieces": [
        {"id": "a", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10]}]}))
    return load_scene(path)
