"""How trials are cut into tasks: a few first, then as many as fill the target time at the measured rate, fewer
towards the end; every trial handed out once."""

from __future__ import annotations

import time

from sim.experiments.batching import FIRST, Batcher


def drain(batcher, seconds_per_trial):
    """Take every task, each reported back at once with the given rate; the tasks in order."""
    tasks = []
    while (task := batcher.take()) is not None:
        tasks.append(task)
        batcher.done(task, seconds_per_trial(task) * len(task.indices))
    return tasks


def test_every_trial_is_handed_out_once_in_order_per_experiment():
    batcher = Batcher([("a", 1000), ("b", 37)], "statics", slots=2)
    tasks = drain(batcher, lambda t: 0.004)
    for job, (spec, n) in enumerate(batcher.jobs):
        mine = [i for t in tasks if t.job == job for i in t.indices]
        assert mine == list(range(n)) and all(t.spec == spec for t in tasks if t.job == job)


def test_tasks_fill_the_target_at_the_measured_rate_and_shrink_at_the_end():
    batcher = Batcher([("a", 2000)], "statics", slots=2, target=0.5)
    tasks = drain(batcher, lambda t: 0.004)
    sizes = [len(t.indices) for t in tasks]
    assert sizes[0] == FIRST["statics"]
    assert sizes[1] == 125  # 0.5 s at 4 ms a trial
    assert sizes[-1] == 1 and sizes[-4:] == sorted(sizes[-4:], reverse=True)  # the last ones shrink to 1
    # towards the end no task holds more than a quarter of what was left (2 slots): the workers finish together
    left = 2000
    for size in sizes:
        assert size <= max(1, -(-left // 4))
        left -= size
    assert len(tasks) < 60  # against 500 tasks of the first size


def test_a_slow_experiment_gets_small_tasks_and_a_first_slow_task_is_outvoted():
    # simulated trials at 0.3 s: one or two a task
    batcher = Batcher([("slow", 40)], "dynamics", slots=2, target=0.5)
    assert max(len(t.indices) for t in drain(batcher, lambda t: 0.3)) == 1
    # a worker's first task took 2 s more (its start); the median of the rates soon ignores it
    batcher = Batcher([("fast", 3000)], "statics", slots=2, target=0.5)
    first = batcher.take()
    batcher.done(first, 2.0)
    for _ in range(2):
        task = batcher.take()
        batcher.done(task, 0.005 * len(task.indices))
    assert len(batcher.take().indices) == 100  # 0.5 s at 5 ms


def test_each_point_of_a_sweep_is_sized_by_its_own_rate():
    batcher = Batcher([("cheap", 1000), ("dear", 1000)], "statics", slots=1, target=0.5)
    tasks = drain(batcher, lambda t: 0.001 if t.spec == "cheap" else 0.05)
    dear = [len(t.indices) for t in tasks if t.spec == "dear"]
    assert dear[0] == FIRST["statics"]  # not 500, the cheap point's size: a 25 s task
    assert max(dear) == 10 and max(len(t.indices) for t in tasks if t.spec == "cheap") == 500


def test_a_task_given_back_goes_out_first():
    batcher = Batcher([("a", 100)], "statics", slots=2)
    lost = batcher.take()
    batcher.take()
    batcher.again(lost)
    assert batcher.take() is lost


def test_a_task_reports_the_cpu_time_of_its_trials_not_the_wall_clock():
    # a worker that shares its core runs the same trials for more wall-clock time: sized by it, its tasks would
    # shrink and their overhead grow; sized by the thread's CPU time, they stay what they are
    import threading

    from sim.experiments import experiment
    from sim.experiments.trials import run_batch, run_task
    from tests.helpers import box_record, free_scene

    spec = experiment(free_scene(box_record("base", (60, 30, 20), (0, 0, 10)),
                                 box_record("top", (60, 30, 20), (20, 0, 30))), ["noise:sigma_mm=2"], seed=3).to_json()
    ticks = iter([10.0, 12.5])
    rows, seconds = run_task(spec, [0, 1], clock=lambda: next(ticks))
    assert seconds == 2.5 and rows == run_batch(spec, [0, 1])
    run_task(spec, [0])  # imports and the runner, before anything is timed
    stop = threading.Event()

    def spin():  # holds the interpreter half the time
        while not stop.is_set():
            pass

    other = threading.Thread(target=spin)
    other.start()
    try:
        start = time.perf_counter()
        _, seconds = run_task(spec, list(range(40)))
        wall = time.perf_counter() - start
    finally:
        stop.set()
        other.join()
    assert seconds < 0.8 * wall
