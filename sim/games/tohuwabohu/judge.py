"""Judge a Tohuwabohu playing area: building rules, structures, and the order cards it fulfils.

The physics verdict comes in as plain data (``stable``), so judging needs no
engine: the CLI asks :func:`sim.physics.check` and passes its answer on.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.errors import TowerlabError
from sim.games.tohuwabohu.building import Violation, check_rules
from sim.games.tohuwabohu.cards import CARDS, Position
from sim.games.tohuwabohu.structure import Analysis, SupportLike, analyze
from sim.scene import Scene


class NotTohuwabohuError(TowerlabError):
    """A scene given to the Tohuwabohu rules that is not a Tohuwabohu scene."""


@dataclass(frozen=True)
class Judgement:
    """What the referee says about a playing area.

    Attributes:
        stable: the physics verdict: the construction stands (None: not asked;
            the cards are then judged on the building rules alone).
        violations: every broken building rule.
        analysis: the structures, levels, pillars and figures.
        position: the legal structures, as the cards see them.
        fulfilled: ids of the order cards fulfilled (none when it does not stand).
    """

    stable: bool | None
    violations: tuple[Violation, ...]
    analysis: Analysis
    position: Position
    fulfilled: tuple[str, ...]

    def to_json(self) -> dict:
        """``{stable, violations, fulfilled, structures}`` as JSON data."""
        return {"stable": self.stable, "violations": [v.to_json() for v in self.violations],
                "fulfilled": list(self.fulfilled), "structures": self.analysis.to_json()}


def legal_structures(analysis: Analysis, violations) -> frozenset[int]:
    """Structures none of whose pieces is named by a violation.

    A violation naming no piece of any structure (an extra piece beyond the
    box, on its own) still spoils every structure: the box rule is about the
    whole playing area.
    """
    spoiled: set[int] = set()
    for v in violations:
        owners = {analysis.structure_of(pid) for pid in v.pieces}
        if v.rule == "box":
            return frozenset()
        spoiled |= {o for o in owners if o is not None}
    return frozenset(s.index for s in analysis.structures if s.index not in spoiled)


def judge(scene: Scene, stable: bool | None, graph: SupportLike | None = None) -> Judgement:
    """Judge a scene: structures, building rules, fulfilled cards.

    Args:
        scene: a ``tohuwabohu`` scene.
        stable: the physics verdict (``sim.physics.check(scene).stable``); None when
            not asked, and then cards are judged as if the construction stands.
        graph: its support graph (computed when None).

    Raises:
        NotTohuwabohuError: the scene is of another game.
    """
    if scene.game != "tohuwabohu":
        where = scene.source or "<scene>"
        raise NotTohuwabohuError(f"{where}: game: expected \"tohuwabohu\", got \"{scene.game}\"")
    analysis = analyze(scene, graph)
    violations = tuple(check_rules(analysis))
    position = Position(analysis, legal_structures(analysis, violations))
    fulfilled = tuple(c.id for c in CARDS.values() if c.holds(position)) if stable is not False else ()
    return Judgement(stable, violations, analysis, position, fulfilled)
