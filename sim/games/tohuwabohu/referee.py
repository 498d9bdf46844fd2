"""Judge a Tohuwabohu playing area: building rules, structures, and the order cards it fulfils.

:func:`referee` is the game's side of the contract in :mod:`sim.games.contract`:
it asks the judge whether :func:`physics_scene` stands and applies the rules and
the cards to the scene; :func:`judgement` is the same without the physics, given
the verdict as data.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.errors import TowerlabError
from sim.games.contract import Judge, Verdict, Violation, ask
from sim.games.tohuwabohu.building import check_rules
from sim.games.tohuwabohu.cards import CARDS, Position
from sim.games.tohuwabohu.structure import Analysis, SupportLike, analyze
from sim.scene import Scene


class NotTohuwabohuError(TowerlabError):
    """A scene given to the Tohuwabohu rules that is not a Tohuwabohu scene."""


@dataclass(frozen=True)
class Judgement:
    """What the referee says about a playing area.

    Attributes:
        verdict: the physics verdict on the construction (None: not asked; the
            cards are then judged on the building rules alone).
        violations: every broken building rule.
        analysis: the structures, levels, pillars and figures.
        position: the legal structures, as the cards see them.
        fulfilled: ids of the order cards fulfilled (none when it does not stand).
    """

    verdict: Verdict | None
    violations: tuple[Violation, ...]
    analysis: Analysis
    position: Position
    fulfilled: tuple[str, ...]

    @property
    def stable(self) -> bool | None:
        """Whether the construction stands (None: the physics was not asked)."""
        return None if self.verdict is None else self.verdict.stable

    @property
    def legal(self) -> bool:
        """No building rule broken."""
        return not self.violations

    def to_json(self) -> dict:
        """``{stable, violations, fulfilled, structures, supply}`` as JSON data."""
        return {"stable": self.stable, "violations": [v.to_json() for v in self.violations],
                "fulfilled": list(self.fulfilled), "structures": self.analysis.to_json(),
                "supply": list(self.analysis.supply)}


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


def _require(scene: Scene) -> None:
    if scene.game != "tohuwabohu":
        where = scene.source or "<scene>"
        raise NotTohuwabohuError(f"{where}: game: expected \"tohuwabohu\", got \"{scene.game}\"")


def physics_scene(scene: Scene, graph: SupportLike | None = None) -> Scene:
    """What the physics judges: everything but the supply lying loose beside the area.

    Args:
        scene: a Tohuwabohu scene.
        graph: its support graph (computed when None).
    """
    loose = set(analyze(scene, graph).supply)
    return scene.with_pieces(p for p in scene.pieces if p.id not in loose) if loose else scene


def judgement(scene: Scene, verdict: Verdict | None = None, graph: SupportLike | None = None) -> Judgement:
    """Judge a scene given the physics verdict: structures, building rules, fulfilled cards.

    Args:
        scene: a ``tohuwabohu`` scene.
        verdict: the physics verdict on :func:`physics_scene`; None when not asked,
            and then cards are judged as if the construction stands.
        graph: its support graph (computed when None).

    Raises:
        NotTohuwabohuError: the scene is of another game.
    """
    _require(scene)
    analysis = analyze(scene, graph)
    violations = tuple(check_rules(analysis))
    position = Position(analysis, legal_structures(analysis, violations))
    stands = verdict is None or verdict.stable
    fulfilled = tuple(c.id for c in CARDS.values() if c.holds(position)) if stands else ()
    return Judgement(verdict, violations, analysis, position, fulfilled)


def referee(scene: Scene, judge: Judge | None = None, graph: SupportLike | None = None) -> Judgement:
    """Judge a playing area, asking ``judge`` whether it stands.

    Args:
        scene: a ``tohuwabohu`` scene.
        judge: the physics (e.g. :func:`sim.physics.judge.judge`); None judges the
            cards as if the construction stands.
        graph: its support graph (computed when None).

    Raises:
        NotTohuwabohuError: the scene is of another game.
    """
    _require(scene)
    if judge is None:
        return judgement(scene, None, graph)
    if graph is None:
        from sim.analysis import support_graph

        graph = support_graph(scene)
    return judgement(scene, ask(judge, physics_scene(scene, graph)), graph)
