"""Each game's tactic, by game and variant (the levels above random: :mod:`sim.bots.players`)."""

from __future__ import annotations

from sim.bots.tactic import Tactic


def tactic_for(game: str, variant: str) -> Tactic:
    """The tactic of ``game`` in ``variant`` (a registered one: :func:`sim.games.registry.variant`)."""
    if game == "talo" and variant == "fantasy":
        from sim.bots.fantasy import FantasyTactic

        return FantasyTactic(game, variant)
    if game == "talo":
        from sim.bots.talo import TaloTactic

        return TaloTactic(game, variant)
    if game == "babylon" and variant in ("fast", "fast-expert"):
        from sim.bots.babylon_fast import FastTactic

        return FastTactic(game, variant)
    if game == "babylon":
        from sim.bots.babylon import TacticalTactic

        return TacticalTactic(game, variant)
    from sim.bots.tohuwabohu import TohuwabohuTactic

    return TohuwabohuTactic(game, variant)


__all__ = ["tactic_for"]
