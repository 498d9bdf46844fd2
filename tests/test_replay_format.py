"""Recordings as files: round trip, keyframes and deltas, crashes and cuts, damage, versions, never pickle."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sim
from sim.replay import Recorder, RecorderError, RecordingError, load_recording
from sim.replay.container import AppendZip
from sim.replay.recorder import chunk_names, json_bytes, npz_bytes
from sim.scene import from_dict

RATE = 60.0


def scene(n=3):
    return from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "players": ["ana", "ben"],
                      "pieces": [{"id": f"p{k}", "kind": "box", "size": [20, 20, 20], "pos": [40.0 * k, 0, 10]}
                                 for k in range(n)]}, "<format test>")


def synthetic(path, seconds=3.4, keyframe_seconds=1.0, close=True, seed=0):
    """A recording of made-up frames: pieces at rest, moving, one added and one removed, a reordering, actions
    and events with data; returns (recorder, the frames as given)."""
    rng = np.random.default_rng(seed)
    s = scene()
    rec = Recorder(path, keyframe_seconds=keyframe_seconds, sync=False)
    rec.start(s, {"dt": 1 / 480}, 7, "free", ["ana", "ben"], variant=None, extra={"why": "test"})
    ids = list(s.ids)
    poses = s.poses()
    frames = []
    extra = from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table",
                       "pieces": [{"id": "late", "kind": "box", "size": [10, 10, 10], "pos": [0, 90, 5]}]}).pieces[0]
    for g in range(int(seconds * RATE) + 1):
        t = g / RATE
        if g == 50:  # a piece comes, with an action that says what it is
            from sim.scene.io import piece_to_dict

            i = rec.action(t, "ben", {"kind": "add", "piece": "late", "args": {"spec": piece_to_dict(extra),
                                                                             "pose": [0, 0.09, 0.005, 0, 0, 0, 1]}})
            rec.event(t, "added", ("late",), i, {"hand": None})
            ids.append("late")
            poses = np.vstack([poses, [[0, 0.09, 0.005, 0, 0, 0, 1]]])
        if g == 100:  # one goes
            k = ids.index("p1")
            rec.action(t, "ana", {"kind": "remove", "piece": "p1"})
            ids.pop(k)
            poses = np.delete(poses, k, axis=0)
        if g == 140:  # the order changes without anything coming or going: a keyframe
            ids = ids[::-1]
            poses = poses[::-1].copy()
        if 20 <= g < 120:  # p0 moves; -0.0 once, which equals 0.0 but not bit for bit
            poses = poses.copy()
            k = ids.index("p0")
            poses[k, :3] += rng.normal(0, 1e-4, 3)
            if g == 60:
                poses[k, 3] = -0.0
        rec.frame(t, ids, poses)
        frames.append((t, list(ids), poses.copy()))
        if g == 70:
            rec.event(t, "knocked_down", ("p0",), 0, {"note": "made up"})
    if close:
        rec.close()
    return rec, frames


def same_bits(a, b) -> bool:
    return a.shape == b.shape and np.array_equal(np.asarray(a).view(np.int64), np.asarray(b).view(np.int64))


def test_a_recording_reads_back_every_frame_action_and_event_exactly(tmp_path):
    rec, frames = synthetic(tmp_path / "r.tlrec")
    r = load_recording(tmp_path / "r.tlrec")
    assert r.complete and r.notes == () and len(r.times) == len(frames)
    for g, (t, ids, poses) in enumerate(frames):
        got_ids, got = r.frame(g)
        assert r.times[g] == t and got_ids == ids and same_bits(got, poses), g
    for g in (130, 3, 199, 0, 61):  # seeking back and forth decodes the same
        assert same_bits(r.frame(g)[1], frames[g][2])
    assert [a.to_json() for a in r.actions] == [a.to_json() for a in rec.actions]
    assert [e.to_json() for e in r.events] == [e.to_json() for e in rec.events]
    assert r.header["seed"] == 7 and r.header["extra"] == {"why": "test"} and r.players == ("ana", "ben")
    assert r.scene_at(1.0).piece("late").shape.bounds[1][0] == pytest.approx(0.005)


def test_held_pieces_cost_nothing_but_the_keyframes(tmp_path):
    rec, frames = synthetic(tmp_path / "r.tlrec", keyframe_seconds=10.0)
    r = load_recording(tmp_path / "r.tlrec")
    track = r.track
    assert set(track.delta_ids[track.delta_frame >= 121].tolist()) == set()  # nothing moved after p0 stopped
    assert len(track.key_frame) == 2  # the first frame and the reordering
    moved = track.delta_frame[track.delta_ids == 0]
    assert list(moved) == list(range(20, 120))


def test_a_caller_that_reuses_its_pose_buffer_gets_every_frame_as_it_was(tmp_path):
    # frames are encoded a chunk at a time on the writing thread: what a caller hands over is copied
    s = scene()
    buffer = s.poses()
    kept = []
    with Recorder(tmp_path / "r.tlrec", sync=False) as rec:
        rec.start(s)
        for g in range(150):
            buffer[1, 0] = 0.04 + 1e-4 * (g // 3)  # changed in place, every third frame
            rec.frame(g / RATE, s.ids, buffer)
            kept.append(buffer.copy())
    r = load_recording(tmp_path / "r.tlrec")
    assert len(r.times) == 150
    for g in range(150):
        assert same_bits(r.frame(g)[1], kept[g]), g
    assert r.track.changed_frames(1).tolist() == list(range(3, 150, 3))


def test_frames_handed_over_as_the_same_array_again_cost_nothing_and_read_back_exactly(tmp_path):
    # a live world hands the same array again for a frame in which nothing moved; an equal copy is compared
    s = scene()
    poses, kept = s.poses(), []
    with Recorder(tmp_path / "r.tlrec", keyframe_seconds=1.0, sync=False) as rec:
        rec.start(s)
        for g in range(200):
            if g % 7 == 3:  # something moved: a new array
                poses = poses.copy()
                poses[g % 3, 2] += 1e-4
            elif g % 11 == 5:  # nothing moved, but a new array
                poses = poses.copy()
            rec.frame(g / RATE, s.ids, poses, owned=True)
            kept.append(poses)
    r = load_recording(tmp_path / "r.tlrec")
    for g in [*range(200), *range(199, -1, -1)]:  # on from the frame before, and back: from each keyframe
        assert same_bits(r.frame(g)[1], kept[g]), g
    assert sorted(r.track.delta_frame.tolist()) == [g for g in range(200) if g % 7 == 3]
    assert r.track.key_frame.tolist() == [0, 60, 120, 180]


def test_a_recording_whose_pieces_all_went_away_plays_to_its_end(tmp_path):
    s = scene()
    with Recorder(tmp_path / "r.tlrec", sync=False) as rec:
        rec.start(s)
        for g in range(130):
            ids, poses = (s.ids, s.poses()) if g < 50 else ((), np.zeros((0, 7)))
            rec.frame(g / RATE, ids, poses)
    r = load_recording(tmp_path / "r.tlrec")
    assert len(r.times) == 130 and r.frame(49)[0] == list(s.ids)
    ids, poses = r.frame(129)
    assert ids == [] and poses.shape == (0, 7)


def test_a_closed_recording_is_a_zip_whose_manifest_lists_every_member(tmp_path):
    synthetic(tmp_path / "r.tlrec")
    with zipfile.ZipFile(tmp_path / "r.tlrec") as z:
        assert z.testzip() is None
        names = z.namelist()
        manifest = json.loads(z.read("manifest.json"))
    assert names[0] == "header.json" and names[-1] == "manifest.json"
    assert [m["name"] for m in manifest["members"]] == names[:-1]
    assert manifest["software_version"] == sim.__version__ and manifest["frames"] == 205


def test_a_recorder_that_dies_leaves_every_second_before(tmp_path):
    rec, frames = synthetic(tmp_path / "r.tlrec", close=False)
    rec.abandon()  # what a killed process leaves: whole members, no directory
    r = load_recording(tmp_path / "r.tlrec")
    assert not r.complete and "not closed" in r.notes[0]
    assert len(r.times) == 180 and r.end == pytest.approx(179 / 60)  # three whole seconds
    for g in range(len(r.times)):
        assert same_bits(r.frame(g)[1], frames[g][2])


@pytest.fixture(scope="module")
def closed_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cut") / "r.tlrec"
    _, frames = synthetic(path, seconds=2.9)
    data = path.read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        ends = {i.filename: i.header_offset + 30 + len(i.filename) + i.file_size for i in z.infolist()}
    return data, frames, ends


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fraction=st.floats(0.0, 1.0))
def test_a_recording_cut_anywhere_is_refused_or_plays_its_whole_seconds(closed_file, tmp_path, fraction):
    data, frames, ends = closed_file
    cut = int(round(fraction * len(data)))
    path = tmp_path / "cut.tlrec"
    path.write_bytes(data[:cut])
    whole = [k for k in range(3) if ends[chunk_names(k)[1]] <= cut]  # chunks whose JSON is all there
    try:
        r = load_recording(path)
    except RecordingError as e:
        assert str(e).startswith(f"{path}: ") and "\n" not in str(e)
        assert not whole
        return
    expected = 60 * len(whole)
    assert len(r.times) == min(expected, len(frames))
    for g in range(len(r.times)):
        ids, poses = r.frame(g)
        assert ids == frames[g][1] and same_bits(poses, frames[g][2])
    assert r.complete == (cut >= ends["manifest.json"])  # every member there and checked: only the directory cut


@pytest.mark.parametrize("where", ["header.json", "chunks/000001.npz", "chunks/000000.json", "manifest.json"])
def test_a_damaged_member_is_refused_with_its_name(tmp_path, where):
    synthetic(tmp_path / "r.tlrec")
    data = bytearray((tmp_path / "r.tlrec").read_bytes())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        info = z.getinfo(where)
    data[info.header_offset + 30 + len(where) + info.file_size // 2] ^= 0x01
    (tmp_path / "bad.tlrec").write_bytes(bytes(data))
    with pytest.raises(RecordingError) as e:
        load_recording(tmp_path / "bad.tlrec")
    assert str(e.value).startswith(str(tmp_path / "bad.tlrec")) and "damaged" in str(e.value)


def rewrite(src, dst, change):
    """Copy a recording member by member through ``change(name, bytes) -> bytes`` (digests fixed up)."""
    import hashlib

    with zipfile.ZipFile(src) as z:
        members = [(n, z.read(n)) for n in z.namelist()]
    out = AppendZip(dst, sync=False)
    digests, previous = [], None
    for name, raw in members:
        raw = change(name, raw)
        if name.endswith(".json") and name.startswith("chunks/"):
            body = json.loads(raw)
            body["npz_sha256"] = digests[-1][2]
            body["previous_sha256"] = previous
            raw = json_bytes(body)
        if name == "manifest.json":
            m = json.loads(raw)
            m["members"] = [{"name": n, "size": s, "sha256": h} for n, s, h in digests]
            raw = json_bytes(m)
        out.write(name, raw)
        digests.append((name, len(raw), hashlib.sha256(raw).hexdigest()))
        if name == "header.json" or (name.startswith("chunks/") and name.endswith(".json")):
            previous = digests[-1][2]
    out.close()


def test_another_format_is_refused_and_another_software_version_plays_with_a_note(tmp_path):
    synthetic(tmp_path / "r.tlrec")

    def header(field, value):
        def change(name, raw):
            if name != "header.json":
                return raw
            h = json.loads(raw)
            h[field] = value
            return json_bytes(h)
        return change

    rewrite(tmp_path / "r.tlrec", tmp_path / "v2.tlrec", header("format", "towerlab-recording/2"))
    with pytest.raises(RecordingError, match="format 'towerlab-recording/2' is not supported"):
        load_recording(tmp_path / "v2.tlrec")
    rewrite(tmp_path / "r.tlrec", tmp_path / "old.tlrec", header("software_version", "0.0.1"))
    r = load_recording(tmp_path / "old.tlrec")
    assert r.complete and "recorded with towerlab 0.0.1" in r.notes[0] and len(r.times) == 205


def edit_arrays(member, change):
    """A ``rewrite`` change that edits one chunk's arrays: ``change(arrays) -> NPZ bytes``."""
    def edit(name, raw):
        if name != member:
            return raw
        with np.load(io.BytesIO(raw)) as z:
            return change({k: z[k] for k in z.files})
    return edit


def test_npz_members_are_ordinary_zip_archives_numpy_reads_back_exactly():
    arrays = {"times": np.arange(5) / 60.0, "deltas": np.array([[0, 3], [4, 1]], dtype=np.int64),
              "delta_poses": np.array([[-0.0, np.nan, 1e-300, 0.1, 0.0, 0.0, 1.0]] * 2), "empty": np.zeros((0, 7))}
    raw = npz_bytes(arrays)
    assert raw == npz_bytes(dict(arrays))  # the same arrays, the same bytes
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        assert z.testzip() is None and z.namelist() == [f"{k}.npy" for k in arrays]
        assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in z.infolist())
    with np.load(io.BytesIO(raw), allow_pickle=False) as z:
        for k, v in arrays.items():
            assert z[k].dtype == v.dtype and same_bits(z[k].astype(np.float64), v.astype(np.float64)), k
    with pytest.raises(ValueError):
        npz_bytes({"objects": np.array([object()], dtype=object)})


def test_arrays_are_never_unpickled(tmp_path):
    synthetic(tmp_path / "r.tlrec")

    def objects(arrays):
        arrays["times"] = np.array([object()] * len(arrays["times"]), dtype=object)
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        return buffer.getvalue()

    rewrite(tmp_path / "r.tlrec", tmp_path / "pickled.tlrec", edit_arrays("chunks/000000.npz", objects))
    with pytest.raises(RecordingError, match="chunks/000000.npz: not a readable NPZ archive"):
        load_recording(tmp_path / "pickled.tlrec")


def test_malformed_arrays_are_refused_with_what_is_wrong(tmp_path):
    synthetic(tmp_path / "r.tlrec")
    shifted = edit_arrays("chunks/000001.npz", lambda a: npz_bytes({**a, "deltas": a["deltas"] + [0, 99]}))
    rewrite(tmp_path / "r.tlrec", tmp_path / "bad.tlrec", shifted)
    with pytest.raises(RecordingError, match="deltas: a piece number outside the roster"):
        load_recording(tmp_path / "bad.tlrec")
    extra = edit_arrays("chunks/000001.npz", lambda a: npz_bytes({**a, "velocities": np.zeros(3)}))
    rewrite(tmp_path / "r.tlrec", tmp_path / "extra.tlrec", extra)
    with pytest.raises(RecordingError, match="velocities: not an array of a recording chunk"):
        load_recording(tmp_path / "extra.tlrec")


@pytest.mark.parametrize("content, message", [
    (b"", "empty file"), (b'{"format": "towerlab-scene/1"}', "not a towerlab recording"),
    (b"PK\x03\x04" + b"\0" * 10, "truncated"),
])
def test_files_that_are_no_recording_are_refused(tmp_path, content, message):
    (tmp_path / "x.tlrec").write_bytes(content)
    with pytest.raises(RecordingError, match=message):
        load_recording(tmp_path / "x.tlrec")
    with pytest.raises(RecordingError, match="cannot read"):
        load_recording(tmp_path / "missing.tlrec")


def test_a_recorder_says_what_it_was_asked_wrongly(tmp_path):
    rec = Recorder(tmp_path / "r.tlrec", sync=False)
    with pytest.raises(RecorderError, match="start"):
        rec.frame(0.0, [], np.zeros((0, 7)))
    rec.start(scene(1))
    rec.frame(0.5, ["p0"], np.zeros((1, 7)))
    assert not rec.frame(0.505, ["p0"], np.zeros((1, 7)))  # the same slot of the 60 Hz grid: skipped
    with pytest.raises(RecorderError, match="before the last frame"):
        rec.frame(0.2, ["p0"], np.zeros((1, 7)))
    with pytest.raises(RecorderError, match="appears without being known"):
        rec.frame(1.0, ["p0", "ghost"], np.zeros((2, 7)))
    with pytest.raises(RecorderError, match="expected poses of shape"):
        rec.frame(1.1, ["p0"], np.zeros((2, 7)))
    with pytest.raises(RecorderError, match="cause 5 is no recorded action"):
        rec.event(1.2, "knocked_down", ("p0",), cause=5)
    with pytest.raises(ValueError, match="event kind"):
        rec.event(1.2, "Knocked Down!")
    rec.close()
    with pytest.raises(RecorderError, match="closed"):
        rec.event(2.0, "settled")
    with pytest.raises(RecorderError, match="cannot write"):
        Recorder(tmp_path / "r.tlrec" / "inside", sync=False).start(scene(1))


def test_ten_minutes_at_rest_stay_small_and_a_pause_writes_nothing(tmp_path):
    s = scene(55)
    rec = Recorder(tmp_path / "r.tlrec", sync=False)
    rec.start(s)
    poses = s.poses()
    for g in range(600 * 60):  # ten minutes at rest, 60 Hz
        rec.frame(g / 60, s.ids, poses)
    for g in range(60):  # then a pause of a minute (the window paused the session), and one more second
        rec.frame(660 + g / 60, s.ids, poses)
    rec.close()
    size = (tmp_path / "r.tlrec").stat().st_size
    assert size < 1_500_000  # 601 chunks, 62 keyframes of 55 poses; the rest is nothing
    r = load_recording(tmp_path / "r.tlrec")
    assert len(r.times) == 36060 and json.loads(zipfile.ZipFile(tmp_path / "r.tlrec").read("manifest.json"))[
        "chunks"] == 601
    assert same_bits(r.poses_at(659.0)[1], poses) and r.frame_at(659.0) == 35999


def test_a_full_disk_is_one_clear_error_and_the_seconds_written_before_stay(tmp_path, monkeypatch):
    import errno

    from sim.replay import container

    real = container.AppendZip.write
    members = []

    def write(self, name, data):
        if len(members) == 6:  # header, scene and two chunks fit; then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        members.append(name)
        return real(self, name, data)

    monkeypatch.setattr(container.AppendZip, "write", write)
    s = scene(1)
    rec = Recorder(tmp_path / "r.tlrec", sync=False)
    rec.start(s)
    with pytest.raises(RecorderError, match=r"r.tlrec: cannot write the recording \(No space left on device\)"):
        for g in range(600):
            rec.frame(g / 60, s.ids, s.poses() + g * 1e-6)
        rec.close()  # a loaded machine's writer thread may fail only after the last frame: closing says it
    rec.close()  # said once: the recorder has stopped, the file holds what was written
    with pytest.raises(RecorderError, match="closed"):
        rec.frame(11.0, s.ids, s.poses())
    r = load_recording(tmp_path / "r.tlrec")
    assert len(r.times) == 120 and not r.complete


def test_sessions_are_recorded_in_a_folder_one_new_file_each(tmp_path, monkeypatch):
    from datetime import UTC, datetime

    from sim.replay.folder import recordings_folder, session_path

    monkeypatch.setenv("TOWERLAB_RECORDINGS", str(tmp_path / "recs"))
    assert recordings_folder() == tmp_path / "recs"
    when = datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)
    first = session_path("Talo", when=when)
    assert first == tmp_path / "recs" / "20250304-050607-talo.tlrec"
    first.parent.mkdir()
    first.write_bytes(b"")
    assert session_path("talo", when=when).name == "20250304-050607-talo-2.tlrec"
    monkeypatch.delenv("TOWERLAB_RECORDINGS")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert recordings_folder() == tmp_path / "data" / "towerlab" / "recordings"
