"""The window's small named methods the controls call (:data:`sim.viewer.control.keys.CONTROLS`): each turns a key
into an action of the controller (or opens a dialog for one).

A mixin of :class:`sim.viewer.window.build.ViewerWindow`.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from sim.scene.io import params_to_dict
from sim.viewer.control.actions import SPEEDS
from sim.viewer.window.keycam import toggle_follow

SCENE_FILES = (".json",)
"""What the file list offers to open and save: scene files."""


class Commands:
    """tip, escape, switch_hand, poke, ..., quit (see :mod:`sim.viewer.control.keys`)."""

    def tip(self):
        self._act("tip", {"hand": self.controller.active_hand})

    def escape(self):
        if self.overlay.close_dialog():
            return
        if not self.overlay.help.is_hidden():
            self.overlay.toggle_help(False)
            self.controller.toggles.help = False
            return
        if self.controller.active_hand in self.controller.hands:
            self._act("cancel", {"hand": self.controller.active_hand})

    def flip(self):
        self._act("flip", {"hand": self.controller.active_hand})

    def escape_key(self):
        """Esc: close a dialog or the help, or put what is in hand back (:meth:`escape`); else stop following."""
        c = self.controller
        busy = self.overlay.dialog is not None or not self.overlay.help.is_hidden() or c.active_hand in c.hands
        if busy or c.following is None:
            self.escape()
        elif self._act("follow", {"piece": None}):
            c.say("the camera stays where it is")

    def follow_hovered(self):
        """L: the camera follows the piece under the cursor; again, it stops."""
        c = self.controller
        px = self._mouse_pixel()
        toggle_follow(self._act, c.say, c.following, None if px is None else c.piece_at(*px))

    def switch_hand(self):
        names = self.controller.hand_names
        if len(names) < 2:
            self.controller.say(f"{self.controller.game} is built with one hand at a time")
            return
        other = names[(names.index(self.controller.active_hand) + 1) % len(names)]
        if self._act("hand", {"name": other}):
            self.controller.say(f"the {other} hand")

    def poke(self):
        px = self._mouse_pixel()
        if px is None:
            return
        c = self.controller
        origin, d = c.camera.ray(*px)
        hit = c.world.ray_test(origin, origin + d * 50.0)
        if hit is None or hit.piece not in c.world.ids:
            return
        push = np.array([d[0], d[1], 0.0])
        if np.linalg.norm(push) < 1e-6:
            push = np.array([1.0, 0.0, 0.0])
        self._act("poke", {"piece": hit.piece, "at": list(np.asarray(hit.point) * 1000.0),
                           "direction": list(push / np.linalg.norm(push))})

    def add_like_hovered(self):
        c = self.controller
        pid = c.hovered
        if pid is None:
            c.say("hover over a piece to take another like it")
            return
        p = c.world.piece(pid)
        self._act("add", {"kind": p.kind, "params": params_to_dict(p), "hand": c.active_hand})

    def remove_hovered(self):
        if self.controller.hovered is not None:
            self._act("remove", {"piece": self.controller.hovered})

    def undo(self):
        self._act("undo")

    def redo(self):
        self._act("redo")

    def toggle_pause(self):
        self._act("resume" if self.controller.paused else "pause")

    def step(self):
        self._act("step")

    def reset(self):
        self._act("reset")

    def _speed(self, direction: int):
        k = SPEEDS.index(self.controller.speed) if self.controller.speed in SPEEDS else 0
        k = min(max(k - direction, 0), len(SPEEDS) - 1)
        self._act("speed", {"factor": SPEEDS[k]})

    def frame_all(self):
        self._act("camera", {"preset": "frame"})

    def camera_reset(self):
        self._act("camera", {"preset": "reset"})

    def save(self):
        path = self.controller.source or "towerlab-scene.json"
        if self._act("save", {"path": path}):
            self.overlay.remember(path)

    def save_as(self):
        folder, name = self._file_place()
        self.overlay.choose_file("Save the scene as", folder, SCENE_FILES, True, self._save_to, name=name)

    def open(self):
        folder, _ = self._file_place()
        self.overlay.choose_file("Open a scene file", folder, SCENE_FILES, False, self._open_from)

    def _file_place(self) -> tuple[Path, str]:
        """The folder the file list opens on and the name it offers: the scene's own file, else the working
        folder and ``towerlab-scene.json``."""
        source = self.controller.source
        if source:
            path = Path(source).absolute()
            return path.parent, path.name
        return Path.cwd(), "towerlab-scene.json"

    def _save_to(self, path: Path):
        if self._act("save", {"path": str(path)}):
            self.overlay.remember(path)

    def _open_from(self, path: Path):
        if self._act("load", {"path": str(path)}):
            self.overlay.remember(path)

    def screenshot(self):
        self._act("screenshot", {"path": time.strftime("towerlab-shot-%Y%m%d-%H%M%S.png")})

    def toggle_help(self):
        self._act("toggle", {"what": "help"})

    def toggle_contacts(self):
        self._act("toggle", {"what": "contacts"})
        if self.controller.toggles.contacts != self.controller.toggles.forces:
            self._act("toggle", {"what": "forces"})

    def toggle_centres(self):
        self._act("toggle", {"what": "centres"})

    def toggle_stability(self):
        self._act("toggle", {"what": "stability"})

    def quit(self):
        self.userExit()

    def _recover(self):
        self._act("recover")

    def _recover_key(self):
        """Y: recover, while the offer to recover is open (a Y typed into a name is only a letter)."""
        if self._offer is not None and self.overlay.dialog is self._offer:
            self._end_offer()
            self._recover()

    def _decline_key(self):
        """N: start afresh while the offer is open; afterwards N is its control again."""
        if self._offer is not None and self.overlay.dialog is self._offer:
            self._end_offer()
        elif self.overlay.dialog is None:
            self.add_like_hovered()

    def _end_offer(self):
        self.overlay.close_dialog()
        self._offer = None
        self.ignore("y")
