"""The table's seats file beside its autosave: each seat's secret and the table's settings, to serve it again.

``towerlab serve`` writes ``AUTOSAVE.seats`` (JSON, format ``towerlab-seats/1``, atomically, readable by its
owner alone: it holds every seat's secret) once, as the table opens; ``towerlab serve --resume AUTOSAVE`` reads
it, so that the links the players hold work again and their clients come back by themselves. The autosave
itself is a saved game (``towerlab-game/1``) that ``towerlab play --resume`` opens as well. A seats file is
hostile until checked like every file (:mod:`sim.fieldcheck`): one line naming the field.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from sim.errors import TowerlabError
from sim.fieldcheck import Field, FieldError
from sim.jsontext import JSONFileError, read_json_file
from sim.limits import LIMITS

FORMAT = "towerlab-seats/1"
MAX_BYTES = LIMITS["seats"]


class SeatFileError(TowerlabError):
    """A seats file that cannot be read or is not one."""


@dataclass(frozen=True)
class SeatFile:
    """What a seats file holds.

    Attributes:
        seats: seat -> its secret, in seat order.
        watch: the spectators' secret.
        host, port: where the table was served.
        absent: what the table does once an absent seat's time is up.
        seat_timeout: seconds an absent seat is waited for.
    """

    seats: dict[str, str]
    watch: str
    host: str
    port: int
    absent: str
    seat_timeout: float


def seats_path(autosave: Path) -> Path:
    """The seats file of an autosave: ``AUTOSAVE.seats``."""
    autosave = Path(autosave)
    return autosave.with_name(autosave.name + ".seats")


def write_seats(path: Path, f: SeatFile) -> None:
    """Write the seats file atomically, readable by its owner alone."""
    from sim.atomic import write_text

    data = {"format": FORMAT, "seats": f.seats, "watch": f.watch, "host": f.host, "port": f.port,
            "absent": f.absent, "seat_timeout": f.seat_timeout}
    write_text(path, json.dumps(data, indent=1) + "\n")
    os.chmod(path, 0o600)


def read_seats(path: Path, players: tuple[str, ...]) -> SeatFile:
    """Read a seats file for a game of ``players``.

    Raises:
        SeatFileError: not a regular file, too large, not JSON, or a field that is not what it must be.
    """
    from sim.net.table import ABSENT

    try:
        raw = read_json_file(path, "seats")
    except JSONFileError as e:
        raise SeatFileError(f"{path}: {e}") from None
    f = Field(raw)
    try:
        f.object(("format", "seats", "watch", "host", "port", "absent", "seat_timeout"))
        f["format"].one_of((FORMAT,))
        entries = f["seats"].entries(len(players))
        seats = {name: g.text(200) for name, g in entries}
        if list(seats) != list(players):
            raise f["seats"].fail(f"expected the seats {', '.join(players)}")
        return SeatFile(seats, f["watch"].text(200), f["host"].text(255), f["port"].integer(0, 65535),
                        str(f["absent"].one_of(ABSENT)), f["seat_timeout"].number(1.0, 86400.0))
    except FieldError as e:
        raise SeatFileError(f"{path}: {e.path or 'the file'}: {e.message}") from None


__all__ = ["SeatFile", "SeatFileError", "read_seats", "seats_path", "write_seats"]
