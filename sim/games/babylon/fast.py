"""Babylon's fast game: construction areas, what each noble scores, knocked-down pieces, rounds and the game."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from sim.games.babylon.building import LEVEL, Layout
from sim.games.babylon.placement import part_violations
from sim.games.babylon.supply import NOBLE, BabylonError, allotment, count, player_of
from sim.games.contract import Verdict, Violation
from sim.pieces.boards import ConstructionArea

ROUNDS_TO_WIN = 3


def construction_areas(scene, players) -> tuple[ConstructionArea, ...]:
    """The construction areas of the scene's table for ``players`` in seat order.

    Raises:
        BabylonError: the board has no seats (the fast game needs ``babylon-table``).
    """
    seating = scene.board_info.seating
    if seating is None:
        raise BabylonError(f"{scene.source or '<scene>'}: board: the fast game needs a table with seats "
                           f"(\"babylon-table\"), got \"{scene.board}\"")
    return seating.areas(players)


def area_of(areas: Iterable[ConstructionArea], xy) -> ConstructionArea | None:
    """The first area containing the point ``xy`` (m), or None."""
    return next((a for a in areas if a.contains(xy)), None)


def neighbour(area: ConstructionArea, player: str) -> str | None:
    """The other player of an area ``player`` builds in, None if it is not one of theirs."""
    a, b = area.players
    return b if player == a else a if player == b else None


@dataclass(frozen=True)
class Knock:
    """Pieces a player knocked down during a round.

    Attributes:
        by: the player who knocked them down.
        pieces: their ids.
    """

    by: str
    pieces: tuple[str, ...]


@dataclass(frozen=True)
class Knocks:
    """What knocking down cost each player in a round.

    Attributes:
        parts: building parts (towers, bridges) each player knocked down: a
            minus point each, and they leave the round.
        nobles_of_others: nobles of other players each player knocked down:
            that player is out of the round.
    """

    parts: Mapping[str, tuple[str, ...]]
    nobles_of_others: Mapping[str, tuple[str, ...]]

    @property
    def gone(self) -> frozenset:
        """The building parts that left the round."""
        return frozenset(i for ids in self.parts.values() for i in ids)

    def is_out(self, player: str) -> bool:
        """Whether ``player`` knocked down another player's noble."""
        return bool(self.nobles_of_others.get(player))


def tally_knocks(layout: Layout, knocks: Iterable[Knock]) -> Knocks:
    """Sort knocked-down pieces into penalties (building parts) and exclusions (others' nobles).

    A piece knocked down brings down everything standing on it: whoever knocks
    down a tower carrying another player's noble has knocked that noble down,
    and the parts above fall with it. A player's own fallen nobles cost
    nothing: they may be placed again.

    Args:
        layout: the buildings as they stood (what stands on what).
        knocks: what each player knocked down, as reported.

    Raises:
        BabylonError: a knock names a piece that is not in the scene.
    """
    scene = layout.scene
    parts: dict[str, list] = {}
    nobles: dict[str, list] = {}
    ids = set(scene.ids)
    for k in knocks:
        for pid in k.pieces:
            if pid not in ids:
                raise BabylonError(f"{scene.source or '<scene>'}: {k.by} knocked down \"{pid}\", which is not a "
                                   "piece of the scene")
        for pid in with_everything_above(layout, k.pieces):
            piece = scene.piece(pid)
            if piece.kind != NOBLE:
                parts.setdefault(k.by, []).append(pid)
            elif player_of(piece) != k.by:
                nobles.setdefault(k.by, []).append(pid)
    return Knocks(MappingProxyType({p: tuple(dict.fromkeys(v)) for p, v in parts.items()}),
                  MappingProxyType({p: tuple(dict.fromkeys(v)) for p, v in nobles.items()}))


def with_everything_above(layout: Layout, ids) -> list[str]:
    """``ids`` and every piece standing on them, directly or through others, in scene order: what falls when
    they are knocked down."""
    from sim.graphs import reached

    found = reached(ids, layout.carries)
    return [i for i in layout.scene.ids if i in found]


@dataclass(frozen=True)
class FastNoble:
    """What one noble scores in the fast game.

    Attributes:
        id: the noble.
        area: the neighbour whose shared area it stands in (None outside its player's areas).
        level: levels beneath it.
        points: what it scores (doubled in the expert game when chosen).
        doubled: whether the expert game doubled it.
        reasons: why it scores nothing (empty when it scores).
    """

    id: str
    area: str | None
    level: int
    points: int
    doubled: bool = False
    reasons: tuple[str, ...] = ()

    def to_json(self) -> dict:
        """Plain data."""
        return {"area": self.area, "level": self.level, "points": self.points, "doubled": self.doubled,
                "reason": "; ".join(self.reasons) or None}


@dataclass(frozen=True)
class FastPlayer:
    """One player's round.

    Attributes:
        color: the player.
        areas: points per construction area, keyed by the neighbour it is shared with.
        knocked_parts: building parts the player knocked down (a minus point each).
        out: the player knocked down another player's noble and does not score.
        unplaced: pieces not placed (the tie-break; set-aside large nobles count).
        nobles: every noble of the player.
    """

    color: str
    areas: Mapping[str, int]
    knocked_parts: int
    out: bool
    unplaced: int
    nobles: tuple[FastNoble, ...]

    @property
    def score(self) -> int | None:
        """The smaller area total minus the knocked-down parts; None when out of the round."""
        return None if self.out else min(self.areas.values()) - self.knocked_parts

    def to_json(self) -> dict:
        """Plain data: total, points per area, the penalty and every noble's verdict."""
        return {"total": self.score, "areas": dict(self.areas), "knocked_parts": self.knocked_parts,
                "knocked_penalty": -self.knocked_parts, "out_of_round": self.out, "unplaced": self.unplaced,
                "nobles": {n.id: n.to_json() for n in self.nobles}}


@dataclass(frozen=True)
class FastScore:
    """A fast-game round's result.

    Attributes:
        players: by colour, in seat order.
        winners: the round's winners (highest score, then fewer unplaced pieces).
        expert: whether the expert variant's doubling applied.
        violations: building parts placed against the rules (see :func:`round_violations`).
        verdict: the physics verdict the building was settled by (None: scored as given).
    """

    players: Mapping[str, FastPlayer]
    winners: tuple[str, ...]
    expert: bool = False
    violations: tuple[Violation, ...] = ()
    verdict: Verdict | None = None

    def to_json(self) -> dict:
        """Plain data for ``--json``."""
        return {"mode": "fast", "expert": self.expert, "players": {c: p.to_json() for c, p in self.players.items()},
                "winners": list(self.winners), "violations": [v.to_json() for v in self.violations]}


def round_violations(layout: Layout, players) -> list[Violation]:
    """Building parts placed against the fast game's rules.

    Every part stands correctly (upright, square, on tower tops and bridge
    spots, no arch on a piece: :func:`~sim.games.babylon.placement.part_violations`),
    and a player's parts stand in that player's two construction areas.
    """
    areas = construction_areas(layout.scene, players)
    out = part_violations(layout, layout.parts)
    for pid, part in layout.parts.items():
        if part.owner is None:
            continue
        area = area_of(areas, part.centre)
        if area is None or part.owner not in area.players:
            out.append(Violation("area", (pid,),
                                 f"{pid} of {part.owner} stands outside {part.owner}'s construction areas"))
    return out


def placement_violations(layout: Layout, piece: str, player: str, areas) -> list[Violation]:
    """The fast game's rules for one piece ``player`` sets down where it stands in ``layout``.

    A building part stands correctly (:func:`~sim.games.babylon.placement.part_violations`:
    upright, square, on a tower's top or a bridge's end or middle, no arch on a
    piece) on the table or on the buildings, never on something else (the
    rulebook forbids preliminary constructions: a part on the supply). A noble
    stands upright on a tower or a bridge; which tower, how many and which
    colours are no placement rules in the fast game, only scoring conditions
    (:func:`noble_reasons`). Either stands in one of ``player``'s two
    construction areas.

    Args:
        layout: the buildings with the piece where it stands.
        piece: its id.
        player: who sets it down.
        areas: the construction areas (:func:`construction_areas`).
    """
    out = []
    if piece in layout.nobles:
        noble = layout.nobles[piece]
        if not noble.upright:
            out.append(Violation("upright", (piece,), f"noble {piece} does not stand upright"))
        elif not layout.on_building(piece):
            out.append(Violation("noble-on-building", (piece,),
                                 f"noble {piece} stands on no tower or bridge: nobles are placed on the buildings"))
        xy = noble.xy
    else:
        part = layout.parts[piece]
        out += part_violations(layout, [piece])
        if part.upright and not layout.rests_on.get(piece) and part.bottom > LEVEL / 4:
            out.append(Violation("grounded", (piece,), f"{piece} stands neither on the table nor on a building "
                                                       "(no preliminary constructions)"))
        xy = part.centre
    area = area_of(areas, xy)
    if area is None or player not in area.players:
        out.append(Violation("area", (piece,), f"{piece} stands outside {player}'s construction areas (the "
                                               f"two shared with {' and '.join(_neighbours(areas, player))})"))
    return out


def _neighbours(areas, player: str) -> list[str]:
    return [n for n in (neighbour(a, player) for a in areas) if n is not None]


def nobles_to_place(n_players: int, set_aside: int = 0) -> int:
    """How many nobles a player places in a round: all of their colour but the large ones set aside."""
    return allotment("fast", n_players, set_aside).nobles


def nobles_placed(layout: Layout, color: str) -> tuple[str, ...]:
    """The nobles of ``color`` placed, for calling "stop": standing upright on the buildings.

    A noble may be placed on a tower or a bridge (:func:`placement_violations`); on a bridge it scores
    nothing, but it is placed all the same and may not be moved again.
    """
    return tuple(sorted(nid for nid, n in layout.nobles.items() if n.color == color and layout.on_building(nid)))


def noble_reasons(layout: Layout, noble_id: str) -> list[str]:
    """Which of the four scoring conditions a noble fails (empty: it scores).

    1. It stands on a tower. 2. It is the only one of its colour there.
    3. No other large noble stands there. 4. A noble of another colour stands
    on the same connected building: anywhere on it, on a tower or on a bridge
    (the condition asks for a noble on the building, not on a tower), as long
    as it stands upright; one lying where it fell is no placed noble.
    """
    noble = layout.nobles[noble_id]
    tower = layout.tower_of(noble_id)
    if tower is None:
        return ["does not stand upright on a tower"]
    reasons = []
    others = [n for n in layout.nobles_on(tower) if n.id != noble_id]
    if any(n.color == noble.color for n in others):
        reasons.append(f"another {noble.color} noble stands on tower {tower}")
    large = [n for n in others if n.size == "large"]
    if large:
        reasons.append(f"a large noble ({large[0].color}) stands on tower {tower}")
    building = layout.building_of(noble_id) or frozenset()
    if not any(layout.nobles[i].upright and layout.nobles[i].color != noble.color
               for i in building if i in layout.nobles):
        reasons.append("no noble of another colour stands on its building")
    return reasons


def _same_orientation(layout: Layout, building) -> bool:
    towers = [layout.parts[i] for i in building if i in layout.parts and layout.parts[i].is_tower]
    return bool(towers) and len({t.orientation for t in towers}) == 1


def score_fast(layout: Layout, players, knocks: Iterable[Knock] = (), *, expert: bool = False) -> FastScore:
    """Score one round of the fast game.

    A noble scores the levels beneath it when it meets the four conditions of
    :func:`noble_reasons` and stands in one of its player's two construction
    areas. Each player totals each area; the smaller total, less a point per
    building part the player knocked down, is the round score. A player who
    knocked down another player's noble is out and scores nothing. In the
    expert variant a building whose towers all share one orientation doubles
    one noble (the best) of each player on it.

    Args:
        layout: the buildings when the round stopped; the knocked-down
            building parts may still lie in the scene: they are set aside.
        players: the colours in seat order.
        knocks: who knocked down what during the round.
        expert: apply the expert variant.
    """
    players = tuple(players)
    scene = layout.scene
    areas = construction_areas(scene, players)
    tally = tally_knocks(layout, knocks)
    layout = layout.without(tally.gone)
    doubled = _doubled(layout, players) if expert else set()
    given = allotment("fast", len(players))
    out = {}
    for color in players:
        mine = [a for a in areas if color in a.players]
        totals = {neighbour(a, color): 0 for a in mine}
        nobles = []
        for nid in sorted(i for i, n in layout.nobles.items() if n.color == color):
            noble = layout.nobles[nid]
            area = area_of(mine, noble.xy)
            side = None if area is None else neighbour(area, color)
            reasons = noble_reasons(layout, nid)
            if side is None:
                reasons.append(f"stands outside {color}'s construction areas")
            if tally.is_out(color):
                reasons.append(f"{color} knocked down another player's noble and is out of the round")
            points = 0 if reasons else noble.level * (2 if nid in doubled else 1)
            if side is not None:
                totals[side] += points
            nobles.append(FastNoble(nid, side, noble.level, points, nid in doubled and not reasons, tuple(reasons)))
        placed = count(p for p in scene.pieces if p.kind != NOBLE and p.owner == color)
        standing = sum(1 for n in layout.nobles.values() if n.color == color and n.upright and layout.rests_on[n.id])
        unplaced = (given - placed).total - standing
        out[color] = FastPlayer(color, MappingProxyType(totals), len(tally.parts.get(color, ())),
                                tally.is_out(color), unplaced, tuple(nobles))
    return FastScore(MappingProxyType(out), round_winners(out.values()), expert,
                     tuple(round_violations(layout, players)))


def _doubled(layout: Layout, players) -> set:
    """The nobles the expert variant doubles: per building of one tower orientation, each player's best."""
    chosen = set()
    for building in layout.buildings:
        if not _same_orientation(layout, building):
            continue
        for color in players:
            scoring = [layout.nobles[i] for i in building
                       if i in layout.nobles and layout.nobles[i].color == color and not noble_reasons(layout, i)]
            if scoring:
                chosen.add(max(scoring, key=lambda n: (n.level, n.id)).id)
    return chosen


def round_winners(results: Iterable[FastPlayer]) -> tuple[str, ...]:
    """Who wins a round: the highest score, then the fewest unplaced pieces; ties win together."""
    scoring = [p for p in results if p.score is not None]
    if not scoring:
        return ()
    best = max((p.score, -p.unplaced) for p in scoring)
    return tuple(p.color for p in scoring if (p.score, -p.unplaced) == best)


def round_over(layout: Layout, players, *, set_aside: Mapping[str, int] | None = None, out=(),
               time_up: bool = False, can_build: Mapping[str, bool] | None = None) -> str | None:
    """Why a round is over, or None while it goes on.

    A round ends when a player has placed all the nobles they play with (the
    large ones set aside after round wins excepted), when the stopwatch
    variant's time is up, or when nobody can build any further (every player
    is out, or ``can_build`` says they cannot).

    Args:
        layout: the buildings now.
        players: the colours in seat order.
        set_aside: large nobles each player has set aside after round wins.
        out: players out of the round.
        time_up: the stopwatch variant's time has run out.
        can_build: whether each player can still build (default: those not out can).
    """
    set_aside = set_aside or {}
    for color in players:
        if len(nobles_placed(layout, color)) >= nobles_to_place(len(players), set_aside.get(color, 0)):
            return f"{color} has placed all nobles"
    if time_up:
        return "the time is up"
    able = [c for c in players if c not in out and (can_build is None or can_build.get(c, True))]
    if not able:
        return "nobody can build any further"
    return None


@dataclass(frozen=True)
class FastGame:
    """The fast game across rounds.

    Attributes:
        players: the colours in seat order.
        wins: round wins per player.
    """

    players: tuple[str, ...]
    wins: Mapping[str, int] = field(default_factory=dict)

    def set_aside(self, player: str) -> int:
        """Large nobles ``player`` has put aside: one per round won."""
        return self.wins.get(player, 0)

    def after_round(self, winners: Iterable[str]) -> FastGame:
        """The game after a round won by ``winners`` (each puts a large noble aside)."""
        wins = dict(self.wins)
        for w in winners:
            wins[w] = wins.get(w, 0) + 1
        return FastGame(self.players, MappingProxyType(wins))

    @property
    def winners(self) -> tuple[str, ...]:
        """The players who have won three rounds (the game is over once there is one)."""
        return tuple(p for p in self.players if self.wins.get(p, 0) >= ROUNDS_TO_WIN)
