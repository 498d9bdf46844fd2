"""Each game's tactic, by game and variant (the levels above random: :mod:`sim.bots.players`)."""

from __future__ import annotations

from sim.bots.tactic import Tactic

UNTAUGHT = frozenset({("talo", "fantasy"), ("babylon", "fast"), ("babylon", "fast-expert")})
"""Variants whose players play at level 1 only (no tactic yet: the level 1 player needs none)."""


def tactic_for(game: str, variant: str) -> Tactic | None:
    """The tactic of ``game`` in ``variant`` (a registered one: :func:`sim.games.registry.variant`); None for the
    variants of :data:`UNTAUGHT`."""
    if (game, variant) in UNTAUGHT:
        return None
    if game == "talo":
        from sim.bots.talo import TaloTactic

        return TaloTactic(game, variant)
    if game == "babylon":
        from sim.bots.babylon import TacticalTactic

        return TacticalTactic(game, variant)
    from sim.bots.tohuwabohu import TohuwabohuTactic

    return TohuwabohuTactic(game, variant)


__all__ = ["UNTAUGHT", "tactic_for"]
