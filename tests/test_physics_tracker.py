"""The motion tracker fed by hand: thresholds passed in, contacts asked for only when something moved."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.physics import TIMELINE_THRESHOLDS, MotionThresholds, MotionTracker
from sim.tol import tol

BOX = np.array([[-0.01, -0.01, -0.01], [0.01, 0.01, 0.01]])  # a 20 mm cube
START = np.array([[0.0, 0.0, 0.03, 0, 0, 0, 1], [0.0, 0.0, 0.01, 0, 0, 0, 1]], dtype=float)
RESTING = {"top": (frozenset({"bottom"}), frozenset({"bottom"})), "bottom": (frozenset({"board", "top"}),
                                                                            frozenset({"board"}))}


def tracker(thresholds=TIMELINE_THRESHOLDS, **kwargs) -> MotionTracker:
    return MotionTracker(["top", "bottom"], [BOX, BOX], START, RESTING, thresholds, **kwargs)


def shifted(dx: float) -> np.ndarray:
    poses = START.copy()
    poses[0, 0] += dx
    return poses


def test_what_counts_as_moved_is_the_thresholds_passed_in():
    coarse = MotionThresholds.from_tolerances(tol)
    fine = MotionThresholds(2e-4, 0.01, 0.005, 0.2, 0.004, 0.25)
    a, b = tracker(coarse), tracker(fine)
    assert a.frame(0.1, shifted(5e-4), RESTING) == []  # half a millimetre: not 1 mm
    (event,) = b.frame(0.1, shifted(5e-4), RESTING)
    assert (event.kind, event.pieces, event.time) == ("moved", ("top",), 0.1)
    knocked = b.frame(0.2, shifted(6e-3), RESTING)
    assert [(e.kind, e.pieces) for e in knocked] == [("knocked_down", ("top",))]  # 6 mm: past fine's 5 mm


def test_contacts_are_asked_for_only_once_something_moved():
    asked = []

    def contacts():
        asked.append(True)
        return {"top": (frozenset({"board"}), frozenset({"board"})), "bottom": RESTING["bottom"]}

    t = tracker()
    t.frame(0.1, shifted(1e-5), contacts)  # a hundredth of a millimetre: still
    assert asked == []
    events = t.frame(0.2, shifted(0.03), contacts)
    assert asked == [True]
    kinds = {e.kind for e in events}
    assert {"moved", "left_support", "fell", "knocked_down"} <= kinds  # lost the bottom block, lies on the board


def test_rest_events_for_pieces_that_moved_and_the_whole_settling():
    t = tracker(piece_rest=True)
    moving, still = np.array([True, False]), np.array([True, True])
    t.frame(0.1, shifted(0.002), RESTING, resting=~moving)
    assert not t.settled(0.1)
    t.frame(0.2, shifted(0.002), RESTING, resting=still)
    events = t.frame(0.2 + tol.rest_window, shifted(0.002), RESTING, resting=still)
    assert [(e.kind, e.pieces) for e in events] == [("came_to_rest", ("top",)), ("settled", ())]
    assert t.settled(0.2 + tol.rest_window)


def test_pieces_come_and_go_and_a_new_baseline_clears_their_flags():
    t = tracker()
    t.frame(0.1, shifted(0.02), RESTING)
    assert t.pieces(shifted(0.02), RESTING)["top"].knocked_down
    turned = Rotation.from_euler("x", 30, degrees=True).as_quat()
    t.add(["new"], [BOX], [[0.3, 0.0, 0.01, *turned]], {"new": (frozenset({"board"}), frozenset({"board"}))}, 0.1)
    t.rebase(["top"], shifted(0.02)[:1], RESTING, 0.2)
    poses = np.vstack([shifted(0.02), [[0.3, 0.0, 0.01, *turned]]])
    motion = t.pieces(poses, RESTING | {"new": (frozenset({"board"}), frozenset({"board"}))})
    assert not motion["top"].moved and not motion["new"].moved and motion["top"].began_moving is None
    t.remove(["bottom"])
    assert t.ids == ["top", "new"]
    assert t.pieces(poses[[0, 2]], RESTING | {"new": (frozenset(), frozenset())})["top"].displacement == \
        pytest.approx(0.0)
