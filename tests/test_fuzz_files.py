"""Broken recordings, action files and mesh files never break the command line: structure-aware property tests.

Each example takes a valid file and damages it the way files are damaged or
forged: recordings cut at and between member boundaries, members deleted,
duplicated, reordered or swapped with another recording's, JSON fields mutated
one by one, arrays given NaN, infinities, huge and zero values, declared sizes
forged (NPY shapes, zip sizes, a zip bomb), single bytes flipped; action files
with every action kind's fields mutated, nested, repeated past the limits;
mesh files of every format truncated, with forged counts, non-finite numbers
and references to special files. Each command runs in a fork under
``resource.setrlimit`` (:mod:`tests.jail`) and must end in exit 0 or 2, one
printable error line on 2, within its CPU and memory budget: never a
traceback, a hang, an abort or a MemoryError.

``make test`` runs a fixed set of examples (derandomized). ``TOWERLAB_FUZZ=500
.venv/bin/python -m pytest tests/test_fuzz_files.py`` draws that many fresh ones
of each kind.
"""

from __future__ import annotations

import copy
import io
import json
import os
import struct
import tempfile
from pathlib import Path

import numpy as np
import pytest
import trimesh
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.cli import main
from sim.replay import load_recording
from sim.replay.signing import TableKey
from tests import forge
from tests.helpers import SCENES
from tests.jail import Jail, MiB
from tests.test_fuzz_cli import FACTORS, STRINGS, VALUES, nodes, parent_of
from tests.test_replay_format import synthetic

EXAMPLES = int(os.environ.get("TOWERLAB_FUZZ", "0"))
SECONDS = 10.0
MEMORY = 768 * MiB


def fuzz(default: int):
    return settings(max_examples=EXAMPLES or default, derandomize=not EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def jail(tmp_path_factory):
    with Jail(tmp_path_factory.mktemp("jail")) as j:
        yield j


def judged(jail, args, *, seconds=SECONDS, memory=MEMORY):
    """Run a command in the jail: exit 0, or one clean error line; within the budget."""
    o = jail.run(args, seconds=seconds, memory=memory)
    o.clean()
    assert o.cpu < seconds, o.report()
    return o


# --- recordings ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def recordings(tmp_path_factory):
    """Four real recordings' members: a free run (simulate --record), a session (players, actions, events,
    pieces that come and go), a free run of a mesh piece (its mesh a member) and the free run signed by a table's
    key (its signature a member after the manifest)."""
    folder = tmp_path_factory.mktemp("recordings")
    assert main(["simulate", str(SCENES / "free/physics-harmonic-8-falls.json"), "-o", str(folder / "a.json"),
                 "--record", str(folder / "run.tlrec"), "--seconds", "1.1", "--json"]) == 0
    synthetic(folder / "session.tlrec", seconds=2.4)
    (folder / "cube.obj").write_bytes(MESH_SEEDS[".obj"]["cube.obj"])
    (folder / "mesh.json").write_text(json.dumps({"format": "towerlab-scene/1", "game": "free", "pieces": [
        {"id": "m", "kind": "mesh", "file": "cube.obj", "pos": [0, 0, 30], "rot": [20, 0, 0]}]}))
    assert main(["simulate", str(folder / "mesh.json"), "-o", str(folder / "b.json"), "--record",
                 str(folder / "mesh.tlrec"), "--seconds", "1.1", "--json"]) == 0
    seeds = Seeds(forge.members((folder / f).read_bytes()) for f in ("run.tlrec", "session.tlrec", "mesh.tlrec"))
    key = TableKey(folder / "table.key", bytes(range(32)))
    run = forge.members(forge.build(folder / "signed.tlrec", seeds[0]))  # the manifest as a rebuild writes it
    seeds.append([*run, ("signature.json", forge.dumps(key.sign(dict(run)[forge.MANIFEST])))])
    forge.build(folder / "signed.tlrec", seeds[-1])
    load_recording(folder / "signed.tlrec").check_key(key)  # the seed is signed, and whole
    return seeds


class Seeds(list):
    """The seed recordings' members (shown by their count, not their bytes, when an example fails)."""

    def __repr__(self) -> str:
        return f"<{len(self)} seed recordings>"


def mutate_json(draw, doc) -> None:
    """One change to a JSON document in place: a number scaled, a value replaced, a key deleted or added, an
    item duplicated, a value nested deep."""
    places = [(p, v) for p, v in nodes(doc) if p]
    if not places:
        return
    path, value = draw(st.sampled_from(places))
    parent, key = parent_of(doc, path), path[-1]
    op = draw(st.sampled_from(["tweak", "tweak", "replace", "replace", "delete", "duplicate", "nest", "string",
                               "add"]))
    if op == "tweak" and isinstance(value, int | float) and not isinstance(value, bool):
        parent[key] = value * draw(st.sampled_from(FACTORS)) + draw(st.sampled_from([0, 0, 1]))
    elif op == "delete":
        del parent[key]
    elif op == "duplicate" and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(value))
    elif op == "nest":
        for _ in range(draw(st.sampled_from([3, 60, 500]))):
            value = [value]
        parent[key] = value
    elif op == "string":
        parent[key] = draw(STRINGS)
    elif op == "add" and isinstance(value, dict):
        value[draw(STRINGS)] = draw(VALUES)
    else:
        parent[key] = draw(VALUES)


ARRAY_VALUES = [np.nan, np.inf, -np.inf, 1e300, -1e300, 0.0, -0.0, 1e-300, 2.0 ** 63, -1.0, 1e9, 65536.0]


def mutate_arrays(draw, arrays: dict) -> dict:
    """One change to a chunk's (or the scene's) arrays: a value, a dtype, a shape, an array dropped or added."""
    names = sorted(arrays)
    op = draw(st.sampled_from(["value", "value", "value", "dtype", "shape", "drop", "add", "rows"]))
    if op == "add" or not names:
        arrays[draw(st.sampled_from(["roster", "keys", "deltas", "velocities", "times"]))] = \
            np.asarray(draw(st.sampled_from([[[0, 0, 1]], [[0, 99, -1]], [1e300], [[0, 0]]])))
        return arrays
    name = draw(st.sampled_from(names))
    a = arrays[name]
    if op == "value" and a.size:
        a = a.astype(np.float64 if a.dtype.kind == "f" else a.dtype, copy=True)
        at = draw(st.integers(0, a.size - 1))
        v = draw(st.sampled_from(ARRAY_VALUES))
        if a.dtype.kind == "i":
            v = int(np.clip(v, -2 ** 62, 2 ** 62)) if np.isfinite(v) else -1
        a.flat[at] = v
    elif op == "dtype":
        a = a.astype(draw(st.sampled_from([np.float32, np.int32, np.int64, np.float64, np.uint8])))
    elif op == "shape":
        a = a.reshape(-1) if a.ndim > 1 else a.reshape(-1, 1)
    elif op == "drop":
        del arrays[name]
        return arrays
    elif op == "rows" and len(a):
        a = np.concatenate([a, a[-1:]] * draw(st.sampled_from([1, 2, 100])))
    arrays[name] = a
    return arrays


def forge_sizes(draw, raw: bytes) -> bytes:
    """An NPZ member whose declared sizes lie: an NPY shape claiming more (or other) than it holds, or a zip size
    field changed."""
    op = draw(st.sampled_from(["shape", "zip-size", "bomb"]))
    if op == "bomb":
        return forge.bomb_npz("times.npy", 1 << 30)  # a gigabyte of zeros in a megabyte
    if op == "shape":
        claim = draw(st.sampled_from([(2 ** 31,), (2 ** 40,), (0,), (3, 7), (2 ** 62, 2 ** 62), (-1,)]))
        return forge.lying_npz("times.npy", claim, data=bytes(draw(st.sampled_from([0, 8, 480]))))
    data = bytearray(raw)
    at = draw(st.sampled_from([18, 22])) if draw(st.booleans()) else len(data) - 22 + draw(st.sampled_from([10, 12]))
    value = draw(st.sampled_from([0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 12345]))
    if 0 <= at <= len(data) - 4:
        data[at:at + 4] = struct.pack("<I", value)
    return bytes(data)


@st.composite
def damaged_recording(draw, recordings):
    """(bytes of a damaged recording, whether to draw a video of it too)."""
    which = draw(st.integers(0, len(recordings) - 1))
    items = list(recordings[which])
    other = recordings[(which + draw(st.integers(1, len(recordings) - 1))) % len(recordings)]
    for _ in range(draw(st.integers(1, 2))):
        op = draw(st.sampled_from(["json"] * 4 + ["arrays"] * 4 + ["sizes"] * 2 +
                                  ["delete", "duplicate", "reorder", "swap", "mesh"]))
        meshes = [i for i, (n, _) in enumerate(items) if n.startswith("meshes/")]
        k = draw(st.sampled_from(meshes)) if op == "mesh" and meshes else draw(st.integers(0, len(items) - 1))
        name, raw = items[k]
        if op == "json" and name.endswith(".json"):
            doc = json.loads(raw)
            mutate_json(draw, doc)
            items[k] = (name, json.dumps(doc).encode())
        elif op == "arrays" and name.endswith(".npz"):
            items[k] = (name, npz(mutate_arrays(draw, forge.arrays(raw))))
        elif op == "sizes" and name.endswith(".npz"):
            items[k] = (name, forge_sizes(draw, raw))
        elif op == "delete" and len(items) > 1:
            del items[k]
        elif op == "duplicate":
            items.insert(draw(st.integers(0, len(items))), items[k])
        elif op == "reorder":
            j = draw(st.integers(0, len(items) - 1))
            items[k], items[j] = items[j], items[k]
        elif op == "mesh" and name.startswith("meshes/"):  # a mesh member damaged, renamed or given away
            items[k] = draw(st.sampled_from([(name, raw[:len(raw) // 2]), (name + ".x", raw),
                                             (name.replace("cube", "../cube"), raw), (name, b"solid x\n")]))
        elif op == "swap":
            same = [m for m in other if m[0] == name]
            if same:
                items[k] = same[0]
    fix, close = draw(st.sampled_from([(True, True)] * 6 + [(True, False), (False, True)]))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.tlrec"
        data = forge.build(path, items, close=close, fix=fix)
    ends = sorted({0, len(data)} | _member_ends(data))
    cut = draw(st.sampled_from(["none"] * 6 + ["boundary", "inside", "flip"]))
    if cut == "boundary":
        data = data[:draw(st.sampled_from(ends)) + draw(st.sampled_from([0, 0, -1, 1, 4, 30]))]
    elif cut == "inside":
        data = data[:draw(st.integers(0, len(data)))]
    elif cut == "flip":
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([data[at] ^ (1 << draw(st.integers(0, 7)))]) + data[at + 1:]
    return data, draw(st.sampled_from([False] * 9 + [True]))


def npz(arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)  # any dtype numpy writes (the reader refuses those it does not read)
    return buffer.getvalue()


def _member_ends(data: bytes) -> set[int]:
    out, pos = set(), 0
    while data[pos:pos + 4] == b"PK\x03\x04" and pos + 30 <= len(data):
        _, _, _, _, _, _, _, packed, _, name_len, extra_len = struct.unpack_from("<4sHHHHHIIIHH", data, pos)
        pos += 30 + name_len + extra_len + packed
        out.add(pos)
    return out


@fuzz(120)
@given(data=st.data())
def test_no_damaged_recording_breaks_replay_or_penalty(jail, recordings, data):
    raw, video = data.draw(damaged_recording(recordings))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.tlrec"
        path.write_bytes(raw)
        commands = [["replay", path, "--summary"], ["penalty", path, "--json"]]
        if video:
            commands.append(["replay", path, "--video", Path(tmp) / "v.gif", "--size", "32x32", "--fps", "4"])
        for args in commands:
            judged(jail, args, memory=(2048 if video else 768) * MiB)
        assert sorted(p.name for p in Path(tmp).iterdir()) in (["r.tlrec"], ["r.tlrec", "v.gif"])


# --- action files -------------------------------------------------------------------------------------------

SCENE = {"format": "towerlab-scene/1", "game": "free", "pieces": [
    {"id": "a", "kind": "box", "size": [40, 20, 20], "pos": [0, 0, 10]},
    {"id": "b", "kind": "box", "size": [20, 20, 20], "pos": [5, 0, 30]}]}

VIEWER = [{"action": "pick", "piece": "b"}, {"action": "move-to", "at": [60, 0]}, {"action": "rotate", "degrees": 45},
          {"action": "lift", "mm": 5}, {"action": "drop"}, {"action": "poke", "piece": "a", "speed": 0.2},
          {"action": "orbit", "degrees": [30, 10]}, {"action": "pan", "fraction": [0.1, 0]},
          {"action": "zoom", "factor": 0.8, "at": [10, 10]}, {"action": "camera", "preset": "top"},
          {"action": "add", "kind": "box", "params": {"size": [10, 10, 10]}, "at": [80, 80]}, {"action": "cancel"},
          {"action": "undo"}, {"action": "redo"}, {"action": "step", "frames": 3}, {"action": "wait", "seconds": 0.1},
          {"action": "toggle", "what": "contacts"}, {"action": "step-back", "seconds": 0.1},
          {"action": "screenshot", "path": "shot.png", "size": [32, 32]}, {"action": "load", "path": "scene.json"}]
TALO = [{"action": "throw"}, {"action": "take", "blocks": [1]}, {"action": "move-pawn", "cell": [2, 0], "level": 0},
        {"action": "end-turn"}, {"action": "wait", "seconds": 0.1}]
REPLAY = [{"action": "play"}, {"action": "wait", "seconds": 0.2}, {"action": "seek", "t": 0.5},
          {"action": "step", "frames": -2}, {"action": "jump", "to": "first-knockdown"},
          {"action": "compare", "mode": "before"}, {"action": "follow", "piece": "b3"},
          {"action": "speed", "factor": 0.25}, {"action": "orbit", "degrees": [10, 5]},
          {"action": "pan", "fraction": [0.1, 0.1]}, {"action": "screenshot", "path": "r.png", "size": [32, 32]}]


@st.composite
def damaged_actions(draw):
    """(which command runs it, the action file's bytes)."""
    kind = draw(st.sampled_from(["view", "view", "play", "replay"]))
    pool = {"view": VIEWER, "play": TALO + VIEWER[:5], "replay": REPLAY}[kind]
    doc = [copy.deepcopy(a) for a in draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6))]
    for _ in range(draw(st.integers(1, 3))):
        mutate_json(draw, doc)
    text = json.dumps(doc)
    damage = draw(st.sampled_from(["none"] * 8 + ["truncate", "repeat", "wrap", "bytes", "digits"]))
    if damage == "truncate":
        text = text[:draw(st.integers(0, len(text)))]
    elif damage == "repeat":  # past the most actions, or the most simulated time
        n = draw(st.sampled_from([5001, 20_000]))
        text = "[" + ",".join([json.dumps(doc[0]) if doc else "{}"] * n) + "]"
    elif damage == "wrap":
        depth = draw(st.sampled_from([70, 900, 100_000]))
        text = "[" * depth + text + "]" * depth
    elif damage == "digits":
        text = text.replace("0", "9" * 5000, 1)
    data = text.encode("utf-8", "surrogatepass")
    if damage == "bytes":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\xff\xfe" + data[at:]
    return kind, data


@fuzz(40)
@given(mutant=damaged_actions())
def test_no_damaged_action_file_breaks_a_session(jail, recordings, mutant):
    kind, data = mutant
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "scene.json").write_text(json.dumps(SCENE))
        actions = folder / "a.json"
        actions.write_bytes(data)
        if kind == "view":
            args = ["view", folder / "scene.json", "--offscreen", "--no-record", "--no-recovery", "--actions", actions]
        elif kind == "play":
            args = ["play", "talo", "--offscreen", "--no-record", "--actions", actions]
        else:
            forge.build(folder / "r.tlrec", recordings[0])
            args = ["replay", folder / "r.tlrec", "--offscreen", "--actions", actions]
        judged(jail, args, seconds=20.0, memory=2048 * MiB)


# --- mesh files ---------------------------------------------------------------------------------------------


def mesh_seeds() -> dict[str, dict[str, bytes]]:
    """A 20 mm cube in every format read: {suffix: {file name: bytes}} (a glTF with its buffers)."""
    box = trimesh.creation.box([20.0, 20.0, 20.0])
    gltf = {k: v if isinstance(v, bytes) else v.encode() for k, v in box.export(file_type="gltf").items()}
    gltf["cube.gltf"] = gltf.pop("model.gltf")
    return {".obj": {"cube.obj": box.export(file_type="obj").encode()},
            ".stl": {"cube.stl": box.export(file_type="stl")},
            ".stl-ascii": {"cube.stl": box.export(file_type="stl_ascii").encode()},
            ".ply": {"cube.ply": box.export(file_type="ply")},
            ".glb": {"cube.glb": box.export(file_type="glb")},
            ".gltf": gltf}


MESH_SEEDS = mesh_seeds()


def _forge_counts(draw, name: str, data: bytes) -> bytes:
    """A mesh file whose counts lie: STL's triangle count, PLY's element counts, OBJ's face indices, glTF's
    accessors and lengths, GLB's chunk lengths."""
    huge = draw(st.sampled_from([0, 1, 7, 2 ** 31 - 1, 2 ** 32 - 1, 10 ** 9]))
    if name.endswith(".stl") and not data.startswith(b"solid"):
        return data[:80] + struct.pack("<I", huge & 0xFFFFFFFF) + data[84:]
    if name.endswith(".ply"):
        return data.replace(b"element vertex 8", b"element vertex %d" % huge, 1)
    if name.endswith(".glb"):
        at = draw(st.sampled_from([8, 12, 20]))
        return data[:at] + struct.pack("<I", huge & 0xFFFFFFFF) + data[at + 4:]
    if name.endswith(".gltf"):
        tree = json.loads(data)
        tree["accessors"][0]["count"] = huge
        tree["buffers"][0]["byteLength"] = huge
        return json.dumps(tree).encode()
    return data + b"\nf 1 2 %d\nv nan inf 1e400\n" % huge


@st.composite
def damaged_mesh(draw):
    """(the files of a damaged mesh: name -> bytes, or a special file: "fifo", "/dev/zero"; the main file's
    name)."""
    suffix = draw(st.sampled_from(sorted(MESH_SEEDS)))
    files: dict[str, object] = dict(MESH_SEEDS[suffix])
    main_name = next(n for n in files if n.startswith("cube."))
    target = draw(st.sampled_from(sorted(files)))
    data = files[target]
    op = draw(st.sampled_from(["truncate", "flip", "counts", "counts", "special", "reference", "none"]))
    if op == "truncate":
        files[target] = data[:draw(st.integers(0, len(data)))]
    elif op == "flip":
        at = draw(st.integers(0, len(data) - 1))
        files[target] = data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:]
    elif op == "counts":
        files[target] = _forge_counts(draw, target, data)
    elif op == "special":
        files[target] = draw(st.sampled_from(["fifo", "/dev/zero", "/dev/urandom"]))
    elif op == "reference":
        where = draw(st.sampled_from(["fifo.mtl", "/dev/zero", "../../../../etc/passwd", "nowhere.bin"]))
        if main_name.endswith(".obj"):
            files[main_name] = b"mtllib " + where.encode() + b"\n" + files[main_name]
        elif main_name.endswith(".gltf"):
            tree = json.loads(files[main_name])
            tree["buffers"][0]["uri"] = where
            files[main_name] = json.dumps(tree).encode()
        files["fifo.mtl"] = "fifo"
    return files, main_name


@fuzz(60)
@given(mutant=damaged_mesh())
def test_no_damaged_mesh_file_breaks_validate(jail, mutant):
    files, main_name = mutant
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, content in files.items():
            path = folder / name
            if content == "fifo":
                os.mkfifo(path)
            elif isinstance(content, str):
                path.symlink_to(content)
            else:
                path.write_bytes(content)
        scene = folder / "scene.json"
        scene.write_text(json.dumps({"format": "towerlab-scene/1", "game": "free", "pieces": [
            {"id": "m", "kind": "mesh", "file": main_name, "pos": [0, 0, 10]}]}))
        judged(jail, ["validate", scene])


def test_the_mesh_seeds_are_valid_cubes(jail, tmp_path):
    """The fuzzed meshes start valid: every seed is a 20 mm cube that validates."""
    for suffix, files in MESH_SEEDS.items():
        folder = tmp_path / suffix.lstrip(".")
        folder.mkdir()
        for name, data in files.items():
            (folder / name).write_bytes(data)
        main_name = next(n for n in files if n.startswith("cube."))
        (folder / "s.json").write_text(json.dumps({"format": "towerlab-scene/1", "game": "free", "pieces": [
            {"id": "m", "kind": "mesh", "file": main_name, "pos": [0, 0, 10]}]}))
        o = jail.run(["validate", folder / "s.json"])
        assert o.code == 0, o.report()

