"""The Babylon example scenes: stored files match their generators, validate and keep the rules."""

from __future__ import annotations

import pytest

from sim.games.babylon import examples, read_layout, score_tactical
from sim.games.babylon.placement import congruent_bridges, noble_violations, part_violations
from sim.scene import load_scene, to_dict
from tests.helpers import SCENES

FILES = {
    "tactical-example": examples.tactical_example,
    "fast-example": examples.fast_example,
    "first-turn": examples.first_turn,
    "second-turn": examples.second_turn,
    "bench-140": examples.bench_city,
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_stored_scene_is_its_generator_output(name):
    stored = load_scene(SCENES / "babylon" / f"{name}.json")
    assert to_dict(stored) == to_dict(FILES[name]())


@pytest.mark.parametrize("name", ["tactical-example", "first-turn", "second-turn"])
def test_example_buildings_are_connected_and_correctly_placed(name):
    scene = load_scene(SCENES / "babylon" / f"{name}.json")
    lay = read_layout(scene)
    assert len(lay.buildings) == 1
    assert part_violations(lay, lay.parts) == [] and congruent_bridges(lay) == []
    assert noble_violations(lay, lay.nobles, len(scene.players)) == []


def test_bench_city_is_a_legal_final_position():
    scene = load_scene(SCENES / "babylon" / "bench-140.json")
    lay = read_layout(scene)
    assert len(scene.pieces) == 140 and len(lay.buildings) == 1
    assert part_violations(lay, lay.parts) == [] and congruent_bridges(lay) == []
    assert noble_violations(lay, lay.nobles, 5) == []
    result = score_tactical(lay, scene.players)
    assert all(p.bridges_left == 0 for p in result.players.values())
    assert result.winners == ("white",)
