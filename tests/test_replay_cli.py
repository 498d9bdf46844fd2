"""``simulate --record``, ``check --record``, ``towerlab replay`` and ``towerlab penalty`` on the command line."""

from __future__ import annotations

import json
import os

import imageio_ffmpeg
import numpy as np
import pytest

from sim.cli import main
from sim.replay import load_recording
from tests.helpers import SCENES, forbid_drawing, one_line

FALLS = SCENES / "free/physics-harmonic-8-falls.json"


@pytest.fixture(scope="module")
def fall(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    assert main(["simulate", str(FALLS), "-o", str(folder / "after.json"), "--record", str(folder / "fall.tlrec"),
                 "--seconds", "1.0", "--json"]) == 0
    return folder / "fall.tlrec"


def test_simulate_records_its_run(fall, capsys):
    r = load_recording(fall)
    assert r.source == "simulate" and r.complete and r.duration == pytest.approx(1.0)
    assert [e.kind for e in r.events if e.kind == "knocked_down"]


def test_check_records_its_witness_run(tmp_path, capsys):
    stands = SCENES / "free/physics-harmonic-8-stands.json"
    assert main(["check", str(stands), "--seconds", "0.5", "--record", str(tmp_path / "w.tlrec"), "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    r = load_recording(tmp_path / "w.tlrec")
    assert r.source == "check" and r.duration == pytest.approx(0.5)
    assert r.header["extra"]["probe_direction_deg"] == pytest.approx(verdict["weakest_direction_deg"], abs=1e-3)


def test_replay_summary_says_what_the_recording_holds(fall, capsys):
    for flag in ("--summary", "--info"):
        assert main(["replay", str(fall), flag]) == 0
        out, err = capsys.readouterr()
        assert "simulate recording of free" in out and "first knocked down at" in out and not err
    assert main(["replay", str(fall), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["source"] == "simulate" and summary["frames"] == 61 and summary["complete"]


def test_without_a_display_the_window_is_refused_in_one_line(fall, capsys, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    assert main(["replay", str(fall)]) == 2
    assert "no display ($DISPLAY is not set) to open the replay window on" in one_line(capsys)


def test_an_offscreen_screenshot_at_a_time_is_the_replay_picture_of_that_frame(fall, tmp_path, capsys):
    from sim.render import default_renderer
    from sim.render.image import load_png
    from sim.viewer.replay.controller import ReplayController
    from sim.viewer.replay.picture import PaneGraphs, replay_picture

    shot = tmp_path / "at.png"
    assert main(["replay", str(fall), "--offscreen", "--screenshot", str(shot), "--at", "0.5", "--exit",
                 "--size", "320x200"]) == 0
    recording = load_recording(fall)
    c = ReplayController(recording, size=(320, 200), smooth=False)
    c.player.seek(0.5)
    expected = replay_picture(c, PaneGraphs(recording, default_renderer()))
    got = load_png(shot)[..., :3]
    assert got.shape == (200, 320, 3) and np.array_equal(got, expected)
    c.player.seek(0.0)
    assert np.abs(replay_picture(c, PaneGraphs(recording, default_renderer())).astype(int) - got).mean() > 1.0


def test_a_scripted_replay_saves_its_screenshots(fall, tmp_path, capsys):
    script = tmp_path / "bug.json"
    script.write_text(json.dumps([{"action": "jump", "to": "first-knockdown"},
                                  {"action": "compare", "mode": "before"},
                                  {"action": "screenshot", "path": str(tmp_path / "split.png"), "size": [400, 200]},
                                  {"action": "compare", "mode": "off"}, {"action": "follow", "piece": "b8"},
                                  {"action": "play"}, {"action": "wait", "seconds": 0.2}]))
    assert main(["replay", str(fall), "--actions", str(script), "--offscreen", "--screenshot",
                 str(tmp_path / "end.png"), "--size", "200x120"]) == 0
    from sim.render.image import load_png

    assert load_png(tmp_path / "split.png").shape[:2] == (200, 400)
    assert load_png(tmp_path / "end.png").shape[:2] == (120, 200)


@pytest.mark.parametrize("args, script, message", [
    (["--at", "7"], None, "--at: expected a time within the recording, 0..1 s, got 7"),
    (["--at", "nan"], None, "--at: expected a time within the recording"),
    ([], [{"action": "fly"}], '{script}:1: actions[0].action: unknown action "fly"'),
    ([], [{"action": "seek", "t": "soon"}], "{script}:1: actions[0].t: expected a time"),
    ([], [{"action": "follow", "piece": "nobody"}], "actions[0].piece: the recording holds no piece 'nobody'"),
    (["--screenshot", "{tmp}/x.gif"], None, "expected a .png, .jpg or .jpeg file name"),
    (["--screenshot", "{tmp}/file/x.png"], None, "is a file, not a folder"),
])
def test_bad_replay_options_are_one_line_exit_2_before_anything_is_drawn(fall, tmp_path, capsys, monkeypatch, args,
                                                                          script, message):
    forbid_drawing(monkeypatch)
    (tmp_path / "file").write_text("")
    path = tmp_path / "a.json"
    if script is not None:
        path.write_text(json.dumps(script))
        args = [*args, "--actions", str(path)]
    args = [a.format(tmp=tmp_path) for a in args]
    assert main(["replay", str(fall), "--offscreen", *args]) == 2
    assert message.format(script=path, tmp=tmp_path) in one_line(capsys)
    assert not list(tmp_path.glob("*.png"))


def test_an_action_that_cannot_be_done_is_one_line_naming_it(fall, tmp_path, capsys):
    path = tmp_path / "a.json"
    path.write_text('[{"action": "jump", "to": "end"},\n {"action": "jump", "to": "next"}]')
    assert main(["replay", str(fall), "--offscreen", "--actions", str(path)]) == 2
    assert f"{path}:2: actions[1].to: no marked event after 1.00 s" in one_line(capsys)


def test_replay_makes_a_video(fall, tmp_path, capsys):
    out = tmp_path / "sub" / "fall.mp4"
    assert main(["replay", str(fall), "--video", str(out), "--from", "0.1", "--to", "0.4", "--speed", "0.5",
                 "--size", "96x64", "--fps", "10", "--camera", "follow:b8", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["frames"] == 7 and imageio_ffmpeg.count_frames_and_secs(str(out))[0] == 7
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask  # a new file's permissions, not the temporary file's 0600


@pytest.mark.parametrize("args, message", [
    (["--video", "{tmp}/x.avi"], "--video {tmp}/x.avi: expected a name ending in .mp4 or .gif"),
    (["--video", "{tmp}/x.mp4", "--from", "7"], "--from: expected a time within the recording"),
    (["--video", "{tmp}/x.mp4", "--camera", "follow:nobody"], "holds no piece 'nobody'"),
    (["--video", "{tmp}/x.mp4", "--size", "99x64"], "even width and height"),
    (["--video", "{tmp}/x.mp4", "--size", "big"], "--size: expected WIDTHxHEIGHT"),
    (["--video", "{file}/x.mp4"], "is a file, not a folder"),
])
def test_bad_video_options_are_one_line_exit_2_and_nothing_drawn_or_written(fall, tmp_path, capsys, monkeypatch,
                                                                           args, message):
    forbid_drawing(monkeypatch)
    (tmp_path / "file").write_text("")
    args = [a.format(tmp=tmp_path, file=tmp_path / "file") for a in args]
    assert main(["replay", str(fall), *args]) == 2
    assert message.format(tmp=tmp_path, file=tmp_path / "file") in one_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.parametrize("damage, message", [
    (lambda data: data[:len(data) // 20], "truncated"),
    (lambda data: data[:200] + bytes([data[200] ^ 1]) + data[201:], "damaged"),
    (lambda data: b"not a recording", "not a towerlab recording"),
])
@pytest.mark.parametrize("command", ["replay", "penalty"])
def test_a_broken_recording_is_one_line_naming_it_and_exit_2(fall, tmp_path, capsys, damage, message, command):
    broken = tmp_path / "broken.tlrec"
    broken.write_bytes(damage(fall.read_bytes()))
    assert main([command, str(broken)]) == 2
    line = one_line(capsys)
    assert line.startswith(f"towerlab: error: {broken}: ") and message in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.tlrec"]


def test_record_into_a_place_that_cannot_be_written_is_refused_before_the_run(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert main(["simulate", str(FALLS), "-o", str(tmp_path / "a.json"), "--record",
                 str(tmp_path / "file" / "r.tlrec")]) == 2
    assert "--record" in one_line(capsys) and not (tmp_path / "a.json").exists()


def test_a_run_recorded_as_it_goes_is_the_file_its_finished_timeline_makes(tmp_path):
    from sim.physics import simulate
    from sim.replay.runs import RunRecorder, record_timeline
    from sim.scene import load_scene
    from tests.test_replay_live import same_bits

    with RunRecorder(tmp_path / "going.tlrec", source="simulate", seconds=1.0, sync=False) as on_frame:
        timeline = simulate(load_scene(FALLS), 1.0, on_frame=on_frame)
        on_frame.close(timeline.events)
    record_timeline(tmp_path / "after.tlrec", timeline, source="simulate", sync=False)
    going, after = load_recording(tmp_path / "going.tlrec"), load_recording(tmp_path / "after.tlrec")
    assert going.complete and len(going.times) == len(after.times) == len(timeline.times)
    for g in range(len(timeline.times)):
        assert going.frame(g)[0] == after.frame(g)[0] and same_bits(going.frame(g)[1], after.frame(g)[1])
    assert [(e.time, e.kind, e.pieces) for e in going.events] == [(e.time, e.kind, e.pieces) for e in after.events]
    assert any(e.kind == "knocked_down" for e in going.events)
    assert going.header["extra"] == after.header["extra"]


@pytest.mark.parametrize("command", ["simulate", "check"])
def test_ctrl_c_during_a_recorded_run_keeps_the_seconds_that_ran(command, tmp_path, capsys, monkeypatch):
    from sim.replay.runs import RunRecorder

    frame = RunRecorder.frame

    def interrupted(self, t, *args):
        frame(self, t, *args)
        if t >= 0.5:
            raise KeyboardInterrupt

    monkeypatch.setattr(RunRecorder, "frame", interrupted)
    rec = tmp_path / "r.tlrec"
    out = ["-o", str(tmp_path / "after.json")] if command == "simulate" else []
    assert main([command, str(FALLS), *out, "--seconds", "2", "--record", str(rec)]) == 130
    r = load_recording(rec)
    assert r.complete and r.source == command and r.duration == pytest.approx(0.5, abs=0.02)
    assert not (tmp_path / "after.json").exists()


def test_a_cut_recording_plays_its_whole_seconds_with_a_note(fall, tmp_path, capsys):
    data = fall.read_bytes()
    cut = tmp_path / "cut.tlrec"
    cut.write_bytes(data[:data.index(b"manifest.json") - 30])  # the manifest and the directory gone
    assert main(["replay", str(cut), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert not summary["complete"] and "not closed" in summary["notes"][0]
    assert main(["penalty", str(cut)]) == 0
    out, err = capsys.readouterr()
    assert "not closed" in err and "no action before it (it fell by itself)" in out


def test_resimulating_in_a_script_goes_on_with_the_viewers_actions_the_same_twice(tmp_path, capsys):
    from sim.physics.live import LiveWorld
    from sim.render.image import load_png
    from sim.replay import Recorder
    from sim.replay.script import play_script
    from tests.test_replay_live import CARRY_INTO_THE_TOWER, tower_scene

    rec = tmp_path / "tower.tlrec"
    with LiveWorld(tower_scene()) as lw, Recorder(rec, sync=False) as r:
        r.start_live(lw, players=["ana"])
        play_script(lw, CARRY_INTO_THE_TOWER, r)
    shots = []
    for n in ("a", "b"):
        script = tmp_path / f"{n}.actions.json"
        script.write_text(json.dumps([{"action": "seek", "t": 1.6}, {"action": "resimulate"},
                                      {"action": "pick", "piece": "t0"}, {"action": "move-to", "at": [40, 60]},
                                      {"action": "drop"}, {"action": "save", "path": str(tmp_path / f"{n}.json")}]))
        assert main(["replay", str(rec), "--offscreen", "--actions", str(script), "--screenshot",
                     str(tmp_path / f"{n}.png"), "--size", "200x120"]) == 0
        shots.append(load_png(tmp_path / f"{n}.png"))
    assert (tmp_path / "a.json").read_text() == (tmp_path / "b.json").read_text()  # the same scene, byte for byte
    assert np.array_equal(shots[0], shots[1])
    saved = json.loads((tmp_path / "a.json").read_text())
    t0 = next(p for p in saved["pieces"] if p["id"] == "t0")
    assert abs(t0["pos"][0] - 40) < 3 and abs(t0["pos"][1] - 60) < 3  # carried where the script said (mm)
