"""An audit of the command line against bad input: each case went wrong before (a traceback, a lost file, an
option silently ignored, a Ctrl-C swallowed) and now ends in one error line and exit 2 (130 for Ctrl-C).

The shared checks live elsewhere (tests/test_cli_usage.py: usage mistakes, Ctrl-C in-process, output places;
tests/test_fuzz_cli.py: broken scene files); this file holds what the audit found beyond them.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import pytest

from sim.cli import main
from tests.helpers import ROOT, SCENES
from tests.procs import cpu_seconds, wait_until

SCENE = SCENES / "talo/bridge.json"
SCRIPT = SCENES / "talo/games/first-climb.talo-game"
COMPAS = ROOT / "tests/data/compas/cubes.json"
BABYLON = SCENES / "babylon/first-turn.json"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def error_line(err: str) -> str:
    """The one error line (click's usage line aside); fails on more, fewer or a traceback."""
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("Usage: ")]
    assert len(lines) == 1 and lines[0].startswith("towerlab: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def files(tmp_path):
    """Copies of the inputs, a file of valid actions, and one of each thing that must never be lost."""
    out = {"scene": tmp_path / "scene.json", "script": tmp_path / "game.talo-game",
           "compas": tmp_path / "cubes.json", "actions": tmp_path / "actions.json"}
    out["scene"].write_bytes(SCENE.read_bytes())
    out["script"].write_bytes(SCRIPT.read_bytes())
    out["compas"].write_bytes(COMPAS.read_bytes())
    out["actions"].write_text('[{"action": "wait", "seconds": 0.05}]')
    return out


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    path = tmp_path_factory.mktemp("audit") / "check.tlrec"
    assert main(["check", str(SCENE), "--seconds", "0.3", "--record", str(path), "--json"]) == 0
    return path


# --- an output over an input: refused before anything is written -----------------------------------------

OVER_AN_INPUT = {
    "simulate-record-over-scene": (["simulate", "{scene}", "-o", "{tmp}/out.json", "--record", "{scene}"], "scene"),
    "simulate-record-over-out": (["simulate", "{scene}", "-o", "{tmp}/x", "--record", "{tmp}/x"], "scene"),
    "check-record-over-scene": (["check", "{scene}", "--seconds", "0.1", "--record", "{scene}"], "scene"),
    "import-over-its-file": (["import", "compas", "{compas}", "-o", "{compas}"], "compas"),
    "talo-play-over-its-script": (["talo", "play", "{script}", "--no-physics", "-o", "{script}"], "script"),
    "view-record-over-scene": (["view", "{scene}", "--actions", "{actions}", "--record", "{scene}", "--offscreen",
                                "--no-recovery"], "scene"),
    "view-record-over-actions": (["view", "--actions", "{actions}", "--record", "{actions}", "--offscreen",
                                  "--no-recovery"], "actions"),
    "play-record-over-actions": (["play", "talo", "--actions", "{actions}", "--record", "{actions}",
                                  "--offscreen"], "actions"),
}


@pytest.mark.parametrize("name", sorted(OVER_AN_INPUT))
def test_an_output_over_an_input_is_refused_and_the_input_kept(name, files, tmp_path, capsys):
    # before: the recording (or the imported scene, the final Talo scene) replaced the input file, exit 0
    args, kept = OVER_AN_INPUT[name]
    before = files[kept].read_bytes()
    code, _, err = run(capsys, *[a.format(tmp=tmp_path, **files) for a in args])
    assert code == 2 and "both name" in error_line(err) and "give two files" in err
    assert files[kept].read_bytes() == before
    assert not (tmp_path / "x").exists() and not (tmp_path / "out.json").exists()


def test_simulate_may_still_settle_a_scene_in_place(files, capsys):
    """-o SCENE replaces the scene by its settled self (written atomically once it is read): a choice, kept."""
    code, _, _ = run(capsys, "simulate", files["scene"], "-o", files["scene"], "--seconds", "0.05", "--json")
    assert code == 0 and json.loads(files["scene"].read_text())["format"] == "towerlab-scene/1"


# --- the viewer's autosave file --------------------------------------------------------------------------

def test_recovery_over_another_file_is_refused(files, recording, tmp_path, capsys):
    # before: the autosave silently replaced a scene or a recording named by --recovery
    for target in (files["scene"], recording):
        before = target.read_bytes()
        code, _, err = run(capsys, "view", "--actions", files["actions"], "--recovery", target, "--offscreen",
                           "--no-record")
        assert code == 2 and "not an autosave" in error_line(err) and str(target) in err
        assert target.read_bytes() == before


@pytest.mark.parametrize("how", ["under-a-file", "folder", "with-no-recovery"])
def test_recovery_that_cannot_be_used_is_one_line(how, files, tmp_path, capsys):
    # before: an unwritable --recovery was ignored (exit 0, no autosave), and --recovery with --no-recovery too
    place = {"under-a-file": files["scene"] / "r.json", "folder": tmp_path, "with-no-recovery": tmp_path / "r.json"}
    extra = ["--no-recovery"] if how == "with-no-recovery" else []
    code, _, err = run(capsys, "view", "--actions", files["actions"], "--recovery", place[how], "--offscreen",
                       "--no-record", *extra)
    assert code == 2 and error_line(err)
    assert "--recovery" in err


def test_an_autosave_is_still_accepted_as_the_recovery_file(files, tmp_path, capsys):
    target = tmp_path / "r.json"
    for _ in range(2):  # the second run finds the first one's autosave there
        code, _, err = run(capsys, "view", "--actions", files["actions"], "--recovery", target, "--offscreen",
                           "--no-record")
        assert code == 0, err
    assert json.loads(target.read_text())["format"] == "towerlab-recovery/1"


# --- numbers --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [["view", "--game", "tohuwabohu", "--seed", "-1", "--offscreen", "--no-record",
                                   "--no-recovery"],
                                  ["play", "talo", "--seed", "-1", "--offscreen", "--no-record"]],
                         ids=["view", "play"])
def test_a_negative_seed_is_a_usage_error(args, capsys):
    # before: numpy's "expected non-negative integer" as a traceback, exit 1
    code, _, err = run(capsys, *args)
    assert code == 2 and "Invalid value for '--seed'" in error_line(err)


def test_a_camera_point_far_out_is_one_line(tmp_path, capsys, monkeypatch):
    # before: Panda3D's assertion "S > 0.0f" as a traceback, exit 1
    from tests.helpers import forbid_drawing

    forbid_drawing(monkeypatch)
    code, _, err = run(capsys, "render", SCENE, "-o", tmp_path / "x.png", "--eye", "1e300", "0", "0", "--look-at",
                       "0", "0", "0")
    assert code == 2 and "--eye: expected three numbers within 100000 mm" in error_line(err)
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("args, expected", [
    (["--scale", "1e300"], "a corner lies 9e+299 mm from the origin"),
    (["--about", "0,0,0"], "--about: expected an axis"),  # before: ignored without --rotate
])
def test_import_options_out_of_bounds_are_one_line_without_warnings(args, expected, files, tmp_path, capsys):
    # before: --scale 1e300 poured numpy's and trimesh's overflow warnings (29 lines) before the error
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, _, err = run(capsys, "import", "compas", files["compas"], "-o", tmp_path / "s.json", *args)
    assert code == 2 and expected in error_line(err)
    assert [str(w.message) for w in caught] == []
    assert not (tmp_path / "s.json").exists()


def test_an_axis_of_huge_numbers_still_turns(files, tmp_path, capsys):
    """The norm of (1e308, 1e308, 0) overflows; the turn about it is the turn about (1, 1, 0)."""
    outs = []
    for axis in ("1e308,1e308,0", "1,1,0"):
        out = tmp_path / f"{len(outs)}.json"
        assert run(capsys, "import", "compas", files["compas"], "-o", out, "--rotate", "30", "--about", axis)[0] == 0
        outs.append([p["vertices"] for p in json.loads(out.read_text())["pieces"]])
    assert outs[0] == outs[1]


def test_a_scheduler_address_that_is_none_makes_no_client(monkeypatch, capsys):
    # before: the half-made Client's finaliser waited 8 s at exit and printed a TimeoutError traceback
    distributed = pytest.importorskip("distributed")

    class NoClient(distributed.Client):
        def __init__(self, *_a, **_k):
            raise AssertionError("a Client was made for an address that is none")

    monkeypatch.setattr(distributed, "Client", NoClient)
    code, _, err = run(capsys, "experiment", SCENES / "free/cube-tower.json", "-n", "2", "-p", "noise:sigma_mm=1",
                       "--scheduler", "bogus")
    assert code == 2 and "--scheduler bogus: not a scheduler address" in error_line(err)


# --- action files ---------------------------------------------------------------------------------------

BROKEN_ACTIONS = {
    "nested": ("[" + "[" * 100_000 + "]" * 100_000 + "]", "nested too deeply"),
    "digits": ('[{"action": "wait", "seconds": ' + "9" * 5000 + "}]", "a number with too many digits"),
    "not-utf8": (b'[{"action": "wait", "seconds": 1, "x": "\xff"}]', "not a text file (expected UTF-8 JSON)"),
}


@pytest.mark.parametrize("command", ["view", "replay"])
@pytest.mark.parametrize("name", sorted(BROKEN_ACTIONS))
def test_a_broken_action_file_is_one_line(name, command, recording, tmp_path, capsys):
    # before: RecursionError and ValueError tracebacks (exit 1); "UnicodeDecodeError: 'utf-8' codec ..."
    text, expected = BROKEN_ACTIONS[name]
    path = tmp_path / "a.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    head = ["view", "--no-record", "--no-recovery"] if command == "view" else ["replay", recording]
    code, _, err = run(capsys, *head, "--actions", path, "--offscreen")
    line = error_line(err)
    assert code == 2 and expected in line and str(path) in line


# --- recordings whose header is wrong --------------------------------------------------------------------

def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _resealed(source: Path, target: Path, header: bytes) -> Path:
    """``source`` with another header, its chain of digests and its manifest made to match again."""
    with zipfile.ZipFile(source) as z:
        names = z.namelist()
        data = {n: z.read(n) for n in names}
    data["header.json"] = header
    previous, k = _sha(header), 0
    while f"chunks/{k:06d}.json" in data:
        body = json.loads(data[f"chunks/{k:06d}.json"])
        body["previous_sha256"] = previous
        data[f"chunks/{k:06d}.json"] = raw = json.dumps(body).encode()
        previous, k = _sha(raw), k + 1
    manifest = json.loads(data["manifest.json"])
    manifest["members"] = [{"name": n, "size": len(data[n]), "sha256": _sha(data[n])}
                           for n in names if n != "manifest.json"]
    data["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as z:
        for n in names:
            z.writestr(n, data[n])
    return target


HEADERS = {  # before: a traceback for each (a TypeError; a RecursionError for the nested one)
    "nested": (None, "header.json: not valid here: lists or objects nested too deeply"),
    "game-a-number": (("game", 5), "header.json: game: expected one of"),
    "players-a-number": (("players", 5), "header.json: players: expected a list of player names"),
    "players-not-names": (("players", [1, None]), "header.json: players: expected a list of player names"),
    "variant-a-list": (("variant", [1]), "header.json: variant: expected a variant's name"),
    "settings-a-string": (("settings", "x"), "header.json: settings: expected an object"),
}


@pytest.mark.parametrize("command", ["replay", "penalty"])
@pytest.mark.parametrize("name", sorted(HEADERS))
def test_a_recording_whose_header_is_wrong_is_one_line(name, command, recording, tmp_path, capsys):
    change, expected = HEADERS[name]
    if change is None:
        header = b"[" * 100_000 + b"]" * 100_000
    else:
        with zipfile.ZipFile(recording) as z:
            data = json.loads(z.read("header.json"))
        data[change[0]] = change[1]
        header = json.dumps(data).encode()
    bad = _resealed(recording, tmp_path / "bad.tlrec", header)
    code, _, err = run(capsys, command, bad, *(["--summary"] if command == "replay" else []))
    assert code == 2 and expected in error_line(err) and str(bad) in err


def test_a_recorded_variant_the_game_lacks_is_named_as_the_recording_s(recording, tmp_path, capsys):
    # before: "--variant: talo has talo, fantasy, got 'bogus'" although no --variant was given
    with zipfile.ZipFile(recording) as z:
        data = json.loads(z.read("header.json"))
    bad = _resealed(recording, tmp_path / "bad.tlrec", json.dumps({**data, "variant": "bogus"}).encode())
    code, _, err = run(capsys, "penalty", bad)
    assert code == 2 and "header.json: variant: talo has talo, fantasy, got 'bogus'" in error_line(err)
    code, _, err = run(capsys, "penalty", recording, "--variant", "bogus")
    assert code == 2 and "--variant: talo has" in error_line(err)


def test_the_resealed_recording_reads_when_its_header_is_right(recording, tmp_path, capsys):
    """The test's resealing is sound: the same header, resealed, reads as the original."""
    with zipfile.ZipFile(recording) as z:
        header = z.read("header.json")
    same = _resealed(recording, tmp_path / "same.tlrec", header)
    assert run(capsys, "replay", same, "--summary")[0] == 0


# --- options of one mode given to another ----------------------------------------------------------------

MIXED = {  # before: each ran (exit 0) and ignored the option
    "summary-and-video": (["--summary", "--video", "{tmp}/v.gif"], "--summary and --video: give one"),
    "summary-and-actions": (["--summary", "--actions", "{actions}"], "--actions: for the replay window, not with "
                                                                      "--summary"),
    "json-and-at": (["--json", "--at", "0.1"], "--at: for the replay window, not with --json"),
    "video-and-screenshot": (["--video", "{tmp}/v.gif", "--screenshot", "{tmp}/s.png"],
                             "--screenshot: for the replay window, not with --video"),
    "from-without-video": (["--summary", "--from", "0.1"], "--from: only with --video"),
    "fps-in-the-window": (["--actions", "{actions}", "--offscreen", "--fps", "3"], "--fps: only with --video"),
}


@pytest.mark.parametrize("name", sorted(MIXED))
def test_replay_options_of_another_mode_are_refused(name, files, recording, tmp_path, capsys):
    args, expected = MIXED[name]
    code, out, err = run(capsys, "replay", recording, *[a.format(tmp=tmp_path, **files) for a in args])
    assert code == 2 and expected in error_line(err) and not out
    assert not (tmp_path / "v.gif").exists() and not (tmp_path / "s.png").exists()


def test_babylon_expert_outside_the_fast_game_is_refused(capsys):
    # before: ignored (the tactical score has no expert doubling), exit 0
    code, _, err = run(capsys, "babylon", "score", BABYLON, "--expert", "--no-physics")
    assert code == 2 and "--expert: the expert variant's doubling counts only in the fast game" in error_line(err)
    assert run(capsys, "babylon", "score", BABYLON, "--expert", "--mode", "fast", "--no-physics")[0] == 0


# --- Ctrl-C ----------------------------------------------------------------------------------------------

def _env() -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("DISPLAY", None)
    return env


HOLD_PROBE = """
import importlib.abc, os, signal, sys
from sim.cli import _HoldDuringImport

class Interrupt(importlib.abc.MetaPathFinder):  # Ctrl-C as trimesh imports an optional part in its try-block
    def find_spec(self, name, path=None, target=None):
        if name == "scipy.optimize":
            os.kill(os.getpid(), signal.SIGINT)

sys.meta_path[:0] = [Interrupt()] + ([_HoldDuringImport()] if sys.argv[1] == "held" else [])
try:
    import trimesh
except KeyboardInterrupt:
    print("interrupted", type(sys.modules["trimesh.nsphere"].leastsq).__name__)
else:
    print("swallowed", type(trimesh.nsphere.leastsq).__name__)
"""


def test_ctrl_c_while_trimesh_imports_is_not_swallowed():
    # before: trimesh imports its optional parts in "except BaseException" blocks: a Ctrl-C there was
    # swallowed (check, simulate ... ran to the end, exit 0) and left the part a stand-in that raises
    outcomes = {}
    for mode in ("bare", "held"):
        p = subprocess.run([sys.executable, "-c", HOLD_PROBE, mode], env=_env(), capture_output=True, text=True,
                           timeout=120)
        outcomes[mode] = p.stdout.strip()
    assert outcomes["bare"] == "swallowed ExceptionWrapper"  # what trimesh does on its own
    assert outcomes["held"] == "interrupted function"  # held until its import ended (whole), then raised


def test_ctrl_c_during_a_long_experiment_keeps_the_earlier_output(tmp_path):
    """A real SIGINT to a real process: one line, exit 130 (or death by SIGINT, which a shell shows as 130),
    the earlier output file untouched, no temporary file left."""
    out = tmp_path / "trials.csv"
    out.write_text("precious")
    p = subprocess.Popen([sys.executable, "-m", "sim", "experiment", str(SCENES / "free/cube-tower.json"), "-n",
                          "1000000", "-p", "noise:sigma_mm=1", "-j", "1", "--seed", "1", "-o", str(out)],
                         cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: p.poll() is not None or cpu_seconds(p.pid) >= 3.0, 120, "the experiment under way")
    assert p.poll() is None, p.communicate()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode in (130, -signal.SIGINT), err
    assert err.strip() == "towerlab: interrupted"
    assert out.read_text() == "precious" and sorted(tmp_path.iterdir()) == [out]


@pytest.mark.parametrize("args, words", [
    (["talo", "moves", SCENE, "--pawn", "bogus"], ["--pawn bogus:", "its pawns: red, blue"]),
    (["talo", "auto", "--players", "red,bogus"], ["--players: no Talo pawn is bogus"]),
    (["talo", "auto", "--players", "red,blue", "--board", "bogus"], ["--board: expected talo-green or talo-island"]),
    (["view", SCENE, "--seed", "3"], ["--seed: sets up a game's supply"]),
    (["view", SCENE, "--players", "red"], ["--players: sets up a game's supply"]),
    (["view", "--offscreen"], ["--offscreen: nothing to do without a window"]),
])
def test_an_option_that_cannot_apply_is_named(args, words, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("DISPLAY", ":0")  # the --offscreen message is about the option, not a missing display
    if args[:2] == ["talo", "auto"]:
        args = [*args, "-o", tmp_path / "g.json"]
    code, _, err = run(capsys, *args)
    line = error_line(err)
    assert code == 2 and all(w in line for w in words), line
    assert not (tmp_path / "g.json").exists()
