"""The live world's state as data (a saved game's world): written as JSON, read back into this world or a new one of
the same scene, it goes on bit for bit alike; data from a file is checked field by field."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sim.fieldcheck import Field, FieldError
from sim.physics.live import LiveWorld
from sim.scene import from_dict

SCENE = from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": [
    {"id": "base", "kind": "box", "size": [60, 30, 20], "pos": [0, 0, 10]},
    {"id": "mid", "kind": "box", "size": [30, 30, 30], "pos": [-10, 0, 35]},
    {"id": "top", "kind": "box", "size": [20, 20, 20], "pos": [-10, 0, 60]},
    {"id": "aside", "kind": "box", "size": [20, 40, 20], "pos": [70, 30, 10]}]})


def _carrying() -> LiveWorld:
    """A world with a hand carrying a piece over the table, mid-swing."""
    w = LiveWorld(SCENE)
    w.step(100)
    w.grab("aside", "right")
    t = w.pose("aside")
    t[0] -= 0.02
    t[2] += 0.05
    w.move_hand("right", t)
    w.step(150)
    return w


def _go_on(w: LiveWorld) -> np.ndarray:
    """The same actions after: the piece carried on and set down, the tower pushed; the poses at the end."""
    t = w.pose("aside").copy()
    t[0] -= 0.05
    t[2] -= 0.01
    w.move_hand("right", t)
    w.step(200)
    w.release("right")
    w.push("top", [0.002, 0.0, 0.0])
    w.step(600)
    return w.poses()


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.int64)


def test_a_world_restored_from_its_data_goes_on_bit_for_bit_like_the_one_it_came_from():
    a = _carrying()
    data = json.loads(json.dumps(a.data(), allow_nan=False))  # through the text of a file
    a.restore_data(Field(data, "world"), SCENE)  # the world goes on from what was written ...
    b = LiveWorld(SCENE)
    b.restore_data(Field(data, "world"), SCENE)  # ... as a new one does
    assert b.carried() == {"aside": "right"} and b.time == a.time
    end_a, end_b = _go_on(a), _go_on(b)
    assert np.array_equal(_bits(end_a), _bits(end_b))
    assert [(e.kind, e.pieces) for e in a.events[-4:]] == [(e.kind, e.pieces) for e in b.events[-4:]]
    assert any(e.kind == "knocked_down" and e.pieces == ("top",) for e in b.events)  # the push did something
    assert json.dumps(a.data()) == json.dumps(b.data())


def test_data_from_a_file_is_checked_field_by_field():
    good = json.loads(json.dumps(_carrying().data()))

    def refused(change, path: str, words: str):
        data = json.loads(json.dumps(good))
        change(data)
        with pytest.raises(FieldError) as e:
            LiveWorld(SCENE).restore_data(Field(data, "world"), SCENE)
        assert e.value.path == path and words in e.value.message, str(e.value)

    refused(lambda d: d["state"]["poses"][0].__setitem__(0, 1e9), "world.state.poses", "within 100 m")
    refused(lambda d: d["state"]["ids"].__setitem__(0, "ghost"), "world.state.ids[0]", "a piece of the game")
    refused(lambda d: d["state"]["velocities"].pop(), "world.state.velocities", "4 to 4 items")
    refused(lambda d: d["hands"][0].__setitem__("strength", "strong"), "world.hands[0].strength", "finite number")
    refused(lambda d: d["tracker"]["start"][0].__setitem__(2, float("inf")), "world.tracker.start[0][2]",
            "finite number")
    refused(lambda d: d.__setitem__("extra", 1), "world.extra", "unknown field")
    refused(lambda d: d.pop("tracker"), "world.tracker", "missing")
    refused(lambda d: d.__setitem__("format", "other"), "world.format", "towerlab-live-snapshot/1")
    refused(lambda d: d["rest_since"].__setitem__("ghost", d["rest_since"].pop("aside")), "world.rest_since.ghost",
            "a piece of the world")
