"""A game's log shared between its states: memory linear in the game's length, each state's log its own."""

from __future__ import annotations

import dataclasses
import json
import tracemalloc

import numpy as np
import pytest

from sim.games.log import EventLog
from sim.games.talo import fantasy
from sim.games.talo import game as talo
from sim.games.talo.turns import TAKE, TurnEvent


def every_state(throws: int, seed: int = 0) -> list:
    """A Talo game of ``throws`` throws, each taken and handed back, and every state of it (an undo stack)."""
    rng = np.random.default_rng(seed)
    s = talo.new_game({"red": (0, 0), "blue": (0, 9)})
    states = [s]
    for _ in range(throws):
        s = talo.throw(s, rng)
        if s.phase == TAKE:
            s = talo.end_turn(talo.take(s, s.options[0]))
        states.append(s)
    return states


def kept_bytes(throws: int) -> int:
    tracemalloc.start()
    try:
        states = every_state(throws)
        size, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(states[-1].log) >= 2 * throws
    return size


def test_every_state_of_a_long_game_takes_memory_linear_in_its_length():
    """A tuple per state made the states of 4 000 throws take 1.4 GB (quadratic); a shared log grows by the
    entries alone: three times the throws, about three times the memory."""
    small, large = kept_bytes(300), kept_bytes(900)
    assert large < 4.0 * small
    assert large / 900 < 20_000  # bytes a throw: its events and a state, no copy of the log


def test_a_state_keeps_its_own_log_as_later_ones_grow_and_branch():
    states = every_state(30)
    old = states[10]
    before = [e.to_json() for e in old.log]
    branch = talo.throw(old, np.random.default_rng(99))  # as after an undo: play on from an old state
    assert [e.to_json() for e in old.log] == before
    assert len(branch.log) > len(old.log) and list(branch.log)[:len(before)] == list(old.log)
    assert list(states[11].log)[:len(before)] == list(old.log)
    with pytest.raises(dataclasses.FrozenInstanceError):
        old.log = ()


def test_states_round_trip_through_json_equal_to_themselves():
    for s in every_state(40)[::7]:
        back = type(s).from_json(json.loads(json.dumps(s.to_json())))
        assert back == s and isinstance(back.log, EventLog)


def test_a_log_reads_as_the_tuple_of_its_entries():
    entries = tuple(TurnEvent(k, "red", "throw", {"rolls": [k]}) for k in range(6))
    log = EventLog.of(entries[:4]) + entries[4:]
    assert len(log) == 6 and tuple(log) == entries and log == entries and list(reversed(log)) == list(entries[::-1])
    assert log[0] == entries[0] and log[-1] == entries[-1] and log[-2] == entries[-2] and log[2:4] == entries[2:4]
    assert log.add(entries[0]) != log and EventLog.of(entries) == log and EventLog() == ()
    with pytest.raises(IndexError):
        log[6]
    with pytest.raises(IndexError):
        log[-7]


def test_a_state_given_a_tuple_of_events_holds_them_as_a_log():
    s = talo.new_game({"red": (0, 0)})
    given = dataclasses.replace(s, log=tuple(s.log))
    assert isinstance(given.log, EventLog) and given == s


def test_fantasy_states_share_their_log_too():
    s = fantasy.new_fantasy(("red", "blue"))
    t = fantasy.throw(s, np.random.default_rng(1))
    assert isinstance(t.log, EventLog) and len(t.log) > len(s.log)
