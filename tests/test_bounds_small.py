"""Small bounds: numbers no scene could hold refused with the action, a variant a free game has not."""

from __future__ import annotations

import json

import pytest

from sim.cli import main
from sim.viewer.control.actions import ActionError, action
from tests.helpers import ROOT, one_line
from tests.test_penalty import record, scene


@pytest.mark.parametrize("at", [[1e300, 1e300], [0, 0, -1e300], [100_001, 0]])
def test_move_to_beyond_any_scene_is_refused_with_the_action(at):
    """Overflowed on its way (a RuntimeWarning, exit 0): a point further than a scene's 100 m is no place."""
    with pytest.raises(ActionError, match=r"^at: expected 2 or 3 numbers \(mm\) within ±100000, got \["):
        action({"action": "move-to", "at": at})
    assert action({"action": "move-to", "at": [100_000, -100_000, 5]}).args["at"] == (1e5, -1e5, 5.0)


def test_a_script_that_moves_a_piece_beyond_reach_is_one_line_before_a_window(tmp_path, capsys, monkeypatch):
    import sim.viewer.window.build

    def refuse(*args, **kwargs):
        raise AssertionError("a window was opened although the command should have stopped first")

    monkeypatch.setattr(sim.viewer.window.build, "ViewerWindow", refuse)
    monkeypatch.setenv("DISPLAY", ":99")
    actions = tmp_path / "far.json"
    actions.write_text(json.dumps([{"action": "pick", "piece": "b3-1"}, {"action": "move-to", "at": [1e300, 1e300]}]))
    assert main(["view", str(ROOT / "scenes" / "talo" / "bridge.json"), "--actions", str(actions)]) == 2
    assert one_line(capsys).startswith(f"towerlab: error: {actions}")


def test_a_free_recording_has_no_variants_to_judge_by(tmp_path, capsys):
    """It said 'free has , got 'fast''."""
    free = scene("free", "table", ["ana"], [{"id": "a", "kind": "box", "size": [20, 20, 20], "pos": [0, 0, 10]}])
    r = record(tmp_path / "free.tlrec", free, [{"kind": "wait", "seconds": 0.2}])
    assert main(["penalty", str(r.path), "--variant", "fast"]) == 2
    assert one_line(capsys) == f"towerlab: error: {r.path}: --variant: free has no variants, got 'fast'"
