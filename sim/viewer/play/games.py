"""Each game set up for play: the table as its rulebook lays it out, and the referee that runs it.

The die and the deal come from the seed through ``SeedSequence.spawn`` (a
stream of their own, apart from the set-up's shuffle of Tohuwabohu's pieces),
so that the same game, players, variant, seed and actions give the same game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from sim.games.play.session import PlayError, Session
from sim.scene import Scene

GAMES = ("tohuwabohu", "talo", "babylon")
DEFAULT_PLAYERS = {"talo": ("red", "blue"), "tohuwabohu": ("red", "blue"), "babylon": ("red", "blue", "green")}
VARIANTS = {"talo": ("green", "island", "fantasy"), "tohuwabohu": ("basic", "advanced", "pro"),
            "babylon": ("tactical", "expert", "fast", "fast-expert")}


def game_rng(seed: int) -> np.random.Generator:
    """The referee's randomness (the die, the deal) for ``seed``: its own stream of the seed's sequence."""
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])


@dataclass
class Game:
    """A game ready to play.

    Attributes:
        scene: the table as set up.
        supply: ids of the pieces in the supply.
        session: the referee.
        prepare: the scene the statics judge, from the pieces built (the game's ``physics_scene``).
        remake: a new session of the same set-up, as ``session`` was when it was made (a saved game's is made
            again from its record of calls).
        seed: the seed it was set up with.
        turn_seconds: the turn's length as a house rule, or None for the rulebook's.
    """

    scene: Scene
    supply: tuple[str, ...]
    session: Session
    prepare: object = None
    remake: Callable[[], Session] | None = None
    seed: int = 0
    turn_seconds: float | None = None


def fantasy_table() -> Scene:
    """Talo-Fantasy's table: the stock where Talo's set-up puts it, no board, no pawns (nothing suggests a grid)."""
    from sim.pieces import board as catalogue_board
    from sim.viewer.setup import setup

    talo = setup("talo")
    lift = catalogue_board(talo.board).thickness  # the stock lay on the table around the board's slab
    blocks = [p.moved((p.pos[0], p.pos[1], p.pos[2] + lift), p.quat) for p in talo.pieces if p.kind == "talo.block"]
    return Scene("talo", "table", tuple(blocks), title="Talo-Fantasy: the stock and the table")


def new_game(game: str, players=None, variant: str | None = None, seed: int = 0,
             turn_seconds: float | None = None) -> Game:
    """Set ``game`` up for ``players`` (default two, Babylon three) in ``variant`` (default the first).

    Args:
        turn_seconds: a turn's length (s) as a house rule (Tohuwabohu's basic and advanced games: the
            only timed turns); None for the rulebook's.

    Raises:
        PlayError: an unknown game or variant, players the game does not allow, or a turn length for a game
            without timed turns.
    """
    from sim.viewer.setup import SetupError, setup

    if game not in GAMES:
        raise PlayError(f"game: expected one of {', '.join(GAMES)}, got {game!r}")
    players = tuple(players or DEFAULT_PLAYERS[game])
    variant = variant or VARIANTS[game][0]
    if variant not in VARIANTS[game]:
        raise PlayError(f"--variant: {game} plays {', '.join(VARIANTS[game])}, got {variant!r}")
    if turn_seconds is not None and game != "tohuwabohu":
        raise PlayError(f"--turn-seconds: {game}'s turns are not timed (only Tohuwabohu's are)")
    if game == "talo" and variant == "fantasy":
        from sim.games.play.fantasy import FantasySession
        from sim.games.play.judge import statics_judge

        scene = fantasy_table()
        return _game(scene, lambda: FantasySession(players, game_rng(seed), statics_judge), seed=seed)
    if game == "talo":
        from sim.games.play.judge import statics_judge
        from sim.games.play.talo import BOARDS, TaloSession

        scene = setup("talo")
        if variant != "green":
            scene = replace(scene, board=BOARDS[variant], title=f"Talo on the {variant} board")
        return _game(scene, lambda: TaloSession(players, game_rng(seed), statics_judge, variant), seed=seed)
    if game == "tohuwabohu":
        from sim.games.play.tohuwabohu import TohuwabohuSession
        from sim.games.tohuwabohu import physics_scene

        scene = setup("tohuwabohu", seed=seed)
        return _game(scene, lambda: TohuwabohuSession(players, game_rng(seed), variant, turn_seconds=turn_seconds),
                     physics_scene, seed, turn_seconds)
    from sim.games.play.babylon_fast import VARIANTS as FAST
    from sim.games.play.babylon_fast import FastSession
    from sim.games.play.babylon_tactical import TacticalSession

    try:
        scene = setup("babylon", players, mode="fast" if variant in FAST else "tactical")
    except SetupError as e:
        raise PlayError(str(e)) from None
    return _game(scene, (lambda: FastSession(players, variant)) if variant in FAST else
                 (lambda: TacticalSession(players, variant)), seed=seed)


def _game(scene: Scene, make: Callable[[], Session], prepare=None, seed: int = 0,
          turn_seconds: float | None = None) -> Game:
    """A game on ``scene`` (every piece in the supply) with the session ``make`` makes."""
    return Game(scene, tuple(p.id for p in scene.pieces), make(), prepare, make, seed, turn_seconds)
