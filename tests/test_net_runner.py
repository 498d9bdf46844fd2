"""The table's thread (sim.net.runner.Runner): frames paced by the wall clock, a stall caught up by the frames
after it while it is short, the game slowed down instead once it is longer than MAX_BEHIND."""

from __future__ import annotations

import threading
import time

import pytest

from sim.net.runner import MAX_BEHIND, Runner
from sim.net.table import FRAME, ServedTable, Setup

TOHU = Setup("tohuwabohu", "basic", ("red", "blue"), 3, 600.0)


def _stalled_run(stall: float, after: float = 0.6) -> tuple[int, float]:
    """Frames a table ran, and the clock's seconds, when one of its frames took ``stall`` seconds of the wall:
    the clock is the wall's plus ``stall`` from the tenth frame on (a frame that cost that long, at no cost to
    the test)."""
    table = ServedTable(TOHU, live=False)
    skew = {"s": 0.0}
    step = table.step

    def stalling():
        if table.frame_no == 10:
            skew["s"] = stall
        return step()
    table.step = stalling
    published = threading.Event()
    runner = Runner(table, lambda u: published.set(), clock=lambda: time.monotonic() + skew["s"])
    t0 = runner.clock()
    runner.start()
    try:
        assert published.wait(10.0)
        end = time.monotonic() + after + stall  # well past the stall: caught up by then if it is to be
        while time.monotonic() < end:  # the table's own signal: a frame published
            published.clear()
            published.wait(0.1)
        frames, elapsed = table.frame_no, runner.clock() - t0
    finally:
        runner.stop(save=False)
        table.close()
    return frames, elapsed


@pytest.mark.parametrize("stall", [0.5, 1.5])
def test_a_frame_that_stalls_the_table_for_a_second_or_so_is_caught_up(stall):
    """A collapse's frames come in bursts (the longest some 50 ms, certifications between): the frames after
    them catch the wall up, so the table keeps real time over the collapse (docs/network.md)."""
    frames, elapsed = _stalled_run(stall)
    assert frames >= elapsed / FRAME - 6, (frames, elapsed / FRAME)  # the game's time is the wall's again


def test_a_stall_longer_than_max_behind_slows_the_game_down_instead_of_racing_through_it():
    stall = 3.0
    assert stall > MAX_BEHIND
    frames, elapsed = _stalled_run(stall)
    lost = elapsed - frames * FRAME
    assert stall - 0.2 <= lost <= stall + 0.3, (lost, stall)  # the stall's time is lost, not raced through


def test_a_command_sent_after_the_table_stopped_fails_at_once_instead_of_waiting_forever():
    table = ServedTable(TOHU, live=False)
    runner = Runner(table, lambda u: None)
    runner.start()
    assert runner.call(lambda t: t.frame_no).result(10.0) >= 0
    runner.stop(save=False)
    late = runner.call(lambda t: t.frame_no)  # a client's handler, as the server closes its connection
    with pytest.raises(RuntimeError, match="the table has stopped"):
        late.result(1.0)
    table.close()
