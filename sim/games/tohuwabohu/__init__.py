"""Tohuwabohu: structure analysis, building rules, the 36 order cards, example constructions, game flow.

- :mod:`.structure` — structures, numbered levels, pillars and figures on the support graph;
- :mod:`.building` — the building rules, one :class:`Violation` per broken rule;
- :mod:`.cards` — the order cards as predicates; :mod:`.referee` puts rules, cards and the physics verdict together;
- :mod:`.construct` and :mod:`.examples` — a construction language and each card's example construction;
- :mod:`.game` and :mod:`.pro` — the basic game and the professional variant.
"""

from sim.games.contract import Verdict, Violation
from sim.games.tohuwabohu.building import RULES, check_rules
from sim.games.tohuwabohu.cards import CARDS, Card, Position, cards_of
from sim.games.tohuwabohu.referee import Judgement, NotTohuwabohuError, judgement, physics_scene, referee
from sim.games.tohuwabohu.structure import Analysis, Level, Pillar, PlacedFigure, Structure, analyze

__all__ = [
    "CARDS", "RULES", "Analysis", "Card", "Judgement", "Level", "NotTohuwabohuError", "Pillar", "PlacedFigure",
    "Position", "Structure", "Verdict", "Violation", "analyze", "cards_of", "check_rules", "judgement",
    "physics_scene", "referee",
]
