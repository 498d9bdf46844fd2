"""The automatic Talo player: its candidate placements keep the rules, its games stay legal and replay."""

import numpy as np

from sim.games.talo import GridBlock, GridPawn, Layout, Verdict, check_layout, talo_board
from sim.games.talo import game as g
from sim.games.talo.auto import auto_game, auto_turn, candidate_puts
from sim.games.talo.placement import placement_violations
from sim.games.talo.script import play_script, script_of
from sim.games.talo.stock import Stock

GREEN = talo_board("talo-green")
ISLAND = talo_board("talo-island")


def test_candidates_on_an_empty_board():
    empty = Layout(GREEN)
    assert len(candidate_puts(empty, 1)) == 100
    assert len(candidate_puts(empty, 2)) == 90 + 90 + 100  # lying along x, along y, standing
    assert len(candidate_puts(Layout(ISLAND), 1)) == 40
    assert len(candidate_puts(Layout(ISLAND), 3)) == 4 * (3 + 3) + 40  # lying only within a corner island


def test_every_candidate_keeps_the_building_rules():
    blocks = (GridBlock("a", 3, (4, 4), 0, "z"), GridBlock("b", 5, (2, 4), 3, "x"), GridBlock("c", 2, (9, 9), 0, "z"))
    lay = Layout(GREEN, blocks, (GridPawn("pawn-red", "red", (3, 3), 0),))
    for n in (1, 4, 10):
        puts = candidate_puts(lay, n)
        assert puts
        for p in puts:
            new = GridBlock("new", n, p.cell, p.layer, p.axis)
            assert placement_violations(lay, [new], None) == [], p
    tops = {p.layer for p in candidate_puts(lay, 3)}
    assert tops == {0, 2, 4}  # on the board, on the 2 and on the bridge (which covers the tower)


def test_auto_games_are_seeded_legal_and_use_the_stock_honestly():
    starts = {"red": (2, 2), "blue": (7, 7)}
    a = auto_game(starts, np.random.default_rng(3))
    b = auto_game(starts, np.random.default_rng(3))
    assert [e.to_json() for e in a.log] == [e.to_json() for e in b.log]
    assert a.phase == "over" and a.outcome.reason == "level 10" and max(a.levels().values()) == 10
    assert check_layout(a.layout) == []
    assert a.stock.total + len(a.layout.blocks) + len(a.hand) == 55


def test_a_game_replays_from_its_script():
    played = auto_game({"red": (0, 0), "blue": (9, 0), "green": (0, 9)}, np.random.default_rng(8),
                       board="talo-island")
    script = script_of(played)
    again = play_script(script)
    assert again.scene == played.scene and again.outcome == played.outcome and again.stock == played.stock


def test_refused_placements_are_tried_elsewhere_and_blocks_go_back():
    s = g.new_game({"red": (2, 2)})
    refuse = lambda building: Verdict.falling()  # nothing ever stands
    t = auto_turn(s, np.random.default_rng(0), refuse)
    assert len(t.layout.blocks) == 0 and t.stock == Stock.full()
    calls = []

    def second_try(building):
        calls.append(len(building.pieces))
        return Verdict(len(calls) % 2 == 0)

    t = auto_turn(s, np.random.default_rng(0), second_try)
    assert len(t.layout.blocks) >= 1 and all(n >= 1 for n in calls)


def test_the_player_first_tries_blocks_whose_middle_rests_between_their_supports():
    from sim.games.talo.auto import looks_balanced

    occ = Layout(GREEN, (GridBlock("post", 1, (4, 4), 0, "z"), GridBlock("far", 1, (7, 4), 0, "z"))).occupancy
    assert looks_balanced(g.Put(3, (3, 4), 1, "x"), occ)  # an odd block centred on the post
    assert not looks_balanced(g.Put(4, (2, 4), 1, "x"), occ)  # an even one: its middle on the post's edge
    assert not looks_balanced(g.Put(4, (3, 4), 1, "x"), occ)
    assert looks_balanced(g.Put(4, (4, 4), 1, "x"), occ)  # a bridge from the post to the far 1
    assert looks_balanced(g.Put(2, (4, 4), 1, "z"), occ) and not looks_balanced(g.Put(2, (5, 4), 1, "z"), occ)
