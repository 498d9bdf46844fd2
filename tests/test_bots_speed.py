"""The computer players' shortcuts change no move: the planning player's bound on the risks it measures, Talo's
model reading again only what a block changed (tools/bench_bots.py ``--only speed`` measures what they save)."""

from __future__ import annotations

import unittest.mock

import pytest

import sim.bots.players as players
import sim.bots.talo as talo
import sim.bots.tohuwabohu as tohuwabohu
import sim.bots.tohuwabohu_plan as tohuwabohu_plan
from sim.bots.match import play_game
from sim.bots.risk import RiskJudge
from sim.games import registry


@pytest.fixture
def reference():
    """Turns the shortcuts off for the test's ``with`` block, and on again."""

    class Off:
        def __enter__(self):
            players.PlanningBot.bound, talo.SHORTCUTS, tohuwabohu_plan.SHORTCUTS = False, False, False

        def __exit__(self, *exc):
            players.PlanningBot.bound, talo.SHORTCUTS, tohuwabohu_plan.SHORTCUTS = True, True, True

    yield Off()
    players.PlanningBot.bound, talo.SHORTCUTS, tohuwabohu_plan.SHORTCUTS = True, True, True


def _played(levels, seed, actions):
    judged = []
    real = RiskJudge.risk

    def counted(self, piece, seed, samples=None):
        judged.append(piece.id)
        return real(self, piece, seed, samples)

    with unittest.mock.patch.object(RiskJudge, "risk", counted):
        played = play_game("talo", "green", levels, seed, max_actions=actions)
    return [(m.player, m.action, m.decision and m.decision["candidates"][0]["score"]) for m in played.moves], judged


def test_the_shortcuts_change_no_move_and_measure_fewer_risks(reference):
    fast, judged_fast = _played({"red": 3, "blue": 2}, 4, 16)
    with reference:
        slow, judged_slow = _played({"red": 3, "blue": 2}, 4, 16)
    assert fast == slow
    assert len(judged_fast) < len(judged_slow), (len(judged_fast), len(judged_slow))


def test_the_model_s_blocks_near_some_fields_are_the_whole_list_filtered():
    from sim.games.play.talo_moves import grid_candidates
    from sim.games.talo.layout import GridBlock

    board = talo.grid_of(registry.new_state("talo", "green", ["red", "blue"], 1)).layout.board
    occ = {v: "a" for v in GridBlock("a", 3, (2, 2), 0, "x").voxels()}
    occ.update({v: "b" for v in GridBlock("b", 2, (3, 3), 1, "z").voxels()})
    cells = {(1, 2), (3, 3), (0, 0), (4, 5)}
    for n in (1, 2, 3, 4):
        whole = [b for b in grid_candidates(board, n, occ) if set(b.footprint()) & cells]
        assert grid_candidates(board, n, occ, cells) == whole and whole


def _tohuwabohu(variant, levels, seed, actions):
    tohuwabohu_plan._REMEMBERED.clear()
    played = play_game("tohuwabohu", variant, levels, seed, max_actions=actions)
    return [(m.player, m.action, m.decision and m.decision["candidates"][0]["score"]) for m in played.moves], \
        played.outcome


@pytest.mark.parametrize("variant, levels, seed, actions", [("basic", {"red": 2, "blue": 1}, 3, 30),
                                                            ("pro", {"red": 2, "blue": 1}, 5, 24)])
def test_tohuwabohu_s_shortcuts_change_no_move(reference, variant, levels, seed, actions):
    fast = _tohuwabohu(variant, levels, seed, actions)
    with reference:
        slow = _tohuwabohu(variant, levels, seed, actions)
    assert fast == slow
    assert sum(1 for p, a, _ in fast[0] if p is not None and a["action"] == "place") >= 6


def test_the_way_back_beside_the_area_is_the_listing_s():
    """The placement that takes a piece back where the set-up laid it, worked out alone, is the listing's
    ``supply`` placement, for every piece of positions along a game (in the way of others, under them, home)."""
    from sim.bots.match import game_streams
    from sim.bots.position import Position

    played = play_game("tohuwabohu", "basic", {"red": 2, "blue": 2}, 7, max_actions=48)
    state = registry.new_state("tohuwabohu", "basic", list(played.players), game_streams(7, 2)[0])
    checked = found = 0
    for k, move in enumerate(played.moves):
        state = state.apply(move.action).state
        if k % 16 != 15 or state.is_terminal:
            continue
        pos = Position(state)
        for piece in pos.scene.ids:
            listed = [s.action() for s in state.legal_placements(piece) if s.rule == "supply"] \
                if piece in pos.pieces else []
            tohuwabohu_plan.SHORTCUTS = True
            alone = tohuwabohu._home_action(pos, piece)
            assert (listed[0] if listed else None) == alone, piece
            checked += 1
            found += alone is not None
    assert checked > 60 and found > 3, (checked, found)
