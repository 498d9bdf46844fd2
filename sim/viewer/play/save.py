"""A game in progress as a file, and the game going on from it exactly (``towerlab play --resume FILE``).

The file (JSON, written atomically, format ``towerlab-game/2``) holds the set-up (game, variant, players,
seed, the turn's length) and two parts:

* ``viewer``: the controller's session (:mod:`sim.viewer.control.saving`): the live world's exact state (poses,
  velocities, what the statics hold, the hands' grips, the motion tracker), what each hand holds and how,
  the supply, the session clock, the camera;
* ``referee``: the record of every call the referee made of its session with the table's answers
  (:mod:`sim.viewer.play.tape`), the session's JSON to check it against, the effects under way (a pawn
  walking, a block held for its partner).

A game is resumed by setting the same game up again (:func:`~sim.viewer.play.games.new_game`), restoring the
world and the hands from the data, and playing the record back into a new session: the turn, the timer,
the die's random stream, the deal and the cards are the session's own, made again call by call. Saving
restores what it has written into the game it came from as well, so the game that goes on and the game
resumed from the file are one game, bit for bit, given the same actions after (the world's bodies are made
afresh in both; a game that was never saved differs from both in the last bits of Bullet's contact solver).

A file is hostile until checked: at most :data:`MAX_BYTES`, a regular file, UTF-8 JSON, every field read and
checked (:mod:`sim.fieldcheck`); a bad one is one line naming the file and the field (:class:`GameFileError`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from sim.atomic import write_text
from sim.errors import TowerlabError
from sim.fieldcheck import Field, FieldError
from sim.jsontext import JSONFileError, read_json_file
from sim.limits import LIMITS

FORMAT = "towerlab-game/2"
"""The format of a saved game (its ``format`` field). ``/2``: a drop hands the session the piece (its record of
the referee's calls reads the table less than ``/1``'s, which this version does not play back)."""
EARLIER = ("towerlab-game/1",)
"""Formats of games saved by earlier versions."""
MAX_BYTES = LIMITS["game"]
"""The largest saved game read (a long game's record of calls is some megabytes)."""
KEYS = ("format", "game", "variant", "players", "seed", "turn_seconds", "saved_at", "viewer", "referee")


class GameFileError(TowerlabError):
    """A saved game that cannot be read or is not one (``FILE: FIELD: what was expected, got what came``)."""


@dataclass(frozen=True)
class SavedGame:
    """A saved game read from its file, its set-up checked (the rest is checked as it is restored).

    Attributes:
        path: the file.
        game, variant, players, seed, turn_seconds: its set-up.
        data: the whole file's data.
    """

    path: Path
    game: str
    variant: str
    players: tuple[str, ...]
    seed: int
    turn_seconds: float | None
    data: Field


def default_path(game: str) -> Path:
    """A new file in the current folder for a saved game: ``towerlab-<game>-<date>-<time>.json``."""
    return Path(f"towerlab-{game}-{time.strftime('%Y%m%d-%H%M%S')}.json")


def game_data(controller, referee) -> dict:
    """The game as the file's data (see the module docstring)."""
    g, s = referee.game, referee.session
    return {"format": FORMAT, "game": s.game, "variant": s.variant, "players": list(s.players), "seed": g.seed,
            "turn_seconds": g.turn_seconds, "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "viewer": controller.session_data(), "referee": referee.data()}


def save_game(controller, referee, path) -> Path:
    """Write the game to ``path`` (atomically), and go on from what was written (see the module docstring).

    Returns:
        The path.

    Raises:
        OSError: the file cannot be written.
    """
    path = Path(path)
    text = json.dumps(game_data(controller, referee), allow_nan=False, separators=(",", ":"))
    write_text(path, text)
    restore(controller, referee, Field(json.loads(text)))
    return path


def restore(controller, referee, data: Field) -> None:
    """The game of ``data`` (a saved game's whole data) on ``controller`` and ``referee`` of its set-up.

    Raises:
        FieldError: a part is not what a saved game holds.
    """
    scene = referee.game.scene
    controller.restore_session(data["viewer"], scene)
    referee.restore_data(data["referee"], scene)


def read_game(path) -> SavedGame:
    """Read a saved game's file and check its set-up.

    Raises:
        GameFileError: not a regular file, too large, not UTF-8 JSON, not a saved game, or a set-up that is not
            one (an unknown game, variant or player).
    """
    from sim.games import registry

    path = Path(path)
    try:
        raw = read_json_file(path, "game")
    except JSONFileError as e:
        raise GameFileError(f"{path}: {e}") from None
    f = Field(raw)
    try:
        if isinstance(raw, dict) and "format" in raw:  # another file's format before its missing fields
            if raw["format"] in EARLIER:
                raise f["format"].fail(f"expected {FORMAT!r} (a game saved by an earlier towerlab: this one does "
                                       "not play its record of the referee's calls back)")
            f["format"].one_of((FORMAT,))
        f.object(KEYS)
        game = f["game"].one_of(registry.games())
        variant = f["variant"].one_of(tuple(v.name for v in registry.variants(game)))
        players = tuple(p.text(40) for p in f["players"].items(6, 1))
        seed = f["seed"].integer(0, 2**63)
        turn = None if f["turn_seconds"].is_null() else f["turn_seconds"].number(1.0, 3600.0)
        f["saved_at"].text(40)
    except FieldError as e:
        raise file_error(path, e) from None
    return SavedGame(path, game, variant, players, seed, turn, f)


def file_error(path, e: FieldError) -> GameFileError:
    """A field's error as the one line of a saved game's file."""
    return GameFileError(f"{path}: {e.path or 'the file'}: {e.message}")


__all__ = ["FORMAT", "GameFileError", "SavedGame", "default_path", "file_error", "game_data", "read_game",
           "restore", "save_game"]
