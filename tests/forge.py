"""Hostile files made on purpose: recordings rebuilt member by member with their digests fixed up (so that only
the change under test is wrong), NPZ members and NPY headers that lie about their sizes, zip bombs.

Used by the tests of hostile files (``tests/test_hostile_files.py``) and the fuzz tests beside it
(``tests/test_fuzz_files.py``).
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import struct
import zipfile
import zlib

import numpy as np

from sim.replay.container import AppendZip, zip_bytes
from sim.replay.members import npz_bytes

MANIFEST = "manifest.json"
HEADER = "header.json"


def dumps(data) -> bytes:
    """JSON bytes as a hostile file may hold them: NaN and infinities as JSON's extensions, lone surrogates as
    escapes (what the recorder writes is stricter: :func:`sim.replay.members.json_bytes`)."""
    return json.dumps(data, separators=(",", ":")).encode("ascii")


def members(data: bytes) -> list[tuple[str, bytes]]:
    """(name, bytes) of every member of a closed recording, in order."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return [(n, z.read(n)) for n in z.namelist()]


def is_chunk_json(name: str) -> bool:
    return name.startswith("chunks/") and name.endswith(".json")


def build(path, items, *, close: bool = True, fix: bool = True) -> bytes:
    """Write members as a recording; with ``fix`` every chunk's digests (``npz_sha256``, ``previous_sha256``) and
    the manifest's member list are made to match what is written, so that a reader finds only the change the
    caller made. Returns the file's bytes."""
    out = AppendZip(path, sync=False)
    digests, previous = [], None
    for name, raw in items:
        if fix and is_chunk_json(name):
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            if isinstance(body, dict):
                body["npz_sha256"] = digests[-1][2] if digests else ""
                body["previous_sha256"] = previous
                raw = dumps(body)
        if fix and name == MANIFEST:
            try:
                m = json.loads(raw)
            except ValueError:
                m = None
            if isinstance(m, dict):
                m["members"] = [{"name": n, "size": s, "sha256": h} for n, s, h in digests]
                raw = dumps(m)
        out.write(name, raw)
        digests.append((name, len(raw), hashlib.sha256(raw).hexdigest()))
        if name == HEADER or is_chunk_json(name):
            previous = digests[-1][2]
    if close:
        out.close()
    else:
        out.place()  # a cut recording as a crash leaves it: at its path, without its end
        out.abandon()
    return path.read_bytes()


def arrays(raw: bytes) -> dict[str, np.ndarray]:
    """An NPZ member's arrays."""
    with np.load(io.BytesIO(raw), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def edit_json(items, name, change):
    """``items`` with member ``name``'s JSON replaced by ``change(data)`` (which may edit it in place)."""
    out = []
    for n, raw in items:
        if n == name:
            data = json.loads(raw)
            new = change(data)
            raw = dumps(data if new is None else new)
        out.append((n, raw))
    return out


def edit_arrays(items, name, change):
    """``items`` with NPZ member ``name``'s arrays replaced by ``change(arrays)`` (which may edit them in place)."""
    out = []
    for n, raw in items:
        if n == name:
            a = arrays(raw)
            new = change(a)
            raw = npz_bytes(a if new is None else new)
        out.append((n, raw))
    return out


def npy_header(shape, dtype="<f8") -> bytes:
    """The bytes of an NPY (1.0) header claiming an array of ``shape`` and ``dtype``."""
    text = repr({"descr": dtype, "fortran_order": False, "shape": tuple(shape)})
    pad = 64 - (10 + len(text) + 1) % 64
    text = text + " " * pad + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode("latin1")


def zero_stream(size: int, block: int = 1 << 26) -> bytes:
    """A raw deflate stream that inflates to ``size`` zero bytes, made without compressing them all (identical
    blocks after full flushes)."""
    assert size % block == 0
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    zeros = bytes(block)
    first = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
    return first + again * (size // block - 2) + c.compress(zeros) + c.flush()


@functools.lru_cache(maxsize=4)
def bomb_npz(name: str, size: int) -> bytes:
    """An NPZ archive whose one member ``name`` (``times.npy``) inflates to an NPY of ``size`` bytes of zeros
    (the sizes and CRC-32 its headers declare are the true ones: only the size is hostile)."""
    header = npy_header((size // 8,))
    body = zero_stream(size)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed_header = c.compress(header) + c.flush(zlib.Z_FULL_FLUSH)
    stream = packed_header + body
    crc = zlib.crc32(header)
    crc = _crc_of_zeros(crc, size)
    raw = name.encode()
    total = len(header) + size
    big = total > 0xFFFFFFFF or len(stream) > 0xFFFFFFFF
    extra = struct.pack("<HHQQ", 1, 16, total, len(stream)) if big else b""
    local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 45, 0, 8, 0, 0x21, crc, _32(len(stream), big),
                        _32(total, big), len(raw), len(extra))
    central = struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 45, 45, 0, 8, 0, 0x21, crc, _32(len(stream), big),
                          _32(total, big), len(raw), len(extra), 0, 0, 0, 0, 0) + raw + extra
    offset = len(local) + len(raw) + len(extra) + len(stream)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, len(central), offset, 0)
    return local + raw + extra + stream + central + end


def _32(n: int, big: bool) -> int:
    return 0xFFFFFFFF if big else n


def _crc_of_zeros(crc: int, size: int) -> int:
    """``zlib.crc32(bytes(size), crc)`` without the bytes: zlib's ``crc32_combine`` (the CRC register's change
    over ``size`` zero bytes is a linear map, squared up by its binary powers)."""
    def times(mat, vec):
        out, i = 0, 0
        while vec:
            if vec & 1:
                out ^= mat[i]
            vec >>= 1
            i += 1
        return out

    def square(mat):
        return [times(mat, mat[i]) for i in range(32)]

    def zeros(register, n):
        odd = [0xEDB88320] + [1 << k for k in range(31)]  # one zero bit
        even = square(odd)  # two
        odd = square(even)  # four
        while n:
            even = square(odd)
            if n & 1:
                register = times(even, register)
            n >>= 1
            if not n:
                break
            odd = square(even)
            if n & 1:
                register = times(odd, register)
            n >>= 1
        return register

    of_zeros = zeros(0xFFFFFFFF, size) ^ 0xFFFFFFFF
    return zeros(crc, size) ^ of_zeros if size else crc


def lying_npz(name: str, shape, dtype="<f8", data: bytes = b"") -> bytes:
    """An NPZ archive whose member ``name`` is an NPY header claiming ``shape`` followed by ``data`` only."""
    return zip_bytes({name: npy_header(shape, dtype) + data})
