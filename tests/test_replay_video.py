"""Videos of recordings: frame count and size read back, captions drawn, a following camera, nothing left on failure."""

from __future__ import annotations

import imageio.v3 as iio
import imageio_ffmpeg
import numpy as np
import pytest

from sim.physics.live import LiveWorld
from sim.replay import Recorder, ReplayError, load_recording
from sim.replay.script import play_script
from sim.replay.video import plan_video, write_video
from sim.scene import from_dict


@pytest.fixture(scope="module")
def knocked(tmp_path_factory):
    """A hand sweeps a block through a four-block tower: a second of recording."""
    pieces = [{"id": f"t{k}", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10 + 20 * k]} for k in range(4)]
    pieces.append({"id": "block", "kind": "box", "size": [20, 20, 20], "pos": [-60, 0, 10]})
    s = from_dict({"format": "towerlab-scene/1", "game": "free", "board": "table", "pieces": pieces}, "<video>")
    path = tmp_path_factory.mktemp("video") / "knock.tlrec"
    with LiveWorld(s) as lw, Recorder(path, sync=False) as rec:
        rec.start_live(lw, players=["ana"])
        play_script(lw, [{"kind": "grab", "piece": "block", "hand": "right", "player": "ana"},
                         {"kind": "carry", "hand": "right", "to": [-0.06, 0, 0.045], "seconds": 0.2},
                         {"kind": "carry", "hand": "right", "to": [0.06, 0, 0.045], "seconds": 0.4},
                         {"kind": "release", "hand": "right"}, {"kind": "wait", "seconds": 0.5}], rec)
    return load_recording(path)


def test_an_mp4_has_the_frames_and_the_size_asked_for(knocked, tmp_path):
    plan = plan_video(knocked, tmp_path / "clip.mp4", start=0.2, end=0.8, speed=0.5, size=(160, 96), fps=20)
    assert len(plan.times) == 25 and plan.times[-1] == pytest.approx(0.8)  # 0.6 s at half speed, 20 fps
    assert write_video(knocked, plan) == 25
    frames, seconds = imageio_ffmpeg.count_frames_and_secs(str(tmp_path / "clip.mp4"))
    assert frames == 25 and seconds == pytest.approx(1.25, abs=0.06)
    video = iio.imread(tmp_path / "clip.mp4", index=None)
    assert video.shape == (25, 96, 160, 3)
    assert not any(p.name.endswith(".mp4") and p.name.startswith(".") for p in tmp_path.iterdir())  # no temporary
    assert np.abs(video[0].astype(int) - video[-1].astype(int)).mean() > 1.0  # the tower fell in between


def test_a_gif_with_captions_that_say_what_happened(knocked, tmp_path):
    first = next(e for e in knocked.timeline_events if e.kind == "knocked_down")
    kw = dict(start=first.time - 0.05, end=first.time + 0.05, size=(200, 120), fps=10)
    with_text = plan_video(knocked, tmp_path / "with.gif", **kw)
    without = plan_video(knocked, tmp_path / "without.gif", captions=False, **kw)
    assert write_video(knocked, with_text) == write_video(knocked, without) == 2
    a, b = (iio.imread(tmp_path / name, index=None)[..., :3].astype(int) for name in ("with.gif", "without.gif"))
    assert a.shape == b.shape == (2, 120, 200, 3)
    band = np.abs(a - b)[:, 80:, :, :].mean(axis=(1, 2, 3))  # the caption band at the bottom
    assert band[1] > band[0] > 0.5  # the clock before the event, the event's caption after it


def test_a_following_camera_moves_with_its_piece(knocked, tmp_path):
    still = plan_video(knocked, tmp_path / "still.gif", start=0.1, end=0.6, size=(120, 72), fps=4)
    follow = plan_video(knocked, tmp_path / "follow.gif", start=0.1, end=0.6, size=(120, 72), fps=4,
                        camera="follow:block")
    assert follow.follow == "block" and follow.camera == "iso"
    write_video(knocked, still)
    write_video(knocked, follow)
    a, b = (iio.imread(tmp_path / name, index=None)[..., :3].astype(int) for name in ("still.gif", "follow.gif"))
    assert np.abs(a[0] - b[0]).mean() < 1.0  # the same view at first
    assert np.abs(a[-1] - b[-1]).mean() > 3.0  # then the camera has gone along with the block


@pytest.mark.parametrize("kw, message", [
    (dict(path="clip.avi"), "expected a name ending in .mp4 or .gif"),
    (dict(start=-1.0), "--from: expected a time within the recording"),
    (dict(start=0.8, end=0.2), "ends before it begins"),
    (dict(speed=0.0), "--speed"),
    (dict(fps=500.0), "--fps"),
    (dict(size=(161, 90)), "even width and height"),
    (dict(camera="follow:ghost"), "holds no piece 'ghost'"),
    (dict(camera="fisheye"), "--camera: expected one of iso, front, side, top or follow:ID"),
])
def test_a_video_request_is_checked_before_anything_is_drawn(knocked, tmp_path, kw, message):
    path = tmp_path / kw.pop("path", "clip.mp4")
    with pytest.raises(ReplayError, match=message):
        plan_video(knocked, path, **kw)


def test_an_interrupted_video_leaves_nothing(knocked, tmp_path):
    plan = plan_video(knocked, tmp_path / "stopped.mp4", size=(64, 48), fps=10)

    def stop(done, total):
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_video(knocked, plan, progress=stop)
    assert list(tmp_path.iterdir()) == []
