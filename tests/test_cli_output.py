"""The shared check of an output path, before any work is done."""

import os
from pathlib import Path

import pytest

from sim.cli import main
from sim.cli.common import OutputError, writable_output
from tests.helpers import ROOT


def test_a_new_file_in_a_new_folder_is_fine(tmp_path):
    assert writable_output(tmp_path / "a" / "b.png") == tmp_path / "a" / "b.png"


def test_a_folder_where_a_file_is_wanted_is_refused(tmp_path):
    with pytest.raises(OutputError, match="is a folder"):
        writable_output(tmp_path)


def test_a_file_where_a_folder_is_wanted_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputError, match="is a file"):
        writable_output(tmp_path / "f", "--out", directory=True)


def test_a_parent_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputError, match="is a file, not a folder"):
        writable_output(tmp_path / "f" / "out.png")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_read_only_folder_is_refused(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(OutputError, match="permission denied"):
            writable_output(ro / "x.json")
    finally:
        ro.chmod(0o700)


def test_the_check_makes_the_file_s_temporary_file_and_leaves_nothing(tmp_path):
    writable_output(tmp_path / "a" / "b" / "c.csv")
    writable_output(tmp_path / "d", directory=True)
    assert list(tmp_path.iterdir()) == []


def test_a_place_that_takes_no_new_files_is_refused_before_any_work(tmp_path):
    """/proc passes every permission check as root, and takes no file: only making one tells."""
    with pytest.raises(OutputError, match=r"^-o /proc/nope/t.csv: cannot create files in /proc(/nope)? \("):
        writable_output(Path("/proc/nope/t.csv"))
    with pytest.raises(OutputError, match=r"^--sweep-out /proc/t.png: cannot create files in /proc \("):
        writable_output(Path("/proc/t.png"), "--sweep-out")


SCENE = ROOT / "scenes" / "free" / "cube-tower.json"
NOWHERE = "/proc/nope/out"


@pytest.mark.parametrize("args", [
    ["experiment", str(SCENE), "--perturb", "noise:sigma_mm=1", "-n", "4", "-o", NOWHERE + ".csv"],
    ["experiment", str(SCENE), "--sweep", "noise.sigma_mm=0:1:2", "-n", "4", "--sweep-out", NOWHERE],
    ["simulate", str(SCENE), "-o", NOWHERE + ".json"],
    ["simulate", str(SCENE), "-o", "{tmp}/x.json", "--record", NOWHERE + ".tlrec"],
    ["check", str(SCENE), "--record", NOWHERE + ".tlrec"],
    ["render", str(SCENE), "-o", NOWHERE + ".png"],
    ["cards", "tohuwabohu", "-o", NOWHERE],
], ids=lambda a: " ".join(x for x in a if not x.startswith("/")))
def test_every_command_refuses_an_output_it_cannot_create_before_any_work(args, tmp_path, capsys, monkeypatch):
    import sim.experiments
    import sim.physics

    def no_work(*a, **k):
        raise AssertionError("the work began before the output was known to be writable")

    monkeypatch.setattr(sim.experiments, "sweep", no_work)
    monkeypatch.setattr(sim.physics, "World", no_work)
    assert main([a.format(tmp=tmp_path) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot create files in /proc" in err, err
    assert list(tmp_path.iterdir()) == []


def test_an_output_that_fails_after_the_trials_is_one_line(tmp_path, capsys, monkeypatch):
    """A disk that fills while the trials run: the records cannot be written, said in one line, no traceback."""
    import sim.experiments.output as output

    def full(path, *a, **k):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(output, "write_records", full)
    out = tmp_path / "t.csv"
    assert main(["experiment", str(SCENE), "--perturb", "noise:sigma_mm=1", "-n", "2", "-j", "1", "-o",
                 str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (f"towerlab: error: -o {out}: cannot write {out} (No space left on device); the trials ran, their "
                   "results are lost\n")
