"""Babylon Tower Builders: buildings read from poses, placement and turn rules, tactical and fast scoring.

:func:`referee` (a score) and :func:`referee_turn` (a tactical turn) ask the
physics judge and apply the rules, as :mod:`sim.games.contract` describes.
"""

from sim.games.babylon.building import LEVEL, Layout, Noble, Part, read_layout
from sim.games.babylon.fast import FastGame, FastScore, Knock, round_over, score_fast
from sim.games.babylon.referee import physics_scene, referee, referee_turn
from sim.games.babylon.scoring import TacticalScore, score_tactical
from sim.games.babylon.supply import BabylonError, allotment, players_of
from sim.games.babylon.turns import TurnVerdict, check_turn
from sim.games.contract import Verdict, Violation

__all__ = ["LEVEL", "BabylonError", "FastGame", "FastScore", "Knock", "Layout", "Noble", "Part", "TacticalScore",
           "TurnVerdict", "Verdict", "Violation", "allotment", "check_turn", "physics_scene", "players_of",
           "read_layout", "referee", "referee_turn", "round_over", "score_fast", "score_tactical"]
