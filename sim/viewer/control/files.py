"""The controller's file actions: save and load scene files, recover the last unfinished session.

A part of the controller (:class:`~sim.viewer.control.state.Part`); it holds no state of its own.
"""

from __future__ import annotations

from pathlib import Path

from sim.errors import TowerlabError
from sim.scene import load_scene, save_scene
from sim.viewer.control.actions import Action
from sim.viewer.control.state import Part


class Files(Part):
    """Save, load and recover (see the module)."""

    ACTIONS = ("save", "load", "recover")

    def _do_save(self, a: Action) -> None:
        path = Path(a["path"])
        try:
            save_scene(self.ctl.saved_scene(), path)
        except OSError as e:
            reason = e.strerror or str(e)
            self.ctl.say(f"could not save {path}: {reason}; nothing was lost", "error")
            raise a.fail("path", f"{path}: cannot be written ({reason})") from None
        self.state.source = str(path)
        self.ctl.say(f"saved {path}")

    def _do_load(self, a: Action) -> None:
        try:
            scene = load_scene(a["path"])
        except TowerlabError as e:
            self.ctl.say(str(e), "error")
            raise a.fail("path", str(e)) from None
        self.ctl.start(scene, str(a["path"]), frozenset())
        self.ctl.say(f"loaded {a['path']}")

    def _do_recover(self, a: Action) -> None:
        found = None if self.state.recovery is None else self.state.recovery.pending()
        if found is None:
            raise a.fail(None, "there is no unfinished session to recover")
        self.ctl.start(found.scene, found.source, frozenset(found.supply))  # the supply stays out of the statics
        self.ctl.say("recovered the last session" + (f" ({found.source})" if found.source else ""))
