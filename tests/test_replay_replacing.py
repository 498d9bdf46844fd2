"""A new recording replaces an existing file only once it holds a whole second; until then the old one stays."""

from __future__ import annotations

import numpy as np

from sim.replay import Recorder, load_recording
from sim.replay.container import AppendZip
from sim.scene import from_dict

SCENE = from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": [
    {"id": "a", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10]}]}, "<replacing test>")


def an_old_recording(path) -> bytes:
    with Recorder(path, sync=False) as rec:
        rec.start(SCENE, extra={"which": "old"})
        for g in range(150):
            rec.frame(g / 60, ["a"], SCENE.poses())
    return path.read_bytes()


def recorded_for(path, seconds: float) -> Recorder:
    rec = Recorder(path, sync=False)
    rec.start(SCENE, extra={"which": "new"})
    poses = SCENE.poses()
    for g in range(int(seconds * 60) + 1):
        poses = poses.copy()
        poses[0, 0] += 1e-4
        rec.frame(g / 60, ["a"], poses)
    return rec


def test_a_run_that_ends_within_its_first_second_leaves_the_old_recording(tmp_path):
    path = tmp_path / "r.tlrec"
    old = an_old_recording(path)
    rec = recorded_for(path, 0.8)
    rec.abandon()  # a failure before the first whole second (an output that cannot be written, say)
    assert path.read_bytes() == old and sorted(p.name for p in tmp_path.iterdir()) == ["r.tlrec"]


def test_the_new_recording_takes_the_old_one_s_place_with_its_first_second(tmp_path):
    path = tmp_path / "r.tlrec"
    old = an_old_recording(path)
    rec = recorded_for(path, 0.5)
    assert path.read_bytes() == old  # half a second: nothing whole yet
    for g in range(31, 80):  # past t = 1 s the first second is handed over to be written
        rec.frame(g / 60, ["a"], SCENE.poses())
    rec.abandon()  # as a killed process, once it is written: the whole second stays, in the old one's place
    got = load_recording(path)
    assert got.header["extra"] == {"which": "new"} and not got.complete and got.end >= 59 / 60
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.tlrec"]


def test_a_recording_closed_within_its_first_second_is_placed_whole(tmp_path):
    path = tmp_path / "r.tlrec"
    an_old_recording(path)
    recorded_for(path, 0.3).close()
    got = load_recording(path)
    assert got.complete and got.header["extra"] == {"which": "new"} and len(got.times) == 19


def test_an_archive_is_written_beside_its_path_until_placed(tmp_path):
    path = tmp_path / "a.zip"
    z = AppendZip(path, sync=False)
    z.write("x", b"1")
    assert not path.exists() and len(list(tmp_path.iterdir())) == 1
    z.place()
    z.write("y", b"2")
    z.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.zip"]
    assert np.frombuffer(path.read_bytes()[:4], dtype=np.uint8).tolist() == [0x50, 0x4B, 3, 4]
