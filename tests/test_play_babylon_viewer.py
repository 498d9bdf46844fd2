"""Babylon's tactical game through the viewer's controller (offscreen, the live physics, the statics judging):
a whole game from the set-up to the final score with its reasons, a short turn refused, the special move; the
expert game's turn of a tower."""

from __future__ import annotations

import numpy as np
import pytest
from play_babylon_plan import viewer_actions, witness_game
from play_table import StillTable
from scipy.spatial.transform import Rotation

from sim.games.babylon.scoring import score_tactical
from sim.games.play.judge import statics_judge
from sim.games.setup import setup
from sim.viewer.control.actions import action, specs_with
from sim.viewer.control.controller import Controller
from sim.viewer.control.script import ScriptRunner
from sim.viewer.play.games import new_game
from sim.viewer.play.mode import Referee

PLAYERS = ("red", "blue", "green")
SCENE = setup("babylon", PLAYERS)


def planned(**kw):
    """A witness game on a still table: the pure session and its steps."""
    return witness_game(StillTable(SCENE, [p.id for p in SCENE.pieces], statics_judge), PLAYERS, **kw)


def through_the_viewer(steps, variant="tactical"):
    """The same steps as the viewer's actions, through a controller with the referee: (controller, referee)."""
    g = new_game("babylon", PLAYERS, variant)
    referee = Referee(g)
    c = Controller(g.scene, threaded=False, supply=g.supply, plugins=[referee])
    specs = specs_with(c.plugins)
    script = [action(a, f"actions[{i}]", specs) for i, a in enumerate(viewer_actions(steps, SCENE))]
    ScriptRunner(c, script, lambda request: None).run()
    return c, referee


def events_of(session, kind):
    return [dict(e.data) for e in session.journal if e.kind == kind]


def said(c, kind=None):
    return [m.text for m in c.messages if kind is None or m.kind == kind]


@pytest.mark.slow
def test_a_whole_game_through_the_viewer_a_short_turn_refused_the_special_move_the_final_score():
    pure, steps = planned(short_at=2, special_from=5)
    c, referee = through_the_viewer(steps)
    s = referee.session
    assert s.over and s.state.over == pure.state.over
    assert [t.placed for t in s.state.turns] == [t.placed for t in pure.state.turns]  # every turn as planned
    refused = s.refusals()
    assert [r["rule"] for r in refused] == ["too-few"] and refused[0]["player"] == "blue"
    swap = next(t for t in s.state.turns if t.swapped)
    assert swap.swapped == next(t for t in pure.state.turns if t.swapped).swapped and len(swap.placed) >= 4
    a, b = swap.swapped
    assert {s.state.scene.piece(a).params["size"], s.state.scene.piece(b).params["size"]} == {"large"}
    final = score_tactical(s.state.layout, PLAYERS)
    assert s.view()["final"] == final.to_json() and final.to_json() == pure.view()["final"]
    scores = [t for t in said(c) if t.split(":")[0] in PLAYERS and "points" in t or "1 point" in t]
    assert [t.split(":")[0] for t in scores[-3:]] == list(PLAYERS)
    assert all("for bridges left" in t for t in scores[-3:])
    assert said(c)[-1] == (f"{final.winners[0]} wins" if final.winners else said(c)[-1])
    assert "GAME OVER" in referee.panel()
    kinds = [e.kind for e in s.journal]
    assert kinds.count("placed") == len(s.state.turns) and kinds[-1] == "game_over"
    # a carrying hand may graze a piece of the building (a noble slim enough to stand between the rays that find
    # the way): the rulebook puts what was knocked down back as it was, and the game goes on as planned
    for knocked in events_of(s, "knocked"):
        assert all(any(f"{p} put back as they were" in t or (p in t and "put back" in t) for t in said(c))
                   for p in knocked["pieces"])


@pytest.mark.slow
def test_the_expert_game_turns_a_tower_with_its_nobles_through_the_viewer():
    pure, steps = planned(variant="expert", special_from=5, until=lambda s: any(t.rotated for t in s.state.turns))
    tower = next(t.rotated for t in pure.state.turns if t.rotated)
    k = next(i for i, st in enumerate(steps) if st[0] == "act" and st[1] == "turn-tower")
    c, referee = through_the_viewer(steps[:k], "expert")
    nobles = [n.id for n in referee.session.state.layout.nobles_on(tower)]
    before = {p: c.world.pose(p).copy() for p in [tower, *nobles]}
    specs = specs_with(c.plugins)
    rest = viewer_actions(steps[k:], SCENE)
    ScriptRunner(c, [action(a, f"actions[{i}]", specs) for i, a in enumerate(rest)], lambda r: None).run()
    s = referee.session
    assert s.state.turns[-1].rotated == tower and len(s.state.turns[-1].placed) >= 4 and not s.refusals()
    turned = Rotation.from_quat(c.world.pose(tower)[3:]) * Rotation.from_quat(before[tower][3:]).inv()
    assert abs(abs(np.degrees(turned.magnitude())) - 90.0) < 1.0  # a quarter turn about its axis
    assert c.world.pose(tower)[:3] == pytest.approx(before[tower][:3], abs=1e-3)
    assert nobles
    for noble in nobles:  # the nobles on it went round with it, a quarter turn about its axis
        centre = before[tower][:2]
        r0, r1 = before[noble][:2] - centre, c.world.pose(noble)[:2] - centre
        assert np.linalg.norm(r1) == pytest.approx(np.linalg.norm(r0), abs=1e-3)
        assert abs(abs(r0[0] * r1[1] - r0[1] * r1[0]) - r0 @ r0) < 2e-5
    assert any(f"turned {tower}" in t for t in said(c))
