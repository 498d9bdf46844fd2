"""Where sessions are recorded by default: a recordings folder, one file per session, named by its start."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path

ENV = "TOWERLAB_RECORDINGS"
"""The environment variable naming the recordings folder (default ``~/.local/share/towerlab/recordings``, or
``$XDG_DATA_HOME/towerlab/recordings``)."""

SUFFIX = ".tlrec"
"""The suffix of recording files (any name works; this one says what the file is)."""


def recordings_folder() -> Path:
    """The folder sessions are recorded in (not made here)."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV]).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "towerlab" / "recordings"


def session_path(game: str = "free", *, folder=None, when: datetime | None = None) -> Path:
    """A new recording's path: ``<folder>/<UTC date and time>-<game>.tlrec``, numbered if that is taken.

    Args:
        game: the game played (``tohuwabohu``, ``talo``, ``babylon``, ``free``), kept in the name.
        folder: the folder (default :func:`recordings_folder`).
        when: the session's start (default now).
    """
    folder = recordings_folder() if folder is None else Path(folder)
    stamp = (when or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    name = re.sub(r"[^a-z0-9_-]", "-", game.lower()) or "session"
    path = folder / f"{stamp}-{name}{SUFFIX}"
    k = 2
    while path.exists():
        path = folder / f"{stamp}-{name}-{k}{SUFFIX}"
        k += 1
    return path
