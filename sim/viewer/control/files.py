"""The controller's file actions: save and load scene files, recover the last unfinished session.

A mixin of :class:`sim.viewer.control.controller.Controller`; it holds no state of its own.
"""

from __future__ import annotations

from pathlib import Path

from sim.errors import TowerlabError
from sim.scene import load_scene, save_scene
from sim.viewer.control.actions import Action


class Files:
    """Save, load and recover (see the module)."""

    def _do_save(self, a: Action) -> None:
        path = Path(a["path"])
        try:
            save_scene(self.saved_scene(), path)
        except OSError as e:
            reason = e.strerror or str(e)
            self.say(f"could not save {path}: {reason}; nothing was lost", "error")
            raise a.fail("path", f"{path}: cannot be written ({reason})") from None
        self.source = str(path)
        self.say(f"saved {path}")

    def _do_load(self, a: Action) -> None:
        try:
            scene = load_scene(a["path"])
        except TowerlabError as e:
            self.say(str(e), "error")
            raise a.fail("path", str(e)) from None
        self._start(scene, str(a["path"]), frozenset())
        self.say(f"loaded {a['path']}")

    def _do_recover(self, a: Action) -> None:
        found = None if self.recovery is None else self.recovery.pending()
        if found is None:
            raise a.fail(None, "there is no unfinished session to recover")
        self._start(found.scene, found.source, frozenset(found.supply))  # the supply stays out of the statics
        self.say("recovered the last session" + (f" ({found.source})" if found.source else ""))
