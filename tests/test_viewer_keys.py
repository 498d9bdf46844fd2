"""Every control of the viewer window is bound, listed in the help overlay and on docs/viewer.md; every
action is documented there too."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.viewer.control.actions import SPECS
from sim.viewer.control.keys import CONTROLS, help_text

DOC = (Path(__file__).resolve().parents[1] / "docs" / "viewer.md").read_text(encoding="utf-8")


def test_every_control_is_on_the_docs_page_and_in_the_help():
    lines = "\n".join(k + "\n" + h for k, h in help_text(2))
    for c in CONTROLS:
        assert f"| {c.keys} | {c.help} |" in DOC, c.keys
        assert c.keys in lines and c.help in lines


def test_every_control_is_in_the_readme():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    controls = readme[readme.index("Controls (F1 shows them"):]
    for c in CONTROLS:
        assert f"`{c.keys}`" in controls, c.keys


def test_every_control_calls_a_method_of_the_window():
    from sim.viewer.window.build import ViewerWindow

    for c in CONTROLS:
        if c.method is not None:
            assert callable(getattr(ViewerWindow, c.method, None)), c.method
            assert c.events, c.keys


def test_every_action_is_documented():
    table = DOC[DOC.index("| action | fields |"):]
    for name in SPECS:
        assert f"`{name}`" in table, name


MODIFIERS = ("shift-", "control-", "alt-")


def _button(event: str) -> str:
    """The button of a Panda3D event name: ``control-shift-z-repeat`` -> ``z``."""
    for suffix in ("-up", "-repeat"):
        event = event.removesuffix(suffix)
    while event.startswith(MODIFIERS) and len(event) > 1:
        event = event.split("-", 1)[1] if not event.endswith("--") else "-"
    return event


def test_every_key_the_viewer_and_the_replay_window_bind_is_a_button_panda3d_knows():
    pytest.importorskip("panda3d")
    from panda3d.core import ButtonRegistry, KeyboardButton, MouseButton

    from sim.viewer.control.keys import CONTROLS as VIEW
    from sim.viewer.replay.keys import CONTROLS as REPLAY

    KeyboardButton.space(), MouseButton.one()  # the registry holds the buttons once their classes are used
    registry = ButtonRegistry.ptr()
    unknown = [(c.keys, e) for c in (*VIEW, *REPLAY) for e in c.events
               if registry.find_button(_button(e)) == ButtonRegistry.ptr().find_button("no-such-button")]
    assert not unknown  # e.g. "period" is no button: Panda3D sends "." (and "shift-,")
