"""Whether one step from a tactical Babylon scene to the next is a legal turn, and if not, why."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.games.babylon.building import LEVEL, Layout
from sim.games.babylon.capacity import TURN_MAX, TURN_MIN, placeable
from sim.games.babylon.placement import (
    congruent_bridges,
    connection_violations,
    noble_violations,
    part_violations,
)
from sim.games.babylon.supply import NOBLE, BabylonError, allotment, count, placed_by, player_of, players_of
from sim.games.contract import Verdict, Violation
from sim.geometry.transforms import rotation_angle
from sim.tol import tol

FIRST_ROUND_LEVELS = 2  # the first player builds at most this high


@dataclass(frozen=True)
class TurnVerdict:
    """The judgement of one turn.

    Attributes:
        player: whose turn it was.
        placed: ids of the pieces placed, in scene order.
        swapped: the two nobles the special move swapped, if any.
        rotated: the tower the expert special move turned by 90°, if any.
        first_round: whether the first round's restrictions applied.
        game_over: why the game ends with this turn, None if it goes on.
        violations: the rules broken (empty: the turn is legal).
        verdict: the physics verdict on the building after the turn (None: not asked).
    """

    player: str
    placed: tuple[str, ...]
    swapped: tuple[str, str] | None
    rotated: str | None
    first_round: bool
    game_over: str | None
    violations: tuple[Violation, ...]
    verdict: Verdict | None = None

    @property
    def legal(self) -> bool:
        """Whether no rule is broken."""
        return not self.violations

    def to_json(self) -> dict:
        """Plain data for ``--json``."""
        return {"player": self.player, "legal": self.legal, "placed": list(self.placed),
                "swapped": None if self.swapped is None else list(self.swapped), "rotated": self.rotated,
                "first_round": self.first_round, "game_over": self.game_over,
                "violations": [v.to_json() for v in self.violations]}


def _moved(before, after) -> bool:
    far = np.linalg.norm(np.subtract(before.pos, after.pos)) > tol.babylon_moved
    return bool(far or rotation_angle(before.quat, after.quat) > tol.babylon_square)


def is_first_round(before: Layout, player: str) -> bool:
    """Whether the first round's restrictions apply to ``player``'s turn after ``before``.

    It is the first round while no noble has been placed and ``player`` has
    placed nothing yet; this needs every building part to name its ``owner``
    (when one does not, the first round is assumed to be over).
    """
    pieces = before.scene.pieces
    return (not before.nobles and all(player_of(p) is not None for p in pieces)
            and not any(player_of(p) == player for p in pieces))


def _special_move(before: Layout, after: Layout, moved: list[str], expert: bool):
    """Read the moved pieces as a special move: (swapped pair, rotated tower, violations)."""
    out: list[Violation] = []
    towers = [i for i in moved if i in after.parts and after.parts[i].is_tower]
    rotated = None
    carried: set[str] = set()
    for t in towers:
        old, new = before.parts[t], after.parts[t]
        turn = abs((new.yaw - old.yaw + 180.0) % 360.0 - 180.0)
        quarter = (np.linalg.norm(old.centre - new.centre) <= tol.babylon_cell
                   and abs(turn - 90.0) <= np.degrees(tol.babylon_square) and abs(old.bottom - new.bottom) < LEVEL / 4)
        if not (expert and quarter and rotated is None):
            why = "" if expert else " (turning a tower is the expert game's special move)"
            out.append(Violation("relocated", (t,), f"tower {t} was moved after it had been placed{why}"))
            continue
        rotated = t
        carried = {i for i in before.carries(t) if after.tower_of(i) == t}  # nobles turning with it
        if any(i in before.parts for i in before.carries(t)):
            out.append(Violation("rotated-carries", (t,), f"tower {t} was turned with building parts on it"))
    for i in moved:
        if i not in after.nobles and i not in towers:
            out.append(Violation("relocated", (i,), f"{i} was moved after it had been placed"))
    nobles = [i for i in moved if i in after.nobles and i not in carried]
    swapped = None
    if len(nobles) == 2:
        a, b = nobles
        ta, tb = before.tower_of(a), before.tower_of(b)
        if ta is None or tb is None or after.tower_of(a) != tb or after.tower_of(b) != ta:
            out.append(Violation("relocated", (a, b), f"nobles {a} and {b} were moved but did not swap places"))
        else:
            swapped = (a, b)
            if after.nobles[a].size != after.nobles[b].size:
                out.append(Violation("special-move-size", (a, b),
                                     f"the special move swapped a {after.nobles[a].size} and "
                                     f"a {after.nobles[b].size} noble; both must be of one "
                                     "size"))
            if expert and before.parts[ta].orientation != before.parts[tb].orientation:
                out.append(Violation("special-move-orientation", (a, b, ta, tb),
                                     f"the expert special move swaps only nobles on "
                                     f"towers of one orientation; {ta} and {tb} differ"))
    elif nobles:
        out.append(Violation("relocated", tuple(nobles),
                             f"noble(s) {', '.join(nobles)} moved after being placed; the special "
                             "move swaps exactly two"))
    return swapped, rotated, out


def check_turn(before: Layout, after: Layout, player: str, *, expert: bool = False,
               first_round: bool | None = None, verdict: Verdict | None = None) -> TurnVerdict:
    """Judge ``player``'s tactical turn from ``before`` to ``after``.

    Pieces keep their ids between the scenes: new ids are the pieces placed,
    missing ids were taken back, changed poses were moved. New towers and
    bridges without an ``owner`` count as ``player``'s.

    Args:
        before: the building before the turn.
        after: the building after it (knocked-down pieces put back).
        player: the colour whose turn it is.
        expert: the expert game's special move.
        first_round: force the first round's restrictions on or off (None:
            :func:`is_first_round` decides).
        verdict: the physics verdict on ``after``; the pieces it finds knocked down make
            the turn ``unstable`` (None: the building's standing is not judged).

    Raises:
        BabylonError: the scenes are not two states of one game, or ``player``
            does not play.
    """
    players = players_of(after.scene)
    if players_of(before.scene) != players:
        raise BabylonError(f"{after.scene.source or '<after>'}: players: {', '.join(players)} differ from "
                           f"the scene before ({', '.join(before.scene.players)})")
    if player not in players:
        raise BabylonError(f"player: expected one of {', '.join(players)}, got \"{player}\"")
    first = is_first_round(before, player) if first_round is None else first_round
    old = {p.id: p for p in before.scene.pieces}
    new = {p.id: p for p in after.scene.pieces}
    violations: list[Violation] = []
    for i in old:
        if i not in new:
            violations.append(Violation("taken-back", (i,), f"{i} was taken back; placed pieces stay"))
    placed = tuple(i for i in new if i not in old)
    moved = [i for i in new if i in old and _moved(old[i], new[i])]
    swapped, rotated, special = _special_move(before, after, moved, expert)
    violations += special
    for i in placed:
        owner = player_of(new[i])
        if owner is not None and owner != player:
            violations.append(Violation("not-yours", (i,), f"{i} belongs to {owner}, not {player}"))
    new_nobles = [i for i in placed if new[i].kind == NOBLE]
    hand = allotment("tactical", len(players)) - placed_by(before.scene, player)
    k = len(placed)
    game_over = None
    if k > TURN_MAX:
        violations.append(Violation("too-many", placed, f"{k} pieces placed; a turn places 4 or 5"))
    elif k < TURN_MIN:
        able = placeable(before, player, hand, len(players), first) >= TURN_MIN
        if able:
            violations.append(Violation("too-few", placed,
                                        f"{k} pieces placed; a turn places 4 or 5, and {player} can place at least 4"))
        elif k:
            violations.append(Violation("too-few", placed,
                                        f"{player} cannot place 4 pieces and so may place none "
                                        f"(the game ends), but placed {k}"))
        else:
            game_over = f"{player} cannot place 4 pieces"
            if swapped or rotated:
                violations.append(Violation("special-move-at-end", tuple(swapped or (rotated,)),
                                            "no special move in a turn that cannot place "
                                            "4 pieces"))
    if (swapped or rotated) and new_nobles:
        violations.append(Violation("special-move-after-noble", tuple(swapped or (rotated,)),
                                    "the special move is only for a turn that placed "
                                    "no noble"))
    left = hand - count(new[i] for i in placed if player_of(new[i]) in (player, None))
    for name in left.shortfalls():
        violations.append(Violation("no-supply", placed,
                                    f"{player} has no more {name} (a {len(players)}-player game "
                                    "gives each player "
                                    f"{getattr(allotment('tactical', len(players)), name)})"))
    violations += _building_rules(after, placed, swapped, len(players))
    if first and game_over is None:  # an empty turn that ends the game builds nothing to restrict
        violations += _first_round(before, after, placed, new_nobles)
    fallen = () if verdict is None else sorted(verdict.knocked_down)
    if fallen:
        violations.append(Violation("unstable", tuple(fallen),
                                    f"the building does not stand: {', '.join(fallen)} fall"))
    if game_over is None and _all_nobles_placed(after, players):
        game_over = "all nobles are placed"
    return TurnVerdict(player, placed, swapped, rotated, first, game_over, tuple(violations), verdict)


def _building_rules(after: Layout, placed, swapped, n_players: int) -> list[Violation]:
    """Connection and placement rules after the turn."""
    out = connection_violations(after)
    out += part_violations(after, placed)
    out += congruent_bridges(after, placed)
    nobles = [i for i in placed if i in after.nobles] + list(swapped or ())
    for v in noble_violations(after, nobles, n_players):
        if v not in out:
            out.append(v)
    return out


def _first_round(before: Layout, after: Layout, placed, new_nobles) -> list[Violation]:
    """The first round's restrictions: no nobles; the first player low, the others widening the base."""
    out = []
    if new_nobles:
        out.append(Violation("first-round-noble", tuple(new_nobles), "no nobles in the first round"))
    if not before.scene.pieces:
        high = [i for i, p in after.parts.items() if p.top > FIRST_ROUND_LEVELS * LEVEL + tol.babylon_cell]
        if high:
            out.append(Violation("first-round-height", tuple(high),
                                 f"the first player builds at most {FIRST_ROUND_LEVELS} "
                                 f"levels high; {', '.join(high)} reach higher"))
    elif after.base().area <= before.base().area + tol.babylon_area:
        out.append(Violation("first-round-base", tuple(placed),
                             "in the first round every turn must widen the building's base "
                             "(its outline seen from above)"))
    return out


def _all_nobles_placed(layout: Layout, players) -> bool:
    full = allotment("tactical", len(players)).nobles
    placed = [layout.nobles[i].color for i in layout.nobles]
    return all(placed.count(c) >= full for c in players)


