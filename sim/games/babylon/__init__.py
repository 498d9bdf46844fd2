"""Babylon Tower Builders: buildings read from poses, placement and turn rules, tactical and fast scoring."""

from sim.games.babylon.building import LEVEL, Layout, Noble, Part, read_layout
from sim.games.babylon.fast import FastGame, FastScore, Knock, round_over, score_fast
from sim.games.babylon.placement import Violation
from sim.games.babylon.scoring import TacticalScore, score_tactical
from sim.games.babylon.supply import BabylonError, allotment, players_of
from sim.games.babylon.turns import TurnVerdict, check_turn

__all__ = ["LEVEL", "BabylonError", "FastGame", "FastScore", "Knock", "Layout", "Noble", "Part", "TacticalScore",
           "TurnVerdict", "Violation", "allotment", "check_turn", "players_of", "read_layout", "round_over",
           "score_fast", "score_tactical"]
