"""One contract, one test over all three games (dm_control's ``suite_test`` is the model).

Every game reads its example scenes from ``scenes/<game>/``, asks its judge about
its own physics scene only, hands the verdict on to its report, reports broken
rules as one :class:`~sim.games.contract.Violation` shape, and keeps its state as
frozen data whose JSON form reads back equal and plays on the same.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from sim.games import suite
from sim.games.contract import Verdict, Violation
from sim.scene import load_scene
from tests.helpers import SCENES

GAMES = sorted(suite.GAMES)


def example_scenes(game: str):
    return sorted((SCENES / game).rglob("*.json"))


class FakeJudge:
    """A judge that answers from a script and remembers what it was asked."""

    def __init__(self, verdict: Verdict):
        self.verdict = verdict
        self.asked = []

    def __call__(self, scene):
        self.asked.append(scene)
        return self.verdict


def test_every_game_of_the_scene_format_has_rules():
    from sim.scene.schema import GAMES as SCENE_GAMES

    assert set(suite.GAMES) == set(SCENE_GAMES) - {"free"}
    assert all(r.game == name for name, r in suite.GAMES.items())


@pytest.mark.parametrize("game", GAMES)
def test_each_game_has_example_scenes_of_its_own(game):
    files = example_scenes(game)
    assert files
    assert all(load_scene(f).game == game for f in files)


def _check_violations(report, scene):
    ids = set(scene.ids)
    for v in report.violations:
        assert isinstance(v, Violation)
        assert v.rule and isinstance(v.rule, str) and v.reason and isinstance(v.reason, str)
        assert isinstance(v.pieces, tuple) and set(v.pieces) <= ids, v
        assert v.to_json() == {"rule": v.rule, "pieces": list(v.pieces), "reason": v.reason}
        assert Violation.from_json(v.to_json()) == v


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("verdict", [Verdict.standing(), Verdict(False, 0.0, frozenset())], ids=["stands", "falls"])
def test_the_judge_sees_the_physics_scene_and_its_verdict_reaches_the_report(game, verdict):
    rules = suite.rules(game)
    for path in example_scenes(game):
        scene = load_scene(path)
        physics = rules.physics_scene(scene)
        assert set(physics.ids) <= set(scene.ids)
        fake = FakeJudge(verdict)
        report = rules.referee(scene, fake)
        unjudged = report.verdict is None
        assert fake.asked == ([] if unjudged or not physics.pieces else [physics]), path.name
        if not unjudged:
            assert report.verdict == verdict
        _check_violations(report, scene)
        json.dumps(report.to_json(), allow_nan=False)


@pytest.mark.parametrize("game", GAMES)
def test_without_a_judge_nothing_is_asked(game):
    rules = suite.rules(game)
    for path in example_scenes(game):
        report = rules.referee(load_scene(path), None)
        assert report.verdict is None
        _check_violations(report, load_scene(path))


def test_talo_judges_the_building_without_its_pawns():
    scene = load_scene(SCENES / "talo" / "bridge.json")
    physics = suite.rules("talo").physics_scene(scene)
    assert {p.kind for p in scene.pieces} == {"talo.block", "talo.pawn"}
    assert {p.kind for p in physics.pieces} == {"talo.block"}


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_the_real_judge_answers_each_game(game):
    from sim.physics.judge import judge

    path = min(example_scenes(game), key=lambda p: len(load_scene(p).pieces))
    scene = load_scene(path)
    report = suite.rules(game).referee(scene, judge)
    assert isinstance(report.verdict, Verdict) and isinstance(report.verdict.stable, bool), path.name
    assert report.verdict.settled is not None and report.verdict.settled.ids == suite.rules(game).physics_scene(
        scene).ids
    _check_violations(report, scene)


# --- states -----------------------------------------------------------------------


def _tohuwabohu_basic(rng):
    from sim.games.tohuwabohu import game

    state = game.tick(game.new_game(["ann", "bob", "cy"], rng, starter="bob"), 17.5)
    state = game.swap(state)
    return game.fulfil(state, [state.order_card()]), lambda s: game.tick(game.swap(game.tick(s, 31.0)), 2.0)


def _tohuwabohu_pro(rng):
    from sim.games.tohuwabohu import pro

    state = pro.tick(pro.new_pro_game(["ann", "bob"], rng), 100.0)
    state, _ = pro.stop(state, "bob", state.open_cards("ann")[:1] + state.open_cards("bob")[:2])
    return state, lambda s: pro.collapse(pro.tick(s, 200.0), "ann", new_round=True)


def _talo(rng):
    from sim.games.talo.auto import auto_game, auto_turn

    state = auto_game({"red": (2, 2), "blue": (7, 7)}, rng, max_turns=6)
    return state, lambda s: auto_turn(s, np.random.default_rng(11))


def _fantasy(rng):
    from sim.games.talo import fantasy as f

    state = f.throw(f.new_fantasy(["ann", "ben"]), rng)  # a full stock has a block for every roll
    state = f.take(state, state.options[0])
    return state, lambda s: f.end_turn(f.place(s, [f.FreeBlock(s.hand[0], (0.01, 0.02, 0.01))],
                                               Verdict.standing()))


def _babylon(rng):
    from sim.games.babylon.tactical import judge_turn, new_tactical, play_turn

    first = load_scene(SCENES / "babylon" / "first-turn.json")
    second = load_scene(SCENES / "babylon" / "second-turn.json")
    state = play_turn(new_tactical(first.players), first)
    return state, lambda s: (play_turn(s, second), judge_turn(play_turn(s, second), second))


STATES = {"tohuwabohu basic": _tohuwabohu_basic, "tohuwabohu pro": _tohuwabohu_pro, "talo": _talo,
          "talo fantasy": _fantasy, "babylon tactical": _babylon}


def test_every_state_class_is_tried():
    classes = {cls for r in suite.GAMES.values() for cls in r.states.values()}
    made = {type(make(np.random.default_rng(0))[0]) for make in STATES.values()}
    assert made == classes


@pytest.mark.parametrize("name", STATES)
def test_a_state_is_frozen_and_survives_its_json(name):
    state, play_on = STATES[name](np.random.default_rng(3))
    field = dataclasses.fields(state)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(state, field, None)
    data = json.loads(json.dumps(state.to_json(), allow_nan=False))
    restored = suite.state_from_json(data)
    assert type(restored) is type(state)
    assert restored == state
    assert restored.to_json() == state.to_json()
    assert play_on(restored) == play_on(state)  # the restored game plays on exactly as the original


@pytest.mark.parametrize("name", STATES)
def test_a_state_is_determined_by_its_seed(name):
    a, _ = STATES[name](np.random.default_rng(5))
    b, _ = STATES[name](np.random.default_rng(5))
    assert a == b and a.to_json() == b.to_json()


def test_a_state_of_another_game_is_refused():
    from sim.errors import TowerlabError

    state, _ = _talo(np.random.default_rng(0))
    data = state.to_json()
    for cls in {cls for r in suite.GAMES.values() for cls in r.states.values()} - {type(state)}:
        with pytest.raises(TowerlabError):
            cls.from_json(data)


@pytest.mark.parametrize("name", STATES)
@pytest.mark.parametrize("damage", ["missing", "wrong type"])
def test_a_damaged_state_is_one_error_of_the_game(name, damage):
    from sim.errors import TowerlabError

    state, _ = STATES[name](np.random.default_rng(1))
    data = state.to_json()
    key = next(k for k in data if k not in ("game", "variant", "scene"))
    if damage == "missing":
        del data[key]
    else:
        data[key] = {"nested": [1, 2]}
    with pytest.raises(TowerlabError, match="state"):
        suite.state_from_json(data)
