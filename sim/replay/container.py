"""The recording's container: a zip archive written append-only, readable whole or as a valid prefix.

Members are stored (not compressed again: the NPZ members compress their own
arrays) and each is written in one piece, its local header carrying its
CRC-32 and sizes, then flushed (and, by default, synced to the disk). The
central directory comes only at :meth:`AppendZip.close`. So:

* a closed recording is an ordinary zip file (``unzip -l`` lists it, ``zipfile``
  and ``numpy.load`` read its members);
* a recording whose writer died (a crash, a killed process, a full disk) is a
  run of whole members followed by at most one cut member: :func:`scan` reads the
  whole ones from their local headers and says where the cut is.

:func:`read_archive` tells the two apart from the end of the file: a closed
archive ends with its end record, whose directory lies right before it and
lists every member the local headers hold, at the same offsets, with the same
sizes and CRC-32s. A closed file whose members disagree with its directory is
damaged, never read as one whose writer died.

Names are ASCII, times in the headers fixed (1980-01-01) so that the same
recording makes the same bytes. Past 65 535 members the end record is the
zip64 one (about nine hours of play at two members a second).
"""

from __future__ import annotations

import contextlib
import os
import struct
import threading
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sim.atomic import finish, temporary

LOCAL = b"PK\x03\x04"
CENTRAL = b"PK\x01\x02"
END = b"PK\x05\x06"
END64 = b"PK\x06\x06"
LOCATOR64 = b"PK\x06\x07"

_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")  # 30 bytes
_CENTRAL_HEADER = struct.Struct("<4sHHHHHHIIIHHHHHII")  # 46 bytes
_END = struct.Struct("<4sHHHHIIH")  # 22 bytes
_END64 = struct.Struct("<4sQHHIIQQQQ")  # 56 bytes
_LOCATOR64 = struct.Struct("<4sIQI")  # 20 bytes
_VERSION = 20  # 2.0: stored members
_VERSION64 = 45  # 4.5: zip64 end records
_UTF8 = 0x0800
_DOS_DATE = (0 << 9) | (1 << 5) | 1  # 1980-01-01
_MAX32 = 0xFFFFFFFF


@dataclass(frozen=True)
class Member:
    """One member of the archive.

    Attributes:
        name: its path inside the archive.
        offset: where its local header starts (bytes from the start of the file).
        end: where its data ends.
        crc: its CRC-32.
        data: its bytes (when read).
    """

    name: str
    offset: int
    end: int
    crc: int
    data: bytes = b""


class _Syncer:
    """Syncs a file to the disk in a thread of its own, as often as asked and no more (``os.fsync`` can take
    milliseconds: the recording session does not wait for it)."""

    def __init__(self, fileno: int):
        self._fileno = fileno
        self._wanted = threading.Event()
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="recording-sync", daemon=True)
        self._thread.start()

    def ask(self) -> None:
        self._wanted.set()

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            if self._stop:
                return
            with contextlib.suppress(OSError):  # the final, synchronous sync reports any failure
                os.fsync(self._fileno)

    def stop(self) -> None:
        self._stop = True
        self._wanted.set()
        self._thread.join()


class AppendZip:
    """A zip archive written member by member, each whole in the file before the next begins.

    Every member is flushed to the operating system as it is written, so a process that dies leaves
    every member before it; with ``sync`` a thread also syncs the file to the disk after each member
    (the last one synchronously, at :meth:`close`), so that a power cut leaves all but the last few.

    The members go to a temporary file beside ``path`` until :meth:`place` (or :meth:`close`) moves it
    there: a run that fails before it has anything worth keeping leaves an existing file as it was.

    Args:
        path: the file; an existing one is replaced when the new one is placed.
        sync: sync to the disk too (``os.fsync``).

    Raises:
        OSError: the file cannot be made.
    """

    def __init__(self, path, *, sync: bool = True):
        self.path = Path(path)
        self.sync = sync
        fd, self._tmp = temporary(self.path)
        self._file = os.fdopen(fd, "wb")  # kept open while the recording goes on, wherever its name goes
        self._placed = False
        self._members: list[Member] = []
        self._offset = 0
        self._syncer = _Syncer(self._file.fileno()) if sync else None

    @property
    def size(self) -> int:
        """Bytes written so far."""
        return self._offset

    @property
    def closed(self) -> bool:
        """The central directory is written (or the file was abandoned)."""
        return self._file is None

    def write(self, name: str, data: bytes) -> Member:
        """Append one member and flush it.

        Raises:
            ValueError: the archive is closed, the name is not ASCII, or the file would pass 4 GB.
            OSError: the write failed (a full disk): the file ends with a cut member, which readers drop.
        """
        if self._file is None:
            raise ValueError(f"{self.path}: the archive is closed")
        raw = name.encode("ascii")
        crc = zlib.crc32(data)
        size = len(data)
        if self._offset + _LOCAL_HEADER.size + len(raw) + size > _MAX32:
            raise ValueError(f"{self.path}: a recording holds at most 4 GB")
        header = _LOCAL_HEADER.pack(LOCAL, _VERSION, _UTF8, zipfile.ZIP_STORED, 0, _DOS_DATE, crc, size, size,
                                    len(raw), 0)
        self._file.write(header + raw + data)
        self._flush()
        end = self._offset + len(header) + len(raw) + size
        member = Member(name, self._offset, end, crc)
        self._members.append(member)
        self._offset = end
        return member

    def place(self) -> None:
        """Put the file at its path (replacing what was there), once what it holds is worth keeping; it goes on
        growing there. Placing twice does nothing."""
        if self._file is not None and not self._placed:
            self._flush()
            finish(self._tmp, self.path)
            self._placed = True

    def close(self) -> None:
        """Write the central directory: the file becomes an ordinary zip archive, at its path. Closing twice
        does nothing."""
        if self._file is None:
            return
        start = self._offset
        parts = []
        for m in self._members:
            raw = m.name.encode("ascii")
            size = m.end - m.offset - _LOCAL_HEADER.size - len(raw)
            parts.append(_CENTRAL_HEADER.pack(CENTRAL, _VERSION, _VERSION, _UTF8, zipfile.ZIP_STORED, 0, _DOS_DATE,
                                              m.crc, size, size, len(raw), 0, 0, 0, 0, 0, m.offset) + raw)
        directory = b"".join(parts)
        n = len(self._members)
        tail = b""
        if n > 0xFFFF:
            end64 = start + len(directory)
            tail = (_END64.pack(END64, _END64.size - 12, _VERSION64, _VERSION64, 0, 0, n, n, len(directory), start)
                    + _LOCATOR64.pack(LOCATOR64, 0, end64, 1))
        tail += _END.pack(END, 0, 0, min(n, 0xFFFF), min(n, 0xFFFF), len(directory), start, 0)
        self._file.write(directory + tail)
        self._file.flush()
        self._stop_syncing()
        if self.sync:
            os.fsync(self._file.fileno())
        self.place()
        self._file.close()
        self._file = None

    def abandon(self) -> None:
        """Close the file without a central directory (what a crash leaves; for tests and for errors); one not
        placed yet is removed, and a file that was at its path stays."""
        if self._file is not None:
            self._stop_syncing()
            self._file.close()
            self._file = None
            if not self._placed:
                with contextlib.suppress(OSError):
                    os.unlink(self._tmp)

    def _flush(self) -> None:
        self._file.flush()
        if self._syncer is not None:
            self._syncer.ask()

    def _stop_syncing(self) -> None:
        if self._syncer is not None:
            self._syncer.stop()
            self._syncer = None


def zip_bytes(members: Mapping[str, bytes], level: int = 6) -> bytes:
    """An ordinary zip archive in memory, every member deflated at ``level``: the container of an NPZ file
    (``numpy.load`` reads it), made directly (``numpy.savez_compressed`` makes the same through ``zipfile``
    at several times the cost, which a recording pays every second). Times are fixed: the same members make
    the same bytes.

    Args:
        members: name (ASCII) -> bytes, in order.
        level: the zlib compression level.
    """
    parts, directory, offset = [], [], 0
    for name, data in members.items():
        raw = name.encode("ascii")
        deflate = zlib.compressobj(level, zlib.DEFLATED, -15)  # raw deflate, as zip members hold it
        packed = deflate.compress(data) + deflate.flush()
        crc = zlib.crc32(data)
        parts += [_LOCAL_HEADER.pack(LOCAL, _VERSION, 0, zipfile.ZIP_DEFLATED, 0, _DOS_DATE, crc, len(packed),
                                     len(data), len(raw), 0), raw, packed]
        directory.append(_CENTRAL_HEADER.pack(CENTRAL, _VERSION, _VERSION, 0, zipfile.ZIP_DEFLATED, 0, _DOS_DATE,
                                              crc, len(packed), len(data), len(raw), 0, 0, 0, 0, 0, offset) + raw)
        offset += _LOCAL_HEADER.size + len(raw) + len(packed)
    central = b"".join(directory)
    return b"".join(parts) + central + _END.pack(END, 0, 0, len(directory), len(directory), len(central), offset, 0)


@dataclass(frozen=True)
class Scan:
    """The whole members of an archive read from its local headers.

    Attributes:
        members: the whole members, in file order, with their data.
        closed: the file ends with a central directory (the writer closed it).
        cut: where the first cut member begins (None when nothing is cut).
    """

    members: tuple[Member, ...]
    closed: bool
    cut: int | None


class DamagedError(ValueError):
    """A whole member whose bytes do not match its CRC-32, or bytes that are no zip member at all."""


def scan(data: bytes, stop: int | None = None) -> Scan:
    """Read every whole member of an archive :class:`AppendZip` wrote, closed or not.

    Args:
        data: the file's bytes.
        stop: where its central directory begins, when known (:func:`read_archive`): the members end there.

    Raises:
        DamagedError: a whole member fails its CRC-32, or something other than a member or the central
            directory follows a member.
    """
    members = []
    pos = 0
    n = len(data) if stop is None else stop
    while pos < n:
        signature = data[pos:pos + 4]
        if n - pos < 4:
            return Scan(tuple(members), False, pos)  # cut inside a header
        if signature == CENTRAL:
            return Scan(tuple(members), True, None)  # the writer closed it (the directory may be cut since)
        if signature != LOCAL:
            raise DamagedError(f"byte {pos}: expected a member or the central directory, found {signature!r}")
        if n - pos < _LOCAL_HEADER.size:
            return Scan(tuple(members), False, pos)  # cut inside a header
        (_, _, flags, method, _, _, crc, packed, size, name_len, extra_len) = _LOCAL_HEADER.unpack_from(data, pos)
        start = pos + _LOCAL_HEADER.size + name_len + extra_len
        if start + packed > n:
            return Scan(tuple(members), False, pos)  # cut inside a member
        raw = data[pos + _LOCAL_HEADER.size:pos + _LOCAL_HEADER.size + name_len]
        if method != zipfile.ZIP_STORED or packed != size or flags & 0x08:
            raise DamagedError(f"byte {pos}: member {raw!r} is not stored whole (method {method}, flags {flags})")
        body = data[start:start + packed]
        if zlib.crc32(body) != crc:
            raise DamagedError(f"member {raw.decode('ascii', 'replace')}: CRC-32 does not match (damaged)")
        try:
            name = raw.decode("ascii")
        except UnicodeDecodeError:
            raise DamagedError(f"byte {pos}: a member name that is not ASCII") from None
        members.append(Member(name, pos, start + packed, crc, body))
        pos = start + packed
    return Scan(tuple(members), stop is not None and pos == stop, None)


@dataclass(frozen=True)
class Entry:
    """A member as the central directory lists it."""

    name: str
    offset: int
    size: int
    crc: int


def _end_record(data: bytes) -> tuple[int, int, int] | None:
    """(members, directory offset, directory size) of the end record that closes ``data``, or None when the
    file does not end with one whose directory lies right before it (an NPZ member's own end record, which ends
    a file whose writer died after it, lists a directory at offsets of its own and never matches)."""
    at = len(data) - _END.size
    if at < 0 or data[at:at + 4] != END:
        return None
    _, disk, disk0, n_disk, n, size, offset, comment = _END.unpack_from(data, at)
    if disk or disk0 or comment or n_disk != n:
        return None
    if n == 0xFFFF or offset == _MAX32 or size == _MAX32:  # the zip64 records say
        loc = at - _LOCATOR64.size
        if loc < 0 or data[loc:loc + 4] != LOCATOR64:
            return None
        _, _, end64, _ = _LOCATOR64.unpack_from(data, loc)
        if end64 + _END64.size != loc or data[end64:end64 + 4] != END64:
            return None
        _, _, _, _, _, _, n_disk, n, size, offset = _END64.unpack_from(data, end64)
        at = end64
    if n_disk != n or offset + size != at or data[offset:offset + 4] not in (CENTRAL, END64, END):
        return None
    return n, offset, size


def _directory(data: bytes, n: int, offset: int, size: int) -> list[Entry]:
    """The central directory's entries.

    Raises:
        DamagedError: it is not the directory :class:`AppendZip` writes.
    """
    out, pos, stop = [], offset, offset + size
    for k in range(n):
        if pos + _CENTRAL_HEADER.size > stop or data[pos:pos + 4] != CENTRAL:
            raise DamagedError(f"byte {pos}: the central directory is damaged (entry {k} of {n})")
        (_, _, _, _, method, _, _, crc, packed, length, name_len, extra_len, comment_len, _, _, _,
         where) = _CENTRAL_HEADER.unpack_from(data, pos)
        raw = data[pos + _CENTRAL_HEADER.size:pos + _CENTRAL_HEADER.size + name_len]
        pos += _CENTRAL_HEADER.size + name_len + extra_len + comment_len
        if method != zipfile.ZIP_STORED or packed != length or pos > stop:
            raise DamagedError(f"byte {pos}: the central directory is damaged (entry {k} of {n})")
        out.append(Entry(raw.decode("ascii", "replace"), where, length, crc))
    if pos != stop:
        raise DamagedError(f"byte {pos}: the central directory does not end where its end record says")
    return out


def read_archive(data: bytes) -> Scan:
    """The whole members of a recording's archive, and whether its writer closed it, told from its end.

    A file that ends with its end record was closed: every member must be whole, and the local headers and the
    directory must agree member for member (a flipped byte in a member's sizes would otherwise read as a cut and
    drop every later second). A file without one is read from its local headers (:func:`scan`): a writer that
    died, or a closed file cut inside its directory.

    Raises:
        DamagedError: a member fails its CRC-32, bytes are no member, or a closed file's members and directory
            disagree.
    """
    end = _end_record(data)
    if end is None:
        return scan(data)
    n, offset, size = end
    entries = _directory(data, n, offset, size)
    found = scan(data, offset)  # the members, up to the directory
    if found.cut is not None or not found.closed:
        raise DamagedError(f"byte {found.cut}: a member runs past the central directory of a closed recording "
                           "(its header is damaged)")
    if len(found.members) != len(entries):
        raise DamagedError(f"the central directory lists {len(entries)} members, the file holds "
                           f"{len(found.members)}")
    for m, e in zip(found.members, entries):
        if (m.name, m.offset, m.crc, len(m.data)) != (e.name, e.offset, e.crc, e.size):
            raise DamagedError(f"member {m.name} (byte {m.offset}): its header and the central directory disagree "
                               f"(directory: {e.name} at byte {e.offset}, {e.size} bytes)")
    return found
