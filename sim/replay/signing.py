"""A table's key, and the signature a recording made at that table carries (docs/recording-format.md).

The manifest's digests prove a recording is whole, not who made it: anyone can edit a pose and compute them
again. A table that keeps a key (``towerlab serve --key FILE``) signs the manifest of every recording it closes
with HMAC-SHA256 under that key, in one more member after it, ``signature.json``::

    {"format": "towerlab-signature/1", "algorithm": "hmac-sha256", "key_id": "<16 hex digits>",
     "manifest_sha256": "<64 hex digits>", "hmac": "<64 hex digits>"}

The manifest lists every other member with its sha256, so the signature covers every byte of the recording.
``replay``/``penalty --key FILE`` check it: "signed by this table's key", or one line saying why not (unsigned,
signed by another key, changed since it was signed). Only a holder of the key can sign, and only a holder can
check: it settles a dispute where one party (the server, a referee) keeps the key and the others trust it.

A key file is one line of 64 hex digits (32 random bytes), readable by its owner alone when towerlab makes it.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from sim import atomic
from sim.errors import TowerlabError
from sim.limits import FileRefusedError, read_bytes

FORMAT = "towerlab-signature/1"
ALGORITHM = "hmac-sha256"
KEY_BYTES = 32
_KEY_ID_SALT = b"towerlab key id/1\n"
_SIGNED_SALT = FORMAT.encode() + b"\n"  # what is signed: this prefix, then the manifest's bytes


class KeyFileError(TowerlabError):
    """A key file that cannot be read or made."""


class SignatureError(TowerlabError):
    """A recording whose signature does not check out under the key given."""


@dataclass(frozen=True)
class TableKey:
    """A table's secret key.

    Attributes:
        path: the key file.
        secret: its 32 bytes.
    """

    path: Path
    secret: bytes

    @property
    def key_id(self) -> str:
        """16 hex digits that name the key (a digest of it: they reveal nothing of the secret)."""
        return hashlib.sha256(_KEY_ID_SALT + self.secret).hexdigest()[:16]

    def sign(self, manifest: bytes) -> dict:
        """The ``signature.json`` member (JSON data) of a recording whose manifest is ``manifest`` (its bytes)."""
        return {"format": FORMAT, "algorithm": ALGORITHM, "key_id": self.key_id,
                "manifest_sha256": hashlib.sha256(manifest).hexdigest(), "hmac": self._mac(manifest)}

    def check(self, signature, manifest: bytes) -> None:
        """Check a recording's signature (a :class:`sim.replay.schema.Signature`, or None: unsigned) against its
        manifest's bytes.

        Raises:
            SignatureError: unsigned, signed by another key, or its manifest changed since it was signed.
        """
        if signature is None:
            raise SignatureError(f"not signed (--key {self.path} checks a recording made at that key's table; "
                                 "this one carries no signature, so who made it cannot be told)")
        if signature.key_id != self.key_id:
            raise SignatureError(f"signature.json: key_id: signed by another key ({signature.key_id}), not "
                                 f"{self.path}'s ({self.key_id})")
        if not hmac.compare_digest(signature.hmac, self._mac(manifest)):
            raise SignatureError(f"signature.json: hmac: does not match the manifest under {self.path}'s key: "
                                 "the recording was changed after it was signed, or the signature forged")

    def _mac(self, manifest: bytes) -> str:
        return hmac.new(self.secret, _SIGNED_SALT + manifest, hashlib.sha256).hexdigest()


def load_key(path, *, option: str = "--key") -> TableKey:
    """Read a key file (a regular file of one line of 64 hex digits).

    Raises:
        KeyFileError: ``OPTION FILE: what is wrong`` in one line.
    """
    path = Path(path)
    try:
        raw = read_bytes(path, "key")
    except FileRefusedError as e:
        raise KeyFileError(f"{option} {path}: {e.reason}") from None
    text = raw.decode("ascii", "replace").strip()
    if len(text) != 2 * KEY_BYTES or any(c not in "0123456789abcdef" for c in text.lower()):
        raise KeyFileError(f"{option} {path}: expected a key file (one line of {2 * KEY_BYTES} hex digits, as "
                        f"'towerlab serve --key' makes it), got {len(raw)} bytes that are not one")
    return TableKey(path, bytes.fromhex(text))


def key_for_table(path, *, option: str = "--key") -> tuple[TableKey, bool]:
    """The table's key from ``path``, made there first (32 bytes from the system's random source, the file
    readable by its owner alone) if no file is there: the key, and whether it was made now.

    Raises:
        KeyFileError: the file cannot be read as a key, or made.
    """
    path = Path(path)
    if os.path.lexists(path):
        return load_key(path, option=option), False
    secret = secrets.token_bytes(KEY_BYTES)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = atomic.temporary(path)  # mkstemp: readable by its owner alone, and kept so
        try:
            with os.fdopen(fd, "w") as f:
                f.write(secret.hex() + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.link(tmp, path)  # never replaces a key file made meanwhile
        finally:
            Path(tmp).unlink(missing_ok=True)
    except FileExistsError:
        return load_key(path, option=option), False
    except OSError as e:
        raise KeyFileError(f"{option} {path}: cannot make the key file ({e.strerror or e})") from None
    return TableKey(path, secret), True
