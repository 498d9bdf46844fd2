"""``towerlab cards``: its output folder checked before any drawing, progress, the views it reports."""

from __future__ import annotations

import contextlib
import errno
import json

import pytest

from sim.cli import main
from tests.helpers import forbid_drawing, one_line


def test_an_output_folder_under_a_file_is_one_line_before_anything_is_drawn(tmp_path, capsys, monkeypatch):
    forbid_drawing(monkeypatch)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    for out in (blocker, blocker / "cards"):
        assert main(["cards", "tohuwabohu", "-o", str(out), "--only", "cross-red"]) == 2
        line = one_line(capsys)
        assert line.startswith(f"towerlab: error: -o {out}: ") and "is a file" in line


def test_a_failed_write_is_one_line(tmp_path, capsys, monkeypatch):
    import sim.atomic

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(sim.atomic, "write_bytes", full)
    out = tmp_path / "cards"
    assert main(["cards", "tohuwabohu", "-o", str(out), "--only", "join-tri-tri", "--dpi", "50"]) == 2
    assert one_line(capsys) == f"towerlab: error: -o {out}: cannot write join-tri-tri.png (No space left on device)"


def test_the_output_option_is_o_or_out_and_the_old_output_still_works(tmp_path, capsys):
    assert main(["cards", "tohuwabohu", "--only", "cross-red"]) == 2
    assert "-o/--out is required" in one_line(capsys)
    assert main(["cards", "tohuwabohu", "-o", "a", "--output", "b"]) == 2
    assert "give -o/--out once" in one_line(capsys)
    assert main(["cards", "--help"]) == 0
    text = capsys.readouterr().out
    assert "--out" in text and "--output" not in text


@pytest.mark.slow
def test_cards_report_progress_and_the_view_of_each_card(tmp_path, capsys, monkeypatch):
    import sim.cli.cards

    calls = []

    @contextlib.contextmanager
    def recording(label, *, quiet=False, unit=""):
        calls.append(("start", label, quiet))
        yield lambda done, total: calls.append((done, total))

    monkeypatch.setattr(sim.cli.cards, "progress", recording)
    out = tmp_path / "deck"
    assert main(["cards", "tohuwabohu", "--output", str(out), "--only", "cross-red", "--only", "join-tri-tri",
                 "--dpi", "50", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert calls == [("start", "tohuwabohu cards", True), (1, 3), (2, 3), (3, 3)]
    assert [f.rsplit("/", 1)[1] for f in report["files"]] == ["cross-red.png", "join-tri-tri.png",
                                                              "tohuwabohu-cards.pdf"]
    for view in report["views"]:
        assert view["every_piece_visible"] is True and view["least_visible_fraction"] >= 0.15
        assert 10.0 <= view["elevation_deg"] <= 35.0 and 0.0 <= view["azimuth_deg"] < 360.0
