"""The viewer's modes as a small state machine: building, carrying, browsing the history.

The controller derives the mode after every action and moves the machine
there; a move the table does not allow is a bug, not bad input, and raises.
The window mirrors the machine in a ``direct.fsm.FSM`` whose states bind the
mouse differently (a click picks in ``build``, sets down in ``carry``, resumes
in ``history``). Play and replay (the next issues) add their own states here.
"""

from __future__ import annotations

from collections.abc import Callable

MODES = ("build", "carry", "history")
TRANSITIONS: dict[str, frozenset[str]] = {
    "build": frozenset({"carry", "history"}),
    "carry": frozenset({"build", "history"}),
    "history": frozenset({"build", "carry"}),
}
"""mode -> the modes it may go to."""


class ModeMachine:
    """The current mode and who wants to know when it changes.

    Attributes:
        state: the current mode.
    """

    def __init__(self, state: str = "build"):
        if state not in MODES:
            raise ValueError(f"unknown mode {state!r}")
        self.state = state
        self._listeners: list[Callable[[str, str], None]] = []

    def listen(self, fn: Callable[[str, str], None]) -> None:
        """Call ``fn(old, new)`` on every change."""
        self._listeners.append(fn)

    def go(self, new: str) -> bool:
        """Move to ``new`` (nothing when already there); whether it changed.

        Raises:
            RuntimeError: the table does not allow it.
        """
        if new == self.state:
            return False
        if new not in TRANSITIONS.get(self.state, ()):
            raise RuntimeError(f"the viewer cannot go from {self.state!r} to {new!r}")
        old, self.state = self.state, new
        for fn in self._listeners:
            fn(old, new)
        return True


def mode_of(carrying: bool, browsing: bool) -> str:
    """The mode a session is in: browsing the history wins over carrying."""
    return "history" if browsing else "carry" if carrying else "build"
