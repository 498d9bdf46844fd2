"""The viewer's extension seam, headless: a referee plug-in observes, vetoes, rejects drops, limits the hot
seat, keeps a clock and adds its own actions (scripted and undone like the built-in ones); a session is
recorded as it goes; a world of handed-in poses is drawn and hovered like a live one."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import pytest

from sim.replay import RecordingError, load_recording
from sim.viewer.control.actions import ActionError, Field, action, parse_actions, specs_with
from sim.viewer.control.controller import FRAME, Controller
from sim.viewer.control.plugins import SessionPlugin
from sim.viewer.control.posed import PosedWorld, ReadOnlyWorldError
from sim.viewer.control.recording import SessionRecording
from sim.viewer.control.script import ScriptRunner
from tests.test_viewer_controller import do, pose, session, talo


def _cell(v):
    if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) for x in v)):
        raise ValueError(f"expected [column, row], got {v!r}")
    return tuple(v)


class Referee(SessionPlugin):
    """A small game: two players take turns; each may only touch their own blocks; a drop on the left half
    of the board is against the rules; ``roll`` and ``end-turn`` are its own actions."""

    name = "referee"
    actions = {"roll": {}, "end-turn": {}, "walk": {"pawn": Field(str, None, "the pawn"),
                                                    "to": Field(_cell, None, "the field")}}
    undoable = ("end-turn", "walk")

    def __init__(self):
        self.turn = 0
        self.rolls = 0
        self.seen: list[str] = []
        self.kinds: list[str] = []
        self.events = []
        self.clock = 0.0
        self.forbid: str | None = None
        self.walked: list[tuple] = []

    @property
    def player(self):
        return ("ann", "bob")[self.turn]

    def attach(self, controller):
        controller.player = self.player

    def check(self, controller, a):
        return f"{a.name} is not allowed now" if a.name == self.forbid else None

    def may_use(self, controller, piece, hand):
        if piece is not None and controller.world.piece(piece).owner not in (None, self.player):
            return f"{piece} belongs to {controller.world.piece(piece).owner}; it is {self.player}'s turn"
        return None

    def perform(self, controller, a):
        if a.name == "roll":
            self.rolls += 1
        elif a.name == "end-turn":
            self.turn = 1 - self.turn
            controller.player = self.player
        else:
            self.walked.append((a["pawn"], a["to"]))

    def applied(self, controller, a):
        self.seen.append(a.name)

    def judge_drop(self, controller, hand, piece, pose):
        return "not on the left half of the board" if pose[0] < 0.0 else None

    def event(self, controller, e):
        self.kinds.append(e.kind)
        self.events.append(e)

    def tick(self, controller, dt):
        self.clock += dt

    def state(self):
        return (self.turn, tuple(self.walked))

    def restore(self, state):
        self.turn, walked = state
        self.walked = list(walked)


def owned():
    scene = talo(("a", 1, (7, 7), 0, "x"), ("b", 1, (7, 3), 0, "x"))
    return scene.with_pieces([p if p.id != "b" else replace(p, owner="bob") for p in scene.pieces])


def test_a_referee_sees_every_action_and_the_events_with_their_causes():
    ref = Referee()
    c = session(owned(), plugins=[ref])
    do(c, "pick", piece="a")
    do(c, "move-to", at=[50.0, 50.0])
    do(c, "drop")
    assert ref.seen == ["pick", "move-to", "drop"]
    assert ref.kinds == ["picked", "dropped"]
    picked = next(e for e in ref.events if e.kind == "picked")
    assert picked.pieces == ("a",) and picked.cause.name == "pick" and picked.cause.player == "ann"
    do(c, "undo")
    assert ref.kinds[-1] == "restored"


def test_a_veto_refuses_the_action_with_its_reason_said():
    ref = Referee()
    c = session(owned(), plugins=[ref])
    ref.forbid = "poke"
    with pytest.raises(ActionError, match="poke is not allowed now"):
        c.apply(action("poke", piece="a"))
    assert c.messages[-1].kind == "refused" and "not allowed" in c.messages[-1].text
    assert not c.undo.undo and "poke" not in ref.seen


def test_a_rejected_drop_goes_back_where_it_was_picked_and_leaves_no_undo_step():
    ref = Referee()
    c = session(owned(), plugins=[ref])
    start = pose(c, "a").copy()
    do(c, "pick", piece="a")
    do(c, "move-to", at=[-50.0, 50.0])  # the left half: against this referee's rule
    do(c, "drop")
    assert not c.hands
    np.testing.assert_allclose(pose(c, "a")[:3], start[:3], atol=2e-3)
    assert any(m.kind == "refused" and "left half" in m.text for m in c.messages)
    assert "rejected" in ref.kinds and "dropped" not in ref.kinds
    assert not c.undo.undo  # nothing happened that could be undone
    do(c, "pick", piece="a")  # and an accepted drop is kept
    do(c, "move-to", at=[50.0, -50.0])
    do(c, "drop")
    assert pose(c, "a")[0] > 0.0 and c.undo.undo[-1].label == "pick-and-drop of a"


def test_a_rejected_drop_from_the_supply_goes_back_into_the_supply():
    ref = Referee()
    scene = owned()
    c = session(scene, plugins=[ref], supply=("a",))
    do(c, "pick", piece="a")
    assert "a" not in c.supply
    do(c, "move-to", at=[-50.0, 50.0])
    do(c, "drop")
    assert "a" in c.supply


def test_the_hot_seat_limits_the_pieces_and_its_actions_are_undone_with_its_state():
    ref = Referee()
    c = session(owned(), plugins=[ref])
    assert c.player == "ann"
    with pytest.raises(ActionError, match="belongs to bob"):
        c.apply(action("pick", piece="b"))
    c.apply(action("end-turn", specs=specs_with([ref])))
    assert c.player == "bob" and ref.turn == 1
    do(c, "pick", piece="b")  # bob's block, on bob's turn
    do(c, "cancel")
    c.apply(action("walk", specs=specs_with([ref]), pawn="p", to=[1, 2]))
    assert ref.walked == [("p", (1, 2))]
    do(c, "undo")  # the walk
    assert ref.walked == [] and ref.turn == 1
    do(c, "undo")  # the end of the turn
    assert ref.turn == 0
    c.apply(action("roll", specs=specs_with([ref])))  # not undoable: no step
    assert ref.rolls == 1 and c.undo.undo == []


def test_own_actions_run_from_a_script_and_unknown_ones_are_named():
    ref = Referee()
    c = session(owned(), plugins=[ref])
    specs = specs_with([ref])
    script = parse_actions('[{"action": "roll"},\n {"action": "end-turn"},\n {"action": "wait", "seconds": 0.5}]',
                           "game.json", specs)
    ScriptRunner(c, script, lambda r: None).run()
    assert ref.rolls == 1 and ref.turn == 1
    assert ref.clock == pytest.approx(c.session_time) and c.session_time >= 0.5 - 1e-9
    with pytest.raises(ActionError, match=r"game.json:1: actions\[0\].action: unknown action \"roll\""):
        parse_actions('[{"action": "roll"}]', "game.json")  # without the plug-in: unknown
    with pytest.raises(ValueError, match="taken"):
        specs_with([type("Bad", (SessionPlugin,), {"actions": {"pick": {}}})()])


def test_the_session_clock_ticks_paused_or_not():
    ref = Referee()
    c = session(owned(), plugins=[ref])
    c.apply(action("pause"))
    c.tick(0.05)
    c.frame()
    assert ref.clock == pytest.approx(0.05 + FRAME) and c.world.time == pytest.approx(FRAME, abs=1e-9)


def _readable(path, seconds: float = 10.0):
    """The recording as it is now, once its writing thread has written the first whole second."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return load_recording(path)
        except RecordingError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_a_session_is_recorded_as_it_goes_and_closed_at_the_end(tmp_path):
    path = tmp_path / "rec" / "s.tlrec"
    rec = SessionRecording(path, seed=7)
    c = session(owned(), plugins=[rec])
    do(c, "pick", piece="a")
    do(c, "move-to", at=[50.0, 50.0])
    do(c, "drop")
    c.run(1.5)
    early = _readable(path)  # written as it goes: readable before the end (what a crash leaves)
    assert not early.complete and [a.kind for a in early.actions][:3] == ["pick", "move_to", "drop"]
    do(c, "poke", piece="a", direction=[1.0, 0.0, 0.0], speed=0.2)
    do(c, "undo")
    c.close()
    done = load_recording(path)
    assert done.complete and done.game == "talo" and done.header["seed"] == 7
    kinds = [e.kind for e in done.events]
    assert "picked" in kinds and "dropped" in kinds and "restored" in kinds
    picked = next(e for e in done.events if e.kind == "picked")
    assert done.cause(picked).kind == "pick" and done.cause(picked).actor is None
    t_drop = next(e.time for e in done.events if e.kind == "dropped")
    ids, poses = done.poses_at(t_drop + 1.0)
    np.testing.assert_allclose(poses[ids.index("a")][:2], [0.05, 0.05], atol=3e-3)
    times = done.times
    assert np.all(np.diff(times) > 0)  # recording time never goes back, undo or not


def test_a_recording_that_cannot_be_written_is_said_and_the_session_goes_on(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    rec = SessionRecording(blocker / "s.tlrec")
    c = session(owned(), plugins=[rec])
    assert rec.error and any(m.kind == "error" and "recording stopped" in m.text for m in c.messages)
    do(c, "pick", piece="a")
    do(c, "drop")
    c.close()


def test_a_posed_world_shows_handed_poses_and_refuses_changes():
    scene = owned()
    c = Controller(scene, world_factory=PosedWorld)
    world = c.world
    poses = scene.poses()
    poses[0, 0] += 0.02
    world.show(1.25, scene.ids, poses)
    assert world.time == 1.25 and world.moving() == ["a"]
    np.testing.assert_allclose(c.scene().piece("a").pos[0], poses[0, 0])
    world.show(1.3, scene.ids, poses)
    assert world.moving() == []
    a = poses[0, :3]
    hit = world.ray_test(a + [0.0, 0.0, 0.5], a - [0.0, 0.0, 0.5])  # straight down onto "a"
    top = a[2] + scene.piece("a").shape.vertices[:, 2].max()
    assert hit.piece == "a" and hit.point[2] == pytest.approx(top, abs=1e-9)  # its top face
    assert hit.normal[2] == pytest.approx(1.0)
    assert world.ray_test(a + [0.3, 0.3, 0.5], a + [0.3, 0.3, -0.5]) is None
    with pytest.raises(ReadOnlyWorldError, match="cannot be changed"):
        c.apply(action("pick", piece="a"))
    with pytest.raises(ValueError, match="not known"):
        world.show(2.0, ["ghost"], np.zeros((1, 7)))
    c.tick(0.1)
    assert c.real_time_factor == pytest.approx(1.0)
