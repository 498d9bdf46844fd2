"""``towerlab render``: files written, batches, --settle, and one-line errors with exit 2."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from sim.cli import main
from sim.cli.render import output_paths, parse_size
from sim.errors import TowerlabError
from sim.render import load_png
from tests.helpers import forbid_drawing, one_line

ROOT = Path(__file__).resolve().parents[1]
TOWER = ROOT / "scenes/free/cube-tower.json"
MIXED = ROOT / "scenes/free/mixed-games.json"


def _write(path: Path, pieces: list, game: str = "free") -> Path:
    path.write_text(json.dumps({"format": "towerlab-scene/1", "game": game, "pieces": pieces}))
    return path


def test_sizes():
    assert parse_size("1024x768") == (1024, 768)
    assert parse_size(" 64 X 32 ") == (64, 32)
    for bad in ["1024", "axb", "0x10", "10x100000", "-5x5"]:
        with pytest.raises(TowerlabError, match="--size"):
            parse_size(bad)


def test_output_names(tmp_path):
    one = [Path("a/tower.json")]
    assert output_paths(one, tmp_path / "t.png") == [tmp_path / "t.png"]
    assert output_paths(one, tmp_path / "t.JPG") == [tmp_path / "t.JPG"]
    assert output_paths(one, tmp_path) == [tmp_path / "tower.png"]  # an existing folder
    assert output_paths(one, tmp_path / "pictures") == [tmp_path / "pictures/tower.png"]  # any other name: a folder
    two = [Path("talo/tower.json"), Path("babylon/tower.json"), Path("x/y.json")]
    assert output_paths(two, tmp_path / "out") == [tmp_path / "out/talo-tower.png",
                                                   tmp_path / "out/babylon-tower.png", tmp_path / "out/y.png"]
    with pytest.raises(TowerlabError, match="3 scenes need a folder"):
        output_paths(two, tmp_path / "file.png")  # whether it exists or not
    (tmp_path / "notes").write_bytes(b"")
    with pytest.raises(TowerlabError, match="is a file"):
        output_paths(one, tmp_path / "notes")
    with pytest.raises(TowerlabError, match=".gif pictures are not written"):
        output_paths(one, tmp_path / "x.gif")


def test_one_scene_to_one_png(tmp_path, capsys):
    out = tmp_path / "tower.png"
    assert main(["render", str(TOWER), "-o", str(out), "--size", "48x40", "--camera", "side"]) == 0
    image = load_png(out)
    assert image.shape == (40, 48, 4) and (image[..., 3] == 255).all()
    assert "wrote" in capsys.readouterr().out


def test_a_batch_goes_to_a_directory_and_reports_json(tmp_path, capsys):
    out = tmp_path / "pictures"
    assert main(["render", str(TOWER), str(MIXED), "-o", str(out), "--size", "40x30", "--transparent",
                 "--antialias", "fxaa", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [Path(r["image"]).name for r in report] == ["cube-tower.png", "mixed-games.png"]
    for r in report:
        image = load_png(r["image"])
        assert image.shape == (30, 40, 4) and image[0, 0, 3] == 0  # transparent corner


def test_explicit_eye_in_millimetres(tmp_path):
    red = _write(tmp_path / "red.json", [{"id": "r", "kind": "tohuwabohu.brick", "size": "large",
                                          "color": "red", "pos": [0, 0, 10]}])
    out = tmp_path / "red.png"
    assert main(["render", str(red), "-o", str(out), "--size", "32x32",
                 "--eye", "0", "-300", "10", "--look-at", "0", "0", "10"]) == 0
    r, g, b, _ = load_png(out)[16, 16].astype(int)
    assert r > 2 * g and r > 2 * b


@pytest.mark.parametrize(("args", "message"), [
    (["--size", "big"], "--size: expected WIDTHxHEIGHT"),
    (["--camera", "fisheye"], "--camera: expected one of iso, front, side, top, got 'fisheye'"),
    (["--eye", "1", "2", "3"], "--eye and --look-at go together"),
    (["--antialias", "ssaa"], "--antialias: expected one of msaa, fxaa, got 'ssaa'"),
])
def test_bad_options_are_one_line_and_exit_2(tmp_path, capsys, args, message):
    out = tmp_path / "x.png"
    assert main(["render", str(TOWER), "-o", str(out), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not out.exists()


def test_a_bad_scene_stops_the_batch_before_anything_is_drawn(tmp_path, capsys):
    bad = _write(tmp_path / "bad.json", [{"id": "a", "kind": "talo.block", "length": 11, "pos": [0, 0, 10]}])
    out = tmp_path / "out"
    assert main(["render", str(TOWER), str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.json" in err[0] and "pieces[0].length" in err[0]
    assert not out.exists()


def test_settle_renders_the_settled_scene(tmp_path, monkeypatch, capsys):
    # sim.physics.settle(scene) -> Scene is the physics layer's contract; a stand-in that drops the
    # floating brick onto the table shows that the picture is of what settle returned.
    floating = _write(tmp_path / "floating.json", [{"id": "r", "kind": "tohuwabohu.brick", "size": "large",
                                                    "color": "red", "pos": [0, 0, 60]}])
    calls = []

    def settle(scene):
        calls.append(scene)
        return scene.with_poses(np.array([[0.0, 0.0, 0.01, 0.0, 0.0, 0.0, 1.0]]))

    monkeypatch.setitem(sys.modules, "sim.physics", types.SimpleNamespace(settle=settle))
    out = tmp_path / "settled.png"
    args = ["render", str(floating), "-o", str(out), "--size", "32x32", "--eye", "0", "-300", "10",
            "--look-at", "0", "0", "10", "--settle", "--json"]
    assert main(args) == 0
    assert len(calls) == 1 and json.loads(capsys.readouterr().out)[0]["settled"] is True
    r, g, _, _ = load_png(out)[16, 16].astype(int)
    assert r > 2 * g  # the brick is at 10 mm, where the camera looks; unsettled it would be at 60 mm


def test_settle_without_physics_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sim.physics", None)  # import fails
    assert main(["render", str(TOWER), "-o", str(tmp_path / "x.png"), "--size", "32x32", "--settle"]) == 2
    assert "--settle needs the physics engine" in capsys.readouterr().err


def test_settle_with_the_physics_engine_drops_a_floating_brick(tmp_path, capsys):
    pytest.importorskip("pybullet")
    floating = _write(tmp_path / "floating.json", [{"id": "r", "kind": "tohuwabohu.brick", "size": "large",
                                                    "color": "red", "pos": [0, 0, 60]}])
    out = tmp_path / "settled.png"
    view = ["--size", "32x32", "--eye", "0", "-300", "10", "--look-at", "0", "0", "10"]
    assert main(["render", str(floating), "-o", str(out), *view, "--settle"]) == 0
    r, g, _, _ = load_png(out)[16, 16].astype(int)
    assert r > 2 * g  # it fell onto the table, where the camera looks
    assert main(["render", str(floating), "-o", str(out), *view]) == 0
    r, g, _, _ = load_png(out)[16, 16].astype(int)
    assert not r > 2 * g  # unsettled, it floats above the view's centre


def test_several_scenes_to_a_png_name_is_refused_and_makes_no_folder(tmp_path, capsys):
    out = tmp_path / "two.png"
    assert main(["render", str(TOWER), str(MIXED), "-o", str(out), "--size", "32x32"]) == 2
    assert "2 scenes need a folder" in one_line(capsys)
    assert not out.exists()


def test_a_jpg_name_writes_jpeg(tmp_path, capsys):
    out = tmp_path / "tower.jpg"
    assert main(["render", str(TOWER), "-o", str(out), "--size", "48x40"]) == 0
    data = out.read_bytes()
    assert data[:3] == b"\xff\xd8\xff"  # JPEG, not PNG bytes under a .jpg name
    assert load_png(out).shape == (40, 48, 4)
    capsys.readouterr()
    assert main(["render", str(TOWER), "-o", str(tmp_path / "t.jpeg"), "--transparent"]) == 2
    assert "--transparent needs a .png file" in one_line(capsys)


@pytest.mark.parametrize("bad", [["--eye", "nan", "0", "0", "--look-at", "0", "0", "0"],
                                 ["--eye", "inf", "0", "0", "--look-at", "0", "0", "0"],
                                 ["--eye", "0", "-300", "10", "--look-at", "0", "-inf", "0"]])
def test_non_finite_camera_points_are_one_line(tmp_path, capsys, bad):
    out = tmp_path / "x.png"
    assert main(["render", str(TOWER), "-o", str(out), "--size", "32x32", *bad]) == 2
    assert "expected three numbers within 100000 mm of the origin" in one_line(capsys)
    assert not out.exists()


def test_an_output_under_a_file_is_one_line_before_anything_is_drawn(tmp_path, capsys, monkeypatch):
    forbid_drawing(monkeypatch)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    for out, scenes in ((blocker / "x.png", [TOWER]), (blocker / "pictures", [TOWER, MIXED])):
        assert main(["render", *map(str, scenes), "-o", str(out)]) == 2
        line = one_line(capsys)
        assert line.startswith("towerlab: error: -o ") and "is a file, not a folder" in line


def test_a_failed_write_is_one_line(tmp_path, capsys, monkeypatch):
    import errno

    import sim.render.image

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(sim.render.image, "write_bytes", full)
    assert main(["render", str(TOWER), "-o", str(tmp_path / "x.png"), "--size", "32x32"]) == 2
    assert one_line(capsys) == f"towerlab: error: -o {tmp_path / 'x.png'}: cannot write (No space left on device)"


def test_the_old_output_spelling_still_works_but_is_not_shown(tmp_path, capsys):
    out = tmp_path / "old.png"
    assert main(["render", str(TOWER), "--output", str(out), "--size", "32x32"]) == 0 and out.exists()
    capsys.readouterr()
    assert main(["render", str(TOWER), "-o", str(out), "--output", str(out)]) == 2
    assert "give -o/--out once" in one_line(capsys)
    assert main(["render", str(TOWER)]) == 2
    assert "-o/--out is required" in one_line(capsys)
    assert main(["render", "--help"]) == 0
    text = capsys.readouterr().out
    assert "--out" in text and "--output" not in text


def test_batches_report_progress_per_picture(tmp_path, monkeypatch):
    import contextlib

    import sim.cli.render

    calls = []

    @contextlib.contextmanager
    def recording(label, *, quiet=False, unit=""):
        calls.append(("start", label))
        yield lambda done, total: calls.append((done, total))

    monkeypatch.setattr(sim.cli.render, "progress", recording)
    assert main(["render", str(TOWER), str(MIXED), "-o", str(tmp_path / "two"), "--size", "24x24"]) == 0
    assert calls == [("start", "rendering 2 scene(s)"), (1, 2), (2, 2)]


def test_an_empty_or_scattered_scene_is_drawn_with_one_warning(tmp_path, capsys):
    empty = _write(tmp_path / "empty.json", [])
    assert main(["render", str(empty), "-o", str(tmp_path / "empty.png"), "--size", "32x32"]) == 0
    assert one_line(capsys) == f"towerlab: warning: {empty}: no pieces: the picture shows only the table"
    far = _write(tmp_path / "far.json", [{"id": "a", "kind": "box", "size": [20, 20, 20], "pos": [-99000, 0, 10]},
                                         {"id": "b", "kind": "box", "size": [20, 20, 20], "pos": [99000, 0, 10]}])
    assert main(["render", str(far), "-o", str(tmp_path / "far.png"), "--size", "256x256", "--json"]) == 0
    captured = capsys.readouterr()
    warning = captured.err.strip().splitlines()
    assert len(warning) == 1 and "the pieces lie 198 m apart" in warning[0] and str(far) in warning[0]
    assert "198 m apart" in json.loads(captured.out)[0]["warning"]
    away = ["--eye", "0", "300", "10", "--look-at", "0", "600", "10"]  # looking away from the tower
    assert main(["render", str(TOWER), "-o", str(tmp_path / "away.png"), "--size", "32x32", *away]) == 0
    assert "no piece is in view of this camera" in one_line(capsys)
    assert main(["render", str(TOWER), "-o", str(tmp_path / "ok.png"), "--size", "32x32"]) == 0
    assert capsys.readouterr().err == ""
