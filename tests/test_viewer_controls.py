"""The controls players expect, headless through the controller (actions are data): groups carried as one,
the flip, the pull (MuJoCo's perturbation), the camera moved at once by direct manipulation and following a
piece, and the game keys kept apart from the camera's."""

from __future__ import annotations

import numpy as np
import pytest

from sim.geometry.transforms import quat_to_matrix
from sim.scene import from_dict
from sim.viewer.control.actions import ActionError, RefusalError, action, specs_with
from sim.viewer.control.controller import Controller

BASE = [{"id": "base", "kind": "box", "size": [60, 30, 20], "pos": [0, 0, 10]},
        {"id": "mid", "kind": "box", "size": [30, 30, 30], "pos": [-10, 0, 35]}]
PAIR = [{"id": "a", "kind": "box", "size": [20, 40, 20], "pos": [90, 50, 10]},
        {"id": "b", "kind": "box", "size": [20, 20, 20], "pos": [120, 50, 10]},
        {"id": "c", "kind": "box", "size": [20, 20, 20], "pos": [120, 50, 30]}]


def free(*pieces) -> Controller:
    return Controller(from_dict({"format": "towerlab-scene/1", "game": "free", "pieces": list(pieces)}),
                      threaded=False)


def do(c: Controller, name: str, settle: bool = True, **fields):
    c.apply(action(name, specs=specs_with(c.plugins), **fields))
    if settle:
        c.run_until_quiet()


def pose(c, pid):
    return c.world.pose(pid)


def relative(c, a, b):
    """b's position in a's frame."""
    pa, pb = pose(c, a), pose(c, b)
    return quat_to_matrix(pa[3:]).T @ (pb[:3] - pa[:3])


# --- groups ---------------------------------------------------------------------------------------------


def test_a_group_is_carried_turned_and_set_down_as_one_and_is_one_undo_step():
    c = free(*BASE, *PAIR)
    start = {p: pose(c, p).copy() for p in "abc"}
    before = (relative(c, "a", "b"), relative(c, "a", "c"))
    do(c, "pick-group", pieces=["c", "b", "a"])
    s = c.hands["right"]
    assert s.piece in ("a", "b") and set(s.pieces) == {"a", "b", "c"}  # the anchor: one of the lowest
    assert c.mode == "carry" and set(c.in_hand()) == {"a", "b", "c"}
    do(c, "move-to", at=[40, -60])
    do(c, "rotate", degrees=90)
    carry = c.carries["right"]
    assert {k.piece for k in carry.all} == {"a", "b", "c"}
    for k in carry.all:  # every piece rides over the table at the carrying height, the relative poses kept
        assert pose(c, k.piece)[2] > start[k.piece][2] + 0.01
    np.testing.assert_allclose(relative(c, "a", "b"), before[0], atol=1.5e-3)
    np.testing.assert_allclose(relative(c, "a", "c"), before[1], atol=1.5e-3)
    do(c, "drop")
    assert not c.hands and c.mode == "build"
    for pid in "abc":  # set down exactly where the ghosts said, the poses in the group's frame kept
        np.testing.assert_allclose(pose(c, pid), [k.ghost for k in carry.all if k.piece == pid][0], atol=2e-4)
    np.testing.assert_allclose(relative(c, "a", "b"), before[0], atol=2e-4)
    assert pose(c, "a")[2] == pytest.approx(0.01, abs=2e-4) and pose(c, "c")[2] == pytest.approx(0.03, abs=2e-4)
    v = c.verdict(wait=True)
    assert v.stands and {"a", "b", "c"} <= set(v.scene.ids)  # the statics judge them, set down together
    assert c.undo.undo[-1].label.startswith("pick-and-drop of ")  # one step: the pick, the turn, the drop
    dropped = [e for e in c.events if e.kind == "dropped"]
    assert set(dropped[-1].pieces) == {"a", "b", "c"}
    do(c, "undo")
    for pid in "abc":
        np.testing.assert_allclose(pose(c, pid), start[pid], atol=1e-9)


def test_a_box_on_the_screen_takes_the_pieces_whose_middle_it_holds():
    c = free(*PAIR, {"id": "f", "kind": "box", "size": [20, 20, 20], "pos": [150, 50, 10], "fixed": True})
    cam = c.camera.view()
    at = {p: cam.project(pose(c, p)[:3].reshape(1, 3))[0] for p in ("a", "b", "f")}
    middle_c = cam.project((pose(c, "c")[:3]).reshape(1, 3))[0]
    assert c.pieces_in_box(at["a"] - 3, at["a"] + 3) == ["a"]
    lo, hi = np.minimum(at["a"], at["b"]) - 3, np.maximum(at["a"], at["b"]) + 3
    assert set(c.pieces_in_box(lo, hi)) == {"a", "b"} | ({"c"} if np.all((middle_c >= lo) & (middle_c <= hi))
                                                         else set())
    assert c.pieces_in_box(at["f"] - 3, at["f"] + 3) == []  # fixed: no part of a group
    assert c.pieces_in_box((0, 0), (3, 3)) == []
    do(c, "pick", piece="a")
    assert c.pieces_in_box(at["a"] - 3, at["a"] + 3) == []  # in a hand already


def test_a_group_turns_in_place_about_its_middle():
    c = free(*PAIR)
    do(c, "pick-group", pieces=["a", "b"], at=[100, 50])
    middle = (c.hands["right"].xy + np.array([0.03, 0.0]) / 2.0).copy()  # a's and b's origins' middle
    do(c, "rotate", degrees=90)
    s = c.hands["right"]
    targets = {k.piece: k.target[:2] for k in c.carries["right"].all}
    np.testing.assert_allclose((targets["a"] + targets["b"]) / 2.0, middle, atol=1e-9)
    np.testing.assert_allclose(targets["b"] - targets["a"], [0.0, 0.03], atol=1e-9)  # a quarter turn round
    do(c, "move-to", at=[100, 50])  # the hand holds it where it did: the same point, the same place
    np.testing.assert_allclose(s.xy, targets["a"], atol=1e-9)


def test_a_group_is_lowered_as_one_and_a_piece_that_meets_nothing_is_let_go_above_the_table():
    c = free(*BASE, *PAIR)
    do(c, "pick-group", pieces=["a", "c"])  # c stands on b: it rides 20 mm higher than a
    do(c, "move-to", at=[60, -80])
    do(c, "drop")
    assert pose(c, "a")[2] == pytest.approx(0.01, abs=3e-4)
    assert pose(c, "c")[2] == pytest.approx(0.01, abs=3e-4)  # let go 20 mm up, it fell to the table
    assert any(e.kind in ("fell", "knocked_down") and "c" in e.pieces for e in c.events)


def test_a_group_of_talo_blocks_lands_on_the_grid_and_esc_puts_it_back():
    blocks = [{"id": "x", "kind": "talo.block", "length": 2, "cell": [2, 2], "layer": 0, "axis": "x"},
              {"id": "y", "kind": "talo.block", "length": 1, "cell": [2, 3], "layer": 0, "axis": "x"}]
    c = Controller(from_dict({"format": "towerlab-scene/1", "game": "talo", "pieces": blocks}), threaded=False)
    start = {p: pose(c, p).copy() for p in "xy"}
    do(c, "pick-group", pieces=["x", "y"])
    do(c, "move-to", at=[13.0, -27.0])  # off the grid
    ghosts = {k.piece: k.ghost for k in c.carries["right"].all}
    grid = c.scene0.board_info.grid
    for pid, ghost in ghosts.items():  # both on fields: the anchor snapped, the other kept its place by it
        cells = (ghost[:2] - np.asarray(grid.origin)) / grid.cell
        frac = cells - np.floor(cells)
        assert np.all(np.isclose(frac, 0.5, atol=1e-6) | np.isclose(frac, 0.0, atol=1e-6)
                      | np.isclose(frac, 1.0, atol=1e-6)), (pid, cells)
    np.testing.assert_allclose(ghosts["y"][:2] - ghosts["x"][:2], start["y"][:2] - start["x"][:2], atol=1e-9)
    do(c, "cancel")
    assert not c.hands
    for pid in "xy":
        np.testing.assert_allclose(pose(c, pid), start[pid], atol=1e-9)
    assert c.undo.undo == []  # a carry put back leaves no step


def test_a_group_does_not_tip_or_flip_and_its_pieces_are_checked():
    c = free(*PAIR)
    with pytest.raises(ActionError, match="no piece 'zz'"):
        do(c, "pick-group", pieces=["a", "zz"])
    do(c, "pick-group", pieces=["a", "b"])
    with pytest.raises(ActionError, match="turns with R only"):
        do(c, "tip")
    with pytest.raises(ActionError, match="turns with R only"):
        do(c, "flip")
    with pytest.raises(ActionError, match="in a hand already"):
        do(c, "pick-group", pieces=["b", "c"], hand="left")
    with pytest.raises(ActionError, match="group: set the group down first"):
        do(c, "remove", piece="b")
    with pytest.raises(ActionError, match="2..1000 different"):
        action("pick-group", pieces=["a", "a"])


@pytest.mark.parametrize("game,rule", [("talo", "one-at-a-time"), ("tohuwabohu", "hands"),
                                       ("babylon", "one-by-one")])
def test_a_game_refuses_a_group_with_its_rule(game, rule):
    from sim.viewer.play.games import new_game
    from sim.viewer.play.mode import Referee

    g = new_game(game, ("red", "blue", "green"))
    referee = Referee(g)
    c = Controller(g.scene, threaded=False, supply=g.supply, plugins=[referee])
    if game == "talo":
        for cell in ([0, 0], [0, 9], [9, 0]):
            do(c, "start", cell=cell)
    mine = [p.id for p in c.scene().pieces if p.kind != "talo.pawn" and (p.owner in (None, "red")
                                                                         or p.params.get("color") == "red")][:2]
    with pytest.raises(RefusalError):
        do(c, "pick-group", pieces=mine)
    assert not c.hands
    assert referee.refusal["rule"] == rule
    assert g.session.refusals()[-1]["rule"] == rule


# --- the flip --------------------------------------------------------------------------------------------


def test_the_flip_turns_a_piece_upside_down_in_place_and_twice_is_no_flip():
    c = free({"id": "arch", "kind": "tohuwabohu.arch", "pos": [0, 0, 20]})
    start = pose(c, "arch").copy()
    do(c, "pick", piece="arch")
    do(c, "flip")
    up = quat_to_matrix(c.hands["right"].quat)[:, 2]
    np.testing.assert_allclose(up, [0.0, 0.0, -1.0], atol=1e-12)  # its own up points down
    do(c, "flip")
    np.testing.assert_allclose(quat_to_matrix(c.hands["right"].quat), quat_to_matrix(start[3:]), atol=1e-12)
    do(c, "flip")
    do(c, "move-to", at=[0, 0])
    do(c, "drop")
    assert quat_to_matrix(pose(c, "arch")[3:])[2, 2] == pytest.approx(-1.0, abs=1e-3)  # on its crown
    np.testing.assert_allclose(pose(c, "arch")[:2], start[:2], atol=2e-4)
    assert c.undo.undo[-1].label == "pick-and-drop of arch"


# --- the pull ---------------------------------------------------------------------------------------------


def test_a_pull_drags_a_piece_off_a_tower_is_one_undo_step_and_names_itself_as_the_cause():
    c = free(*BASE, *PAIR)
    start = {p: pose(c, p).copy() for p in c.world.ids}
    at = (pose(c, "c")[:3] + [0.01, 0.0, 0.0]) * 1000.0
    do(c, "pull", settle=False, piece="c", at=list(at), to=list(at))
    assert set(c.world.pulls()) == {"c"} and c.undo.undo[-1].label == "pull of c"
    for k in range(40):  # the spring's end swept sideways and up: c is dragged off b
        do(c, "pull", settle=False, piece="c", to=list(at + [2.0 * k, 0.0, k]))
        c.frame()
    spring = c.world.pulls()["c"]
    assert 0.0 < spring.load <= 1.0
    assert np.linalg.norm(spring.point - spring.target) < 0.05  # the point followed the spring's end
    assert "c" not in set(c.verdict(wait=True).scene.ids)  # a pulled piece is held by its spring, not judged
    do(c, "release-pull")
    assert c.world.pulls() == {}
    assert pose(c, "c")[0] > start["c"][0] + 0.03 and pose(c, "c")[2] == pytest.approx(0.01, abs=1e-3)
    assert "c" in c.world.live.held  # at rest, the statics hold it again
    knocked = [e for e in c.events if e.kind == "knocked_down" and "c" in e.pieces]
    assert knocked and knocked[0].cause.name == "pull" and knocked[0].cause.piece == "c"
    assert [m.text for m in c.messages if m.kind == "collapse"][-1].endswith("after the pull of c")
    do(c, "undo")  # the pull and what it knocked over: back as before
    for pid, p in start.items():
        np.testing.assert_allclose(pose(c, pid), p, atol=1e-9)
    assert c.world.pulls() == {}


def test_a_pull_needs_empty_hands_on_the_piece_a_movable_piece_and_a_point_to_start():
    c = free(*PAIR)
    with pytest.raises(ActionError, match="not pulled yet"):
        do(c, "pull", piece="a", to=[0, 0, 50])
    do(c, "pick", piece="a")
    with pytest.raises(ActionError, match="in the right hand"):
        do(c, "pull", piece="a", at=[90, 50, 10], to=[90, 50, 50])
    fixed = free({"id": "f", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10], "fixed": True})
    with pytest.raises(ActionError, match="fixed"):
        do(fixed, "pull", piece="f", at=[0, 0, 10], to=[0, 0, 50])


# --- the camera -------------------------------------------------------------------------------------------


def test_direct_manipulation_moves_the_camera_at_once_and_only_jumps_glide():
    c = free(*BASE, *PAIR)
    for name, fields in (("orbit", {"degrees": [10, 5]}), ("pan", {"fraction": [0.1, 0.0]}),
                         ("pan", {"fraction": [0.1, 0.2], "plane": "table"}), ("zoom", {"factor": 0.8}),
                         ("zoom", {"factor": 0.8, "at": [700, 300]})):
        was = c.camera.current
        do(c, name, settle=False, **fields)
        assert c.camera.current == c.camera.goal != was, name  # drawn by the very next frame: no lag
    for preset in ("top", "reset", "frame"):
        was = c.camera.current
        do(c, "camera", settle=False, preset=preset)
        assert c.camera.current == was != c.camera.goal, preset  # a jump glides there
        for _ in range(20):  # 2 s
            c.tick(0.1)
        assert c.camera.current == c.camera.goal


@pytest.mark.parametrize("azimuth", [-52.0, 130.0])
def test_the_keyboards_pan_moves_over_the_table_along_the_view_keeping_the_height(azimuth):
    from dataclasses import replace

    c = free(*BASE)
    c.camera.send(replace(c.camera.goal, azimuth=azimuth), at_once=True)
    target, eye = np.asarray(c.camera.goal.target), c.camera.view().eye
    h = 2.0 * c.camera.goal.distance * np.tan(np.radians(c.camera.view().fov_y) / 2.0)
    do(c, "pan", settle=False, fraction=[0.0, 0.25], plane="table")
    moved = np.asarray(c.camera.goal.target) - target
    ahead = (target - np.asarray(eye))[:2]
    assert moved[2] == 0.0 and np.linalg.norm(moved) == pytest.approx(0.25 * h)
    assert moved[:2] @ ahead / (np.linalg.norm(moved) * np.linalg.norm(ahead)) == pytest.approx(1.0)  # forward
    do(c, "pan", settle=False, fraction=[0.25, -0.25], plane="table")
    side = np.asarray(c.camera.goal.target) - target
    assert np.cross(np.r_[ahead, 0.0], side)[2] < 0  # to the right of the view


def test_the_camera_follows_a_piece_frame_by_frame_holds_still_while_the_mouse_moves_it_and_a_pan_stops_it():
    c = free(*BASE, *PAIR)
    do(c, "follow", settle=False, piece="c")
    np.testing.assert_array_equal(c.camera.current.target, pose(c, "c")[:3])
    do(c, "poke", settle=False, piece="c", direction=[1, 0, 0], speed=0.4)  # knocked off b: it falls and rolls
    seen = []
    for _ in range(60):
        c.frame()
        np.testing.assert_array_equal(c.camera.current.target, pose(c, "c")[:3])  # never a frame behind
        seen.append(pose(c, "c")[:3])
    assert np.ptp(np.array(seen)[:, 0]) > 0.01
    c.run_until_quiet()
    held = np.asarray(c.camera.goal.target)
    do(c, "pick", piece="c")
    do(c, "move-to", at=[0, -80])  # the mouse moves it: the camera holds still (or it would run away)
    np.testing.assert_array_equal(c.camera.goal.target, held)
    do(c, "drop")
    np.testing.assert_array_equal(c.camera.current.target, pose(c, "c")[:3])  # on it again, set down
    distance = c.camera.goal.distance
    do(c, "zoom", settle=False, factor=0.5, at=[10, 10])  # about the followed piece, not the cursor
    np.testing.assert_array_equal(c.camera.current.target, pose(c, "c")[:3])
    assert c.camera.goal.distance == pytest.approx(distance * 0.5)
    do(c, "pan", settle=False, fraction=[0.1, 0.0])
    assert c.following is None and "no longer following c" in c.messages[-1].text
    do(c, "follow", settle=False, piece="b")
    do(c, "remove", piece="b", settle=False)
    c.frame()
    assert c.following is None and "b left the table" in c.messages[-1].text
    with pytest.raises(ActionError, match="no piece 'zz'"):
        do(c, "follow", piece="zz")


# --- the keys ---------------------------------------------------------------------------------------------


CAMERA_KEYS = {"w", "a", "s", "d", "q", "e", "arrow_up", "arrow_down", "arrow_left", "arrow_right", "f", "l", "z"}


def _game_windows():
    from sim.viewer.play.games import new_game
    from sim.viewer.play.mode import Referee
    from sim.viewer.window.play.draw import PlayWindow
    from sim.viewer.window.play.draw_fast import FastWindow

    for game, variant in (("talo", None), ("talo", "fantasy"), ("tohuwabohu", None), ("tohuwabohu", "pro"),
                          ("babylon", None), ("babylon", "fast")):
        players = ("red", "blue", "green")
        g = new_game(game, players, variant) if variant else new_game(game, players)
        window = (FastWindow if variant == "fast" else PlayWindow)(Referee(g))
        yield f"{game}-{variant}", window.controls()


def test_the_games_keys_leave_the_camera_keys_alone_and_one_action_has_one_key_in_every_game():
    from sim.viewer.control.keys import CONTROLS

    viewer = {e for c in CONTROLS for e in c.events}
    keys_of: dict[str, set] = {}
    for name, controls in _game_windows():
        for control in controls:
            assert not set(control.events) & CAMERA_KEYS, (name, control.keys)
            assert not set(control.events) & viewer, (name, control.keys)  # no game key shadows the viewer's
            keys_of.setdefault(control.help.split(" (")[0].split(":")[0], set()).add(control.keys)
    assert keys_of["end the turn"] == {"Enter"}
    assert keys_of["throw the die"] == {"X"}
    assert {"End"} == keys_of["done"] == keys_of["the goal is reached"]


class _Watcher:
    """A MouseWatcher's view of the keyboard: the buttons down now."""

    def __init__(self):
        self.down: set[str] = set()

    def is_button_down(self, button) -> bool:
        return button.get_name() in self.down


def test_a_camera_key_moves_only_when_pressed_on_its_own_whatever_is_let_go_first():
    from direct.showbase.MessengerGlobal import messenger

    from sim.viewer.window.keycam import KeyCamera

    keycam, watcher = KeyCamera(), _Watcher()
    try:
        # Ctrl+S, Ctrl let go first: S is down alone for a frame, and that frame does not move the camera
        watcher.down = {"control", "lcontrol", "s"}
        messenger.send("control-s")
        assert keycam.actions(watcher, 0.2) == []
        watcher.down = {"s"}
        assert keycam.actions(watcher, 0.2) == []
        watcher.down = set()
        assert keycam.actions(watcher, 0.2) == []
        # S on its own moves the camera back while it is held, Shift faster; let go, no more
        watcher.down = {"s"}
        messenger.send("s")
        ((name, fields),) = keycam.actions(watcher, 0.2)
        assert name == "pan" and fields["fraction"][0] == 0.0 and fields["fraction"][1] < 0.0
        watcher.down = {"s", "shift", "lshift"}
        ((_, faster),) = keycam.actions(watcher, 0.2)
        assert faster["fraction"][1] == pytest.approx(3.0 * fields["fraction"][1])
        watcher.down = {"s", "control", "lcontrol"}  # Ctrl pressed while S is held: nothing moves
        assert keycam.actions(watcher, 0.2) == []
        watcher.down = set()
        assert keycam.actions(watcher, 0.2) == []
        watcher.down = {"s"}  # down again with no press seen: still nothing
        assert keycam.actions(watcher, 0.2) == []
        # Shift+Q is a press on its own too: a turn
        watcher.down = {"q", "shift", "lshift"}
        messenger.send("shift-q")
        ((name, _),) = keycam.actions(watcher, 0.2)
        assert name == "orbit"
    finally:
        keycam.close()
