"""Atomic file writes: a temporary file in the same directory, then a rename.

A crash or a full disk never leaves a half-written user file behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_bytes(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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


def finish(tmp, path) -> None:
    """Move a finished temporary file into place, with the permissions a newly created file would have
    (``mkstemp`` makes it readable by its owner alone)."""
    os.chmod(tmp, 0o666 & ~_umask())
    os.replace(tmp, path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
