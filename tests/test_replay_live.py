"""Recording a live world and playing it back: exact poses, events with their cause, the cursor, re-simulation."""

from __future__ import annotations

import numpy as np
import pytest

from sim.physics.live import LiveWorld
from sim.replay import Recorder, ReplayError, ReplayPlayer, load_recording
from sim.replay.resimulate import AT_REST, EXACT
from sim.replay.script import play_script
from sim.scene import from_dict

BOX = 20.0  # mm


def tower_scene():
    pieces = [{"id": f"t{k}", "kind": "box", "size": [BOX] * 3, "pos": [0, 0, BOX * (k + 0.5)]} for k in range(6)]
    pieces.append({"id": "block", "kind": "box", "size": [BOX] * 3, "pos": [-100, 0, BOX / 2]})
    return from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "players": ["ana"],
                      "pieces": pieces}, "<replay test>")


CARRY_INTO_THE_TOWER = [
    {"kind": "grab", "piece": "block", "hand": "right", "player": "ana"},
    {"kind": "carry", "hand": "right", "to": [-0.1, 0.0, 0.03], "seconds": 0.5},
    {"kind": "carry", "hand": "right", "to": [0.08, 0.0, 0.03], "seconds": 0.5},
    {"kind": "release", "hand": "right", "player": "ana"},
    {"kind": "wait", "seconds": 1.2},
]


def same_bits(a, b) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """A hand carries a block into a six-block tower and knocks it down; the live poses of every frame kept."""
    path = tmp_path_factory.mktemp("live") / "session.tlrec"
    frames = []
    with LiveWorld(tower_scene()) as lw, Recorder(path, sync=False) as rec:
        rec.start_live(lw, seed=11, players=["ana"])
        frames.append((lw.time, list(lw.ids), lw.poses()))
        play_script(lw, CARRY_INTO_THE_TOWER, rec, on_frame=lambda w: frames.append((w.time, list(w.ids), w.poses())))
        actions, events = list(lw.actions), list(lw.events)
    return load_recording(path), frames, actions, events


def test_replayed_poses_equal_the_live_runs_bit_for_bit(session):
    r, frames, _, _ = session
    assert len(r.times) == len(frames) == 1 + 30 * 2 + 72
    for g, (t, ids, poses) in enumerate(frames):
        got_ids, got = r.frame(g)
        assert r.times[g] == t and got_ids == ids and same_bits(got, poses), f"frame {g} at {t} s"
    player = ReplayPlayer(r)
    for t, _, poses in frames[::17]:
        player.seek(t)
        assert same_bits(player.poses()[1], poses)


def test_actions_and_events_are_the_live_worlds_with_their_cause(session):
    r, _, actions, events = session
    world = [a for a in r.actions if a.world]
    assert [(a.kind, a.piece, a.hand, a.actor, a.world_time) for a in world] == \
        [(a.kind, a.piece, a.hand, a.player, a.time) for a in actions]
    assert all(a.args == b.args for a, b in zip(world, actions))
    physics = [e for e in r.events if e.kind not in ("picked", "dropped")]
    assert [(e.time, e.kind, e.pieces) for e in physics] == [(e.time, e.kind, e.pieces) for e in events]
    for recorded, live in zip(physics, events):
        cause = r.cause(recorded)
        assert (cause.kind, cause.world_time, cause.actor) == (live.cause.kind, live.cause.time, live.cause.player)
    picked = [e for e in r.events if e.kind == "picked"]
    dropped = [e for e in r.events if e.kind == "dropped"]
    assert [(e.pieces, r.cause(e).kind) for e in picked + dropped] == [(("block",), "grab"), (("block",), "release")]


def test_the_cursor_plays_steps_seeks_and_finds_the_first_knockdown(session):
    r, frames, _, _ = session
    p = ReplayPlayer(r)
    assert p.time == 0.0 and p.seek(-5) == 0.0 and p.seek(99) == r.end
    p.seek_frame(10)
    assert p.step(3) == pytest.approx(13 / 60) and p.step(-20) == 0.0
    p.set_speed(0.25)
    p.play()
    assert p.tick(0.4) and p.time == pytest.approx(0.1)  # 0.4 s of wall clock at a quarter speed
    assert p.faster() == 0.5 and p.slower() == 0.25 and p.slower() == 0.125
    with pytest.raises(ReplayError, match="speed"):
        p.set_speed(100)
    p.set_speed(16)
    while p.playing:
        p.tick(0.1)
    assert p.time == r.end and not p.playing
    first = p.jump_to_first_knockdown()
    assert first.kind == "knocked_down" and p.time == first.time and r.cause(first).actor == "ana"
    assert {"t3", "t4", "t5"} <= set(first.pieces) | {q for c in p.collapses() for q in c.pieces}
    marks = p.markers()
    assert [m.kind for m in marks][:1] == ["picked"] and all(m.kind not in ("moved", "fell") for m in marks)
    assert any(m.kind == "knocked_down" and "ana: move hand of block" in m.label for m in marks)
    assert [e.kind for e in p.events()] == [e.kind for e in r.timeline_events if e.time <= p.time]


def test_following_a_piece_and_the_scenes_before_and_after(session):
    r, frames, _, _ = session
    p = ReplayPlayer(r)
    p.follow("block")
    for g in (0, 40, 100):
        p.seek_frame(g)
        ids, poses = frames[g][1], frames[g][2]
        assert same_bits(p.follow_target(), poses[ids.index("block"), :3])
    with pytest.raises(ReplayError, match="no piece 'ghost'"):
        p.follow("ghost")
    before, after = p.before_after()
    start = dict(zip(frames[0][1], frames[0][2]))
    knocked = p.collapses()[0].pieces
    for q in knocked:  # before: every knocked-down block where it stood; after: down on the table
        assert same_bits(before.piece(q).pos, start[q][:3])
        assert after.piece(q).pos[2] < before.piece(q).pos[2] - 0.005 or q == "t0"


def test_resimulating_from_a_frame_reaches_it_exactly_and_the_same_actions_give_the_same_timeline(session):
    r, frames, _, _ = session
    p = ReplayPlayer(r)
    p.seek(0.6)
    assert p.resimulation_plan().mode == EXACT
    with p.resimulate_from() as lw:
        assert lw.time == pytest.approx(0.6) and same_bits(lw.poses(), frames[36][2])
        assert lw.carried() == {"block": "right"}  # the hand still carries it, mid-way
        dt = lw.world.settings.dt
        rest = [a for a in r.actions if a.world and round(a.world_time / dt) >= lw.world.steps]
        for a in rest:  # the recorded actions from here: the recorded frames, bit for bit
            while lw.world.steps < round(a.world_time / dt):
                lw.advance(1 / 60)
                assert same_bits(lw.poses(), r.poses_at(lw.time)[1])
            lw.apply(a.live_json())
        while lw.time < r.end - 1e-9:
            lw.advance(1 / 60)
            assert same_bits(lw.poses(), r.poses_at(lw.time)[1])
    runs = []
    for _ in range(2):  # something else from the same frame: twice the same
        with p.resimulate_from(0.3) as lw:
            lw.release("right")
            lw.push("t5", [0.004, 0.0, 0.0], player="ben")
            lw.advance(1.0)
            runs.append((lw.poses(), [(e.time, e.kind, e.pieces) for e in lw.events]))
    assert same_bits(runs[0][0], runs[1][0]) and runs[0][1] == runs[1][1]
    assert any(k == "knocked_down" for _, k, _ in runs[0][1][-5:]) or runs[0][1]


@pytest.fixture(scope="module")
def free_run(tmp_path_factory):
    from sim.physics import simulate
    from sim.replay.runs import record_timeline
    from sim.scene import load_scene
    from tests.helpers import SCENES

    path = tmp_path_factory.mktemp("free") / "fall.tlrec"
    timeline = simulate(load_scene(SCENES / "free/physics-harmonic-8-falls.json"), 1.0)
    record_timeline(path, timeline, source="simulate", sync=False)
    return load_recording(path), timeline


def test_a_free_run_replays_its_timeline_exactly(free_run):
    r, timeline = free_run
    assert r.source == "simulate" and len(r.times) == len(timeline.times)
    for g in range(len(timeline.times)):
        assert r.frame(g)[0] == list(timeline.ids) and same_bits(r.frame(g)[1], timeline.poses[g])
    assert [(e.time, e.kind, e.pieces) for e in r.events] == [(e.time, e.kind, e.pieces) for e in timeline.events]
    assert r.header["extra"]["probe_direction_deg"] == timeline.probe_direction_deg


def test_a_free_run_resimulates_from_the_frames_poses_at_rest_the_same_every_time(free_run):
    r, timeline = free_run
    p = ReplayPlayer(r)
    plan = p.resimulation_plan(0.1)
    assert plan.mode == AT_REST and "no velocities" in plan.why
    runs = []
    for _ in range(2):
        with p.resimulate_from(0.1) as lw:
            np.testing.assert_allclose(lw.poses(), r.poses_at(0.1)[1], atol=1e-12)  # bodies made at those poses
            assert lw.time == 0.0
            lw.advance(0.5)
            runs.append((lw.poses(), [(e.time, e.kind, e.pieces) for e in lw.events]))
    assert same_bits(runs[0][0], runs[1][0]) and runs[0][1] == runs[1][1]


def test_a_world_that_goes_back_is_recorded_as_the_session_showed_it(tmp_path):
    path = tmp_path / "undo.tlrec"
    shown = []
    with LiveWorld(tower_scene()) as lw, Recorder(path, sync=False) as rec:
        rec.start_live(lw, players=["ana"])
        play_script(lw, [{"kind": "wait", "seconds": 0.5}], rec)
        snap = lw.snapshot(exact=False)
        play_script(lw, CARRY_INTO_THE_TOWER[:3], rec)
        lw.restore(snap)  # undo the carry
        play_script(lw, [{"kind": "push", "piece": "t5", "player": "ana", "args": {"impulse": [0.003, 0, 0]}},
                         {"kind": "wait", "seconds": 0.5}], rec, on_frame=lambda w: shown.append(w.poses()))
    r = load_recording(path)
    restored = [e for e in r.events if e.kind == "restored"]
    assert len(restored) == 1 and restored[0].data["kept_actions"] == 0
    assert np.all(np.diff(r.times) > 0) and r.end == pytest.approx(0.5 + 1.0 + 0.5)
    for k, poses in enumerate(shown):  # after the restore, the frames the session showed
        assert same_bits(r.frame(len(r.times) - len(shown) + k)[1], poses)
    p = ReplayPlayer(r)
    assert p.resimulation_plan(1.0).mode == EXACT and p.resimulation_plan(r.end).mode == AT_REST
    assert [a.kind for a in r.actions if a.world] == ["grab", *["move_hand"] * 60, "push"]


def test_an_exact_snapshot_recorded_as_an_engine_reset_keeps_the_resimulation_exact(tmp_path):
    def run(path, tell):
        with LiveWorld(tower_scene()) as lw, Recorder(path, sync=False) as rec:
            rec.start_live(lw, players=["ana"])
            play_script(lw, CARRY_INTO_THE_TOWER[:2], rec)
            lw.snapshot(exact=True)  # the engine is made afresh: what follows differs in its last bits
            if tell:
                rec.engine_reset(lw)
            play_script(lw, CARRY_INTO_THE_TOWER[2:], rec)
        return load_recording(path)

    told = run(tmp_path / "told.tlrec", True)
    with ReplayPlayer(told).resimulate_from(told.end - 0.5) as lw:
        assert same_bits(lw.poses(), told.poses_at(told.end - 0.5)[1])
    untold = run(tmp_path / "untold.tlrec", False)
    with pytest.raises(ReplayError, match="do not reproduce the frame"):
        ReplayPlayer(untold).resimulate_from(untold.end - 0.5)


def test_ctrl_c_closes_the_recording_and_a_crash_keeps_every_whole_second(tmp_path):
    with pytest.raises(KeyboardInterrupt), LiveWorld(tower_scene()) as lw, \
            Recorder(tmp_path / "stopped.tlrec", sync=False) as rec:
        rec.start_live(lw)

        def interrupt(w):
            if w.time > 1.5:
                raise KeyboardInterrupt

        play_script(lw, CARRY_INTO_THE_TOWER, rec, on_frame=interrupt)
    stopped = load_recording(tmp_path / "stopped.tlrec")
    assert stopped.complete and stopped.end == pytest.approx(1.5 + 1 / 60)
    lw = LiveWorld(tower_scene())
    rec = Recorder(tmp_path / "crashed.tlrec", sync=False)
    rec.start_live(lw)
    play_script(lw, CARRY_INTO_THE_TOWER[:3], rec)  # 1.0 s ...
    play_script(lw, [{"kind": "wait", "seconds": 0.9}], rec)  # ... and 0.9 s more, then the process dies
    rec.abandon()
    lw.close()
    crashed = load_recording(tmp_path / "crashed.tlrec")
    assert not crashed.complete and crashed.end == pytest.approx(59 / 60)


def test_what_a_feed_took_is_recorded_before_anything_else_is_recorded_or_read(tmp_path):
    # a feed only notes what is new and records it a chunk at a time: a game's own record, or a read of the
    # recorder, in the middle of a second still comes after everything the world did before it
    with LiveWorld(tower_scene()) as lw, Recorder(tmp_path / "r.tlrec", sync=False) as rec:
        rec.start_live(lw, players=["ana"])
        play_script(lw, CARRY_INTO_THE_TOWER[:2], rec)  # 0.5 s: a grab and 30 moves of the hand
        assert [a.kind for a in rec.actions] == [a.kind for a in lw.actions] == ["grab", *["move_hand"] * 30]
        assert rec.latest == pytest.approx(lw.time) and rec.frames == 31
        i = rec.action(rec.latest, "ana", {"kind": "roll", "args": {"value": 4}})
        rec.event(rec.latest, "turn_changed", (), i, {"player": "ana"})
        play_script(lw, CARRY_INTO_THE_TOWER[2:3], rec)
    r = load_recording(tmp_path / "r.tlrec")
    assert [a.kind for a in r.actions] == ["grab", *["move_hand"] * 30, "roll", *["move_hand"] * 30]
    assert [(e.kind, e.cause) for e in r.events][:2] == [("picked", 0), ("turn_changed", 31)]
    assert len(r.times) == 61 and np.all(np.diff(r.times) > 0)


def test_the_same_session_makes_the_same_file_byte_for_byte(tmp_path):
    for name in ("a", "b"):
        with LiveWorld(tower_scene()) as lw, Recorder(tmp_path / f"{name}.tlrec", sync=False) as rec:
            rec.start_live(lw, seed=3, players=["ana"])
            play_script(lw, CARRY_INTO_THE_TOWER[:3], rec)
    assert (tmp_path / "a.tlrec").read_bytes() == (tmp_path / "b.tlrec").read_bytes()


def test_a_session_that_goes_on_in_another_world_records_its_pieces_afresh(tmp_path):
    other = from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "pieces": [
        {"id": "t0", "kind": "box", "size": [40, 40, 10], "pos": [0, 0, 5]}]}, "<another scene>")
    with Recorder(tmp_path / "two.tlrec", sync=False) as rec:
        with LiveWorld(tower_scene()) as lw:
            play_script(lw, [{"kind": "wait", "seconds": 0.5}], rec)
        with LiveWorld(other) as lw:  # the viewer loaded another scene
            play_script(lw, [{"kind": "wait", "seconds": 0.5}], rec)
    r = load_recording(tmp_path / "two.tlrec")
    assert [e.data.get("new_world") for e in r.events if e.kind == "restored"] == [True]
    assert r.scene_at(0.2).piece("t0").shape.bounds[1][0] == pytest.approx(0.01)
    assert r.scene_at(r.end).ids == ["t0"] and r.scene_at(r.end).piece("t0").shape.bounds[1][0] == pytest.approx(0.02)
    assert np.all(np.diff(r.times) > 0) and ReplayPlayer(r).resimulation_plan(r.end).mode == AT_REST
