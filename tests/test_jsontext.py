"""The one writer of JSON files with a list one item a line (scene files, game scripts)."""

from __future__ import annotations

import json

import pytest

from sim.jsontext import dumps_one_per_line
from sim.scene import dumps, load_scene, to_dict
from tests.helpers import SCENES, scene_files


def test_each_field_and_each_item_on_a_line_of_its_own_the_list_last():
    data = {"turns": [{"player": "anna", "cell": [1, 2]}, {"player": "ben"}], "format": "x/1", "title": "Größe"}
    text = dumps_one_per_line(data, "turns")
    assert json.loads(text) == data
    assert text.splitlines() == ["{", '  "format": "x/1",', '  "title": "Größe",', '  "turns": [',
                                 '    {"player": "anna", "cell": [1, 2]},', '    {"player": "ben"}', "  ]", "}"]


def test_an_empty_or_absent_list_is_written_empty_on_one_line():
    assert dumps_one_per_line({"format": "x/1", "turns": []}, "turns") == '{\n  "format": "x/1",\n  "turns": []\n}\n'
    assert dumps_one_per_line({"format": "x/1"}, "turns") == '{\n  "format": "x/1",\n  "turns": []\n}\n'


@pytest.mark.parametrize("path", scene_files(), ids=lambda p: p.name)
def test_it_writes_every_scene_file_as_the_scene_writer_does(path):
    scene = load_scene(path)
    assert dumps_one_per_line(to_dict(scene), "pieces") == dumps(scene)


def test_it_writes_a_talo_game_script_as_the_script_writer_does():
    from sim.games.talo.script import dumps_script

    script = json.loads((SCENES / "talo" / "games" / "first-climb.talo-game").read_text())
    assert script["turns"]
    assert dumps_one_per_line(script, "turns") == dumps_script(script)
