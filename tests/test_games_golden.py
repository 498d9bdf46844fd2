"""Every game command's output on every bundled scene stays as recorded (``tests/golden/games.json``).

The cases that run the physics are checked by ``python -m tests.games_golden --check --physics``
(about a minute); here the rest, which take seconds.
"""

from __future__ import annotations

import difflib

import pytest

from tests import games_golden

GOLDEN = games_golden.load()
QUICK = [c for c in games_golden.cases() if not c.physics]


@pytest.mark.parametrize("case", QUICK, ids=[c.key for c in QUICK])
def test_output_is_as_recorded(case):
    got = games_golden.run(case)
    want = GOLDEN[case.key]
    if got != want:
        diff = "\n".join(difflib.unified_diff(want["out"].splitlines(), got["out"].splitlines(), "recorded", "now",
                                              lineterm="", n=1))
        pytest.fail(f"exit {want['code']} -> {got['code']}\n{diff}")


def test_every_case_is_recorded():
    assert {c.key for c in games_golden.cases()} <= set(GOLDEN)
