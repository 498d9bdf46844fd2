"""One physics world per worker thread across simulated trials: ``World.reset`` gives what a new world gives, bit
for bit, and so do the trials run in a reused world."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import sim.experiments.dynamics as dynamics
from sim.cases import talo_counterweight
from sim.experiments import experiment
from sim.experiments.trials import Runner
from sim.physics import OverlapError, World
from tests.helpers import box_record, free_scene


def falling():
    """A box far over the edge of another: it tips off and tumbles."""
    return free_scene(box_record("base", (60, 30, 20), (0, 0, 10)), box_record("top", (60, 30, 20), (40, 0, 30)))


def standing():
    """Four boxes that stand (asleep after 2 s: the probe turned once)."""
    return free_scene(box_record("a", (40, 40, 20), (0, 0, 10)), box_record("b", (40, 40, 20), (5, 0, 30)),
                      box_record("c", (20, 20, 20), (5, 0, 50)), box_record("d", (20, 20, 20), (80, 0, 10)))


def state(world, steps):
    world.step(steps)
    return world.poses(), world.velocities(), tuple(world.asleep()), world.time


def same(a, b):
    return all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(a, b))


def standing_shifted():
    """:func:`standing` with its top box 1 mm aside: another trial of the same pieces."""
    return free_scene(box_record("a", (40, 40, 20), (0, 0, 10)), box_record("b", (40, 40, 20), (5, 0, 30)),
                      box_record("c", (20, 20, 20), (6, 0, 50)), box_record("d", (20, 20, 20), (80, 0, 10)))


@pytest.mark.parametrize("before, steps", [(falling, 300), (standing, 1100)],
                         ids=["after other pieces fell", "after the same pieces slept"])
def test_a_reset_world_runs_as_a_new_one_bit_for_bit(before, steps):
    with World(standing_shifted()) as fresh:
        expected = state(fresh, 1100)
    with World(before()) as world:
        earlier = state(world, steps)
        world.reset(standing_shifted())
        assert world.ids == ["a", "b", "c", "d"] and world.time == 0.0 and world.steps == 0
        assert not world.asleep()
        got = state(world, 1100)
    if before is falling:
        assert np.abs(earlier[0][1, :3] - [0.040, 0.0, 0.030]).max() > 0.005  # the top box did fall
    else:
        assert earlier[2] == ("a", "b", "c", "d")  # their sleep records would say so still, were they kept
    assert expected[2], "some pieces should sleep, so that the sleep bookkeeping is compared too"
    assert same(got, expected)


def test_a_reset_that_finds_an_overlap_leaves_a_world_that_resets_again():
    overlapping = free_scene(box_record("a", (40, 40, 20), (0, 0, 10)), box_record("b", (40, 40, 20), (10, 0, 15)))
    with World(standing()) as fresh:
        expected = state(fresh, 240)
    with World(falling()) as world:
        world.step(100)
        with pytest.raises(OverlapError):
            world.reset(overlapping)
        world.reset(standing())
        assert same(state(world, 240), expected)


def experiments():
    scene = talo_counterweight()
    stack = free_scene(box_record("base", (60, 30, 20), (0, 0, 10)), box_record("top", (60, 30, 20), (27, 0, 30)),
                       box_record("cap", (20, 20, 20), (27, 0, 50)))
    return [experiment(stack, ["noise:sigma_mm=2,pieces=top+cap", "nudge:impulse_ns=0.003,height=random"], seed=42,
                       seconds=0.5),
            experiment(scene, ["noise:sigma_mm=4"], "dynamics", seed=1, seconds=1.0),
            experiment(scene, ["vibration:amplitude_mm=1,frequency_hz=5,duration_s=0.4"], "dynamics", seed=3,
                       seconds=0.4)]


def test_trials_in_a_reused_world_are_those_of_a_new_world_each(monkeypatch):
    """Trials of three experiments in turn (other scenes, collapses, nudges, shaking) in one thread's world give
    the records that a new world per trial gives."""
    exps = experiments()
    reused = [Runner(e).trial(i) for i in range(6) for e in exps]
    assert dynamics._LOCAL.world is not None  # the thread's world was kept
    monkeypatch.setattr(dynamics, "simulate_trial", functools.partial(dynamics.simulate_trial, reuse=False))
    fresh = [Runner(e).trial(i) for i in range(6) for e in exps]
    assert 0 < sum(r.collapsed for r in fresh) < len(fresh)  # both verdicts: collapses left their world behind
    assert reused == fresh


def test_a_new_thread_world_is_made_when_the_settings_change():
    from dataclasses import replace

    from sim.physics import TUNED

    scene = standing()
    first = dynamics.thread_world(scene)
    assert dynamics.thread_world(scene) is first  # kept
    other = dynamics.thread_world(scene, replace(TUNED, solver_iterations=TUNED.solver_iterations + 5))
    assert other is not first and other.settings.solver_iterations == TUNED.solver_iterations + 5
    assert first.client is None  # the old one closed
    dynamics.thread_world(scene)
