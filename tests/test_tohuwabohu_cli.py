"""The Tohuwabohu commands: ``towerlab tohuwabohu check`` and ``towerlab cards tohuwabohu``."""

from __future__ import annotations

import json

import pytest

from sim.cli import main
from tests.helpers import CARD_SCENES, SCENES

TOHU = SCENES / "tohuwabohu"


def test_check_json_reports_rules_structures_and_cards(capsys):
    assert main(["tohuwabohu", "check", str(TOHU / "against-the-rules.json"), "--json", "--no-physics"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["stable"] is None
    assert {v["rule"] for v in out["violations"]} == {"join-only-arches", "figure-on-point"}
    assert all(set(v) == {"rule", "pieces", "reason"} for v in out["violations"])
    assert out["fulfilled"] == []
    assert [[lv["number"] for lv in s["levels"]] for s in out["structures"]] == [[1], [1]]
    level = out["structures"][0]["levels"][0]
    assert set(level) >= {"number", "shape", "pillars", "figures"}
    assert level["figures"] == [{"id": "f-blue-1", "color": "blue", "point": "red"}]


def test_check_text_names_levels_pillars_figures_and_cards(capsys):
    assert main(["tohuwabohu", "check", str(CARD_SCENES / "four-red.json"), "--no-physics"]) == 0
    out = capsys.readouterr().out
    assert "level 4" in out and "on the red point" in out
    assert "four-red (Exactly 4 red figures)" in out


def test_check_with_physics(capsys):
    assert main(["tohuwabohu", "check", str(TOHU / "too-far-out.json"), "--json", "--seconds", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["stable"] is False and out["violations"] == [] and out["fulfilled"] == []


@pytest.mark.parametrize(("args", "message"), [
    (["tohuwabohu", "check", str(SCENES / "talo" / "bridge.json"), "--no-physics"], 'expected "tohuwabohu"'),
    (["tohuwabohu", "check", "no-such-file.json", "--no-physics"], "cannot read"),
    (["cards", "babylon", "-o", "x"], "expected one of tohuwabohu"),
    (["cards", "tohuwabohu", "-o", "x", "--only", "no-such-card"], "no tohuwabohu card"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


@pytest.mark.slow
def test_cards_draws_card_images_and_a_pdf_sheet(tmp_path, capsys):
    from sim.render import load_png

    out = tmp_path / "cards"
    assert main(["cards", "tohuwabohu", "-o", str(out), "--only", "tower-blue", "--only", "five-levels",
                 "--dpi", "60", "--json"]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    assert [f.rsplit("/", 1)[1] for f in files] == ["tower-blue.png", "five-levels.png", "tohuwabohu-cards.pdf"]
    img = load_png(out / "tower-blue.png")
    assert img.shape[:2] == (int(88 / 25.4 * 60), int(63 / 25.4 * 60))  # 63 × 88 mm at 60 dpi
    frame = img[5, img.shape[1] // 2, :3].astype(int)  # the title band: the blue cards' colour
    assert frame[2] > 150 and frame[0] < 80
    assert (out / "tohuwabohu-cards.pdf").read_bytes().startswith(b"%PDF")
