"""``towerlab check`` and ``towerlab simulate``: the JSON of the issue, text, exit codes; the disagreement rule."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from sim.cases import talo_balance
from sim.cli import main
from sim.physics.verdict import Dynamics, disagreement
from sim.scene import dumps, load_scene

TOP = {"stable", "margin_g", "weakest_direction_deg", "statics", "dynamics", "pieces", "disagreement", "timings_ms"}


def write(tmp_path, scene, name="scene.json"):
    path = tmp_path / name
    path.write_text(dumps(scene) if not isinstance(scene, dict) else json.dumps(scene))
    return path


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_check_json_has_exactly_the_issue_keys_and_exit_0_when_it_falls(tmp_path, capsys):
    code, out, _ = run(capsys, "check", write(tmp_path, talo_balance(2)), "--json", "--seconds", "1")
    assert code == 0
    r = json.loads(out)
    assert set(r) == TOP
    assert set(r["statics"]) == {"feasible", "margin_g"}
    assert set(r["dynamics"]) == {"settled", "sim_seconds", "max_displacement_mm", "moved", "knocked_down"}
    assert set(r["timings_ms"]) == {"statics", "dynamics"}
    assert set(r["pieces"]) == {"post", "beam"}
    assert all(set(p) == {"displacement_mm", "tilt_deg", "knocked_down"} for p in r["pieces"].values())
    assert r["stable"] is False and r["margin_g"] == pytest.approx(0.0, abs=1e-6)
    assert r["dynamics"]["sim_seconds"] == pytest.approx(1.0)
    assert r["dynamics"]["knocked_down"] == ["beam"] and r["pieces"]["beam"]["knocked_down"] is True
    assert r["disagreement"] is None


def test_check_text_says_whether_it_stands(tmp_path, capsys):
    code, out, _ = run(capsys, "check", write(tmp_path, talo_balance(3)), "--seconds", "0.5")
    assert code == 0 and "stands" in out and "margin" in out and "does not" not in out


@pytest.mark.parametrize("args, message", [
    (["check", "missing.json"], "cannot read"),
    (["check", "{scene}", "--seconds", "0"], "--seconds"),
    (["check", "{overlap}"], "overlapping pieces: a and b"),
    (["simulate", "{scene}", "-o", "{dir}"], "is a folder"),
    (["simulate", "{scene}", "-o", "{scene}/x.json"], "is a file, not a folder"),
    (["simulate", "{scene}"], "-o/--out is required"),
    (["simulate", "{scene}", "-o", "{dir}/a.json", "--output", "{dir}/b.json"], "give -o/--out once"),
    (["check", "{scene}", "--seconds", "nan"], "--seconds"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, args, message):
    scene = write(tmp_path, talo_balance(3))
    overlap = write(tmp_path, {"format": "towerlab-scene/1", "game": "free", "pieces": [
        {"id": "a", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10]},
        {"id": "b", "kind": "box", "size": [20, 20, 20], "pos": [10, 0, 10]}]}, "overlap.json")
    args = [a.format(scene=scene, overlap=overlap, dir=tmp_path) for a in args]
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_simulate_writes_the_settled_scene_and_reports_what_happened(tmp_path, capsys):
    out_path = tmp_path / "settled.json"
    code, out, _ = run(capsys, "simulate", write(tmp_path, talo_balance(4)), "-o", out_path, "--json")
    assert code == 0
    report = json.loads(out)
    assert report["knocked_down"] == ["beam"] and report["settled"] is True
    assert [e["kind"] for e in report["events"]][0] == "moved"
    settled = load_scene(out_path)
    assert settled.piece("beam").pos[2] < talo_balance(4).piece("beam").pos[2] - 0.005
    assert not list(tmp_path.glob(".settled.json.*"))  # written atomically, nothing left over


def test_simulate_text_lists_the_events(tmp_path, capsys):
    code, out, _ = run(capsys, "simulate", write(tmp_path, talo_balance(2)), "-o", tmp_path / "o.json",
                       "--seconds", "1.5")
    assert code == 0 and "knocked down: beam" in out and "1.50 s simulated" in out


def stub(feasible=True, margin=0.2, unheld=()):
    return SimpleNamespace(feasible=feasible, margin_g=margin, unheld=unheld, stable=feasible and margin > 1e-3)


def dynamics(moved=()):
    return Dynamics(True, 2.0, 0.0, tuple(moved), ())


def test_disagreement_is_none_when_both_agree_and_says_which_way_when_not():
    assert disagreement(stub(), dynamics()) is None
    assert disagreement(stub(False, 0.0, ("x",)), dynamics(["x"])) is None
    assert "margin of 0.2 g" in disagreement(stub(), dynamics(["a", "b"])) and "a, b moved" in \
        disagreement(stub(), dynamics(["a", "b"]))
    assert "cannot hold x" in disagreement(stub(False, 0.0, ("x",)), dynamics())
    assert "only 0 g" in disagreement(stub(True, 0.0), dynamics())  # a knife edge that did not tip


def test_check_of_a_scene_without_movable_pieces_says_there_is_nothing_to_judge(tmp_path, capsys):
    empty = write(tmp_path, {"format": "towerlab-scene/1", "game": "free", "pieces": []})
    code, out, _ = run(capsys, "check", empty)
    assert code == 0 and "nothing to judge" in out and "margin" not in out and "stands" not in out
    code, out, _ = run(capsys, "check", empty, "--json")
    r = json.loads(out)
    assert r["margin_g"] is None and r["weakest_direction_deg"] is None and r["statics"]["margin_g"] is None


def test_check_reports_progress_from_the_start():
    from sim.physics import check

    calls = []
    check(talo_balance(3), seconds=0.5, progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (0.0, 0.5) and calls[-1][0] == pytest.approx(0.5)


def test_simulate_takes_the_old_output_spelling_and_checks_the_place_before_simulating(tmp_path, capsys, monkeypatch):
    scene = write(tmp_path, talo_balance(3))
    out = tmp_path / "settled.json"
    assert main(["simulate", str(scene), "--output", str(out), "--seconds", "0.05"]) == 0 and out.exists()

    def no_simulation(*a, **k):
        raise AssertionError("simulated before checking the output place")
    monkeypatch.setattr("sim.physics.simulate", no_simulation)
    assert main(["simulate", str(scene), "-o", str(scene / "x.json")]) == 2
