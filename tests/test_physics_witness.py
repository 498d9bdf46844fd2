"""``check``'s witness of a stable structure: how soon it lets still pieces freeze and sleep (sim.physics.verdict)."""

from __future__ import annotations

import pytest

from sim.cases.thin import tipping_block
from sim.physics import TUNED, check
from sim.physics.verdict import SHORTEST_WINDOW, stable_window


def test_the_still_spell_shortens_with_the_square_root_of_the_margin_down_to_its_floor():
    s = TUNED
    assert stable_window(s.stable_sleep_margin, s) == s.stable_sleep_window
    assert stable_window(4 * s.stable_sleep_margin, s) == pytest.approx(s.stable_sleep_window / 2)
    widths = [stable_window(m, s) for m in (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 5.0)]
    assert widths == sorted(widths, reverse=True) and min(widths) == SHORTEST_WINDOW
    assert stable_window(0.5, s.with_(stable_sleep_window=0.01)) == 0.01  # never longer than the settings ask


def _asleep_at(scene) -> tuple[float | None, object]:
    """The first recorded time at which every piece of ``scene`` slept in ``check``'s witness, and the result."""
    seen: list[float] = []

    def frame(world, t, poses, events):
        if not seen and world.all_asleep():
            seen.append(t)

    r = check(scene, 0.3, on_frame=frame)
    return (seen[0] if seen else None), r


@pytest.mark.parametrize("margin_g", [0.008, 0.2])
def test_a_block_held_with_a_wide_margin_sleeps_sooner_than_one_near_its_edge(margin_g):
    """A slender block on a tilted plank, 0.2 g from turning over, sleeps within a few hundredths of a second; the
    same block 0.008 g from it waits its longer spell (0.079 s of stillness), and both stand as the statics say."""
    when, r = _asleep_at(tipping_block(margin_g, mu=0.9))
    assert r.margin_g == pytest.approx(margin_g, rel=1e-6)
    assert r.stable and r.dynamics.stable and r.disagreement is None
    window = stable_window(r.margin_g, TUNED)
    assert when is not None and window <= when <= window + 0.04, (when, window)


def test_a_check_times_its_statics_world_and_run_on_the_wall_clock_and_in_cpu_seconds():
    r = check(tipping_block(0.2, mu=0.9), 0.1)
    wall, cpu = r.phases_ms["wall"], r.phases_ms["cpu"]
    assert set(wall) == set(cpu) == {"statics", "world", "run"}
    assert all(v >= 0 for v in (*wall.values(), *cpu.values())) and cpu["run"] > 0
    assert wall["statics"] == r.timings_ms["statics"]
    assert wall["world"] + wall["run"] == pytest.approx(r.timings_ms["dynamics"])
    assert "phases_ms" not in r.to_json()  # the CLI's JSON keeps its keys
