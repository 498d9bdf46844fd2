"""The legal moves a play window highlights, headless: while a piece is carried, the places where it may go are
the one game interface's own legal placements (the same referee, the same table), its ghost is judged by the
drop's own check (the rule named), and balance stays the refusal's; the answers are kept while nothing
changes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from test_play_viewer import run, session

from sim.games.registry import new_state

DATA = Path(__file__).parent / "data" / "play"
TALO_OPENING = [{"action": "start", "cell": [0, 0]}, {"action": "start", "cell": [0, 9]}, {"action": "throw"},
                {"action": "take", "blocks": [1, 3]}]  # seed 7: red throws 4 (1 + 3)
BABYLON_FOUR = json.loads((DATA / "babylon-first-turn.json").read_text())[:13]  # three bridges and a tower
PLAYERS = {"talo": ("red", "blue"), "babylon": ("red", "blue", "green"), "tohuwabohu": ("ann", "bob")}


def listed(places) -> set:
    """Placements as comparable data: rule, what they rest on, the pose to 0.1 µm."""
    return {(p.rule, tuple(p.on), tuple(np.round(p.pose, 7))) for p in places}


def the_same_game(c, game: str, variant: str, seed: int, actions: list, placed: list[str], players):
    """The one game interface's state of the game played in controller ``c``: the same set-up and seed, the same
    game actions, each piece placed where the live world holds it now."""
    state = new_state(game, variant, list(players), seed)
    for a in actions:
        step = state.apply(a)
        assert step.accepted, step.refusal
        state = step.state
    for pid in placed:
        step = state.apply({"action": "place", "piece": pid, "pose": c.world.pose(pid).tolist()})
        assert step.accepted, step.refusal
        state = step.state
    return state


def carried(c, ref):
    c.run_until_quiet()
    legal = ref.legal_now()
    assert list(legal) == ["right"]
    return legal["right"]


@pytest.mark.parametrize("game, variant, seed, actions, placed, piece", [
    ("talo", "green", 7, TALO_OPENING, [], "b3-1"),
    ("babylon", "tactical", 0, BABYLON_FOUR, ["red-bridge-1", "red-bridge-2", "red-bridge-3", "red-tower-1"],
     "red-tower-2"),
    ("tohuwabohu", "basic", 3, [{"action": "pick", "piece": "level-quad-1"}, {"action": "move-to", "at": [0, 0]},
                                {"action": "drop"}], ["level-quad-1"], "figure-red-1"),
    ("talo", "fantasy", 2, [{"action": "throw"}], [], "b3-1"),  # ann throws 3
    ("babylon", "fast", 0, [], [], "red-tower-1"),  # red's hands: its two construction areas
])
def test_the_highlighted_places_are_the_interfaces_legal_placements(game, variant, seed, actions, placed, piece):
    players = ("ann", "ben") if variant == "fantasy" else PLAYERS[game]
    c, ref = session(game, players=players, seed=seed, variant=variant)
    run(c, actions)
    run(c, [{"action": "pick", "piece": piece}])
    legal = carried(c, ref)
    assert legal.piece == piece and legal.places
    game_actions = [a for a in actions if a["action"] not in ("pick", "move-to", "drop", "rotate")]
    state = the_same_game(c, game, variant, seed, game_actions, placed, players)
    assert listed(legal.places) == listed(state.legal_placements(piece))
    rules = {p.rule for p in legal.places}
    assert rules == {"green": {"field"}, "tactical": {"tower-top", "bridge-spot", "table"},
                     "basic": {"area", "level", "figure-point"}, "fantasy": {"table"}, "fast": {"table"}}[variant]
    points = legal.points(ref.table.setup_piece(piece))
    assert len(points) == len({tuple(np.round(p, 4)) for p in points}) <= len(legal.places)
    shown = ref.probe()["legal"]["right"]
    assert shown["places"] == points.round(6).tolist() and sum(shown["rules"].values()) == len(legal.places)
    c.close()


def test_talo_the_ghost_over_a_field_the_rules_refuse_names_the_rule_and_the_drop_is_refused_by_it():
    c, ref = session("talo", seed=7)
    run(c, TALO_OPENING + [{"action": "pick", "piece": "b3-1"}, {"action": "rotate"},
                           {"action": "move-to", "at": [90, -90]}])  # fields 9 to 11 of row 0: off the grid
    legal = carried(c, ref)
    assert not legal.pending and legal.refusal.rule == "protrusion" and "beyond the grid" in legal.refusal.reason
    assert legal.judged(c.carries["right"].ghost)
    assert c.ghost_refusals() == {"b3-1": f"protrusion: {legal.refusal.reason}"}
    shown = ref.probe()["legal"]["right"]["ghost"]
    assert shown["legal"] is False and shown["rule"] == "protrusion"
    assert not any(np.allclose(p.pose, legal.ghost, atol=1e-6) for p in legal.places)
    run(c, [{"action": "drop"}])
    assert ref.refusal["rule"] == "protrusion" and "b3-1" in c.supply  # the drop's own check said the same
    c.close()


def test_talo_balance_is_the_refusals_alone_a_listed_field_whose_block_would_fall_is_refused_after_the_drop():
    c, ref = session("talo", seed=7)
    run(c, TALO_OPENING + [{"action": "pick", "piece": "b1-1"}, {"action": "move-to", "at": [-10, -10]},
                           {"action": "drop"}])  # a post on field (4, 4)
    run(c, [{"action": "pick", "piece": "b3-1"}, {"action": "rotate"}, {"action": "move-to", "at": [10, -10]}])
    legal = carried(c, ref)  # fields 4 to 6 of row 4 at level 1: only its end on the post
    assert legal.refusal is None and not c.ghost_refusals()
    assert any(np.allclose(p.pose[:3], legal.ghost[:3], atol=1e-6) and p.on == ("b1-1",) for p in legal.places)
    run(c, [{"action": "drop"}])
    assert ref.refusal["rule"] == "balance" and "b3-1" in c.supply
    c.close()


def test_babylon_the_ghost_on_a_bridge_off_its_spots_names_the_rule():
    c, ref = session("babylon", players=PLAYERS["babylon"])
    run(c, BABYLON_FOUR + [{"action": "pick", "piece": "red-tower-2"}, {"action": "move-to", "at": [-40, 60]}])
    legal = carried(c, ref)
    assert legal.refusal.rule == "bridge-spot" and "red-bridge-3" in legal.refusal.reason
    assert c.ghost_refusals() == {"red-tower-2": f"bridge-spot: {legal.refusal.reason}"}
    run(c, [{"action": "move-to", "at": [25, 50]}])  # onto the right spot of the second bridge: snapped there
    legal = carried(c, ref)
    assert c.carries["right"].snapped == "right spot of red-bridge-2" and legal.refusal is None
    assert not c.ghost_refusals()
    c.close()


def test_tohuwabohus_referee_refuses_no_place_the_ghost_is_never_red():
    c, ref = session("tohuwabohu", players=PLAYERS["tohuwabohu"], seed=3)
    run(c, [{"action": "pick", "piece": "large-green-1"}])
    for at in ([0, 0], [120, 120], [200, 0]):  # the area's middle, its corner, beside it on the table
        run(c, [{"action": "move-to", "at": at}])
        legal = carried(c, ref)
        assert legal.refusal is None and not legal.pending
    c.close()


def test_the_answers_are_kept_while_nothing_changes_and_asked_again_when_the_game_does():
    c, ref = session("talo", seed=7)
    run(c, TALO_OPENING + [{"action": "pick", "piece": "b3-1"}])
    first = carried(c, ref)
    for _ in range(30):  # frames of a carried piece standing still: nothing asked again
        c.frame()
        assert ref.legal_now()["right"].places is first.places
    assert ref.legal.computed == {"places": 1, "ghosts": 1}
    run(c, [{"action": "move-to", "at": [-30, -50]}])  # the ghost moves: judged again, the places kept
    assert carried(c, ref).places is first.places and ref.legal.computed["places"] == 1
    run(c, [{"action": "drop"}, {"action": "pick", "piece": "b1-1"}])  # the table and the game changed
    legal = carried(c, ref)
    assert legal.piece == "b1-1" and ref.legal.computed["places"] == 2
    assert listed(legal.places) != listed(first.places)
    run(c, [{"action": "cancel"}])
    assert ref.legal_now() == {} and ref.probe()["legal"] == {}
    c.close()


def _settled(c, moves, limit: float = 120.0):
    """Frames until a threaded ``moves`` has its answers for the piece carried (or ``limit`` seconds pass)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        legal = moves.now(c)["right"]
        if not legal.pending:
            return legal
        c.frame()
        time.sleep(0.01)
    raise AssertionError("the thread gave no answer")


def test_on_a_thread_the_answers_come_later_and_are_the_same(monkeypatch):
    from sim.viewer.play.legal import LegalMoves

    c, ref = session("talo", seed=7)
    run(c, TALO_OPENING + [{"action": "pick", "piece": "b3-1"}, {"action": "rotate"},
                           {"action": "move-to", "at": [90, -90]}])
    c.run_until_quiet()
    at_once = ref.legal_now()["right"]
    threaded = LegalMoves(ref)
    threaded.start()
    legal = _settled(c, threaded)
    assert listed(legal.places) == listed(at_once.places) and legal.refusal.rule == "protrusion"
    threaded.close()
    # work that fails on the thread: nothing listed, said once, the window goes on
    monkeypatch.setattr(type(ref.session), "placements", lambda self, piece, table: 1 / 0)
    failing = LegalMoves(ref)
    failing.start()
    assert _settled(c, failing).places == ()
    assert sum("legal moves could not be worked out (ZeroDivisionError" in m.text for m in c.messages) == 1
    failing.close()
    c.close()


def test_the_refusals_label_says_the_whole_reason_over_lines_of_its_width():
    from sim.viewer.window.play.draw_legal import LABEL_WIDTH, label_text

    reason = "blue-tower-1 stands on bridge red-bridge-3 neither at its centre nor on one of its two end spots"
    text = label_text("bridge-spot", reason)
    lines = text.split("\n")
    assert len(lines) == 3 and all(len(line) <= LABEL_WIDTH for line in lines)
    assert " ".join(lines) == f"not here (bridge-spot): {reason}"  # nothing cut, no name broken at a hyphen
    assert label_text("overlap", "x " * 200).endswith(" ...")  # only past three lines
