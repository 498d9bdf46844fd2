"""The computer players' shortcuts change no move: the planning player's bound on the risks it measures, Talo's
model reading again only what a block changed (tools/bench_bots.py ``--only speed`` measures what they save)."""

from __future__ import annotations

import unittest.mock

import pytest

import sim.bots.players as players
import sim.bots.talo as talo
from sim.bots.match import play_game
from sim.bots.risk import RiskJudge
from sim.games import registry


@pytest.fixture
def reference():
    """Turns the shortcuts off for the test's ``with`` block, and on again."""

    class Off:
        def __enter__(self):
            players.PlanningBot.bound, talo.SHORTCUTS = False, False

        def __exit__(self, *exc):
            players.PlanningBot.bound, talo.SHORTCUTS = True, True

    yield Off()
    players.PlanningBot.bound, talo.SHORTCUTS = True, True


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
