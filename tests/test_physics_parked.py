"""Parked pieces (a game's supply beside the board): static bodies that neither the statics nor the motion tracker
look at until a hand, a move or a touch wakes them; they still hold up what is set on them."""

from __future__ import annotations

import numpy as np
import pytest
from test_physics_live import BOX, box, carry, scene

from sim.physics.live import LiveWorld, beside, rest
from sim.viewer.control.stability import StaticsWorker


def supply(n, x0=200.0):
    """``n`` boxes in a row on the table, 4 mm apart."""
    return [box(f"s{k}", x0 + k * (BOX + 4.0), 0, 0) for k in range(n)]


def judged(monkeypatch):
    """The ids of the scenes the certification is asked about, call by call."""
    asked = []
    real = rest.certify

    def spy(scene, exclude, cache=None, parked=()):
        cert = real(scene, exclude, cache, parked)
        asked.append(set(cert.held | cert.unheld))
        return cert

    monkeypatch.setattr(rest, "certify", spy)
    return asked


def test_parked_pieces_are_neither_judged_nor_watched_and_never_move(monkeypatch):
    with LiveWorld(scene(box("t0", 0, 0, 0), box("t1", 0, 0, 1), *supply(12))) as lw:
        lw.park([f"s{k}" for k in range(12)])
        asked = judged(monkeypatch)
        before = lw.poses()
        lw.set_pose("t1", [0.0, 0.0, 0.03, 0, 0, 0, 1])  # a change: the statics are asked again
        lw.advance(1.0)
        assert asked and all(ids <= {"t0", "t1"} for ids in asked)  # the supply is never judged
        assert lw.parked == {f"s{k}" for k in range(12)} and not lw.parked & set(lw.tracker.ids)
        assert lw.free() == [] and {"t0", "t1"} <= lw.held
        assert np.array_equal(lw.poses()[2:], before[2:]) and not lw.events


def test_a_hand_takes_a_parked_piece_and_sets_it_on_a_stack_where_it_is_held():
    with LiveWorld(scene(box("t0", 0, 0, 0), *supply(3))) as lw:
        lw.park(["s0", "s1", "s2"])
        lw.grab("s0", "right", player="ana")
        assert "s0" not in lw.parked and lw.parked == {"s1", "s2"}
        carry(lw, "right", [(0.2, 0.0, 0.07), (0.0, 0.0, 0.07), (0.0, 0.0, 0.0302)])
        lw.release("right")
        lw.advance(1.0)
        np.testing.assert_allclose(lw.pose("s0")[:3], [0.0, 0.0, 0.03], atol=5e-4)
        assert "s0" in lw.held and not [e for e in lw.events if e.kind == "knocked_down"]


def test_what_rests_on_a_parked_piece_is_held_by_it():
    with LiveWorld(scene(*supply(2), box("top", 200.0, 0, 1))) as lw:
        lw.park(["s0", "s1"])
        lw.set_pose("top", [0.2, 0.0, 0.03, 0, 0, 0, 1])
        lw.advance(1.0)
        assert "top" in lw.held and lw.certification.below["top"] == {"s0"}
        np.testing.assert_allclose(lw.pose("top")[:3], [0.2, 0.0, 0.03], atol=1e-6)


def test_a_carried_piece_that_strikes_parked_ones_wakes_them_and_they_fall():
    stack = [box(f"p{k}", 200.0, 0, k) for k in range(4)]
    with LiveWorld(scene(box("block", 100.0, 0, 0), *stack)) as lw:
        lw.park([f"p{k}" for k in range(4)])
        lw.grab("block", "right", player="ben")
        target = lw.hands.state("right").target.copy()
        for k in range(1, 61):
            target[:3] = [0.1 + 0.15 * k / 60, 0.0, 0.05]
            lw.move_hand("right", target)
            lw.advance(1 / 60)
        lw.advance(1.5)
        assert {"p2", "p3"} <= {p for e in lw.events if e.kind == "knocked_down" for p in e.pieces}
        assert not {"p2", "p3"} & lw.parked and lw.pose("p3")[2] < 0.05


def test_unparked_pieces_are_certified_again_and_a_snapshot_keeps_the_parked_set():
    with LiveWorld(scene(*supply(4))) as lw:
        lw.park(["s0", "s1", "s2", "s3"])
        snap = lw.snapshot()
        lw.park(["s0"])
        lw.advance(0.2)
        assert lw.parked == {"s0"} and {"s1", "s2", "s3"} <= lw.held and {"s1", "s2", "s3"} <= set(lw.tracker.ids)
        lw.restore(snap)
        assert lw.parked == {"s0", "s1", "s2", "s3"} and not lw.held
        lw.advance(0.5)
        assert not lw.events and lw.free() == []


def test_beside_keeps_what_touches_the_building_fixed_and_drops_the_rest():
    s = scene(box("a", 0, 0, 0), box("b", 0, 0, 1), box("near", BOX, 0, 0), box("far", 300, 0, 0))
    out = beside(s, {"near", "far"})
    assert list(out.ids) == ["a", "b", "near"] and out.piece("near").fixed and not out.piece("a").fixed
    assert list(beside(s, ()).ids) == list(s.ids)
    assert beside(s, {"a", "b", "near", "far"}).pieces == ()


def test_the_inline_statics_judge_the_newest_configuration_when_asked(monkeypatch):
    from sim.viewer.control import stability

    calls = []
    real = stability.judge
    monkeypatch.setattr(stability, "judge", lambda scene, revision=0, margin=True:
                        calls.append(revision) or real(scene, revision, margin))
    worker = StaticsWorker("inline")
    s = scene(box("a", 0, 0, 0))
    for revision in (1, 2, 3):
        worker.submit(s, revision)
    assert calls == [] and not worker.pending  # nobody asked: nothing judged yet
    assert worker.latest().revision == 3 and worker.latest().revision == 3
    assert calls == [3]  # the newest only, once
    assert worker.wait().feasible


@pytest.mark.parametrize("n", [0, 40])
def test_a_supply_costs_the_certification_nothing(n):
    """The statics are asked about the building only, whatever the supply's size (its pieces are not in the
    judged scene at all: the count of judged pieces is the building's)."""
    with LiveWorld(scene(box("t0", 0, 0, 0), box("t1", 0, 0, 1), *supply(n))) as lw:
        lw.park([f"s{k}" for k in range(n)])
        lw.set_pose("t1", [0.0, 0.0, 0.03, 0, 0, 0, 1])
        lw.advance(0.5)
        assert lw.certification.held | lw.certification.unheld == {"t0", "t1"}
        assert set(lw.tracker.ids) == {"t0", "t1"}
