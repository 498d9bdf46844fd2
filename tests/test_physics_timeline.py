"""Timelines: collapse events, determinism, invariance of the verdict under moving the whole scene, drift."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.cases import block_on_slope, cube_tower, friction_angle, harmonic_stack, talo_all_blocks, talo_balance
from sim.contact import find_interfaces
from sim.physics import Timeline, TimelineFileError, check, settle, simulate
from sim.physics.precision import support_depth, tuned_for
from sim.scene import Scene, load_scene
from tests.helpers import SCENES


def moved_whole(scene: Scene, angle_deg: float, offset_mm) -> Scene:
    """The scene turned about the vertical through the origin and shifted, on an endless table."""
    turn = Rotation.from_euler("z", angle_deg, degrees=True)
    offset = np.asarray(offset_mm, dtype=float) / 1000.0
    pieces = [p.moved(turn.apply(p.pos) + offset, (turn * Rotation.from_quat(p.quat)).as_quat())
              for p in scene.pieces]
    return replace(scene, game="free", board="table", pieces=tuple(pieces))


def on_table(scene: Scene) -> Scene:
    return moved_whole(scene, 0.0, (0, 0, 0))


def test_a_collapse_reports_who_moved_left_its_support_fell_and_was_knocked_down():
    t = simulate(talo_balance(4), 3.0)
    kinds = [e.kind for e in t.events]
    assert kinds[0] == "moved" and kinds[-1] == "settled"
    for kind in ("moved", "left_support", "fell", "knocked_down"):
        (event,) = [e for e in t.events if e.kind == kind]
        assert event.pieces == ("beam",)
    times = {e.kind: e.time for e in t.events}
    assert times["moved"] <= times["knocked_down"] <= times["fell"] <= times["settled"]
    beam = t.pieces["beam"]
    assert beam.left_support and beam.fell and beam.began_moving == pytest.approx(times["moved"])
    assert t.pieces["post"].moved is False and t.settled
    assert t.poses.shape == (len(t.times), 2, 7) and t.times[0] == 0.0


def test_a_piece_on_the_board_is_not_counted_as_fallen_to_it():
    t = simulate(cube_tower(3), 0.5)
    assert t.events == () and t.knocked_down == []
    assert all(not m.fell and not m.left_support for m in t.pieces.values())


def test_the_same_scene_gives_identical_timelines():
    a = simulate(harmonic_stack(5, 1.02), 1.0)
    b = simulate(harmonic_stack(5, 1.02), 1.0)
    assert np.array_equal(a.poses, b.poses) and np.array_equal(a.times, b.times)
    assert a.events == b.events and a.events


def test_a_seeded_probe_direction_is_reproducible():
    first = simulate(talo_balance(2), 0.5, rng=np.random.default_rng(7))
    again = simulate(talo_balance(2), 0.5, rng=np.random.default_rng(7))
    assert first.probe_direction_deg == again.probe_direction_deg is not None
    assert np.array_equal(first.poses, again.poses)


CASES = {
    "harmonic-0.98": lambda: harmonic_stack(5, 0.98),
    "harmonic-1.02": lambda: harmonic_stack(5, 1.02),
    "plank-0.9": lambda: block_on_slope(friction_angle(0.5) * 0.9),
    "plank-1.1": lambda: block_on_slope(friction_angle(0.5) * 1.1),
    "talo-5": lambda: on_table(talo_balance(5)),
    "talo-4": lambda: on_table(talo_balance(4)),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_turning_and_shifting_the_whole_scene_changes_no_verdict(name):
    scene = CASES[name]()
    verdicts = {check(s).stable for s in (scene, moved_whole(scene, 37.0, (120, -45, 0)),
                                          moved_whole(scene, 90.0, (-300, 80, 0)))}
    assert verdicts == {not name.endswith(("1.02", "1.1", "-4"))}


def test_settle_returns_the_scene_at_rest():
    dropped = replace(cube_tower(1), pieces=tuple(p.moved((p.pos[0], p.pos[1], p.pos[2] + 0.005), p.quat)
                                                  for p in cube_tower(1).pieces))
    rest = settle(dropped, seconds=2.0)
    assert rest.piece("c0").pos[2] == pytest.approx(0.01, abs=2e-5)
    assert rest.pieces[0].grid is None and rest.game == "talo"


def drift(scene: Scene, seconds: float, margin_g: float) -> float:
    """Largest displacement (m) after ``seconds``, run as ``check`` runs it (the probe in one direction,
    +x, as both structures are symmetric; the solver's precision from the statics' margin and the
    stack's depth) but awake throughout: asleep, a structure stops moving once it has been still for
    ``tol.sleep_window``, which would hide a creep slower than that window can see."""
    settings = tuned_for(margin_g, depth=support_depth(scene, find_interfaces(scene))).with_(sleeping=False)
    t = simulate(scene, seconds, settings, probe_direction_deg=0.0)
    return max(m.displacement for m in t.pieces.values())


@pytest.mark.slow
def test_a_ten_cube_tower_drifts_less_than_half_a_millimetre_in_a_minute():
    assert drift(cube_tower(10), 60.0, margin_g=0.1) < 5e-4  # 10 mm of base over a 100 mm high centre


@pytest.mark.slow
def test_all_55_talo_blocks_drift_less_than_half_a_millimetre_in_a_minute():
    assert drift(talo_all_blocks(), 60.0, margin_g=0.45) < 5e-4  # the statics: it would slide first, at μ


@pytest.mark.parametrize("path", sorted(SCENES.glob("free/physics-*.json")), ids=lambda p: p.stem)
def test_the_example_scenes_do_what_their_names_say(path):
    r = check(load_scene(path))
    assert r.stable is path.stem.endswith("-stands") and r.disagreement is None, r.to_json()


def test_a_saved_timeline_loads_back_identical(tmp_path):
    t = simulate(talo_balance(4), 1.5)
    path = t.save(tmp_path / "run.npz")
    back = Timeline.load(path)
    assert np.array_equal(back.poses, t.poses) and np.array_equal(back.times, t.times)
    assert back.events == t.events and back.pieces == t.pieces and back.ids == t.ids
    assert back.settled == t.settled and back.seconds == t.seconds and back.settings == t.settings
    assert back.scene.ids == t.scene.ids and not list(tmp_path.glob(".run.npz.*"))
    with np.load(path, allow_pickle=False) as data:  # plain arrays and JSON, never pickle
        assert set(data.files) == {"times", "poses", "manifest"}


@pytest.mark.parametrize("damage, message", [
    (lambda p: p.write_bytes(b"not a zip"), "cannot read"),
    (lambda p: np.savez(p, times=np.zeros(1)), "poses: missing"),
    (lambda p: np.savez(p, times=np.zeros(1), poses=np.zeros((1, 0, 7)),
                        manifest=np.frombuffer(b'{"format": "other/1"}', dtype=np.uint8)), "manifest.format"),
])
def test_a_broken_timeline_file_is_one_clear_error(tmp_path, damage, message):
    path = tmp_path / "bad.npz"
    damage(path)
    with pytest.raises(TimelineFileError, match=message) as err:
        Timeline.load(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_settle_reports_its_progress():
    calls = []
    settle(cube_tower(2), seconds=1.0, progress=lambda done, total: calls.append((done, total)))
    assert calls and all(total == pytest.approx(1.0) for _, total in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_the_reference_cases_load_no_engine():
    code = "import sys, sim.cases as c; c.harmonic_stack(3, 0.9); print('pybullet' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
