"""What towerlab reads from other people's files, and its limits: one policy, in one place (docs/limits.md).

Every file a user is handed (a scene, a mesh, an action file, a recording, a game
script, an autosave) is hostile until checked:

* **Regular files only.** A path is looked at before it is opened: a FIFO, a
  device (``/dev/zero``), a socket, or a link to one is refused without being
  opened, and the file is opened non-blocking and checked again (so nothing can
  be swapped in between). Links to regular files are fine.
* **A size limit per kind** (:data:`LIMITS`), checked before reading and while
  reading (a file that grows is cut off at its limit and refused).
* **Declared sizes are checked before anything is allocated**:
  :func:`read_npz` reads NPZ archives itself, the uncompressed size each zip
  member declares checked against a :class:`Budget` (a total, and a ratio to the
  bytes it came from) before it is inflated, then inflated no further than it
  declared; an NPY header's shape must match the bytes that follow it. A zip
  bomb or a header claiming terabytes costs nothing.
* **JSON nested at most** :data:`MAX_DEPTH` **deep** (:func:`check_depth`), so no
  later step recurses without bound.

Every refusal is a :class:`FileRefusedError` (a ``TowerlabError``) with the path and
a one-line reason; the reader of each kind turns it into its own error type.
"""

from __future__ import annotations

import ast
import math
import os
import stat
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.errors import TowerlabError

MiB = 1 << 20
GiB = 1 << 30

LIMITS = {
    "scene": 50 * MiB,
    "mesh": 50 * MiB,
    "actions": 16 * MiB,
    "script": 50 * MiB,
    "autosave": 50 * MiB,
    "recording": 4 * GiB,
    "key": 4096,
    "game": 256 * MiB,
    "seats": 64 * 1024,
}
"""The largest file of each kind read (bytes). A recording may be as large as its container lets it be (4 GB:
zip offsets of 32 bits); a mesh's resources (a glTF's buffers) count towards the mesh's limit together."""

NAMES = {"scene": "scene file", "mesh": "mesh file", "actions": "action file", "script": "game script",
         "autosave": "autosave", "recording": "recording", "key": "key file",
         "game": "saved game", "seats": "seats file"}
"""How a message names each kind."""

MAX_DEPTH = 64
"""The deepest lists and objects may nest in a JSON file (a scene needs 4)."""

MAX_ACTIONS = 5000
"""The most actions an action file may hold (a whole game is a few hundred)."""

MAX_SCRIPT_SECONDS = 900.0
"""The most simulated time a scripted session may run (s): its waits and steps, and the settling after its
actions."""

PICTURE_SIDES = (16, 8192)
"""The smallest and largest side of a picture or window (pixels): screenshots, videos, renders."""

DECODED_RATIO = 8
"""Arrays decoded from a recording may take at most this many times the file's size (plus
:data:`DECODED_SLACK`): an honest recording's arrays inflate by less than three."""

DECODED_SLACK = 256 * MiB
"""What any recording may decode besides :data:`DECODED_RATIO` times its size (bytes)."""

DTYPES = (np.dtype("<f8"), np.dtype("<i8"), np.dtype("<f4"), np.dtype("<i4"), np.dtype("|u1"), np.dtype("|b1"))
"""The array types read from files (no objects, nothing that needs pickling)."""


class FileRefusedError(TowerlabError):
    """A file that is not read: not a regular file, too large, unreadable, or lying about its sizes.

    Args:
        path: the file (or the member of one).
        reason: what was expected and what came, one line.
    """

    def __init__(self, path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


def _size(n: int) -> str:
    """A byte count as a message says it: ``3 bytes``, ``12.5 KiB``, ``50 MiB``, ``16 GiB``."""
    for unit, scale in (("TiB", GiB << 10), ("GiB", GiB), ("MiB", MiB), ("KiB", 1024)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} bytes"


_SPECIAL = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a device"),
            (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def _not_regular(mode: int, path: Path) -> str | None:
    for test, what in _SPECIAL:
        if test(mode):
            link = " (a link to it)" if path.is_symlink() else ""
            return f"is {what}{link}, not a regular file"
    return None if stat.S_ISREG(mode) else "is not a regular file"


def read_bytes(path, kind: str, *, limit: int | None = None) -> bytes:
    """The bytes of a regular file of ``kind`` (a key of :data:`LIMITS`), at most its limit.

    Args:
        path: the file.
        kind: what it is, for its limit and the messages.
        limit: a smaller limit (bytes) than the kind's (what is left of a mesh's budget for its resources).

    Raises:
        FileRefusedError: it does not exist, is not a regular file (a FIFO, a device, a socket, a folder, or a link
            to one), is larger than the limit, or cannot be read.
    """
    path = Path(path)
    most = LIMITS[kind] if limit is None else min(limit, LIMITS[kind])
    try:
        before = os.stat(path)  # follows links: a link to /dev/zero is a device
        wrong = _not_regular(before.st_mode, path)
        if wrong:
            raise FileRefusedError(path, wrong)
        _check_size(path, before.st_size, most, kind)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
                     | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise FileRefusedError(path, "cannot read the file (no such file)") from None
    except OSError as e:
        raise FileRefusedError(path, f"cannot read the file ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino) or not stat.S_ISREG(st.st_mode):
            raise FileRefusedError(path, "changed while it was opened (it is no longer the regular file it was)")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(16 * MiB, most + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > most:
                raise FileRefusedError(path, f"grew past {_size(most)} while it was read; a {NAMES[kind]} may be "
                                             f"at most {_size(most)}")
        return b"".join(chunks)
    except OSError as e:
        raise FileRefusedError(path, f"cannot read the file ({e.strerror or e})") from None
    finally:
        os.close(fd)


def _check_size(path: Path, size: int, most: int, kind: str) -> None:
    if size > most:
        raise FileRefusedError(path, f"the file is {_size(size)}; a {NAMES[kind]} may be at most {_size(most)}")


def read_text(path, kind: str) -> str:
    """The UTF-8 text of a regular file of ``kind`` (see :func:`read_bytes`).

    Raises:
        FileRefusedError: as :func:`read_bytes`, or the bytes are not UTF-8 text.
    """
    data = read_bytes(path, kind)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FileRefusedError(path, f"not a text file (expected UTF-8 JSON): byte {e.start} is not UTF-8") from None


def check_depth(value, limit: int = MAX_DEPTH) -> int | None:
    """None when parsed JSON nests at most ``limit`` deep, else the depth found past it (checked without
    recursion, in time linear in the value's size)."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict):
            children = v.values()
        elif isinstance(v, list):
            children = v
        else:
            continue
        if depth > limit:
            return depth
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return None


def too_deep(limit: int = MAX_DEPTH) -> str:
    """The reason a value nested deeper than ``limit`` is refused."""
    return f"lists or objects nested too deeply (more than {limit} levels)"


def finite(value) -> bool:
    """A number (not a bool) that is finite as a float (an integer of 400 digits is not: no float holds it)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return value.bit_length() <= 1023 if isinstance(value, int) else math.isfinite(value)


# --- NPZ archives -----------------------------------------------------------------------------------------


@dataclass
class Budget:
    """How many bytes decoding may still take: the arrays of a file together (see :data:`DECODED_RATIO`).

    Attributes:
        left: bytes that may still be decoded.
        total: the budget it started with (for messages).
    """

    left: int
    total: int

    @classmethod
    def of_file(cls, size: int) -> Budget:
        """The budget of a file of ``size`` bytes: :data:`DECODED_RATIO` times it plus :data:`DECODED_SLACK`."""
        n = DECODED_RATIO * size + DECODED_SLACK
        return cls(n, n)

    def take(self, n: int, what: str) -> None:
        """Spend ``n`` bytes on ``what``.

        Raises:
            ValueError: more than is left.
        """
        if n > self.left:
            raise ValueError(f"{what} would inflate to {_size(n)}, more than the {_size(self.total)} its file may "
                             f"decode to")
        self.left -= n


_LOCAL = struct.Struct("<4sHHHHHIIIHH")
_CENTRAL = struct.Struct("<4sHHHHHHIIIHHHHHII")
_END = struct.Struct("<4sHHHHIIH")
_NPY_MAGIC = b"\x93NUMPY"
_MAX_MEMBERS = 64
_MAX_NPY_HEADER = 4096


def read_npz(raw: bytes, budget: Budget, *, dtypes=DTYPES) -> dict[str, np.ndarray]:
    """The arrays of an NPZ archive, read without trusting it: ``{name: array}`` (names without ``.npy``).

    The archive's central directory (found from its end) names every member with its declared sizes; each
    member's uncompressed size is taken from ``budget`` before it is inflated, and it is inflated to exactly that
    size (CRC-32 checked). Each ``.npy`` header is parsed as data (never evaluated) and must declare a type of
    ``dtypes`` and a shape whose bytes are the ones that follow it. Nothing is unpickled.

    Raises:
        ValueError: one line saying what is wrong (the caller adds the file and member).
    """
    members = _directory(raw)
    out = {}
    for name, method, flags, crc, packed, size, offset in members:
        if not name.endswith(".npy"):
            raise ValueError(f"{name}: not an array (.npy) member")
        budget.take(size, name)
        data = _member(raw, name, method, flags, crc, packed, size, offset)
        key = name[:-4]
        if key in out:
            raise ValueError(f"{name}: appears twice")
        out[key] = _npy(data, name, dtypes)
    return out


def _directory(raw: bytes) -> list[tuple]:
    """(name, method, flags, crc, compressed size, size, offset) of every member, from the central directory."""
    if len(raw) < _END.size or raw[-_END.size:-_END.size + 4] != b"PK\x05\x06":
        raise ValueError("not an NPZ archive (no zip end record at its end)")
    _, disk, _, n, total, cd_size, cd_offset, comment = _END.unpack_from(raw, len(raw) - _END.size)
    if disk or comment or n != total or n > _MAX_MEMBERS or cd_offset + cd_size != len(raw) - _END.size:
        raise ValueError("not an NPZ archive towerlab reads (its zip end record does not match)")
    out, pos = [], cd_offset
    for _ in range(n):
        if pos + _CENTRAL.size > cd_offset + cd_size:
            raise ValueError("its zip directory is cut short")
        (sig, _, _, flags, method, _, _, crc, packed, size, name_len, extra_len, comment_len, _, _, _,
         offset) = _CENTRAL.unpack_from(raw, pos)
        if sig != b"PK\x01\x02":
            raise ValueError("its zip directory is damaged")
        name_raw = raw[pos + _CENTRAL.size:pos + _CENTRAL.size + name_len]
        extra = raw[pos + _CENTRAL.size + name_len:pos + _CENTRAL.size + name_len + extra_len]
        pos += _CENTRAL.size + name_len + extra_len + comment_len
        if 0xFFFFFFFF in (packed, size, offset):
            size, packed, offset = _zip64(extra, size, packed, offset)
        try:
            name = name_raw.decode("ascii")
        except UnicodeDecodeError:
            raise ValueError("a member name that is not ASCII") from None
        out.append((name, method, flags, crc, packed, size, offset))
    if pos != cd_offset + cd_size:
        raise ValueError("its zip directory does not match its end record")
    return out


def _zip64(extra: bytes, size: int, packed: int, offset: int) -> tuple[int, int, int]:
    """The zip64 extra field's sizes and offset for those the directory entry left at 0xFFFFFFFF."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = struct.unpack_from("<HH", extra, pos)
        if tag == 1:
            values = list(struct.unpack_from(f"<{length // 8}Q", extra, pos + 4))
            out = []
            for v in (size, packed, offset):
                out.append(values.pop(0) if v == 0xFFFFFFFF and values else v)
            return out[0], out[1], out[2]
        pos += 4 + length
    raise ValueError("a member's zip64 sizes are missing")


def _member(raw: bytes, name: str, method: int, flags: int, crc: int, packed: int, size: int, offset: int) -> bytes:
    """A member's bytes, inflated to its declared size and no further, CRC-32 checked."""
    if offset + _LOCAL.size > len(raw):
        raise ValueError(f"{name}: its offset lies outside the archive")
    sig, _, _, _, _, _, _, _, _, name_len, extra_len = _LOCAL.unpack_from(raw, offset)
    start = offset + _LOCAL.size + name_len + extra_len
    if sig != b"PK\x03\x04" or start + packed > len(raw) or flags & 0x01:
        raise ValueError(f"{name}: its local header does not match the directory")
    body = raw[start:start + packed]
    if method == 0:
        if packed != size:
            raise ValueError(f"{name}: stored with two sizes ({packed} and {size})")
        data = body
    elif method == 8:
        inflate = zlib.decompressobj(-15)
        try:
            data = inflate.decompress(body, size + 1)
        except zlib.error as e:
            raise ValueError(f"{name}: its compressed bytes are damaged ({e})") from None
        if len(data) != size or not inflate.eof:
            raise ValueError(f"{name}: inflates to another size than the {size} bytes it declares (damaged)")
    else:
        raise ValueError(f"{name}: compressed by method {method}; expected stored (0) or deflated (8)")
    if zlib.crc32(data) != crc:
        raise ValueError(f"{name}: CRC-32 does not match (damaged)")
    return data


def _npy(data: bytes, name: str, dtypes) -> np.ndarray:
    """An array from ``.npy`` bytes: the header read as a literal, its size checked against the bytes."""
    if not data.startswith(_NPY_MAGIC) or len(data) < 10:
        raise ValueError(f"{name}: not an NPY array")
    major = data[6]
    if major == 1:
        (length,), start = struct.unpack_from("<H", data, 8), 10
    elif major in (2, 3):
        if len(data) < 12:
            raise ValueError(f"{name}: its NPY header is cut short")
        (length,), start = struct.unpack_from("<I", data, 8), 12
    else:
        raise ValueError(f"{name}: NPY version {major}, expected 1 to 3")
    if length > _MAX_NPY_HEADER or start + length > len(data):
        raise ValueError(f"{name}: its NPY header is {length} bytes, more than it holds or {_MAX_NPY_HEADER}")
    try:
        header = ast.literal_eval(data[start:start + length].decode("latin1" if major < 3 else "utf-8"))
        descr, fortran, shape = header["descr"], header["fortran_order"], header["shape"]
        dtype = np.dtype(descr) if isinstance(descr, str) else None
    except (ValueError, SyntaxError, TypeError, KeyError, MemoryError, RecursionError):
        raise ValueError(f"{name}: its NPY header is not one numpy writes") from None
    if dtype not in dtypes:
        raise ValueError(f"{name}: arrays of {descr!r}; expected one of {', '.join(d.str for d in dtypes)}")
    if (not isinstance(shape, tuple) or len(shape) > 8 or not isinstance(fortran, bool)
            or not all(isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in shape)):
        raise ValueError(f"{name}: its NPY shape {shape!r} is no shape")
    count = math.prod(shape)
    body = len(data) - start - length
    if count * dtype.itemsize != body:
        raise ValueError(f"{name}: its NPY header claims {shape} ({_size(count * dtype.itemsize)}), but "
                         f"{_size(body)} follow")
    array = np.frombuffer(bytearray(memoryview(data)[start + length:]), dtype=dtype, count=count)
    return array.reshape(shape[::-1]).T if fortran else array.reshape(shape)
