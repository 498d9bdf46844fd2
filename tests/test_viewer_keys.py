"""Every control of the viewer window is bound, listed in the help overlay and on docs/viewer.md; every
action is documented there too."""

from __future__ import annotations

from pathlib import Path

from sim.viewer.actions import SPECS
from sim.viewer.keys import CONTROLS, help_text

DOC = (Path(__file__).resolve().parents[1] / "docs" / "viewer.md").read_text(encoding="utf-8")


def test_every_control_is_on_the_docs_page_and_in_the_help():
    lines = "\n".join(k + "\n" + h for k, h in help_text(2))
    for c in CONTROLS:
        assert f"| {c.keys} | {c.help} |" in DOC, c.keys
        assert c.keys in lines and c.help in lines


def test_every_control_calls_a_method_of_the_window():
    from sim.viewer.window import ViewerWindow

    for c in CONTROLS:
        if c.method is not None:
            assert callable(getattr(ViewerWindow, c.method, None)), c.method
            assert c.events, c.keys


def test_every_action_is_documented():
    table = DOC[DOC.index("| action | fields |"):]
    for name in SPECS:
        assert f"`{name}`" in table, name
