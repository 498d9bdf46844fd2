"""A Talo scene judged as a whole: broken rules, the height of every field, where each pawn can get.

:func:`referee` is the game's side of the contract in :mod:`sim.games.contract`:
it reads the scene off the grid, asks the judge about :func:`physics_scene`
(the building without its pawns) and applies the rules to both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.games.contract import Judge, Verdict, Violation, ask
from sim.games.talo.layout import Layout, layout_of
from sim.games.talo.movement import Reach, reachable
from sim.games.talo.placement import check_layout
from sim.games.talo.surfaces import Terrain
from sim.pieces.talo import PAWN
from sim.scene import Scene


@dataclass(frozen=True)
class TaloReport:
    """What ``towerlab talo check`` reports.

    Attributes:
        layout: the scene on the grid.
        violations: every broken rule.
        heights: (n, n) int, top of each field in levels; [i, j] is field (i, j).
        reaches: pawn colour -> where it can go.
        verdict: the balance verdict it was judged with, None if balance was not judged.
    """

    layout: Layout
    violations: tuple[Violation, ...]
    heights: np.ndarray
    reaches: dict[str, Reach]
    verdict: Verdict | None

    @property
    def legal(self) -> bool:
        """No rule broken."""
        return not self.violations

    def to_json(self) -> dict:
        """``{legal, violations, heights, pawns, balance}``; ``heights[i][j]`` is field (i, j)."""
        pawns = {c: {"cell": list(r.pawn.cell), "level": r.pawn.level, "max_reachable_level": r.max_level}
                 for c, r in self.reaches.items()}
        balance = None if self.verdict is None else self.verdict.to_json()
        return {"board": self.layout.board.name, "legal": self.legal,
                "violations": [v.to_json() for v in self.violations],
                "heights": self.heights.tolist(), "pawns": pawns, "balance": balance}


def talo_report(scene: Scene, verdict: Verdict | None = None) -> TaloReport:
    """Judge a Talo scene.

    Args:
        scene: pieces on a Talo board (settled, or given on the grid).
        verdict: the physics verdict on the building without pawns; None leaves balance unjudged.

    Raises:
        TaloError: the board has no grid.
    """
    layout = layout_of(scene)
    terrain = Terrain(layout)
    reaches = {p.color: reachable(terrain, p.color) for p in layout.pawns}
    return TaloReport(layout, tuple(check_layout(layout, verdict)), terrain.heights, reaches, verdict)


def physics_scene(scene: Scene) -> Scene:
    """What the physics judges: the building alone, since a pawn's weight may not hold anything up."""
    return scene.with_pieces(p for p in scene.pieces if p.kind != PAWN)


def referee(scene: Scene, judge: Judge | None = None) -> TaloReport:
    """Judge a Talo scene, asking ``judge`` whether its building stands.

    Blocks that fill the same fields are reported and their balance is not
    judged (the physics cannot load pieces inside one another); an empty
    building stands without asking.

    Args:
        scene: pieces on a Talo board.
        judge: the physics (e.g. :func:`sim.physics.judge.judge`); None leaves balance unjudged.

    Raises:
        TaloError: the board has no grid.
    """
    report = talo_report(scene)
    if judge is None or any(v.rule == "overlap" for v in report.violations):
        return report
    return talo_report(scene, ask(judge, physics_scene(scene)))
