"""The panels' colours, text fitting and the file list, without a window: every text colour of the window at
least 4.5:1 against its panel over any picture, lines broken to their room, a folder listed with care, what a
typed name means, and the recent files kept bounded and atomically."""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

import pytest

from sim.viewer.control.browse import KEEP, RECENT_BYTES, RecentFiles, decide, list_folder
from sim.viewer.window import theme
from sim.viewer.window.layout import MORE, SEPARATOR, fit

# --- colours --------------------------------------------------------------------------------------------


def test_the_contrast_arithmetic_against_wcag_figures():
    assert theme.contrast_ratio((1, 1, 1), (0, 0, 0)) == pytest.approx(21.0)
    assert theme.contrast_ratio((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)) == pytest.approx(1.0)
    assert theme.contrast_ratio((118 / 255,) * 3, (1, 1, 1)) == pytest.approx(4.54, abs=0.01)  # #767676 on white
    assert theme.over((0, 0, 0, 0.5), (1, 1, 1)) == pytest.approx((0.5, 0.5, 0.5))


def _pairs():
    """Every text colour of the window and the card it is written on."""
    from sim.viewer.window.play import tray

    texts = (theme.TEXT, theme.KEYS, theme.MUTED, theme.ACTIVE, theme.ALERT, *theme.VERDICT_INK.values())
    yield from ((t, card) for t in texts for card in (theme.PANEL, theme.MODAL))
    yield from ((theme.TEXT, card) for card in (theme.ROW, theme.ROW_CHOSEN, tray.BACK))
    yield theme.INK, theme.FIELD


@pytest.mark.parametrize(("text", "card"), list(_pairs()))
def test_every_text_colour_reads_on_its_panel_over_any_picture(text, card):
    assert theme.worst_contrast(text, card) >= theme.AA


def test_the_old_verdict_colours_on_the_old_panel_were_unreadable():
    """What the window showed before: the marks' green and red on a 72 % grey panel over a light table."""
    from sim.viewer.window.marks import ARROW_FALLS, ARROW_STANDS

    old_panel = (0.08, 0.09, 0.10, 0.72)
    assert theme.worst_contrast(ARROW_STANDS, old_panel) < 2.5 and theme.worst_contrast(ARROW_FALLS, old_panel) < 2.5


def test_every_player_colour_is_made_legible_on_a_panel():
    from sim.pieces import dimensions as dim

    for colour in dim.COLORS.values():
        legible = theme.legible(colour)
        assert theme.worst_contrast(legible, theme.PANEL) >= theme.AA
        if theme.worst_contrast(colour, theme.PANEL) >= theme.AA:
            assert legible[:3] == pytest.approx(colour[:3])  # a colour that reads already is kept


def test_the_verdict_kind_keeps_the_colour_meaning():
    from sim.viewer.window.marks import WEAK_G
    from sim.viewer.window.overlay import verdict_kind

    v = lambda **k: SimpleNamespace(**{"error": None, "empty": False, "stands": True, "margin_g": 1.0, **k})  # noqa: E731
    assert verdict_kind(v()) == "stands"
    assert verdict_kind(v(margin_g=WEAK_G / 2)) == "weak"
    assert verdict_kind(v(stands=False, margin_g=0.0)) == "falls"
    assert verdict_kind(v(empty=True)) is None and verdict_kind(v(error="no")) is None and verdict_kind(None) is None


# --- fitting text to its room ---------------------------------------------------------------------------


def chars(text: str) -> float:
    """A monospaced font: one unit a character."""
    return float(len(text))


def test_a_status_line_breaks_at_its_separators_within_the_room():
    status = SEPARATOR.join(["tohuwabohu", "carry", "right hand (right: large-1, left: level-2)", "t 1.00 s",
                             "speed 1", "real-time factor 1.00", "60 fps"])
    lines = fit(status, 50, chars, separator=SEPARATOR, indent="")
    assert all(len(line) <= 50 for line in lines) and len(lines) > 1
    assert " ".join(lines).replace("  ", " ").count("|") == status.count("|") - (len(lines) - 1)
    assert lines[1].startswith("right hand")  # a part is not cut between lines when it fits on one
    assert fit(status, 500, chars, separator=SEPARATOR) == [status]


def test_words_break_and_rows_are_cut_with_a_mark():
    text = "rests on base, mid, top, aside, under, over\nmass 5 g"
    lines = fit(text, 16, chars)
    assert all(len(line) <= 16 for line in lines) and lines[-1] == "mass 5 g" and lines[1].startswith("  ")
    cut = fit(text, 16, chars, rows=2)
    assert len(cut) == 2 and cut[-1].endswith(MORE) and len(cut[-1]) <= 16
    assert fit("a" * 40, 10, chars) == ["a" * (10 - len(MORE)) + MORE]  # one word wider than the room


# --- the file list -----------------------------------------------------------------------------------------


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "b.json").write_text("{}")
    (tmp_path / "A.JSON").write_text("{}")
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / ".hidden.json").write_text("{}")
    (tmp_path / "sub").mkdir()
    (tmp_path / "dir.json").mkdir()
    os.mkfifo(tmp_path / "pipe.json")
    (tmp_path / "link.json").symlink_to(tmp_path / "b.json")
    (tmp_path / "broken.json").symlink_to(tmp_path / "gone.json")
    return tmp_path


def test_a_folder_lists_its_folders_then_its_regular_scene_files(folder):
    listing = list_folder(folder, (".json",))
    names = [(e.kind, e.name) for e in listing.entries]
    assert names == [("parent", "../"), ("folder", "dir.json/"), ("folder", "sub/"), ("file", "A.JSON"),
                     ("file", "b.json"), ("file", "link.json")]
    assert listing.error is None and not listing.cut and (listing.files, listing.folders) == (3, 2)
    assert [e.kind for e in list_folder("/", (".json",)).entries][:1] != ["parent"]  # nothing above the root


def test_a_folder_that_cannot_be_read_is_said(folder, monkeypatch):
    def refuse(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(os, "scandir", refuse)
    listing = list_folder(folder, (".json",))
    assert listing.error == "cannot read this folder: Permission denied"
    assert [e.kind for e in listing.entries] == ["parent"]  # the way out stays
    assert list_folder(folder / "missing", (".json",)).error is not None


def test_a_huge_folder_is_read_only_so_far(folder):
    listing = list_folder(folder, (".json",), limit=3)
    assert listing.cut and len(listing.entries) <= 4


def test_what_enter_does_with_the_name_line(folder):
    suffixes = (".json",)
    assert decide(folder, "sub/", suffixes, False).kind == "enter"
    assert decide(folder, "../", suffixes, False).path == folder.parent
    assert decide(folder, "b.json", suffixes, False).kind == "choose"
    assert decide(folder, str(folder / "b.json"), suffixes, False).path == folder / "b.json"
    assert decide(folder, "nope.json", suffixes, False).message == "no file nope.json here"
    assert "not a regular file" in decide(folder, "pipe.json", suffixes, False).message
    assert "expected a .json file" in decide(folder, "notes.txt", suffixes, False).message
    assert decide(folder, "  ", suffixes, False).kind == "error"
    new = decide(folder, "built", suffixes, True)
    assert (new.kind, new.path) == ("choose", folder / "built.json")  # the suffix added
    assert decide(folder, "b.json", suffixes, True).kind == "confirm"  # replacing is asked first
    assert decide(folder, "pipe.json", suffixes, True).kind == "error"
    assert decide(folder, "no/such/x.json", suffixes, True).message.startswith("no folder")
    home = decide(folder, "~", suffixes, False)
    assert home.kind == "enter" and str(home.path) == os.path.expanduser("~")


def test_the_recent_files_are_kept_newest_first_bounded_and_checked(tmp_path):
    recent = RecentFiles(tmp_path / "state" / "recent.json")
    assert recent.read() == [] and recent.error is None
    files = []
    for k in range(KEEP + 3):
        path = tmp_path / f"s{k}.json"
        path.write_text("{}")
        files.append(path)
        assert recent.add(path)
    assert recent.add(files[2])  # again: first, once
    kept = recent.read()
    assert kept[0] == files[2] and len(kept) == KEEP and len(set(kept)) == KEEP
    data = json.loads(recent.path.read_text())
    assert data["format"] == "towerlab-recent/1"
    assert not list(recent.path.parent.glob("*.tmp"))  # written atomically: no temporary file left
    files[2].unlink()
    assert files[2] not in recent.files() and recent.files((".txt",)) == []


@pytest.mark.parametrize("content", ["not json", '{"format": "towerlab-recent/1", "files": ["relative.json"]}',
                                     '{"format": "other", "files": []}', "[" * 100_000, b"\xff\xfe"])
def test_a_recent_files_file_that_is_not_one_is_ignored_and_said(tmp_path, content):
    path = tmp_path / "recent.json"
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    recent = RecentFiles(path)
    assert recent.read() == [] and recent.error.startswith(str(path))
    assert recent.add(tmp_path / "x.json") and recent.read() == [tmp_path / "x.json"]  # replaced by a good one


def test_a_recent_files_file_too_large_is_not_read(tmp_path):
    path = tmp_path / "recent.json"
    path.write_text(" " * (RECENT_BYTES + 1))
    recent = RecentFiles(path)
    assert recent.read() == [] and "larger than" in recent.error
