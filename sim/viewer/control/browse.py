"""What the file list shows and does, without a window: a folder's sub-folders and files of the wanted
suffixes, what a typed name or path means (a folder to enter, a file to open, a name to save as), and the
recent files kept in the user's state folder.

Pure (the file system only; no Panda3D): :class:`sim.viewer.window.filedialog.FileDialog` draws it. A folder is
listed with care: hidden entries left out, only regular files of the suffixes (a FIFO or a device named
``x.json`` is never offered), at most :data:`SCAN_LIMIT` entries read (a folder of a million files does not
stall the window), and a folder that cannot be read is said, not raised.

The recent files are ``$XDG_STATE_HOME/towerlab/recent.json`` (``towerlab-recent/1``: the files' absolute
paths, newest first, at most :data:`KEEP`), written atomically; a file there that is not one (too large, not
JSON, not a list of paths) is ignored, with one line that says so.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from sim.atomic import write_text
from sim.jsontext import READ_ERRORS, unreadable
from sim.viewer.control.recovery import state_folder

SCAN_LIMIT = 5000
"""Entries of a folder read at most."""
KEEP = 10
"""Recent files kept."""
RECENT_BYTES = 64 * 1024
"""The largest recent-files file read."""
PATH_CHARS = 4096
"""The longest path kept among the recent files."""
FORMAT = "towerlab-recent/1"


@dataclass(frozen=True)
class Entry:
    """One row of the list.

    Attributes:
        name: what the row says (a folder's ends in ``/``).
        path: the folder or file it stands for.
        kind: ``parent`` (the folder above), ``folder``, ``file`` or ``recent`` (a recent file, anywhere).
    """

    name: str
    path: Path
    kind: str

    @property
    def typed(self) -> str:
        """What choosing the row puts in the name line (Enter then does what the row stands for)."""
        if self.kind == "parent":
            return "../"
        if self.kind == "recent":
            return str(self.path)
        return self.name


@dataclass(frozen=True)
class Listing:
    """A folder as the list shows it.

    Attributes:
        folder: the folder (absolute).
        entries: the folder above (unless at the root), then the sub-folders, then the files, each by name.
        error: why the folder could not be read (its entries then are only the folder above), or None.
        cut: whether more entries than :data:`SCAN_LIMIT` were there (the rest are not shown).
    """

    folder: Path
    entries: tuple[Entry, ...]
    error: str | None = None
    cut: bool = False

    @property
    def files(self) -> int:
        return sum(e.kind == "file" for e in self.entries)

    @property
    def folders(self) -> int:
        return sum(e.kind == "folder" for e in self.entries)


def _matches(name: str, suffixes) -> bool:
    return any(name.lower().endswith(s.lower()) for s in suffixes)


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def list_folder(folder, suffixes, limit: int = SCAN_LIMIT) -> Listing:
    """The entries of ``folder``: its sub-folders, its regular files ending in one of ``suffixes`` (any case),
    hidden ones (a leading dot) left out.

    Args:
        folder: the folder (made absolute).
        suffixes: e.g. ``(".json",)``.
        limit: entries read at most.
    """
    folder = Path(os.path.abspath(os.path.expanduser(str(folder))))
    parent = () if folder.parent == folder else (Entry("../", folder.parent, "parent"),)
    folders, files, cut = [], [], False
    try:
        with os.scandir(folder) as it:
            for k, entry in enumerate(it):
                if k >= limit:
                    cut = True
                    break
                if entry.name.startswith("."):
                    continue
                try:
                    if entry.is_dir():
                        folders.append(Entry(entry.name + "/", Path(entry.path), "folder"))
                    elif _matches(entry.name, suffixes) and stat.S_ISREG(entry.stat().st_mode):
                        files.append(Entry(entry.name, Path(entry.path), "file"))
                except OSError:  # a broken link, an entry gone meanwhile
                    continue
    except OSError as e:
        return Listing(folder, parent, f"cannot read this folder: {e.strerror or e}")
    order = lambda e: (e.name.lower(), e.name)  # noqa: E731
    return Listing(folder, parent + tuple(sorted(folders, key=order)) + tuple(sorted(files, key=order)), None, cut)


@dataclass(frozen=True)
class Decision:
    """What Enter does with the name line.

    Attributes:
        kind: ``enter`` (a folder: show it), ``choose`` (the file is chosen), ``confirm`` (saving over an existing
            file: Enter again replaces it), ``error`` (nothing happens; ``message`` says why).
        path: the folder or file.
        message: what the dialog says.
    """

    kind: str
    path: Path | None = None
    message: str = ""


def decide(folder, typed: str, suffixes, save: bool) -> Decision:
    """What the name line ``typed`` means in ``folder``: a name or a path (relative to the folder, absolute, or
    with ``~``), a folder to enter, a file to open or to save as.

    Opening takes a regular file of the suffixes. Saving takes a name whose folder exists; a name without one of
    the suffixes gets the first; an existing regular file is to be confirmed; anything else there is refused.
    """
    text = typed.strip()
    if not text:
        return Decision("error", message="type a name, or choose a row")
    path = Path(os.path.abspath(os.path.join(str(folder), os.path.expanduser(text))))
    if path.is_dir():
        return Decision("enter", path)
    if text.endswith(("/", os.sep)):
        return Decision("error", path, f"no folder {path}")
    if not save:
        if not path.exists():
            return Decision("error", path, f"no file {path.name} here")
        if not _regular(path):
            return Decision("error", path, f"{path.name} is not a regular file")
        if not _matches(path.name, suffixes):
            return Decision("error", path, f"{path.name}: expected a {' or '.join(suffixes)} file")
        return Decision("choose", path)
    if not _matches(path.name, suffixes):
        path = path.with_name(path.name + suffixes[0])
    if not path.parent.is_dir():
        return Decision("error", path, f"no folder {path.parent}")
    if path.exists() or path.is_symlink():
        if not _regular(path):
            return Decision("error", path, f"{path.name} is not a regular file: choose another name")
        return Decision("confirm", path, f"{path.name} exists: Enter again replaces it")
    return Decision("choose", path)


def recent_path() -> Path:
    """``$XDG_STATE_HOME/towerlab/recent.json`` (``~/.local/state/towerlab/recent.json``)."""
    return state_folder() / "recent.json"


class RecentFiles:
    """The files last opened or saved, newest first (see the module).

    Args:
        path: the file they are kept in (default :func:`recent_path`).
        keep: how many are kept.

    Attributes:
        error: why the file could not be read or written (one line), or None.
    """

    def __init__(self, path=None, keep: int = KEEP):
        self.path = Path(path) if path is not None else recent_path()
        self.keep = keep
        self.error: str | None = None

    def read(self) -> list[Path]:
        """Every path the file holds (none when it is missing or not a recent-files file: :attr:`error` says)."""
        self.error = None
        try:
            if self.path.stat().st_size > RECENT_BYTES:
                self.error = f"{self.path}: larger than {RECENT_BYTES // 1024} KiB, not read"
                return []
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except OSError as e:
            self.error = f"{self.path}: cannot be read ({e.strerror or e})"
            return []
        except UnicodeDecodeError:
            self.error = f"{self.path}: not a text file (expected UTF-8 JSON)"
            return []
        except READ_ERRORS as e:
            self.error = f"{self.path}: {unreadable(e)}"
            return []
        files = data.get("files") if isinstance(data, dict) and data.get("format") == FORMAT else None
        if not isinstance(files, list) or not all(_a_path(f) for f in files):
            self.error = f"{self.path}: expected {{\"format\": \"{FORMAT}\", \"files\": [absolute paths]}}"
            return []
        return [Path(f) for f in files[:self.keep]]

    def files(self, suffixes=None) -> list[Path]:
        """The recent files that are still regular files (of ``suffixes``, when given)."""
        return [p for p in self.read() if _regular(p) and (suffixes is None or _matches(p.name, suffixes))]

    def add(self, path) -> bool:
        """Put ``path`` first (once), keep :attr:`keep`; whether it was written (else :attr:`error` says why)."""
        path = Path(os.path.abspath(str(path)))
        files = [path] + [p for p in self.read() if p != path]
        try:
            write_text(self.path, json.dumps({"format": FORMAT, "files": [str(p) for p in files[:self.keep]]},
                                             indent=1) + "\n")
        except OSError as e:
            self.error = f"{self.path}: cannot be written ({e.strerror or e})"
            return False
        self.error = None
        return True


def _a_path(value) -> bool:
    return isinstance(value, str) and 0 < len(value) <= PATH_CHARS and "\0" not in value and os.path.isabs(value)
