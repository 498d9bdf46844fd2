"""Atomic file writes: a temporary file in the same directory, then a rename.

A crash or a full disk never leaves a half-written user file behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_bytes(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temporary(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        finish(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text(path, text: str) -> Path:
    """Write UTF-8 text to ``path`` atomically; returns the path."""
    return write_bytes(path, text.encode("utf-8"))


def temporary(path) -> tuple[int, str]:
    """A new temporary file beside ``path`` (``.NAME.XXXXXXXX.tmp``, readable by its owner alone until
    :func:`finish`): its descriptor, open for writing, and its path.

    Raises:
        OSError: the folder does not take new files.
    """
    path = Path(path)
    return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)


def can_create(path) -> None:
    """Make the temporary file an atomic write of ``path`` would make (and any folder it needs), then remove
    them all: a check, before any work, that the file can be written, which leaves nothing behind.

    Raises:
        OSError: a folder or the file cannot be made (``filename`` names the folder that cannot be made or
            that cannot take the file).
    """
    path = Path(path)
    missing = []
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    made = []
    try:
        for folder in reversed(missing):
            folder.mkdir()
            made.append(folder)
        try:
            fd, tmp = temporary(path)
        except OSError as e:
            raise OSError(e.errno, e.strerror, str(path.parent)) from None
        os.close(fd)
        os.unlink(tmp)
    finally:
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()


def finish(tmp, path) -> None:
    """Move a finished temporary file into place, with the permissions a newly created file would have
    (``mkstemp`` makes it readable by its owner alone)."""
    os.chmod(tmp, 0o666 & ~_umask())
    os.replace(tmp, path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
