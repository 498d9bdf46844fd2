"""The replay window's controller, headless: every action, scrubbing to exact poses, jumps, follow, before/after,
captions, scripts, and re-simulating from a frame in the viewer's build mode (the same timeline twice)."""

from __future__ import annotations

import pytest

from sim.physics.live import LiveWorld
from sim.replay import Recorder, load_recording
from sim.replay.script import play_script
from sim.viewer.control.actions import ActionError
from sim.viewer.replay.actions import parse_replay_actions, replay_action, split_script
from sim.viewer.replay.controller import FRAME, ReplayController
from sim.viewer.replay.script import ReplayScript
from sim.viewer.replay.timeline import MARK_COLORS, TimelineBar
from tests.test_replay_live import CARRY_INTO_THE_TOWER, same_bits, tower_scene


def act(name, **fields):
    return replay_action(name, **fields)


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """A hand carries a block into a six-block tower and knocks it down; the live poses of every frame kept."""
    path = tmp_path_factory.mktemp("replay") / "tower.tlrec"
    frames = []
    with LiveWorld(tower_scene()) as lw, Recorder(path, sync=False) as rec:
        rec.start_live(lw, seed=3, players=["ana"])
        frames.append((list(lw.ids), lw.poses()))
        play_script(lw, CARRY_INTO_THE_TOWER, rec, on_frame=lambda w: frames.append((list(w.ids), w.poses())))
    return load_recording(path), frames


@pytest.fixture
def c(session):
    return ReplayController(session[0], size=(640, 400), smooth=False)


def test_play_pause_slow_motion_and_single_steps(c, session):
    r, _ = session
    assert c.time == r.start and not c.player.playing
    c.apply(act("play"))
    c.tick(0.5)
    assert c.time == pytest.approx(0.5)
    c.apply(act("speed", factor=0.25))
    c.tick(0.4)  # slow motion: 0.4 s of the window is 0.1 s of the recording
    assert c.time == pytest.approx(0.6)
    for factor in (0.5, 0.125):
        c.apply(act("speed", factor=factor))
        before = c.time
        c.tick(0.4)
        assert c.time - before == pytest.approx(0.4 * factor)
    c.apply(act("toggle"))
    assert not c.player.playing and not c.tick(1.0)  # paused: time stands
    c.apply(act("faster"))
    assert c.player.speed == 0.25
    c.apply(act("slower"))
    c.apply(act("slower"))
    assert c.player.speed == 0.125
    c.apply(act("seek", frame=40))
    c.apply(act("step"))
    assert c.frame == 41
    c.apply(act("step", frames=-5))
    assert c.frame == 36 and c.time == r.times[36]
    c.apply(act("play"))
    c.apply(act("step", frames=1))
    assert not c.player.playing  # a step pauses
    c.apply(act("seek", t=99.0))
    assert c.time == r.end
    c.apply(act("play"))  # at the end, play starts again from the beginning
    assert c.time == r.start
    with pytest.raises(ActionError, match="frame: expected a frame 0..132"):
        c.apply(act("seek", frame=500))
    assert "PLAYING x1/8" in c.status() and "frame 0/132" in c.status()


@pytest.mark.parametrize("fraction", [0.0, 0.07, 0.31, 0.4167, 0.5, 0.77, 0.999, 1.0])
def test_scrubbing_to_any_time_shows_exactly_the_recorded_poses(c, session, fraction):
    r, frames = session
    t = c.seek_fraction(fraction)
    assert t == pytest.approx(r.start + fraction * r.duration) and not c.player.playing
    g = r.frame_at(t)
    ids, poses = c.poses()
    assert c.frame == g and ids == frames[g][0] and same_bits(poses, frames[g][1])
    assert c.timeline.fraction(t) == pytest.approx(fraction)


def test_jumps_to_the_first_knockdown_and_from_event_to_event(c, session):
    r, _ = session
    c.apply(act("jump", to="first-knockdown"))
    first = next(e for e in r.timeline_events if e.kind == "knocked_down")
    assert c.time == first.time and not c.player.playing
    assert c.caption().startswith(f"{first.time:.2f} s  knocked down: t1") and "ana: move hand of block" in \
        c.caption()
    marks = [m.time for m in c.timeline.markers]
    k = marks.index(first.time)
    c.apply(act("jump", to="next"))
    assert c.time == marks[k + 1]
    c.apply(act("jump", to="previous"))
    c.apply(act("jump", to="previous"))
    assert c.time == marks[k - 1] == 0.0 and c.caption().startswith("0.00 s  picked: block")
    c.apply(act("jump", to="next", kind="dropped"))
    assert c.current_event().kind == "dropped"
    with pytest.raises(ActionError, match="no picked event after"):
        c.apply(act("jump", to="next", kind="picked"))
    c.apply(act("jump", to="end"))
    assert c.time == r.end
    with pytest.raises(ActionError, match="no marked event after"):
        c.apply(act("jump", to="next"))
    c.apply(act("jump", to="start"))
    assert c.time == r.start


def test_the_camera_follows_a_piece_exactly_where_it_was_recorded(c, session):
    r, frames = session
    c.apply(act("follow", piece="t5"))
    for g in (0, 30, 55, 70, 100, 132):
        c.apply(act("seek", frame=g))
        ids, poses = frames[g]
        assert same_bits(c.camera.current.target, poses[ids.index("t5"), :3])
    c.apply(act("play"))
    c.apply(act("seek", frame=50))
    c.tick(FRAME)  # playing: the camera goes along
    ids, poses = frames[c.frame]
    assert same_bits(c.camera.current.target, poses[ids.index("t5"), :3])
    distance = c.camera.current.distance
    c.apply(act("follow", piece=None))
    c.apply(act("seek", frame=120))
    assert not same_bits(c.camera.current.target, frames[120][1][frames[120][0].index("t5"), :3])
    assert c.camera.current.distance == distance
    with pytest.raises(ActionError, match="no piece 'ghost'"):
        c.apply(act("follow", piece="ghost"))


def test_before_and_after_side_by_side(c, session):
    r, frames = session
    c.apply(act("seek", t=1.5))
    single = c.view()
    c.apply(act("compare", mode="before"))
    before, now = c.panes()
    collapse = c.player.collapses()[0]
    assert (before.frame, before.label) == (collapse.before_frame, "before the collapse")
    assert (now.frame, now.label) == (c.frame, "now")
    assert c.view().size == (318, 400) and single.size == (640, 400)  # two panes and a 4-pixel gap
    start = dict(zip(*frames[0]))
    ids, poses = r.frame(before.frame)
    for q in collapse.pieces:  # before: every knocked-down block where it stood
        assert same_bits(poses[ids.index(q)], start[q])
    c.apply(act("compare", mode="before-after"))
    _, after = c.panes()
    assert after.frame == r.frame_at(collapse.end) and after.label == "after"
    c.apply(act("compare", mode="off"))
    assert len(c.panes()) == 1 and c.view().size == (640, 400)


def test_a_calm_recording_has_nothing_to_compare_or_jump_to(tmp_path):
    path = tmp_path / "calm.tlrec"
    with LiveWorld(tower_scene()) as lw, Recorder(path, sync=False) as rec:
        rec.start_live(lw)
        play_script(lw, [{"kind": "wait", "seconds": 1.2}], rec)
    c = ReplayController(load_recording(path), smooth=False)
    with pytest.raises(ActionError, match="nothing was knocked down"):
        c.apply(act("compare", mode="before"))
    with pytest.raises(ActionError, match="nothing was knocked down"):
        c.apply(act("jump", to="first-knockdown"))
    assert c.compare == "off" and c.caption() is None


def test_the_timeline_marks_knockdowns_in_red_and_merges_crowded_marks(c):
    marks = c.timeline.marks()
    assert [m.kind for m in marks][:2] == ["picked", "knocked_down"]
    assert next(m for m in marks if m.kind == "knocked_down").color == MARK_COLORS["knocked_down"] == \
        (0.95, 0.18, 0.12, 1.0)
    crowded = TimelineBar(0.0, 10.0, [type("M", (), {"time": t, "kind": k, "label": k})()
                                   for t, k in ((5.0, "picked"), (5.001, "knocked_down"), (5.002, "moved"))])
    (one,) = crowded.marks(resolution=100)
    assert (one.kind, one.count, one.time) == ("knocked_down", 3, 5.001)
    assert crowded.time_at(0.25) == 2.5 and crowded.time_at(-1) == 0.0 and crowded.fraction(99) == 1.0


def test_camera_actions_move_the_view(c):
    home = c.camera.current
    c.apply(act("orbit", degrees=[30, 0]))
    assert c.camera.current.azimuth == pytest.approx((home.azimuth + 30) % 360)
    c.apply(act("zoom", factor=0.5))
    assert c.camera.current.distance == pytest.approx(home.distance * 0.5)
    c.apply(act("pan", fraction=[0.1, 0.0]))
    assert c.camera.current.target != home.target
    c.apply(act("camera", preset="reset"))
    assert c.camera.current == home
    c.apply(act("camera", preset="top"))
    assert c.camera.current.elevation > 80


def test_actions_are_checked_at_the_boundary_with_file_line_and_field():
    text = '[\n  {"action": "play"},\n  {"action": "jump", "to": "somewhere"}\n]'
    with pytest.raises(ActionError, match=r'a\.json:3: actions\[1\]\.to: expected one of "first-knockdown"'):
        parse_replay_actions(text, "a.json")
    for bad, message in (('[{"action": "fly"}]', 'actions\\[0\\].action: unknown action "fly"'),
                         ('[{"action": "seek"}]', "give a time t"),
                         ('[{"action": "step", "frames": 0}]', "not 0"),
                         ('[{"action": "speed", "factor": 3}]', "expected one of 0.125"),
                         ('[{"action": "play", "loud": true}]', "unknown field of 'play'"),
                         ('{"action": "play"}', "expected a JSON list"),
                         ('[{"action": "play"', "not JSON")):
        with pytest.raises(ActionError, match=message):
            parse_replay_actions(bad, "a.json")
    # after a re-simulation the session is the viewer's: its actions, checked by the viewer's rules
    actions = parse_replay_actions('[{"action": "seek", "t": 1}, {"action": "resimulate"},\n'
                                   ' {"action": "pick", "piece": "t5"}]', "a.json")
    replay, viewer = split_script(actions)
    assert [a.name for a in replay] == ["seek", "resimulate"] and [a.name for a in viewer] == ["pick"]
    with pytest.raises(ActionError, match=r"a\.json:2: actions\[1\]\.piece: required for 'pick'"):
        parse_replay_actions('[{"action": "resimulate"},\n {"action": "pick"}]', "a.json")


def test_a_script_moves_time_in_whole_frames_the_same_every_time(session):
    r, _ = session
    script = parse_replay_actions('[{"action": "speed", "factor": 0.25}, {"action": "play"},'
                                  ' {"action": "wait", "seconds": 1.0}, {"action": "screenshot", "path": "x.png"},'
                                  ' {"action": "pause"}, {"action": "wait", "seconds": 1.0}]')
    runs = []
    for _ in range(2):
        c = ReplayController(r, smooth=False)
        served = []
        ReplayScript(c, script, lambda q, c=c, served=served: served.append((q.kind, c.time))).run()
        runs.append((c.time, served))
    assert runs[0] == runs[1] and runs[0][0] == pytest.approx(0.25)  # 60 frames of 1/60 s at 1/4
    assert runs[0][1] == [("screenshot", runs[0][0])]


def test_resimulating_from_a_frame_goes_on_in_the_build_mode_the_same_twice(session):
    from sim.viewer.control.actions import action
    from sim.viewer.control.script import ScriptRunner
    from sim.viewer.replay.run import resume

    r, frames = session
    build = [action("pick", piece="t0"), action("move-to", at=[40.0, 60.0]), action("drop"),
             action("poke", piece="t1", direction=[0.0, 1.0, 0.0]), action("wait", seconds=0.3)]
    runs = []
    for _ in range(2):
        c = ReplayController(r, smooth=False)
        c.apply(act("seek", t=1.6))
        c.apply(act("resimulate"))
        assert [q.kind for q in c.requests] == ["resimulate"] and "exact" in c.messages[-1].text
        viewer = resume(c, threaded=False)
        try:
            world = viewer.world.live
            assert world.time == pytest.approx(1.6) and same_bits(world.poses(), frames[96][1])
            assert viewer.mode == "build" and viewer.player == "ana"
            ScriptRunner(viewer, build, lambda q: None).run()
            runs.append((viewer.world.poses(), [(e.time, e.kind, e.pieces) for e in world.events],
                         [a.to_json() for a in world.actions]))
            assert viewer.world.verdict() is not None
        finally:
            viewer.close()
    assert same_bits(runs[0][0], runs[1][0]) and runs[0][1] == runs[1][1] and runs[0][2] == runs[1][2]
    at_frame = dict(zip(frames[96][0], frames[96][1]))
    assert frames[96][0][0] == "t0" and not same_bits(runs[0][0][0], at_frame["t0"])  # t0 was carried elsewhere
    assert len(runs[0][2]) > len(r.actions)
