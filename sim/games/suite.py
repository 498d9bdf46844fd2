"""The three games under one contract: what each gives the viewer's play mode, the CLI and the tests.

dm_control's suite is the model: every game is a :class:`Rules` entry of
:data:`GAMES`, keyed by the ``game`` of its scenes, and one parametrised test
holds each to the contract of :mod:`sim.games.contract`.

- ``physics_scene(scene)``: the pieces the physics judges (Talo leaves the pawns out);
- ``referee(scene, judge)``: the scene judged as a whole, a :class:`Report`;
- ``state_from_json(data)``: a game state back from the JSON its ``to_json()`` wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from sim.games import babylon, talo, tohuwabohu
from sim.games.babylon.tactical import TacticalState
from sim.games.contract import Judge, Verdict, Violation
from sim.games.talo.fantasy import FantasyState
from sim.games.talo.game import TaloState
from sim.games.tohuwabohu.game import GameState
from sim.games.tohuwabohu.pro import ProState
from sim.scene import Scene


class Report(Protocol):
    """What a referee returns, whatever the game: broken rules, the verdict it was given, JSON."""

    @property
    def violations(self) -> tuple[Violation, ...]: ...

    @property
    def verdict(self) -> Verdict | None: ...

    def to_json(self) -> dict: ...


class State(Protocol):
    """A game state: frozen plain data with a JSON form that reads back equal."""

    def to_json(self) -> dict: ...


@dataclass(frozen=True)
class Rules:
    """One game's side of the contract.

    Attributes:
        game: the ``game`` its scenes name.
        physics_scene: the pieces of a scene the physics judges.
        referee: ``referee(scene, judge=None)``: the scene judged as a whole.
        states: variant name -> state class, each with ``to_json()`` and ``from_json(data)``.
    """

    game: str
    physics_scene: Callable[[Scene], Scene]
    referee: Callable[[Scene, Judge | None], Report]
    states: Mapping[str, type]


GAMES: dict[str, Rules] = {
    "tohuwabohu": Rules("tohuwabohu", tohuwabohu.physics_scene, tohuwabohu.referee,
                        {"basic": GameState, "pro": ProState}),
    "talo": Rules("talo", talo.physics_scene, talo.referee, {"talo": TaloState, "fantasy": FantasyState}),
    "babylon": Rules("babylon", babylon.physics_scene, babylon.referee, {"tactical": TacticalState}),
}
"""Every game, by the ``game`` of its scenes."""


def rules(game: str) -> Rules:
    """The rules of ``game``.

    Raises:
        KeyError: no such game (``free`` scenes have no rules).
    """
    return GAMES[game]


def state_from_json(data: Mapping) -> State:
    """A game state back from its JSON form (``{"game": ..., "variant": ..., ...}``).

    Raises:
        KeyError: an unknown game or variant.
    """
    return GAMES[data["game"]].states[data["variant"]].from_json(data)
