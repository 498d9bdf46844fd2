"""The viewer's controller, headless: every action and its undo, the hands, time, save and load."""

from __future__ import annotations

import numpy as np
import pytest

from sim.scene import from_dict, load_scene
from sim.viewer.control.actions import ActionError, action
from sim.viewer.control.controller import FRAME, Controller
from sim.viewer.control.history import HISTORY_SECONDS


def talo(*blocks, pawns=()):
    """A Talo scene: blocks as (id, length, cell, layer, axis)."""
    pieces = [{"id": i, "kind": "talo.block", "length": n, "cell": list(c), "layer": k, "axis": a}
              for i, n, c, k, a in blocks]
    pieces += [{"id": f"pawn-{c}", "kind": "talo.pawn", "color": c, "cell": list(cell), "layer": 0}
               for c, cell in pawns]
    return from_dict({"format": "towerlab-scene/1", "game": "talo", "pieces": pieces})


def session(scene, **kw) -> Controller:
    return Controller(scene, threaded=False, **kw)


def do(c: Controller, name: str, settle: bool = True, **fields):
    c.apply(action(name, **fields))
    if settle:
        c.run_until_quiet()


def pose(c, pid):
    return c.world.pose(pid)


@pytest.fixture
def two_blocks():
    return talo(("a", 3, (2, 2), 0, "x"), ("b", 1, (7, 7), 0, "x"))


def test_pick_move_drop_snaps_to_the_talo_grid_and_undo_puts_it_back(two_blocks):
    c = session(two_blocks)
    start = pose(c, "b").copy()
    do(c, "pick", piece="b")
    assert c.mode == "carry" and c.hands["right"].piece == "b"
    assert pose(c, "b")[2] > start[2] + 0.01  # lifted clear of the board
    do(c, "move-to", at=[-47.0, -53.0])  # over field (2, 2) where "a" lies, a little off its centre
    carry = c.carries["right"]
    assert carry.snapped == "field (2, 2)"
    np.testing.assert_allclose(carry.ghost[:2], [-0.05, -0.05], atol=1e-12)  # the field's centre
    assert carry.ghost[2] == pytest.approx(0.03, abs=1e-6)  # on top of "a": layer 1
    assert carry.under == ("a",)
    do(c, "drop")
    assert c.mode == "build" and not c.hands
    np.testing.assert_allclose(pose(c, "b")[:3], [-0.05, -0.05, 0.03], atol=2e-4)
    assert c.undo.undo[-1].label == "pick-and-drop of b"  # one step for the whole carry
    v = c.verdict(wait=True)
    assert v.feasible and v.stands
    assert c.describe("b")["rests_on"] == ["a"] and c.describe("a")["carries"] == ["b"]
    do(c, "undo")
    np.testing.assert_allclose(pose(c, "b"), start, atol=1e-9)
    do(c, "redo")
    np.testing.assert_allclose(pose(c, "b")[:3], [-0.05, -0.05, 0.03], atol=2e-4)


def test_free_placement_does_not_snap(two_blocks):
    c = session(two_blocks)
    do(c, "pick", piece="b")
    do(c, "move-to", at=[-47.0, -53.0], free=True)
    assert c.carries["right"].snapped is None
    np.testing.assert_allclose(c.carries["right"].ghost[:2], [-0.047, -0.053], atol=1e-12)


def test_rotate_tip_lift_lower_and_each_undo(two_blocks):
    c = session(two_blocks)
    do(c, "pick", piece="a")
    do(c, "move-to", at=[30.0, -70.0])
    before = c.carries["right"].target.copy()
    do(c, "rotate", degrees=90)
    turned = c.carries["right"].target
    assert turned[5:7] @ [1, 0] != pytest.approx(before[5:7] @ [1, 0])  # the heading changed
    assert c.carries["right"].snapped.startswith("field")
    do(c, "tip", axis="y")  # about its own length, now along y: nothing changes
    assert c.carries["right"].ghost[2] == pytest.approx(0.01, abs=2e-6)
    do(c, "tip")  # across its heading: it stands on end, 60 mm tall
    fp = c.carries["right"]
    assert fp.ghost[2] == pytest.approx(0.03, abs=2e-6)  # centre of a standing 3 on the board
    high = fp.target[2]
    do(c, "lift", mm=20)
    assert c.carries["right"].target[2] == pytest.approx(high + 0.02)
    do(c, "lower", mm=5)
    assert c.carries["right"].target[2] == pytest.approx(high + 0.015)
    labels = [e.label for e in c.undo.undo]
    assert labels == ["pick of a", "rotate 90° a", "tip over a", "tip over a", "lift a", "lower a"]
    do(c, "undo")  # the lowering
    assert c.carries["right"].target[2] == pytest.approx(high + 0.02)
    do(c, "undo")
    do(c, "undo")  # the tip
    assert c.carries["right"].ghost[2] == pytest.approx(0.01, abs=2e-6)
    do(c, "drop")
    assert [e.label for e in c.undo.undo] == ["pick-and-drop of a"]
    assert pose(c, "a")[2] == pytest.approx(0.01, abs=3e-4)


def test_cancel_puts_the_piece_back(two_blocks):
    c = session(two_blocks)
    start = pose(c, "a").copy()
    do(c, "pick", piece="a")
    do(c, "move-to", at=[60.0, 60.0])
    do(c, "cancel")
    assert not c.hands and not c.undo.undo
    np.testing.assert_allclose(pose(c, "a")[:3], start[:3], atol=3e-4)


def test_one_hand_in_talo_two_in_tohuwabohu_each_holding_one_piece():
    c = session(talo(("a", 1, (0, 0), 0, "x"), ("b", 1, (5, 5), 0, "x")))
    do(c, "pick", piece="a")
    with pytest.raises(ActionError, match="hand: the right hand already holds 'a'"):
        c.apply(action("pick", piece="b"))
    with pytest.raises(ActionError, match="one hand at a time"):
        c.apply(action("pick", piece="b", hand="left"))
    tohu = from_dict({"format": "towerlab-scene/1", "game": "tohuwabohu", "pieces": [
        {"id": f"s{k}", "kind": "tohuwabohu.brick", "size": "small", "color": "red", "pos": [k * 50 - 50, 0, 10]}
        for k in range(3)]})
    c = session(tohu)
    do(c, "pick", piece="s0", hand="right")
    do(c, "pick", piece="s1", hand="left")
    assert c.world.held() == {"right": "s0", "left": "s1"}
    for hand in ("right", "left"):
        with pytest.raises(ActionError, match=f"the {hand} hand already holds"):
            c.apply(action("pick", piece="s2", hand=hand))
    do(c, "move-to", at=[0, 60], hand="left")
    do(c, "drop", hand="left")
    assert c.world.held() == {"right": "s0"}
    do(c, "pick", piece="s2", hand="left")
    assert c.world.held() == {"right": "s0", "left": "s2"}


def test_a_drop_the_statics_reject_is_shown_as_falling():
    c = session(talo(("base", 1, (4, 4), 0, "z"), ("top", 1, (0, 0), 0, "x")))
    do(c, "pick", piece="top")
    # over the edge of the standing block: its centre 13 mm out from the base's centre, 3 mm past its edge
    do(c, "move-to", at=[3.0, -10.0, 20.0], free=True)
    do(c, "drop", settle=False)
    c.run(0.2)
    v = c.verdict(wait=True)
    assert not v.feasible and "top" in v.unheld and "top" in v.mode
    c.run_until_quiet()
    assert pose(c, "top")[2] < 0.015  # it fell to the board
    knocked = [e for e in c.events if e.kind == "knocked_down"]
    assert knocked and "top" in knocked[0].pieces and knocked[0].cause.name == "drop"
    assert knocked[0].cause.piece == "top"
    assert any(m.kind == "collapse" and "after the drop of top" in m.text for m in c.messages)


def test_poke_pushes_a_piece_and_undo_brings_it_back():
    c = session(talo(("a", 1, (4, 4), 0, "x")))
    start = pose(c, "a").copy()
    do(c, "poke", piece="a", direction=[1, 0, 0], speed=0.3)
    assert pose(c, "a")[0] > start[0] + 0.005  # slid along +x
    do(c, "undo")
    np.testing.assert_allclose(pose(c, "a"), start, atol=1e-9)


def test_an_undo_made_ahead_is_the_same_undo_bit_for_bit():
    """prepare_undo makes the undo's engine on the side (a window's idle frames); the undo then takes it
    whole, and what follows is what an undo made at once gives."""
    runs = []
    for ahead in (False, True):
        c = session(talo(("a", 3, (4, 4), 0, "x"), ("b", 1, (4, 4), 1, "y"), ("c", 2, (7, 2), 0, "x")))
        do(c, "poke", piece="b", direction=[1, 0, 0], speed=0.4)  # knocked off "a"
        do(c, "pick", piece="c")
        do(c, "move-to", at=[-5.0, -5.0])
        do(c, "drop")
        state = c.undo.undo[-1].moment.snapshot.state[0].state
        if ahead:
            calls = 1
            while not c.prepare_undo(0.0):  # a step a call, while the world stands
                calls += 1
                c.tick(FRAME)
            assert calls > 2 and state in c.world.live.world.prepared
        client = c.world.live.world.client
        do(c, "undo", settle=False)
        assert (c.world.live.world.client != client) == ahead  # the engine made ahead was taken whole
        do(c, "poke", piece="a", direction=[0, 1, 0], speed=0.6)
        runs.append(c.world.poses())
        do(c, "undo")  # the poke
        while ahead and not c.prepare_undo(0.01):  # then the next undo and the redo
            c.tick(FRAME)
        client = c.world.live.world.client
        do(c, "redo")
        assert (c.world.live.world.client != client) == ahead
        runs.append(c.world.poses())
        c.close()
    assert np.array_equal(runs[0], runs[2]) and np.array_equal(runs[1], runs[3])


def test_add_from_the_supply_or_new_and_remove_and_their_undo(two_blocks):
    c = session(two_blocks, supply=["b"])
    do(c, "add", kind="talo.block", params={"length": 1})
    assert c.hands["right"].piece == "b" and "b" not in c.supply  # taken from the supply
    do(c, "drop")
    do(c, "add", kind="talo.block", params={"length": 2}, at=[60, -60])
    new = c.hands["right"].piece
    assert new == "block-1" and c.world.piece(new).params["length"] == 2
    do(c, "drop")
    assert pose(c, new)[2] == pytest.approx(0.01, abs=3e-4)
    do(c, "remove", piece="a")
    assert "a" not in c.world.ids
    do(c, "undo")
    assert "a" in c.world.ids
    do(c, "undo")  # the new block
    assert new not in c.world.ids
    do(c, "undo")
    assert "b" in c.supply
    with pytest.raises(ActionError, match="kind: not a piece of the catalogue"):
        c.apply(action("add", kind="talo.cube"))


def test_unknown_pieces_and_impossible_actions_name_the_field(two_blocks):
    c = session(two_blocks)
    with pytest.raises(ActionError, match=r"^action 'pick'\.piece: no piece 'zz' in the scene$"):
        c.apply(action("pick", piece="zz"))
    with pytest.raises(ActionError, match="hand: the right hand holds nothing"):
        c.apply(action("drop"))
    with pytest.raises(ActionError, match="direction: must not be zero"):
        c.apply(action("poke", piece="a", direction=[0, 0, 0]))


def test_pause_step_speed_and_step_back_through_the_history():
    c = session(talo(("a", 1, (4, 4), 0, "x")))
    do(c, "pause", settle=False)
    t0 = c.world.time
    assert c.tick(0.05) is None and c.world.time == t0
    do(c, "step", settle=False, frames=3)
    assert c.world.time == pytest.approx(t0 + 3 * FRAME, abs=c.world.dt)
    do(c, "resume", settle=False)
    do(c, "speed", settle=False, factor=0.25)
    before = c.world.time
    c.tick(0.04)
    assert c.world.time - before == pytest.approx(0.01, abs=c.world.dt)
    do(c, "speed", settle=False, factor=1.0)
    c.run(HISTORY_SECONDS + 1.0)
    assert c.history.reach >= 10.0  # at least ten seconds to step back through
    now = c.world.time
    do(c, "step-back", settle=False, seconds=10.0)
    assert c.mode == "history" and c.paused
    assert c.world.time <= now - 10.0 + 1e-6 and c.world.time >= now - 10.2
    back = c.world.time
    do(c, "step-back", settle=False, seconds=0.5)
    assert c.world.time == pytest.approx(back - 0.5, abs=0.06)
    do(c, "resume", settle=False)
    assert c.mode == "build" and c.history.moments[-1].time == pytest.approx(c.world.time)


def test_reset_and_its_undo(two_blocks):
    c = session(two_blocks)
    do(c, "pick", piece="b")
    do(c, "move-to", at=[-50, -50])
    do(c, "drop")
    moved = pose(c, "b").copy()
    do(c, "reset", settle=False)
    assert c.world.time == 0.0
    np.testing.assert_allclose(pose(c, "b"), two_blocks.piece("b").pos + two_blocks.piece("b").quat, atol=1e-9)
    do(c, "undo", settle=False)
    np.testing.assert_allclose(pose(c, "b"), moved, atol=1e-9)


def test_save_and_load_round_trip_and_an_unwritable_place_loses_nothing(two_blocks, tmp_path):
    c = session(two_blocks)
    do(c, "pick", piece="b")
    do(c, "move-to", at=[-50, -50])
    out = tmp_path / "built.json"
    do(c, "save", path=str(out))  # while carrying: it is saved where it would land
    saved = load_scene(out)
    np.testing.assert_allclose(saved.piece("b").pos, [-0.05, -0.05, 0.03], atol=1e-9)
    assert c.source == str(out)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")  # a place nobody can write into, root included
    with pytest.raises(ActionError, match="path: .*cannot be written"):
        c.apply(action("save", path=str(blocker / "x.json")))
    assert c.messages[-1].kind == "error" and "nothing was lost" in c.messages[-1].text
    assert c.hands["right"].piece == "b"  # the session goes on
    do(c, "load", path=str(out))
    assert not c.hands and c.source == str(out)
    np.testing.assert_allclose(pose(c, "b")[:3], [-0.05, -0.05, 0.03], atol=1e-9)
    with pytest.raises(ActionError, match="path: .*missing.json"):
        c.apply(action("load", path=str(tmp_path / "missing.json")))


def test_camera_presets_orbit_pan_zoom_and_toggles(two_blocks):
    c = session(two_blocks, size=(640, 400))
    home = c.camera.goal
    do(c, "camera", settle=False, preset="top")
    assert c.camera.goal.elevation == pytest.approx(89.5)
    do(c, "orbit", settle=False, degrees=[30, -200])
    assert c.camera.goal.elevation >= 2.0  # never under the table
    eye = c.camera.view(c.camera.goal).eye
    assert eye[2] > c.camera.floor
    do(c, "camera", settle=False, preset="reset")
    assert c.camera.goal == home
    c.camera.current = c.camera.goal
    px = c.camera.pixel(pose(c, "a")[:3])
    do(c, "zoom", settle=False, factor=0.5, at=list(px))
    c.camera.current = c.camera.goal
    np.testing.assert_allclose(c.camera.pixel(c.point_at(*px)), px, atol=0.5)  # the point under the cursor stays
    do(c, "pan", settle=False, fraction=[0.1, 0.0])
    assert c.camera.goal.target != home.target
    do(c, "toggle", settle=False, what="contacts")
    assert c.toggles.contacts
    do(c, "hover", settle=False, piece="a")
    assert c.hovered == "a" and c.describe("a")["kind"] == "talo.block"
    do(c, "screenshot", settle=False, path="x.png", size=[320, 200])
    assert c.requests[-1].kind == "screenshot" and c.requests[-1].args["size"] == (320, 200)


def test_a_snapshot_restored_and_the_same_hand_work_give_the_same_poses_bit_for_bit():
    from sim.viewer.control.adapter import WorldAdapter

    world = WorldAdapter(talo(("a", 3, (2, 2), 0, "x"), ("b", 2, (6, 6), 0, "y")), threaded_statics=False)
    snap = world.snapshot()
    runs = []
    for _ in range(2):
        world.restore(snap)
        world.grab("right", "b")
        target = world.pose("b")
        target[:3] = [-0.05, -0.05, 0.06]
        world.move_hand("right", target)
        for _ in range(40):
            world.advance(1 / 60)
        world.release("right")
        world.push("a", world.pose("a")[:3], [0.002, 0.0, 0.0])
        for _ in range(30):
            world.advance(1 / 60)
        runs.append(world.poses())
    world.close()
    assert np.array_equal(runs[0], runs[1])
    assert not np.allclose(runs[0], snap.state[0].state.scene.poses())  # something did happen
