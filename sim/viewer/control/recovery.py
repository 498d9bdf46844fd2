"""Autosave and recovery: the session's scene in a recovery file, every 30 s and on exit.

The file is JSON (``towerlab-recovery/1``): the scene in the scene format, where
it came from, when it was saved, and whether the session ended cleanly. A
session that ends normally marks it clean; one that crashed leaves it unclean,
and the next viewer offers to recover it. Writes are atomic (``sim.atomic``):
a crash while saving leaves the previous autosave whole.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from sim.atomic import write_text
from sim.errors import SceneError, TowerlabError
from sim.jsontext import READ_ERRORS, unreadable
from sim.limits import FileRefusedError, read_text
from sim.scene import Scene, from_dict, to_dict

FORMAT = "towerlab-recovery/1"
INTERVAL = 30.0
"""Seconds between autosaves."""


def state_folder() -> Path:
    """The user's towerlab state folder: ``$XDG_STATE_HOME/towerlab`` (``~/.local/state/towerlab``)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "towerlab"


def default_path() -> Path:
    """``$XDG_STATE_HOME/towerlab/recovery.json`` (``~/.local/state/towerlab/recovery.json``)."""
    return state_folder() / "recovery.json"


class RecoveryError(TowerlabError):
    """A recovery file that cannot be read."""


@dataclass(frozen=True)
class Recovered:
    """What a recovery file holds.

    Attributes:
        scene: the scene as it was autosaved.
        source: the scene file the session had open, or None.
        saved_at: when (seconds since the epoch).
        clean: whether the session ended normally.
        supply: the pieces of the scene that lay in the supply (beside the board, not built).
    """

    scene: Scene
    source: str | None
    saved_at: float
    clean: bool
    supply: tuple[str, ...] = ()


class Recovery:
    """The recovery file of a session.

    Args:
        path: where it lives (default :func:`default_path`).
        clock: wall-clock seconds (injected for tests).
        interval: seconds between autosaves.
    """

    def __init__(self, path=None, clock=time.time, interval: float = INTERVAL):
        self.path = Path(path) if path is not None else default_path()
        self.clock = clock
        self.interval = interval
        self.last = clock()
        self.error: str | None = None

    def due(self) -> bool:
        """Whether an autosave is due."""
        return self.clock() - self.last >= self.interval

    def save(self, scene: Scene, source: str | None, clean: bool = False, supply=()) -> bool:
        """Write the recovery file, with which of the scene's pieces lie in the ``supply``; whether it worked
        (else :attr:`error` says why, and nothing is lost)."""
        self.last = self.clock()
        ids = {p.id for p in scene.pieces}
        data = {"format": FORMAT, "clean": clean, "saved_at": self.last, "source": source,
                "supply": sorted(i for i in supply if i in ids), "scene": to_dict(scene)}
        try:
            write_text(self.path, json.dumps(data, ensure_ascii=False) + "\n")
        except OSError as e:
            self.error = f"autosave to {self.path} failed: {e.strerror or e}"
            return False
        self.error = None
        return True

    def pending(self) -> Recovered | None:
        """The autosave of a session that did not end cleanly, or None (none, clean, or unreadable)."""
        try:
            found = self.read()
        except RecoveryError:
            return None
        return None if found is None or found.clean else found

    def read(self) -> Recovered | None:
        """What the file holds (None when there is none).

        Raises:
            RecoveryError: it cannot be read or is not a recovery file.
        """
        if not os.path.lexists(self.path):
            return None
        try:
            text = read_text(self.path, "autosave")
        except FileRefusedError as e:
            raise RecoveryError(str(e)) from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise RecoveryError(f"{self.path}:{e.lineno}: not JSON: {e.msg}") from None
        except READ_ERRORS as e:
            raise RecoveryError(f"{self.path}: {unreadable(e)}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecoveryError(f"{self.path}: format: expected {FORMAT!r}")
        try:
            scene = from_dict(data.get("scene"), str(self.path))
        except SceneError as e:
            raise RecoveryError(str(e)) from None
        supply = data.get("supply", [])
        ids = {p.id for p in scene.pieces}
        if not isinstance(supply, list) or not all(isinstance(i, str) and i in ids for i in supply):
            raise RecoveryError(f"{self.path}: supply: expected a list of the scene's piece ids")
        return Recovered(scene, data.get("source"), float(data.get("saved_at", 0.0)), bool(data.get("clean")),
                         tuple(supply))
