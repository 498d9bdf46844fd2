"""The viewer's plain-data parts: action files, the mode machine, autosave and recovery, the verdict."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import box_record, free_scene

from sim.cases import harmonic_margin, harmonic_stack
from sim.scene import from_dict, load_scene
from sim.viewer.control.actions import SPECS, ActionError, action, dumps_actions, load_actions, parse_actions
from sim.viewer.control.controller import ACTION_TABLE, Controller
from sim.viewer.control.modes import ModeMachine
from sim.viewer.control.recovery import Recovery, RecoveryError
from sim.viewer.control.stability import contact_forces, judge


def test_every_action_has_a_handler_and_round_trips_through_its_file_form():
    required = {"pick": {"piece": "a"}, "move-to": {"at": [1, 2]}, "poke": {"piece": "a"},
                "add": {"kind": "box", "params": {"size": [20, 20, 20]}},
                "remove": {"piece": "a"}, "speed": {"factor": 0.5}, "save": {"path": "x"}, "load": {"path": "x"},
                "camera": {"preset": "top"}, "orbit": {"degrees": [1, 2]}, "pan": {"fraction": [0, 1]},
                "zoom": {"factor": 2}, "toggle": {"what": "help"}, "hand": {"name": "left"}, "wait": {"seconds": 1},
                "screenshot": {"path": "x.png"}, "pick-group": {"pieces": ["a", "b"]},
                "pull": {"piece": "a", "to": [0, 0, 10]}, "orient": {"quat": [0, 0, 0, 1]}}
    actions = [action(name, **required.get(name, {})) for name in SPECS]
    for a in actions:
        assert a.name in ACTION_TABLE, a.name
    again = parse_actions(dumps_actions(actions), "x.json")
    assert [a.to_json() for a in again] == [a.to_json() for a in actions]


def test_action_files_name_the_line_and_the_field(tmp_path):
    text = '[\n  {"action": "pick", "piece": "b1"},\n  {"action": "move-to", "at": "left"}\n]\n'
    expected = r'^a\.json:3: actions\[1\]\.at: expected 2 or 3 numbers \(mm\) within ±100000, got "left"$'
    with pytest.raises(ActionError, match=expected):
        parse_actions(text, "a.json")
    with pytest.raises(ActionError, match=r"^a\.json:2: actions\[1\]\.action: unknown action \"jump\""):
        parse_actions('[{"action": "undo"},\n {"action": "jump"}]', "a.json")
    with pytest.raises(ActionError, match=r"^a\.json:1: actions\[0\]\.speed: unknown field of 'pick'"):
        parse_actions('[{"action": "pick", "piece": "x", "speed": 2}]', "a.json")
    with pytest.raises(ActionError, match=r"^a\.json:1: actions\[0\]\.piece: required for 'pick'"):
        parse_actions('[{"action": "pick"}]', "a.json")
    with pytest.raises(ActionError, match=r"^a\.json:2: not JSON"):
        parse_actions('[{"action": "undo"},\n {"action": }]', "a.json")
    with pytest.raises(ActionError, match=r"^a\.json:1: expected a JSON list"):
        parse_actions('{"action": "undo"}', "a.json")
    with pytest.raises(ActionError, match=r"factor: expected one of 1\.0, 0\.5, 0\.25, 0\.125, got 3"):
        action("speed", factor=3)
    with pytest.raises(ActionError, match="no such file"):
        load_actions(tmp_path / "none.json")
    assert parse_actions("[]") == []


def test_the_mode_machine_refuses_moves_its_table_does_not_allow():
    m = ModeMachine()
    seen = []
    m.listen(lambda old, new: seen.append((old, new)))
    assert m.go("carry") and m.go("history") and m.go("build")
    assert not m.go("build")
    assert seen == [("build", "carry"), ("carry", "history"), ("history", "build")]
    with pytest.raises(ValueError):
        ModeMachine("replay")


def test_autosave_every_30_s_and_an_offer_to_recover_after_a_crash(tmp_path):
    now = [1000.0]
    path = tmp_path / "state" / "recovery.json"
    scene = from_dict({"format": "towerlab-scene/1", "game": "talo", "pieces": [
        {"id": "a", "kind": "talo.block", "length": 2, "cell": [3, 3], "layer": 0, "axis": "x"}]})
    c = Controller(scene, threaded=False, recovery=Recovery(path, clock=lambda: now[0]), source="built.json")
    c.tick(1 / 60)
    assert not path.exists()
    c.apply(action("pick", piece="a"))
    c.apply(action("move-to", at=[61, 52]))
    c.run_until_quiet()
    now[0] += 30.0
    c.tick(1 / 60)
    assert path.exists()
    data = json.loads(path.read_text())
    assert data["format"] == "towerlab-recovery/1" and not data["clean"] and data["source"] == "built.json"
    # the session "crashes" here: the next one is offered what was autosaved
    found = Recovery(path).pending()
    assert found is not None and found.source == "built.json"
    np.testing.assert_allclose(found.scene.piece("a").pos[:2], [0.06, 0.05], atol=1e-9)  # where it would land
    fresh = Controller(scene, threaded=False, recovery=Recovery(path))
    fresh.apply(action("recover"))
    assert fresh.source == "built.json"
    np.testing.assert_allclose(fresh.world.pose("a")[:2], [0.06, 0.05], atol=1e-9)
    fresh.close()  # a clean end: nothing to offer next time
    assert Recovery(path).pending() is None
    with pytest.raises(ActionError, match="no unfinished session"):
        fresh.apply(action("recover"))


def test_a_recovered_session_keeps_its_supply_out_of_the_statics(tmp_path):
    # the Talo box: a block taken from the stock and set on the board; after a crash the rest of the stock is
    # still the supply (beside the board, not judged), not 60 pieces of a structure
    from sim.games.setup import setup

    now = [1000.0]
    path = tmp_path / "recovery.json"
    scene = setup("talo")
    supply = [p.id for p in scene.pieces]
    c = Controller(scene, threaded=False, recovery=Recovery(path, clock=lambda: now[0]), supply=supply)
    c.apply(action("pick", piece="b3-1"))
    c.apply(action("move-to", at=[61, 52]))
    c.apply(action("drop"))
    c.run_until_quiet()
    now[0] += 30.0
    c.tick(1 / 60)
    left = set(c.supply)
    assert "b3-1" not in left and len(left) == len(supply) - 1
    found = Recovery(path).pending()
    assert found is not None and set(found.supply) == left
    fresh = Controller(scene, threaded=False, recovery=Recovery(path))
    fresh.apply(action("recover"))
    fresh.run_until_quiet()
    assert fresh.supply == left
    v = fresh.verdict(wait=True)
    assert v.stands and {p.id for p in v.scene.pieces} == {"b3-1"}
    fresh.close()
    data = json.loads(path.read_text())
    data["supply"] = ["nobody"]
    path.write_text(json.dumps(data))
    with pytest.raises(RecoveryError, match="supply: expected a list of the scene's piece ids"):
        Recovery(path).read()


def test_an_autosave_that_cannot_be_written_is_said_and_loses_nothing(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    now = [0.0]
    scene = from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": []})
    c = Controller(scene, threaded=False, recovery=Recovery(blocker / "r.json", clock=lambda: now[0]))
    now[0] = 31.0
    c.tick(1 / 60)
    assert c.messages[-1].kind == "error" and "autosave" in c.messages[-1].text


def test_the_verdict_of_a_harmonic_stack_names_the_pieces_its_weakest_mode_moves():
    # a 4-block harmonic stack at 0.97 of its critical overhang: it stands, with the closed-form margin,
    # and the weakest direction points out along the overhang
    scene = harmonic_stack(4, 0.97, (120.0, 30.0, 24.0))
    v = judge(scene, 1)
    assert v.stands
    assert v.margin_g == pytest.approx(harmonic_margin(4, 0.97, (120.0, 30.0, 24.0)), rel=0.02)
    assert v.weakest_direction_deg == pytest.approx(0.0, abs=1.0) or v.weakest_direction_deg == pytest.approx(
        360.0, abs=1.0)
    assert v.mode == ("b4", "b3", "b2", "b1")  # the whole stack tips about the table's edge first
    over = judge(harmonic_stack(4, 1.05, (120.0, 30.0, 24.0)), 2)
    assert not over.feasible and over.mode == over.unheld and over.unheld


def test_beside_a_strong_column_a_weak_cantilever_falls_alone():
    # on a wide base: a column of three 40 mm cubes (tips at 20/60 = 0.33 g) and a 60 x 20 x 20 plank
    # reaching 29 mm past the base's edge (its centre 1 mm inside it: tips at 1/10 = 0.1 g, along +x)
    scene = free_scene(box_record("base", (200, 60, 20), (0, 0, 10)),
                       *[box_record(f"c{k}", (40, 40, 40), (-60, 0, 40 + 40 * k)) for k in range(3)],
                       box_record("plank", (60, 20, 20), (100 + 30 - 31, 0, 30)))
    v = judge(scene)
    assert v.stands and v.margin_g == pytest.approx(0.1, rel=0.02)
    assert v.weakest_direction_deg == pytest.approx(0.0, abs=1.0)
    assert v.mode == ("plank",)


def test_the_weakest_direction_arrow_starts_beyond_the_edge_of_what_gives_way_where_it_stands():
    # the cantilevered plank of the test above (its +x end at 129 mm): the arrow lies on the board just past
    # that end, pointing along +x, not under the plank where it would be hidden; turned a quarter, past its side
    from sim.viewer.window.drawing import ARROW_GAP, ARROW_MIN, weakest_arrow

    scene = free_scene(box_record("base", (200, 60, 20), (0, 0, 10)),
                       box_record("plank", (60, 20, 20), (99, 0, 30)))
    plank = scene.piece("plank")
    pose = np.array([[*plank.pos, *plank.quat]])
    v = judge(scene)
    assert v.mode == ("plank",)
    tail, floor, length = weakest_arrow([plank], pose, v.weakest_direction_deg)
    np.testing.assert_allclose(tail, [0.129 + ARROW_GAP, 0.0], atol=1e-6)
    assert floor == pytest.approx(0.02)  # on the base's top, where the plank stands: not hidden under the base
    assert length == ARROW_MIN  # half the plank's 60 mm is less than the least arrow
    tail, _, _ = weakest_arrow([plank], pose, 90.0)
    np.testing.assert_allclose(tail, [0.099, 0.010 + ARROW_GAP], atol=1e-6)
    both = [scene.piece("base"), plank]
    tail, floor, length = weakest_arrow(both, np.array([[*p.pos, *p.quat] for p in both]), 180.0)
    assert floor == pytest.approx(0.0, abs=1e-9)  # the board
    np.testing.assert_allclose(tail, [-0.1 - ARROW_GAP, 0.0], atol=1e-6)  # the base's -x end, on its mean line
    assert length == pytest.approx(0.5 * 0.229)  # half of what the two span, -100 to 129 mm


def test_contact_forces_carry_each_weight():
    scene = load_scene("scenes/free/cube-tower.json")
    v = judge(scene)
    points, forces = contact_forces(scene, v.interfaces)
    total = sum(p.mass for p in scene.pieces if not p.fixed) * 9.80665
    on_board = [f for f, pt in zip(forces, points) if abs(pt[2]) < 1e-6]
    assert sum(f[2] for f in on_board) == pytest.approx(total, rel=1e-6)  # the board carries every weight
    assert np.all(forces[:, 2] >= -1e-9)


def test_the_statics_worker_process_answers_feasibility_first_then_the_margin():
    from sim.viewer.control.stability import StaticsWorker

    scene = harmonic_stack(3, 0.9, (120.0, 30.0, 24.0))
    worker = StaticsWorker("process")
    try:
        worker.submit(scene, 7)
        final = worker.wait(timeout=120)
    finally:
        worker.close()
    inline = judge(scene, 7)
    assert final.revision == 7 and not final.partial and final.scene is scene
    assert final.margin_g == pytest.approx(inline.margin_g) and final.mode == inline.mode
    quick = judge(scene, 7, margin=False)
    assert quick.partial and quick.feasible and quick.stands and np.isnan(quick.margin_g)


def test_a_margin_the_statics_cannot_find_is_shown_as_unknown_not_as_a_fall(monkeypatch):
    import sim.viewer.control.stability as stability
    from sim.viewer.window.overlay import verdict_text

    real = stability.analyze

    def no_optimum(scene, interfaces=None, margin=True, **kw):
        if margin:
            raise RuntimeError("the margin LP has no optimum")
        return real(scene, interfaces, margin=False, **kw)

    monkeypatch.setattr(stability, "analyze", no_optimum)
    stack = harmonic_stack(3)
    v = judge(stack, 1)
    assert v.feasible and v.stands and v.error is None and v.margin_error == "the margin LP has no optimum"
    assert np.isnan(v.margin_g) and v.weakest_direction_deg is None and not v.unheld
    assert verdict_text(v, False) == "STANDS\nmargin unknown (the margin LP has no\n  optimum)"  # wrapped
    leaning = stack.with_poses({stack.pieces[-1].id: np.r_[0.5, 0.0, stack.pieces[-1].pos[2], 0, 0, 0, 1]})
    falls = judge(leaning, 2)  # what does not stand still says so
    assert not falls.feasible and not falls.stands and falls.unheld


def test_the_stability_panel_wraps_long_lists_of_pieces_inside_its_frame():
    from types import SimpleNamespace

    from sim.viewer.window.overlay import COLUMNS, verdict_text

    ids = tuple(f"green-small-noble-{k}" for k in range(6))
    stands = SimpleNamespace(error=None, empty=False, feasible=True, partial=False, margin_error=None, margin_g=0.35,
                             weakest_direction_deg=0.0, mode=ids, unheld=())
    text = verdict_text(stands, True)
    lines = text.split("\n")
    assert all(len(line) <= COLUMNS for line in lines) and len(lines) >= 4
    assert lines[:2] == ["STANDS  (judging the latest change ...)", "margin 0.350 g toward 0°"]
    assert "green-small-noble-0" in text and lines[3].startswith("  ")  # continued, indented
    falls = SimpleNamespace(**{**vars(stands), "feasible": False, "unheld": ids * 2})
    lines = verdict_text(falls, False).split("\n")
    assert lines[0] == "FALLS" and len(lines) <= 4 and all(len(line) <= COLUMNS for line in lines)
