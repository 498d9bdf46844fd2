"""A Babylon building or turn judged as a whole: the physics asked, the rules applied, the result reported.

:func:`referee` and :func:`referee_turn` are the game's side of the contract in
:mod:`sim.games.contract`: they ask the judge about :func:`physics_scene` (the
whole building), read the buildings from the scene as the physics left it, and
score it or judge the turn.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from sim.games.babylon.building import read_layout
from sim.games.babylon.fast import FastScore, Knock, score_fast
from sim.games.babylon.scoring import TacticalScore, score_tactical
from sim.games.babylon.supply import MODES, BabylonError, players_of
from sim.games.babylon.turns import TurnVerdict, check_turn
from sim.games.contract import Judge, ask
from sim.scene import Scene


def physics_scene(scene: Scene) -> Scene:
    """What the physics judges: the whole building, nobles and all."""
    return scene


def referee(scene: Scene, judge: Judge | None = None, *, mode: str = "tactical", knocks: Iterable[Knock] = (),
            expert: bool = False) -> TacticalScore | FastScore:
    """Score a Babylon building, its levels read from the scene as the judge let it settle.

    Args:
        scene: a Babylon scene (its ``players`` in seat order).
        judge: the physics (e.g. :func:`sim.physics.judge.judge`); None scores the poses as given.
        mode: ``tactical`` (the end of a game) or ``fast`` (the end of a round).
        knocks: fast game: who knocked down what during the round.
        expert: fast game: the expert variant's doubling.

    Raises:
        BabylonError: not a Babylon scene, an unknown mode, knocks outside the fast
            game or by a colour that does not play, more bridges than the game gives.
    """
    players = players_of(scene)
    if mode not in MODES:
        raise BabylonError(f"mode: expected {' or '.join(MODES)}, got \"{mode}\"")
    knocks = tuple(knocks)
    if knocks and mode != "fast":
        raise BabylonError("knocks: knocked-down pieces count only in the fast game")
    for k in knocks:
        if k.by not in players:
            raise BabylonError(f"knocks: expected one of the players {', '.join(players)}, got \"{k.by}\"")
    verdict = ask(judge, physics_scene(scene))
    layout = read_layout(scene if verdict is None or verdict.settled is None else verdict.settled)
    if mode == "tactical":
        result = score_tactical(layout, players)
    else:
        result = score_fast(layout, players, knocks, expert=expert)
    return replace(result, verdict=verdict)


def referee_turn(before: Scene, after: Scene, player: str, judge: Judge | None = None, *, expert: bool = False,
                 first_round: bool | None = None) -> TurnVerdict:
    """Judge one tactical turn from ``before`` to ``after``, asking ``judge`` whether the building still stands.

    Args:
        before, after: the building before and after the turn (pieces keep their ids).
        player: whose turn it was.
        judge: the physics; None leaves the building's standing unjudged.
        expert: the expert game's special move.
        first_round: force the first round's restrictions on or off (None: read from the owners).

    Raises:
        BabylonError: the scenes are not two states of one game, or ``player`` does not play.
    """
    return check_turn(read_layout(before), read_layout(after), player, expert=expert, first_round=first_round,
                      verdict=ask(judge, physics_scene(after)))
