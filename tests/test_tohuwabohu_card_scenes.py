"""Every Tohuwabohu card scene stands (statics and dynamics), breaks no building rule and fulfils its card."""

from __future__ import annotations

from functools import partial

import pytest

from sim.games.tohuwabohu import CARDS, referee
from sim.scene import load_scene
from tests.helpers import CARD_SCENES, ROOT

FILES = sorted(CARD_SCENES.glob("*.json"))
SETTLE_SECONDS = 0.5  # enough for a resting construction to show it stays put; the statics judge the rest


def test_every_card_has_an_up_to_date_scene():
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_cards", ROOT / "tools" / "build_tohuwabohu_cards.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    assert {p.stem for p in FILES} == set(CARDS)
    for rel, text in build.example_scenes().items():
        assert (ROOT / rel).read_text(encoding="utf-8") == text, f"{rel} is out of date"


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_card_scene_stands_and_fulfils_its_card(path):
    from sim.physics.judge import judge

    scene = load_scene(path)
    j = referee(scene, partial(judge, seconds=SETTLE_SECONDS))
    assert j.stable, f"{path.stem}: margin {j.verdict.margin_g}, fell {sorted(j.verdict.knocked_down)}"
    assert j.violations == (), [v.to_json() for v in j.violations]
    assert path.stem in j.fulfilled
