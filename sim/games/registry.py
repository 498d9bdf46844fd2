"""Every game and variant, registered once: its players, its table as the rulebook sets it up, its rules, its
referee (OpenSpiel's ``register_game`` is the model).

A :class:`Variant` is all the program needs to know to play one: the viewer's
play mode, ``towerlab play``, the replays and ``towerlab penalty`` look a
variant up here, and :func:`new_state` starts a game in the one game
interface (:class:`~sim.games.play.state.PlayState`). Adding a variant is one
:func:`register` call below.

Importing this module imports no referee and no engine, not even the scenes:
the factories import what they need when a game is set up, so that the
command line lists the variants in its help at no cost.
The die and the deal come from the seed through ``SeedSequence.spawn`` (a
stream of their own, apart from the set-up's shuffle of Tohuwabohu's pieces),
so that the same game, players, variant, seed and actions give the same game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from sim.games.play.session import Session
    from sim.scene import Scene


@dataclass(frozen=True)
class Variant:
    """One game as it can be played.

    Attributes:
        game: the scene format's game (``talo``, ``tohuwabohu``, ``babylon``).
        name: the variant (``green``, ``pro``, ``fast-expert`` ...), unique within its game.
        summary: one line for the players.
        players: (fewest, most) players.
        default_players: who plays when nobody says.
        names: ``names() ->`` the names players must take (Talo's pawn colours, Babylon's noble colours); None
            when any names will do.
        penalty: the collapse rule ``towerlab penalty`` judges its recordings by (``talo``, ``fantasy``,
            ``basic``, ``pro``, ``tactical``, ``fast``).
        table: ``table(players, seed) -> Scene``: the table as the rulebook sets it up.
        referee: ``referee(players, seed) -> Session``: a new session, its die and deal seeded.
    """

    game: str
    name: str
    summary: str
    players: tuple[int, int]
    default_players: tuple[str, ...]
    names: Callable[[], tuple[str, ...]] | None
    penalty: str
    table: Callable[[tuple[str, ...], int], Scene]
    referee: Callable[[tuple[str, ...], int], Session]

    @property
    def rules(self):
        """The game's side of the games' contract (:class:`sim.games.suite.Rules`): its ``physics_scene``,
        its ``referee`` of a whole scene, its state classes."""
        from sim.games.suite import rules

        return rules(self.game)

    @property
    def timed(self) -> bool:
        """Whether its turns run on a clock whose length a house rule may set (Tohuwabohu's basic and advanced
        games)."""
        return self.game == "tohuwabohu" and self.name != "pro"

    def start(self, players: Sequence[str] | None = None, seed: int = 0,
              turn_seconds: float | None = None) -> Game:
        """This variant set up for ``players`` (default :attr:`default_players`) with ``seed``.

        Args:
            turn_seconds: a turn's length (s) as a house rule (only a :attr:`timed` variant's); None for the
                rulebook's.

        Raises:
            PlayError: players the game does not allow, or a turn length for a game without timed turns.
        """
        from sim.games.play.session import PlayError
        from sim.games.setup import SetupError

        if turn_seconds is not None and not self.timed:
            raise PlayError(f"--turn-seconds: {self.game} {self.name}'s turns are not timed (only the basic and "
                            "advanced Tohuwabohu's are)")
        players = tuple(players or self.default_players)
        try:
            scene = self.table(players, seed)
        except SetupError as e:
            raise PlayError(str(e)) from None

        def remake():
            return self.referee(players, seed, turn_seconds) if self.timed else self.referee(players, seed)

        return Game(scene, tuple(p.id for p in scene.pieces), remake(), self.rules.physics_scene, self, remake,
                    seed, turn_seconds)


@dataclass
class Game:
    """A game ready to play.

    Attributes:
        scene: the table as set up.
        supply: ids of the pieces in the supply.
        session: the referee.
        prepare: the scene the statics judge, from the pieces built (the game's ``physics_scene``).
        variant: the registered variant (None for a game composed by hand).
        remake: a new session of the same set-up, as ``session`` was when it was made (a saved game's is made
            again from its record of calls).
        seed: the seed it was set up with.
        turn_seconds: the turn's length as a house rule, or None for the rulebook's.
    """

    scene: Scene
    supply: tuple[str, ...]
    session: Session
    prepare: Callable[[Scene], Scene] | None = None
    variant: Variant | None = None
    remake: Callable[[], Session] | None = None
    seed: int = 0
    turn_seconds: float | None = None


_VARIANTS: dict[tuple[str, str], Variant] = {}


def register(variant: Variant) -> Variant:
    """Add ``variant`` to the registry (its game's first is the game's default).

    Raises:
        ValueError: the game already has a variant of that name.
    """
    key = (variant.game, variant.name)
    if key in _VARIANTS:
        raise ValueError(f"{variant.game} has a variant {variant.name!r} already")
    _VARIANTS[key] = variant
    return variant


def games() -> tuple[str, ...]:
    """The games with a registered variant, in the order they were registered."""
    return tuple(dict.fromkeys(g for g, _ in _VARIANTS))


def variants(game: str | None = None) -> tuple[Variant, ...]:
    """Every registered variant (of ``game``), in the order registered."""
    return tuple(v for (g, _), v in _VARIANTS.items() if game is None or g == game)


def variant(game: str, name: str | None = None) -> Variant:
    """The variant ``name`` of ``game`` (None: the game's default).

    Raises:
        PlayError: no such game or variant (one line naming what exists).
    """
    from sim.games.play.session import PlayError

    if game not in games():
        raise PlayError(f"game: expected one of {', '.join(games())}, got {game!r}")
    if name is None:
        return variants(game)[0]
    found = _VARIANTS.get((game, name))
    if found is None:
        raise PlayError(f"--variant: {game} plays {', '.join(v.name for v in variants(game))}, got {name!r}")
    return found


_find = variant  # for the functions below, whose argument of that name is the variant's name


def new_game(game: str, players: Sequence[str] | None = None, variant: str | None = None, seed: int = 0,
             turn_seconds: float | None = None) -> Game:
    """``game`` in ``variant`` (default the game's first) set up for ``players`` with ``seed`` (and a turn's
    length as a house rule, where turns are timed).

    Raises:
        PlayError: an unknown game or variant, players the game does not allow, or a turn length for a game
            without timed turns.
    """
    return _find(game, variant).start(players, seed, turn_seconds)


def new_state(game: str, variant: str | None = None, players: Sequence[str] | None = None, seed: int = 0):
    """A game about to begin in the one game interface: a :class:`~sim.games.play.state.PlayState`.

    Raises:
        PlayError: an unknown game or variant, or players the game does not allow.
    """
    from sim.games.play.state import PlayState

    return PlayState.new(_find(game, variant), players, seed)


def game_rng(seed: int) -> np.random.Generator:
    """The referee's randomness (the die, the deal) for ``seed``: its own stream of the seed's sequence."""
    import numpy as np

    return np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])


# --- the tables ---------------------------------------------------------------------------------------


def talo_table(board: str = "talo-green", players=None) -> Scene:
    """Talo's table: the board (``talo-green`` or ``talo-island``), the stock on either side, the pawns (of
    ``players`` only, when given: a colour nobody plays stays in the box)."""
    from sim.games.setup import setup

    scene = setup("talo")
    if players is not None:
        keep = {f"pawn-{c}" for c in players}
        scene = replace(scene, pieces=tuple(p for p in scene.pieces if p.kind != "talo.pawn" or p.id in keep))
    if board == scene.board:
        return scene
    return replace(scene, board=board, title=f"Talo on the {board.removeprefix('talo-')} board")


def fantasy_table() -> Scene:
    """Talo-Fantasy's table: the stock where Talo's set-up puts it, no board, no pawns (nothing suggests a grid)."""
    from sim.pieces import board as catalogue_board
    from sim.scene import Scene

    talo = talo_table()
    lift = catalogue_board(talo.board).thickness  # the stock lay on the table around the board's slab
    blocks = [p.moved((p.pos[0], p.pos[1], p.pos[2] + lift), p.quat) for p in talo.pieces if p.kind == "talo.block"]
    return Scene("talo", "table", tuple(blocks), title="Talo-Fantasy: the stock and the table")


def _babylon_table(mode: str) -> Callable[[tuple[str, ...], int], Scene]:
    def table(players, seed):
        from sim.games.setup import setup

        return setup("babylon", players, mode=mode)

    return table


def _tohuwabohu_table(players, seed) -> Scene:
    from sim.games.setup import setup

    return setup("tohuwabohu", seed=seed)


# --- the referees -------------------------------------------------------------------------------------


def _talo(board: str):
    def referee(players, seed):
        from sim.games.play.judge import statics_judge
        from sim.games.play.talo import TaloSession

        return TaloSession(players, game_rng(seed), statics_judge, board)

    return referee


def _fantasy(players, seed):
    from sim.games.play.fantasy import FantasySession
    from sim.games.play.judge import statics_judge

    return FantasySession(players, game_rng(seed), statics_judge)


def _tohuwabohu(name: str):
    def referee(players, seed, turn_seconds=None):
        from sim.games.play.tohuwabohu import TohuwabohuSession

        return TohuwabohuSession(players, game_rng(seed), name, turn_seconds=turn_seconds)

    return referee


def _tactical(name: str):
    def referee(players, seed):
        from sim.games.play.babylon_tactical import TacticalSession

        return TacticalSession(players, name)

    return referee


def _fast(name: str):
    def referee(players, seed):
        from sim.games.play.babylon_fast import FastSession

        return FastSession(players, name)

    return referee


def _pawn_colours() -> tuple[str, ...]:
    from sim.pieces import dimensions as dim

    return dim.TALO_PAWN_COLORS


def _noble_colours() -> tuple[str, ...]:
    from sim.pieces import dimensions as dim

    return dim.BABYLON_NOBLE_COLORS


TWO = ("red", "blue")
THREE = ("red", "blue", "green")

register(Variant("tohuwabohu", "basic", "turns of 15 s, one order card open each", (2, 4), TWO, None, "basic",
                 _tohuwabohu_table, _tohuwabohu("basic")))
register(Variant("tohuwabohu", "advanced", "the basic game with turns of 10 s", (2, 4), TWO, None, "basic",
                 _tohuwabohu_table, _tohuwabohu("advanced")))
register(Variant("tohuwabohu", "pro", "the professional variant: four-minute rounds, three open cards, everyone "
                 "builds", (2, 4), TWO, None, "pro", _tohuwabohu_table, _tohuwabohu("pro")))
register(Variant("talo", "green", "pawns climb the building on the green board", (1, 6), TWO, _pawn_colours,
                 "talo", lambda players, seed: talo_table("talo-green", players), _talo("green")))
register(Variant("talo", "island", "the island board: no blocks on the water at level 0", (1, 6), TWO,
                 _pawn_colours, "talo", lambda players, seed: talo_table("talo-island", players), _talo("island")))
register(Variant("talo", "fantasy", "Talo-Fantasy: one construction built together, no pawns, no grid", (2, 4),
                 TWO, None, "fantasy", lambda players, seed: fantasy_table(), _fantasy))
register(Variant("babylon", "tactical", "4 or 5 pieces a turn, nobles on towers, level majorities", (3, 5), THREE,
                 _noble_colours, "tactical", _babylon_table("tactical"), _tactical("tactical")))
register(Variant("babylon", "expert", "the tactical game whose special move may also turn a tower", (3, 5), THREE,
                 _noble_colours, "tactical", _babylon_table("tactical"), _tactical("expert")))
register(Variant("babylon", "fast", "everyone builds at once between neighbours; three round wins", (3, 5), THREE,
                 _noble_colours, "fast", _babylon_table("fast"), _fast("fast")))
register(Variant("babylon", "fast-expert", "the fast game, a noble doubled on a building of one tower "
                 "orientation", (3, 5), THREE, _noble_colours, "fast", _babylon_table("fast"), _fast("fast-expert")))

__all__ = ["Game", "Variant", "fantasy_table", "game_rng", "games", "new_game", "new_state", "register",
           "talo_table", "variant", "variants"]
