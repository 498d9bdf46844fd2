"""Scoring of Babylon's tactical game: level majorities, leftover bridges, the tie-break."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sim.games.babylon.building import Layout
from sim.games.babylon.placement import congruent_bridges, connection_violations, noble_violations, part_violations
from sim.games.babylon.supply import BRIDGE, BabylonError, allotment, player_of
from sim.games.contract import Verdict, Violation


@dataclass(frozen=True)
class LevelResult:
    """One level's majority.

    Attributes:
        level: the number of levels beneath the nobles counted.
        counts: nobles standing on towers at this level, by colour.
        winner: the colour with the sole majority, None on a tie.
    """

    level: int
    counts: Mapping[str, int]
    winner: str | None

    @property
    def points(self) -> int:
        """What the level is worth to its winner: its height in levels."""
        return self.level if self.winner else 0

    def why_not(self, color: str) -> str:
        """Why ``color`` does not score this level."""
        best = max(self.counts.values())
        if self.winner is not None:
            return f"level {self.level}: {self.winner} has more nobles ({best} to {self.counts[color]})"
        tied = sorted(c for c, n in self.counts.items() if n == best)
        return f"level {self.level}: tie between {' and '.join(tied)} ({best} each)"


@dataclass(frozen=True)
class NobleResult:
    """How one noble fared.

    Attributes:
        id: the noble.
        level: levels beneath it (None when it does not stand on a tower).
        scores: whether its colour wins its level.
        reason: why it scores nothing (None when it scores).
    """

    id: str
    level: int | None
    scores: bool
    reason: str | None

    def to_json(self) -> dict:
        """Plain data."""
        return {"level": self.level, "scores": self.scores, "reason": self.reason}


@dataclass(frozen=True)
class TacticalPlayer:
    """One player's tactical score.

    Attributes:
        color: the player.
        levels: points per level on which the player has nobles.
        bridges_left: bridges not placed (a minus point each).
        nobles: every noble of the player.
    """

    color: str
    levels: Mapping[int, int]
    bridges_left: int
    nobles: tuple[NobleResult, ...]

    @property
    def total(self) -> int:
        """Level points minus one per leftover bridge."""
        return sum(self.levels.values()) - self.bridges_left

    @property
    def best_level(self) -> int:
        """The highest level the player scored (0 if none): the tie-break."""
        return max((lv for lv, pts in self.levels.items() if pts > 0), default=0)

    def to_json(self) -> dict:
        """Plain data: total, points per level, the bridge penalty and every noble's verdict."""
        return {"total": self.total, "levels": {str(lv): pts for lv, pts in sorted(self.levels.items())},
                "bridges_left": self.bridges_left, "bridge_penalty": -self.bridges_left,
                "highest_scoring_level": self.best_level,
                "nobles": {n.id: n.to_json() for n in self.nobles}}


@dataclass(frozen=True)
class TacticalScore:
    """The tactical game's result.

    Attributes:
        players: by colour, in seat order.
        levels: every level with nobles, lowest first.
        winners: the player with the most points, after the tie-break (empty when the
            tie-break leaves players level: see ``tied``).
        unowned_bridges: placed bridges without an ``owner`` (counted for nobody).
        violations: the rules the building breaks (it is scored as it stands, but such a
            position could not have been reached by legal turns).
        tied: the players level on points whom the tie-break cannot part (none of them
            scored a level); empty when there is a winner.
        verdict: the physics verdict the building was settled by (None: scored as given).
    """

    players: Mapping[str, TacticalPlayer]
    levels: tuple[LevelResult, ...]
    winners: tuple[str, ...]
    unowned_bridges: int
    violations: tuple[Violation, ...] = ()
    tied: tuple[str, ...] = ()
    verdict: Verdict | None = None

    def to_json(self) -> dict:
        """Plain data for ``--json``."""
        return {"mode": "tactical", "players": {c: p.to_json() for c, p in self.players.items()},
                "levels": {str(r.level): {"counts": dict(r.counts), "winner": r.winner, "points": r.points}
                           for r in self.levels},
                "winners": list(self.winners), "tied": list(self.tied), "unowned_bridges": self.unowned_bridges,
                "violations": [v.to_json() for v in self.violations]}


def level_majorities(layout: Layout, players) -> tuple[LevelResult, ...]:
    """The majority of every level, counting the nobles standing on towers across the whole scene."""
    counts: dict[int, dict[str, int]] = {}
    for nid, noble in layout.nobles.items():
        if layout.tower_of(nid) is not None and noble.color in players:
            level = counts.setdefault(noble.level, {})
            level[noble.color] = level.get(noble.color, 0) + 1
    out = []
    for lv in sorted(counts):
        c = counts[lv]
        best = max(c.values())
        leaders = [p for p, n in c.items() if n == best]
        out.append(LevelResult(lv, {p: c[p] for p in players if p in c}, leaders[0] if len(leaders) == 1 else None))
    return tuple(out)


def score_tactical(layout: Layout, players) -> TacticalScore:
    """Score a finished tactical game.

    Each level goes, for its height in points, to the player with the most
    nobles on it (counted across the whole building; sizes do not matter); a
    tie gives nobody anything. Every bridge a player has not placed costs a
    point. The most points win; a tie goes to whoever scored the highest level.
    Players level on points of whom none scored a level stay tied: the
    rulebook names no winner then (``winners`` is empty, ``tied`` names them).
    Rules the building breaks are reported beside the score
    (:func:`position_violations`).

    Args:
        layout: the final building.
        players: the colours, in seat order.

    Raises:
        BabylonError: a player placed more bridges than the game gives.
    """
    players = tuple(players)
    results = level_majorities(layout, players)
    by_level = {r.level: r for r in results}
    given = allotment("tactical", len(players)).bridges
    bridges = [player_of(p) for p in layout.scene.pieces if p.kind == BRIDGE]
    out = {}
    for color in players:
        placed = bridges.count(color)
        if placed > given:
            raise BabylonError(f"{layout.scene.source or '<scene>'}: {color} placed {placed} bridges, more than "
                               f"the {given} of a {len(players)}-player game")
        nobles = []
        for nid in sorted(i for i, n in layout.nobles.items() if n.color == color):
            noble = layout.nobles[nid]
            if layout.tower_of(nid) is None:
                nobles.append(NobleResult(nid, None, False, "does not stand upright on a tower"))
                continue
            r = by_level[noble.level]
            won = r.winner == color
            nobles.append(NobleResult(nid, noble.level, won, None if won else r.why_not(color)))
        levels = {r.level: r.points if r.winner == color else 0 for r in results if color in r.counts}
        out[color] = TacticalPlayer(color, levels, given - placed, tuple(nobles))
    top = max((p.total, p.best_level) for p in out.values())
    best = tuple(c for c, p in out.items() if (p.total, p.best_level) == top)
    winners, tied = (best, ()) if len(best) == 1 else ((), best)
    return TacticalScore(out, results, winners, bridges.count(None), tuple(position_violations(layout, players)),
                         tied)


def position_violations(layout: Layout, players) -> list[Violation]:
    """The tactical game's rules that a building breaks as it stands.

    The building is connected; every part stands correctly
    (:func:`~sim.games.babylon.placement.part_violations`), no bridge lies
    congruently over another, every noble stands upright on a tower and no
    tower holds more nobles than allowed or two of one colour.
    """
    out = connection_violations(layout) + part_violations(layout, layout.parts) + congruent_bridges(layout)
    return out + noble_violations(layout, layout.nobles, len(tuple(players)))
