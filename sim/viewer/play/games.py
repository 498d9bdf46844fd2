"""Each game set up for play: a lookup in the games' registry (:mod:`sim.games.registry`), which names every
game and variant with its players, its table and its referee."""

from __future__ import annotations

from sim.games.registry import Game, new_game

__all__ = ["Game", "new_game"]
