"""The shared check of an output path, before any work is done."""

import os

import pytest

from sim.cli.common import OutputError, writable_output


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
