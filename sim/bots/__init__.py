"""Computer players for every game and variant, through the one game interface (pure: the statics are the only
engine they ask; no pybullet, no Panda3D).

``make_bot(level, game, variant, rng)`` makes a player; ``bot.decide(state)`` answers a
:class:`~sim.bots.decision.Decision` for the player to move; :func:`~sim.bots.match.play_game` plays a game
between them; :mod:`sim.bots.tournament` plays many. docs/bots.md explains the levels.
"""

from sim.bots.decision import Candidate, Decision
from sim.bots.players import LEVELS, Bot, GreedyBot, PlanningBot, RandomBot, make_bot
from sim.bots.risk import HAND, HandNoise, Risk, RiskJudge

__all__ = ["HAND", "LEVELS", "Bot", "Candidate", "Decision", "GreedyBot", "HandNoise", "PlanningBot", "RandomBot",
           "Risk", "RiskJudge", "make_bot"]
