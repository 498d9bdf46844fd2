"""The wire protocol of a networked table: versioned JSON messages over a WebSocket (docs/network.md).

Every message is one JSON object with a ``type``. A client says ``hello`` first, then ``act`` (the viewer's own
actions, numbered), ``sync`` (send me the whole table again) or ``ping``; the server answers with ``welcome``,
``answer`` (accepted, or refused with the rule), ``keyframe`` and ``poses`` (every piece's pose, then the rows
that changed: the recording's encoding), ``events``, ``state``, ``pong`` and ``error``.

Both ends treat what comes as hostile: :func:`client_message` checks a client's message on the server (its
size, its JSON, its nesting, its type and fields), :func:`server_message` a server's on the client (the same,
and every pose finite, within reach and a unit quaternion). A bad message is a :class:`ProtocolError` with a
code (``malformed``, ``too-large``, ``version`` ...) and one line; it changes nothing.
"""

from __future__ import annotations

import json

import numpy as np

from sim.errors import TowerlabError
from sim.fieldcheck import Field, FieldError, shown
from sim.limits import check_depth

PROTOCOL = "towerlab-net/1"
"""The protocol's name and version: a client and a server of other versions do not talk (``version``)."""
MAX_MESSAGE = 16 * 1024
"""The largest message (bytes of UTF-8) a client may send: a larger one is refused (``too-large``), the connection
stays open. The longest honest one, a ``pick-group`` of 1000 pieces, is some 12 kB."""
HARD_MESSAGE = 1 << 20
"""Beyond this (bytes), the WebSocket library closes the connection itself (close code 1009): that is a flood."""
MAX_SERVER_MESSAGE = 16 << 20
"""The largest message a client reads from a server (a keyframe of 5,000 pieces is under 1 MB)."""
RATE = 120.0
"""Messages a second a connection may send, on average (the window sends a ``move-to`` per frame it carries)."""
BURST = 240.0
"""Messages a connection may send at once, beyond the rate (a bucket of this size, refilled at :data:`RATE`)."""
FLOOD = 100
"""Messages refused for the rate in a row after which the connection is closed (code 4008)."""
MAX_POSITION = 1000.0
"""The farthest (m) a pose a server sends may be from the table's centre."""
QUAT_SLACK = 1e-6
"""How far from 1 a quaternion's length a server sends may be."""

CLOSE = {"version": 4001, "token": 4003, "not-found": 4004, "seat-taken": 4009, "flood": 4008, "slow": 4010,
         "hello": 4002, "full": 4013}
"""WebSocket close codes of the server's refusals (1001: the server is going away, reconnect)."""
ERROR_CODES = ("malformed", "too-large", "binary", "rate", "replayed", "sequence", "spectator", "version", "token",
               "not-found", "seat-taken", "hello", "full", "flood", "slow")
"""Every ``error`` message's ``code``."""
CLIENT_TYPES = {"hello": (("protocol",), ("client", "legal")), "act": (("seq", "action"), ()), "sync": ((), ()),
                "ping": ((), ("id",))}
"""A client's message types: required and optional fields (besides ``type``)."""
MAX_SEQ = 2**53
"""The largest sequence number (JSON's exact integers)."""


class ProtocolError(TowerlabError):
    """A message that breaks the protocol: its ``code`` (:data:`ERROR_CODES`) and what was wrong, in one line."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def dumps(message: dict) -> str:
    """A message as its text (compact JSON; floats as Python writes them, which read back to the same bits)."""
    return json.dumps(message, separators=(",", ":"), allow_nan=False, ensure_ascii=False)


def _parse(raw, most: int) -> dict:
    if isinstance(raw, bytes | bytearray | memoryview):
        raise ProtocolError("binary", "expected a text message of JSON, got a binary one")
    if len(raw) > most or len(raw.encode("utf-8", "surrogatepass")) > most:
        raise ProtocolError("too-large", f"a message may hold at most {most} bytes, this one holds "
                                         f"{len(raw.encode('utf-8', 'surrogatepass'))}")
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise ProtocolError("malformed", f"not JSON ({type(e).__name__}: {str(e)[:80]})") from None
    if check_depth(value) is not None:
        raise ProtocolError("malformed", "JSON nested too deep")
    if not isinstance(value, dict):
        raise ProtocolError("malformed", f"expected a JSON object with a \"type\", got {shown(value)}")
    return value


def client_message(raw) -> dict:
    """A client's message checked: ``{"type": ..., fields}`` with the fields of :data:`CLIENT_TYPES`.

    Raises:
        ProtocolError: too large, binary, not JSON, nested too deep, an unknown type or a bad field.
    """
    value = _parse(raw, MAX_MESSAGE)
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        raise ProtocolError("malformed", f"type: expected one of {', '.join(CLIENT_TYPES)}, got {shown(kind)}")
    required, optional = CLIENT_TYPES[kind]
    f = Field(value)
    try:
        f.object(("type", *required), optional)
        if kind == "hello":
            f["protocol"].text(40)
            if "client" in value:
                f["client"].text(80)
            if "legal" in value:
                f["legal"].flag()
        elif kind == "act":
            f["seq"].integer(1, MAX_SEQ)
            if not isinstance(value["action"], dict):
                raise f["action"].fail("expected an action object, like {\"action\": \"pick\", \"piece\": \"b1\"}")
        elif kind == "ping" and "id" in value:
            f["id"].integer(0, MAX_SEQ)
    except FieldError as e:
        raise ProtocolError("malformed", str(e)) from None
    return value


# --- what a client reads: the server is hostile too -------------------------------------------------------------

SERVER_TYPES = ("welcome", "answer", "keyframe", "poses", "events", "state", "pong", "error")
"""A server's message types."""


def server_message(raw, pieces: int | None) -> dict:
    """A server's message checked (a client reads nothing it has not checked): the type, and the fields a client
    acts on. ``pieces``: how many pieces the table has (the welcome's roster), None before the welcome.

    Keyframes and pose rows come back with their poses as a float array (``poses``: (n, 7)) and their roster
    numbers as an int array (``ids``).

    Raises:
        ProtocolError: anything a server of this protocol does not send.
    """
    value = _parse(raw, MAX_SERVER_MESSAGE)
    f = Field(value)
    kind = value.get("type")
    try:
        if kind not in SERVER_TYPES:
            raise f["type"].fail(f"expected one of {', '.join(SERVER_TYPES)}") if "type" in value else \
                FieldError("type", "missing")
        if kind == "welcome":
            f["protocol"].text(40)
            if value["protocol"] != PROTOCOL:
                raise ProtocolError("version", f"the server speaks {shown(value['protocol'])}, this client "
                                               f"{PROTOCOL}: use the same towerlab on both ends")
            f["role"].one_of(("seat", "spectator"))
            f["game"].text(40)
            f["variant"].text(40)
            for p in f["players"].items(8, 1):
                p.text(40)
            for p in f["pieces"].items(100_000):
                p.text(200)
            f["frame"].integer(0, MAX_SEQ)
            f["next_seq"].integer(1, MAX_SEQ)
        elif kind in ("keyframe", "poses"):
            if pieces is None:
                raise FieldError("type", f"a {kind} before the welcome")
            f["frame"].integer(0, MAX_SEQ)
            f["time"].number(0.0, 1e9)
            if kind == "keyframe":
                ids = np.array([g.integer(0, pieces - 1) for g in f["ids"].items(pieces)], dtype=np.int64)
                if len(set(ids.tolist())) != len(ids):
                    raise f["ids"].fail("expected each piece once")
                poses = f["poses"].floats((len(ids), 7))
            else:
                rows = f["rows"].items(pieces)
                ids = np.array([r[0].integer(0, pieces - 1) for r in (g.items(8, 8) for g in rows)], dtype=np.int64)
                poses = f["rows"].floats((-1, 8))[:, 1:] if rows else np.zeros((0, 7))
            _check_poses(f, poses)
            value = {**value, "ids": ids, "poses": poses}
        elif kind == "answer":
            f["seq"].integer(1, MAX_SEQ)
            f["ok"].flag()
            f["frame"].integer(0, MAX_SEQ)
        elif kind == "error":
            f["code"].text(40)
            f["message"].text(2000)
        elif kind in ("events", "state"):
            f["frame"].integer(0, MAX_SEQ)
            if kind == "state" and value.get("legal") is not None:
                _check_legal(f["legal"])
    except FieldError as e:
        raise ProtocolError("malformed", f"the server's {kind or 'message'}: {e}") from None
    except (KeyError, TypeError):
        raise ProtocolError("malformed", f"the server's {kind or 'message'}: a field is missing") from None
    return value


def _check_legal(f: Field) -> None:
    """A state's ``legal`` (hand -> what is legal for its carried piece), which a window draws."""
    for _, k in f.entries(64):
        k.object(("piece", "pending", "rules", "places", "ghost"))
        k["piece"].text(200)
        k["pending"].flag()
        for _, n in k["rules"].entries(64):
            n.integer(0, 10**6)
        places = k["places"].floats((-1, 3))
        if len(places) and float(np.abs(places).max()) > MAX_POSITION:
            raise FieldError(k["places"].path, f"expected positions within {MAX_POSITION:g} m")
        if not k["ghost"].is_null():
            g = k["ghost"].object(("pose", "legal", "rule", "reason"))
            pose = g["pose"].floats((7,))
            if float(np.abs(pose[:3]).max()) > MAX_POSITION or abs(np.linalg.norm(pose[3:]) - 1.0) > QUAT_SLACK:
                raise FieldError(g["pose"].path, f"expected a position within {MAX_POSITION:g} m and a unit quaternion")
            g["legal"].flag()
            for name, most in (("rule", 40), ("reason", 2000)):
                if not g[name].is_null():
                    g[name].text(most)


def _check_poses(f: Field, poses: np.ndarray) -> None:
    if len(poses) and float(np.abs(poses[:, :3]).max()) > MAX_POSITION:
        raise FieldError(f.path + "poses", f"expected positions within {MAX_POSITION:g} m")
    norms = np.linalg.norm(poses[:, 3:], axis=1)
    if len(poses) and not np.all(np.abs(norms - 1.0) <= QUAT_SLACK):
        raise FieldError(f.path + "poses", "expected unit quaternions")


class Bucket:
    """A token bucket: :data:`RATE` messages a second on average, :data:`BURST` at once; :meth:`take` says whether
    a message may pass now, and :attr:`refused` counts the refusals in a row (a flood past :data:`FLOOD`).

    Args:
        clock: seconds (monotonic).
        rate, burst: the bucket's rate (1/s) and size.
    """

    def __init__(self, clock, rate: float = RATE, burst: float = BURST):
        self.clock = clock
        self.rate, self.burst = float(rate), float(burst)
        self.level = self.burst
        self.at = clock()
        self.refused = 0

    def take(self) -> bool:
        now = self.clock()
        self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now
        if self.level >= 1.0:
            self.level -= 1.0
            self.refused = 0
            return True
        self.refused += 1
        return False

    @property
    def flooding(self) -> bool:
        return self.refused >= FLOOD


__all__ = ["BURST", "CLOSE", "ERROR_CODES", "FLOOD", "HARD_MESSAGE", "MAX_MESSAGE", "MAX_SERVER_MESSAGE", "PROTOCOL",
           "RATE", "Bucket", "ProtocolError", "client_message", "dumps", "server_message"]
