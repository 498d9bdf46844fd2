"""The rule of four: how many pieces a tactical player can place is shown by a witness turn that really is legal."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.games.babylon import check_turn, read_layout
from sim.games.babylon.capacity import free_towers, placeable, plan_turn
from sim.games.babylon.construct import NOBLE_SPOTS, babylon_scene, bridge, noble, tower
from sim.games.babylon.examples import first_turn, second_turn, tactical_example
from sim.games.babylon.supply import allotment, placed_by
from sim.pieces import dimensions as dim

COLOURS = dim.BABYLON_NOBLE_COLORS
CELL = dim.BABYLON_TOWER["size"][0]  # mm
OFFSETS = ((0.0, 0.0), (-6.2, 0.0), (6.2, 0.0), (0.0, -6.2), (0.0, 6.2))


def random_building(rng: np.random.Generator, players, steps: int):
    """A connected building on the 25 mm lattice, grown by random legal placements (mm, whole levels)."""
    top: dict[tuple[int, int], tuple[int, str]] = {}  # column -> (level of its top, id of the piece there)
    nobles: dict[str, list] = {}  # tower id -> [(size, colour, offset)]
    pieces = {}
    owners = iter(lambda: players[int(rng.integers(len(players)))], None)

    def lay_bridge(i, j, level, along):
        cells = [(i + d, j) if along == "x" else (i, j + d) for d in (-1, 0, 1)]
        p = bridge(f"b{len(pieces)}", i * CELL, j * CELL, level, along=along, owner=next(owners))
        pieces[p.id] = p
        for c in cells:
            top[c] = (level + 1, p.id)

    lay_bridge(0, 0, 0, "x")
    for _ in range(steps):
        free = sorted(c for c, (lv, pid) in top.items() if not nobles.get(pid))
        action = rng.choice(["tower", "tower", "bridge", "noble"])
        if action == "tower" and free:
            c = free[int(rng.integers(len(free)))]
            level = top[c][0]
            p = tower(f"t{len(pieces)}", c[0] * CELL, c[1] * CELL, level, facing=90 * int(rng.integers(4)),
                      owner=next(owners))
            pieces[p.id] = p
            top[c] = (level + 1, p.id)
        elif action == "bridge" and free:
            c = free[int(rng.integers(len(free)))]
            along = "x" if rng.random() < 0.5 else "y"
            d = (2, 0) if along == "x" else (0, 2)
            other, middle = (c[0] + d[0], c[1] + d[1]), (c[0] + d[0] // 2, c[1] + d[1] // 2)
            level = top[c][0]
            if other in free and top[other][0] == level and top.get(middle, (0, ""))[0] < level:
                lay_bridge(*middle, level, along)
        elif action == "noble":
            towers = [(c, pid) for c, (lv, pid) in top.items() if pid in pieces and pieces[pid].kind == "babylon.tower"]
            if not towers:
                continue
            c, pid = towers[int(rng.integers(len(towers)))]
            here = nobles.setdefault(pid, [])
            size = "large" if rng.random() < 0.2 else "small"
            colour = COLOURS[int(rng.integers(len(players)))]
            if colour not in players or any(n[1] == colour or n[0] == "large" for n in here):
                continue
            if (size == "large" and here) or len(here) >= (3 if len(players) == 5 else 2):
                continue
            spot = OFFSETS[int(rng.integers(len(OFFSETS)))] if not here else next(
                (o for o in OFFSETS if all(np.hypot(o[0] - q[0], o[1] - q[1]) > 11.5 for *_, q in here)), None)
            if spot is None:
                continue
            n = noble(f"n{len(pieces)}", pieces[pid], size, colour, spot)
            pieces[n.id] = n
            here.append((size, colour, spot))
    return babylon_scene(list(pieces.values()), players)


def witness_verdict(scene, player, first_round):
    layout = read_layout(scene)
    hand = allotment("tactical", len(scene.players)) - placed_by(scene, player)
    plan = plan_turn(layout, player, hand, len(scene.players), first_round)
    after = scene.with_pieces(scene.pieces + tuple(plan))
    verdict = check_turn(layout, read_layout(after), player, first_round=first_round)
    return plan, verdict


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 32 - 1), steps=st.integers(0, 20), n_players=st.integers(3, 5),
       who=st.integers(0, 4), first_round=st.booleans())
def test_whatever_the_estimate_claims_is_placeable_really_is(seed, steps, n_players, who, first_round):
    rng = np.random.default_rng(seed)
    players = tuple(COLOURS[:n_players])
    scene = random_building(rng, players, steps)
    player = players[who % n_players]
    plan, verdict = witness_verdict(scene, player, first_round=first_round)
    assert len(plan) <= 5
    assert len(set(p.id for p in plan)) == len(plan) and not set(p.id for p in plan) & set(scene.ids)
    assert {v.rule for v in verdict.violations} <= {"too-few"}, [v.to_json() for v in verdict.violations]
    if len(plan) >= 4:
        assert verdict.legal


@pytest.mark.parametrize("scene, player, first_round", [
    (babylon_scene([], ("red", "blue", "green")), "red", True),
    (first_turn(), "blue", True),
    (second_turn(), "green", True),
    (second_turn(), "green", False),
    (tactical_example(), "yellow", False),
], ids=["empty table", "after the first turn", "after the second turn", "second turn, later round", "tactical"])
def test_the_witness_of_a_known_building_is_a_legal_turn(scene, player, first_round):
    plan, verdict = witness_verdict(scene, player, first_round)
    assert len(plan) >= 4 and verdict.legal, [v.to_json() for v in verdict.violations]


def test_the_empty_table_with_one_bridge_takes_four_pieces_not_five():
    from sim.games.babylon.supply import Pieces

    empty = read_layout(babylon_scene([], ("red", "blue", "green")))
    assert placeable(empty, "red", Pieces(27, 1, 6, 2), 3, True) == 4  # a bridge and three towers on it
    assert placeable(empty, "red", Pieces(27, 2, 6, 2), 3, True) == 5
    assert placeable(empty, "red", Pieces(0, 0, 6, 2), 3, True) == 0  # nobles wait for the second round


def test_a_tower_carrying_a_noble_is_not_free():
    t1, t2 = tower("t1", 0, 0, owner="red"), tower("t2", 100, 0, owner="red")
    layout = read_layout(babylon_scene([t1, t2, noble("n", t1, "small", "blue")], ("red", "blue", "green")))
    assert free_towers(layout) == ["t2"]


def test_a_noble_needs_room_beside_the_ones_on_a_tower():
    players = ("red", "blue", "green")
    t = tower("t", 0, 0, owner="red")
    centred = read_layout(babylon_scene([t, noble("n", t, "small", "blue")], players))
    aside = read_layout(babylon_scene([t, noble("n", t, "small", "blue", NOBLE_SPOTS[2][0])], players))
    from sim.games.babylon.supply import Pieces

    assert placeable(centred, "red", Pieces(small=1), 3, False) == 0  # a centred noble leaves no room
    assert placeable(aside, "red", Pieces(small=1), 3, False) == 1


def test_an_empty_turn_that_ends_the_game_in_the_first_round_breaks_no_first_round_rule():
    players = ("red", "blue", "green")
    t = tower("t", 0, 0, owner="red")
    layout = read_layout(babylon_scene([t, noble("n", t, "small", "green")], players))  # no free spot to widen from
    verdict = check_turn(layout, layout, "blue", first_round=True)
    assert verdict.legal and verdict.game_over == "blue cannot place 4 pieces"
