"""Mesh files travel inside the recording: a shared recording is self-contained and names no file on the reader's
disk.

A ``mesh`` piece names a file (and a glTF its buffers). The recorder writes
each one as members ``meshes/<sha256>/<name>`` (the digest of the mesh and its
resources, :func:`sim.pieces.custom.mesh_digest`) the first time a piece needs
it, and the piece's file form in the recording names the member instead of the
path. The reader accepts no other: every mesh file a recorded piece names must
be such a member, whose digest checks out; the members are written into a
private folder of the reading process (removed with the recording), and the
pieces are read from there. ``../..``, ``/dev/zero`` or a FIFO in a recording
are refused before anything is opened.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import urllib.parse
import weakref
from pathlib import Path

from sim.pieces import KINDS

PREFIX = "meshes/"
"""Where the members of a recording's meshes are."""

_MEMBER = re.compile(r"^meshes/([0-9a-f]{64})/([A-Za-z0-9._~%+-][A-Za-z0-9._~%+/-]{0,199})$")


def file_params(kind) -> tuple[str, ...]:
    """The parameters of a kind that name files (a mesh's ``file``)."""
    spec = KINDS.get(kind) if isinstance(kind, str) else None
    return () if spec is None else tuple(p.name for p in spec.params if p.value == "file")


def _member_name(digest: str, name: str) -> str:
    return f"{PREFIX}{digest}/{urllib.parse.quote(name, safe='/._-~')}"


class MeshPacker:
    """The recorder's side: pieces' file forms with their mesh files swapped for members it writes once each.

    Args:
        write: ``write(name, bytes)`` appends a member to the recording.
    """

    def __init__(self, write):
        self._write = write
        self._members: dict[str, str] = {}  # absolute path -> the member naming the mesh file

    def spec(self, spec: dict) -> dict:
        """``spec`` (a piece's file form) with each file it names replaced by its member, written if new.

        Raises:
            ShapeError: a mesh file can no longer be read.
        """
        names = file_params(spec.get("kind"))
        if not names:
            return spec
        from sim.pieces.custom import mesh_digest, mesh_files

        out = dict(spec)
        for key in names:
            path = os.path.abspath(str(spec[key]))
            if path not in self._members:
                files = mesh_files(path)
                digest = mesh_digest(files)
                main = _member_name(digest, Path(path).name)
                for name, data in files.items():
                    self._write(main if not name else _member_name(digest, urllib.parse.unquote(name)), data)
                self._members[path] = main
            out[key] = self._members[path]
        return out


class MeshFolder:
    """The reader's side: a recording's mesh members written into a private folder of this process, removed when
    the folder object goes (with the recording that holds it) or the process ends.

    Args:
        members: every member of the recording (name -> bytes); those under ``meshes/`` are written out.

    Raises:
        ValueError: ``(member, reason)``: a member name that is not a mesh's, or that would leave the folder.
    """

    def __init__(self, members: dict[str, bytes]):
        self.path = Path(tempfile.mkdtemp(prefix="towerlab-recording-meshes-"))
        weakref.finalize(self, shutil.rmtree, str(self.path), True)
        for name, data in members.items():
            if not name.startswith(PREFIX):
                continue
            m = _MEMBER.match(name)
            parts = urllib.parse.unquote(m.group(2)).split("/") if m else []
            if not m or any(p in ("", ".", "..") for p in parts):
                raise ValueError(name, "not a mesh member (meshes/<sha256>/<file name>)")
            where = self.path.joinpath(m.group(1), *parts)
            try:
                where.parent.mkdir(parents=True, exist_ok=True)
                with open(where, "xb") as f:  # new files of this process's own folder: never through a link
                    f.write(data)
            except OSError as e:  # two members of one file (a%2Fb and a/b), a file where a folder goes, a full disk
                raise ValueError(name, f"cannot be written out ({e.strerror or e})") from None
        self._checked: dict[str, str] = {}

    def resolve(self, spec: dict, where: str) -> dict:
        """``spec`` with every file it names, a mesh member, replaced by the member's path in this folder.

        Raises:
            ValueError: ``(field, reason)``: a file that is not a member of the recording, or whose digest does
                not match its member's name.
        """
        names = file_params(spec.get("kind"))
        if not names:
            return spec
        out = dict(spec)
        for key in names:
            out[key] = self._path(spec.get(key), f"{where}.{key}")
        return out

    def _path(self, name, where: str) -> str:
        from sim.errors import ShapeError
        from sim.pieces.custom import mesh_digest, mesh_files

        m = _MEMBER.match(name) if isinstance(name, str) else None
        if m is None:
            raise ValueError(where, f"a recording's meshes travel inside it (meshes/<sha256>/<file>); this one "
                                    f"names a file outside it: {name!r}")
        path = self.path.joinpath(m.group(1), *urllib.parse.unquote(m.group(2)).split("/"))
        if not path.is_file():
            raise ValueError(where, f"{name}: not in the recording")
        if name not in self._checked:
            try:
                digest = mesh_digest(mesh_files(path))
            except ShapeError as e:
                raise ValueError(where, f"{name}: {e.reason}") from None
            if digest != m.group(1):
                raise ValueError(where, f"{name}: its sha256 ({digest[:12]}...) is not the one its name says")
            self._checked[name] = str(path)
        return self._checked[name]


def has_meshes(specs) -> bool:
    """Whether any of the file forms ``specs`` names a file."""
    return any(file_params(s.get("kind")) for s in specs if isinstance(s, dict))
