"""Talo pawn movement: surfaces and headroom, one level per step, crossbeams, other pawns, routes, blockades."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.games.talo import GridBlock, GridPawn, Layout, TaloError, Terrain, is_blocked, reachable, steps, talo_board
from sim.games.talo.auto import candidate_puts
from sim.games.talo.movement import free_starts

GREEN = talo_board("talo-green")
ISLAND = talo_board("talo-island")


def B(bid, n, cell, layer, axis):
    return GridBlock(bid, n, cell, layer, axis)


def P(color, cell, level):
    return GridPawn(f"pawn-{color}", color, cell, level)


def terrain(blocks, pawns=(), board=GREEN):
    return Terrain(Layout(board, tuple(blocks), tuple(pawns)))


# a staircase along x from field (2, 4): steps of one level, each step a standing block
STAIRS = [B(f"s{k}", k, (2 + k, 4), 0, "z") for k in range(1, 5)]


def test_surfaces_and_headroom_of_a_bridge():
    # two pillars of 3 and a 5 lying across them at level 3: a bridge with 3 levels of room beneath
    t = terrain([B("l", 3, (2, 2), 0, "z"), B("r", 3, (6, 2), 0, "z"), B("top", 5, (2, 2), 3, "x")])
    under = t.stand((4, 2), 0)
    assert under.headroom == 3 and under.usable
    assert t.stand((4, 2), 4).headroom is None
    assert [s.level for s in t.stands[(2, 2)]] == [4]  # the pillar's field: only the top
    assert t.heights[4, 2] == 4 and t.heights[2, 2] == 4 and t.heights[0, 0] == 0


def test_staircase_is_climbed_one_level_per_step():
    t = terrain(STAIRS, [P("red", (2, 4), 0)])
    reach = reachable(t, "red")
    assert reach.max_level == 4
    assert reach.route((6, 4), 4) == ((2, 4, 0), (3, 4, 1), (4, 4, 2), (5, 4, 3), (6, 4, 4))


def test_a_step_of_two_is_refused():
    # 1 then 3: from level 1 the next top is two levels higher
    t = terrain([B("a", 1, (3, 4), 0, "z"), B("b", 3, (4, 4), 0, "z")], [P("red", (2, 4), 0)])
    reach = reachable(t, "red")
    assert reach.route((3, 4), 1) is not None
    assert reach.route((4, 4), 3) is None
    assert reach.max_level == 1


def test_stepping_down_one_level_is_allowed_two_is_not():
    t = terrain([B("hi", 3, (4, 4), 0, "z"), B("mid", 2, (5, 4), 0, "z"), B("lo", 1, (3, 4), 0, "z")],
                [P("red", (4, 4), 3)])
    reach = reachable(t, "red")
    assert reach.route((5, 4), 2) is not None
    assert reach.route((3, 4), 1) is None


def test_from_level_0_only_onto_a_block_right_next_to_it():
    far = terrain([B("a", 1, (5, 5), 0, "z")], [P("red", (2, 2), 0)])
    assert reachable(far, "red").destinations() == []  # it never walks on the board
    near = terrain([B("a", 1, (3, 2), 0, "z")], [P("red", (2, 2), 0)])
    assert reachable(near, "red").destinations() == [(3, 2, 1)]
    diagonal = terrain([B("a", 1, (3, 3), 0, "z")], [P("red", (2, 2), 0)])
    assert reachable(diagonal, "red").destinations() == []


def test_never_back_down_onto_the_board():
    t = terrain([B("a", 3, (3, 2), 0, "x")], [P("red", (3, 2), 1)])
    assert all(level == 1 for _, _, level in reachable(t, "red").routes)


def test_any_distance_on_the_flat():
    t = terrain([B("long", 10, (0, 7), 0, "x")], [P("red", (0, 7), 1)])
    reach = reachable(t, "red")
    assert len(reach.route((9, 7), 1)) == 10  # nine single steps


def test_under_a_crossbeam_with_two_levels_of_room():
    # a 5 on the board to walk on (surface 1); a 3 across it at level 3, on two standing 2s: room 2
    beam = [B("pa", 2, (4, 3), 1, "z"), B("pb", 2, (4, 5), 1, "z"), B("over", 3, (4, 3), 3, "y")]
    t = terrain([B("f", 5, (2, 4), 0, "x"), B("fa", 1, (4, 3), 0, "z"), B("fb", 1, (4, 5), 0, "z"), *beam],
                [P("red", (2, 4), 1)])
    assert t.stand((4, 4), 1).headroom == 2
    assert reachable(t, "red").route((6, 4), 1) == ((2, 4, 1), (3, 4, 1), (4, 4, 1), (5, 4, 1), (6, 4, 1))


def test_under_a_crossbeam_with_one_level_of_room_is_refused():
    beam = [B("pa", 1, (4, 3), 1, "z"), B("pb", 1, (4, 5), 1, "z"), B("over", 3, (4, 3), 2, "y")]
    t = terrain([B("f", 5, (2, 4), 0, "x"), B("fa", 1, (4, 3), 0, "z"), B("fb", 1, (4, 5), 0, "z"), *beam],
                [P("red", (2, 4), 1)])
    assert t.stand((4, 4), 1).headroom == 1 and not t.stand((4, 4), 1).usable
    reach = reachable(t, "red")
    assert reach.route((5, 4), 1) is None and reach.route((3, 4), 1) is not None


def test_bridge_between_two_towers():
    # towers of 4 at (1, 1) and (7, 1) with a 7 across them at level 4; stairs 1..4 lead up to (1, 1)
    blocks = [B("t1", 4, (1, 1), 0, "z"), B("t2", 4, (7, 1), 0, "z"), B("span", 7, (1, 1), 4, "x"),
              B("s1", 1, (1, 5), 0, "z"), B("s2", 2, (1, 4), 0, "z"), B("s3", 3, (1, 3), 0, "z"),
              B("s4", 4, (1, 2), 0, "z")]
    t = terrain(blocks, [P("blue", (0, 5), 0)])
    assert t.stand((4, 1), 0).headroom == 4  # room under the span
    reach = reachable(t, "blue")
    assert reach.max_level == 5
    route = reach.route((7, 1), 5)
    assert [s[2] for s in route] == [0, 1, 2, 3, 4, 5, 5, 5, 5, 5, 5, 5]
    assert route[5:] == tuple((i, 1, 5) for i in range(1, 8))


def test_never_onto_or_over_another_pawn():
    t = terrain([B("walk", 5, (2, 4), 0, "x")], [P("red", (2, 4), 1), P("blue", (4, 4), 1)])
    reach = reachable(t, "red")
    assert reach.route((4, 4), 1) is None  # onto
    assert reach.route((5, 4), 1) is None  # over (the only way is through it)
    assert reach.route((3, 4), 1) is not None


def test_shortest_route_goes_round_a_pawn_when_it_can():
    t = terrain([B("r0", 3, (2, 3), 0, "x"), B("r1", 3, (2, 4), 0, "x")],
                [P("red", (2, 4), 1), P("blue", (3, 4), 1)])
    route = reachable(t, "red").route((4, 4), 1)
    assert route == ((2, 4, 1), (2, 3, 1), (3, 3, 1), (4, 3, 1), (4, 4, 1))


def test_a_pawn_standing_wrongly_goes_nowhere():
    stairs = [B("a", 1, (3, 4), 0, "z"), B("b", 2, (4, 4), 0, "z")]
    assert reachable(terrain(stairs, [P("red", (3, 4), 0)]), "red").destinations() == []  # inside the 1
    assert reachable(terrain(stairs, [P("red", (5, 4), 3)]), "red").destinations() == []  # in the air


def test_unknown_pawn_is_a_typed_error():
    with pytest.raises(TaloError, match="no green pawn"):
        reachable(terrain([], [P("red", (0, 0), 0)]), "green")


def test_a_pawn_walled_in_by_tall_blocks_is_blocked():
    walls = [B("e", 3, (1, 0), 0, "z"), B("n", 3, (0, 1), 0, "z")]
    assert is_blocked(terrain(walls, [P("red", (0, 0), 0)]), "red")
    assert not is_blocked(terrain(walls[:1], [P("red", (0, 0), 0)]), "red")


def test_a_pawn_hemmed_in_by_pawns_that_can_move_away_is_not_blocked_for_good():
    # red on a 2-tower; two neighbours are 4 tall, the other two are 1s with pawns on them
    blocks = [B("me", 2, (5, 5), 0, "z"), B("a", 4, (6, 5), 0, "z"), B("b", 4, (4, 5), 0, "z"),
              B("c", 1, (5, 6), 0, "z"), B("d", 1, (5, 4), 0, "z")]
    pawns = [P("red", (5, 5), 2), P("blue", (5, 6), 1), P("green", (5, 4), 1)]
    t = terrain(blocks, pawns)
    assert reachable(t, "red").destinations() == []
    # blue and green cannot move now, but a block beside either lets it step away and red down
    assert not is_blocked(t, "red") and not is_blocked(t, "blue")
    # without the green pawn, red can step down onto the 1 at once
    t2 = terrain(blocks, pawns[:2])
    assert not is_blocked(t2, "red") and reachable(t2, "red").destinations() == [(5, 4, 1)]


def test_a_pawn_hemmed_in_by_pawns_blockaded_themselves_is_blocked():
    # as above, but blue and green stand on 1s walled in by 4s: they can never move, so neither can red
    blocks = [B("me", 2, (5, 5), 0, "z"), B("a", 4, (6, 5), 0, "z"), B("b", 4, (4, 5), 0, "z"),
              B("c", 1, (5, 6), 0, "z"), B("d", 1, (5, 4), 0, "z"),
              *(B(f"w{k}", 4, cell, 0, "z") for k, cell in enumerate([(4, 6), (6, 6), (5, 7), (4, 4), (6, 4),
                                                                      (5, 3)]))]
    pawns = [P("red", (5, 5), 2), P("blue", (5, 6), 1), P("green", (5, 4), 1)]
    t = terrain(blocks, pawns)
    assert is_blocked(t, "blue") and is_blocked(t, "green") and is_blocked(t, "red")


def test_a_pawn_sealed_in_a_closed_tunnel_is_blocked_though_it_can_walk_in_it():
    # a tunnel of two fields, (4, 4) and (5, 4): a floor at level 1, walls of standing 3s, a 4 as the ceiling
    walls = [B(f"w{k}", 3, cell, 0, "z") for k, cell in enumerate([(3, 4), (6, 4), (4, 3), (5, 3), (4, 5), (5, 5)])]
    floor, ceiling = B("floor", 2, (4, 4), 0, "x"), B("ceiling", 4, (3, 4), 3, "x")
    t = terrain([*walls, floor, ceiling], [P("red", (4, 4), 1)])
    assert reachable(t, "red").destinations() == [(5, 4, 1)]  # it may walk the tunnel
    assert is_blocked(t, "red")  # but it can never get out
    opened = terrain([*walls[:-1], floor, ceiling], [P("red", (4, 4), 1)])  # one wall missing
    assert not is_blocked(opened, "red")


def test_a_pawn_that_cannot_move_now_but_could_later_is_not_blocked():
    assert not is_blocked(terrain([], [P("red", (0, 0), 0)]), "red")


def test_free_starts_on_the_island_board_are_the_corner_islands_minus_held_or_built():
    t = terrain([B("a", 1, (0, 0), 0, "z")], [P("red", (9, 9), 0)], board=ISLAND)
    starts = free_starts(t)
    assert len(starts) == 36 - 2
    assert (0, 0) not in starts and (9, 9) not in starts and (4, 4) not in starts


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 25))
def test_routes_are_made_of_legal_steps_and_walking_back_is_possible(seed, n_blocks):
    """On random legal buildings: each route's steps are legal, and any spot reached above the board can walk back."""
    rng = np.random.default_rng(seed)
    lay = Layout(GREEN, (), (P("red", (0, 0), 0),))
    for k in range(n_blocks):
        length = int(rng.integers(1, 6))
        puts = candidate_puts(lay, length)
        p = puts[int(rng.integers(len(puts)))]
        lay = Layout(GREEN, lay.blocks + (B(f"b{k}", length, p.cell, p.layer, p.axis),), lay.pawns)
    t = Terrain(lay)
    top = max((s for ss in t.stands.values() for s in ss if s.level >= 1 and s.usable), key=lambda s: s.level,
              default=None)
    if top is None:
        return
    t = Terrain(Layout(GREEN, lay.blocks, (P("red", top.cell, top.level),)))
    reach = reachable(t, "red")
    for spot, route in reach.routes.items():
        assert route[0] == top.spot and route[-1] == spot
        for a, b in zip(route, route[1:]):
            assert b in steps(t, a)
            assert abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 and abs(a[2] - b[2]) <= 1
        back = reachable(Terrain(Layout(GREEN, lay.blocks, (P("red", spot[:2], spot[2]),))), "red")
        assert back.route(top.cell, top.level) is not None
