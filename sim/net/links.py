"""A table's links: one per seat with that seat's secret, and the spectators' (docs/network.md).

``ws://HOST:PORT/seat/NAME?token=SECRET`` lets its holder act for the seat ``NAME``; ``ws://HOST:PORT/watch?token=
SECRET`` lets anyone who has it watch. The secrets are :func:`secrets.token_urlsafe` (128 bits); whoever has a
link has the seat, so a link is given to its player alone. A link is hostile input on both ends:
:func:`parse_link` reads one from the command line (:class:`LinkError`, one line), :func:`request_link` the path
a client asked the server for.
"""

from __future__ import annotations

import ipaddress
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs, quote, unquote, urlsplit

from sim.errors import TowerlabError

TOKEN_BYTES = 16
"""The seats' secrets: 16 random bytes (128 bits), 22 URL-safe characters."""
MAX_LINK = 2000
"""The longest link read."""
EXAMPLE = "ws://127.0.0.1:8765/seat/red?token=..."


class LinkError(TowerlabError):
    """A link that is not one of a table's."""


@dataclass(frozen=True)
class Link:
    """A table's link, read.

    Attributes:
        host, port: the server.
        seat: the seat's name, or None for the spectators' link.
        token: its secret.
    """

    host: str
    port: int
    seat: str | None
    token: str

    @property
    def address(self) -> str:
        """``ws://host:port`` (an IPv6 address in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"ws://{host}:{self.port}"

    @property
    def url(self) -> str:
        """The whole link, as the server prints it."""
        where = "watch" if self.seat is None else f"seat/{quote(self.seat, safe='')}"
        return f"{self.address}/{where}?token={self.token}"

    @property
    def role(self) -> str:
        return "spectator" if self.seat is None else "seat"


def new_token() -> str:
    """A new secret."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def same_token(a: str, b: str) -> bool:
    """Whether two secrets are the same, in time that does not tell how much of them matched."""
    return secrets.compare_digest(a.encode(), b.encode())


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine alone (``127.0.0.1``, ``::1``, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_link(text: str, what: str = "URL") -> Link:
    """A link given on the command line (``--join URL``, ``--watch URL``).

    Raises:
        LinkError: ``URL: expected a towerlab link like ws://127.0.0.1:8765/seat/red?token=..., got ...``.
    """
    def bad(why: str) -> LinkError:
        shown = text if len(text) <= 80 else text[:77] + "..."
        return LinkError(f"{what}: expected a towerlab link like {EXAMPLE} ({why}), got {shown!r}")

    if not isinstance(text, str) or not text or len(text) > MAX_LINK or not text.isprintable():
        raise bad("printable text of at most 2000 characters")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as e:
        raise bad(str(e)) from None
    if parts.scheme != "ws":
        raise bad("ws:// (the table's links are plain WebSocket links)" if parts.scheme != "wss"
                  else "ws://: a table serves no TLS")
    if not parts.hostname:
        raise bad("a host")
    if port is None:
        raise bad("a port")
    seat, token = _path(parts.path, parts.query)
    if token is None:
        raise bad("a /seat/NAME or /watch path and its ?token=")
    return Link(parts.hostname, port, seat, token)


def request_link(path: str) -> tuple[str | None, str] | None:
    """The seat (None: the spectators') and token of the path a client asked for (``/seat/red?token=...``), or
    None when it is not a table's path."""
    if not isinstance(path, str) or len(path) > MAX_LINK:
        return None
    head, _, query = path.partition("?")
    seat, token = _path(head, query)
    return None if token is None else (seat, token)


def _path(path: str, query: str) -> tuple[str | None, str | None]:
    try:
        q = parse_qs(query, strict_parsing=True, max_num_fields=4) if query else {}
    except ValueError:
        return None, None
    tokens = q.get("token", [])
    if len(tokens) != 1 or set(q) != {"token"} or not 0 < len(tokens[0]) <= 200:
        return None, None
    parts = path.strip("/").split("/")
    if parts == ["watch"]:
        return None, tokens[0]
    if len(parts) == 2 and parts[0] == "seat" and 0 < len(unquote(parts[1])) <= 40:
        return unquote(parts[1]), tokens[0]
    return None, None


__all__ = ["Link", "LinkError", "is_loopback", "new_token", "parse_link", "request_link", "same_token"]
