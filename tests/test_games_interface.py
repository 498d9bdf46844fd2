"""One game interface, one test over every registered game and variant (PettingZoo's ``api_test`` is the model).

Every variant is played by a random legal player from a seed: every action it
lists is accepted, every placement it lists is accepted unless the statics
find the building does not stand (balance, which no list can know before the
piece is down), every action it does not list is refused with the rule named
(or is malformed), a state survives its JSON form mid-game and plays on the
same, a state never changes, and the same seed plays the same game.

``make test`` plays ten moves of one seed per variant; ``TOWERLAB_FUZZ=N``
plays N seeds of each to the end (or 400 moves).
"""

from __future__ import annotations

import json
import os
from functools import cache

import numpy as np
import pytest

from sim.games import registry
from sim.games.play.session import PlayError
from sim.games.play.spots import table_refusal
from sim.games.play.state import PlayState
from sim.scene.overlap import Obstacles

FUZZ = int(os.environ.get("TOWERLAB_FUZZ", "0"))
SEEDS = tuple(range(FUZZ)) if FUZZ else (1,)
MOVES = 400 if FUZZ else 10
BALANCE = {"balance", "unstable"}
"""The rules only the statics decide, once the piece is down: a listed placement (or a turn's end) may meet them."""

VARIANTS = [f"{v.game}:{v.name}" for v in registry.variants()]


def variant_of(name: str):
    game, variant = name.split(":")
    return registry.variant(game, variant)


def choose(state: PlayState, rng: np.random.Generator):
    """A random legal move: a placement of a random piece that may be taken (more often), else a listed action."""
    pieces = state.placeable()
    actions = state.legal_actions()
    if pieces and (rng.random() < 0.6 or not actions):
        piece = pieces[int(rng.integers(len(pieces)))]
        found = state.legal_placements(piece)
        if found:
            return found[int(rng.integers(len(found)))].action()
    return actions[int(rng.integers(len(actions)))] if actions else None


@cache
def walk(name: str, seed: int, moves: int = MOVES) -> tuple:
    """((state before, action, step) ...) of a random legal game of ``name`` from ``seed``."""
    state = PlayState.new(variant_of(name), None, seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(moves):
        if state.is_terminal:
            break
        action = choose(state, rng)
        assert action is not None, f"{name}: nothing is legal, yet the game is not over"
        step = state.apply(action)
        out.append((state, action, step))
        state = step.state
    return tuple(out)


def accepted_or_balance(step, action):
    refusal = step.refusal
    assert refusal is None or refusal.data["rule"] in BALANCE, (action, refusal.data if refusal else None)


def same_state(a: PlayState, b: PlayState) -> bool:
    return a == b and a.to_json() == b.to_json()


# --- the registry ---------------------------------------------------------------------------------


def test_every_game_of_the_scene_format_is_registered_with_its_rules():
    from sim.games import suite

    assert set(registry.games()) == set(suite.GAMES)
    for v in registry.variants():
        assert v.rules is suite.rules(v.game)
        lo, hi = v.players
        assert lo <= len(v.default_players) <= hi


@pytest.mark.parametrize("name", VARIANTS)
def test_a_variant_takes_its_player_counts_and_no_others(name):
    v = variant_of(name)
    pool = v.names() if v.names else tuple(f"p{k}" for k in range(8))
    lo, hi = v.players
    for n in (lo, hi):
        game = v.start(pool[:n], seed=2)
        assert game.session.players == pool[:n] and game.variant is v
    for n in (lo - 1, hi + 1):
        if 0 < n <= len(pool):
            with pytest.raises(PlayError):
                v.start(pool[:n], seed=2)


@pytest.mark.parametrize("board", ["green", "island"])
def test_talos_table_has_the_pawns_of_its_players_only(board):
    """A colour nobody plays stays in the box (its pawn stood beside the board, in the way of nothing but the
    eye, and a piece the window let a player pick)."""
    game = registry.variant("talo", board).start(("blue", "pink"), seed=0)
    pawns = sorted(p.id for p in game.scene.pieces if p.kind == "talo.pawn")
    assert pawns == ["pawn-blue", "pawn-pink"]
    assert sum(p.kind == "talo.block" for p in game.scene.pieces) == 55


def test_a_lookup_names_what_exists():
    with pytest.raises(PlayError, match="game: expected one of tohuwabohu, talo, babylon, got 'chess'"):
        registry.variant("chess")
    with pytest.raises(PlayError, match="--variant: talo plays green, island, fantasy, got 'moon'"):
        registry.new_game("talo", variant="moon")
    with pytest.raises(ValueError, match="variant 'pro' already"):
        registry.register(registry.variant("tohuwabohu", "pro"))
    assert registry.variant("babylon").name == "tactical"


def test_the_viewer_the_cli_and_the_penalties_read_the_registry():
    from sim.cli.play import VARIANTS_HELP
    from sim.cli.replay import PENALTY_VARIANT_HELP
    from sim.replay.penalty import rules_of
    from sim.viewer.play import games

    assert games.new_game is registry.new_game
    for v in registry.variants():
        assert v.name in VARIANTS_HELP and v.penalty in PENALTY_VARIANT_HELP
        assert v.penalty in rules_of(v.game)


# --- the contract, over every variant ---------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", VARIANTS)
def test_random_legal_play_is_never_refused_but_for_balance(name, seed):
    steps = walk(name, seed)
    assert steps
    for before, action, step in steps:
        accepted_or_balance(step, action)
        assert step.state.history == (*before.history, step.state.history[-1])
        json.dumps([e.to_json() for e in step.events], allow_nan=False)
    last = steps[-1][2].state
    if last.is_terminal:
        assert last.legal_actions() == [] and last.placeable() == []
        assert set(last.returns()) == set(last.players)


def _probes(state: PlayState) -> list[dict]:
    """Every game action of the variant in a plausible form: the listed ones and one more of each name."""
    scene = state.scene()
    nobles = [p.id for p in scene.pieces if p.kind == "babylon.noble"][:2]
    tower = next((p.id for p in scene.pieces if p.kind == "babylon.tower"), "none")
    blind = {"cell": [0, 0], "level": 1, "blocks": [1], "nobles": nobles, "piece": tower,
             "player": state.current_player or state.players[0]}
    fields = {"start": ("cell",), "move-pawn": ("cell", "level"), "restart": ("cell",), "take": ("blocks",),
              "swap-nobles": ("nobles",), "turn-tower": ("piece",), "seat": ("player",)}
    return [{"action": name, **{f: blind[f] for f in fields.get(name, ())}} for name in state.action_names]


@pytest.mark.parametrize("name", VARIANTS)
def test_every_listed_action_is_accepted_and_every_other_is_refused_by_its_rule(name):
    steps = walk(name, SEEDS[0])
    for before, _, _ in steps[:: max(1, len(steps) // 4)]:
        listed = before.legal_actions()
        for action in listed[:8] + listed[8::max(1, len(listed) // 4)][:4]:
            accepted_or_balance(before.apply(action), action)
        for probe in _probes(before):
            if probe in listed:
                continue
            try:
                step = before.apply(probe)
            except PlayError:
                continue  # malformed for this state (a noble pair of no nobles ...): an error, not a move
            assert step.refusal is not None, f"{probe} was accepted but not listed"
            assert step.refusal.data["rule"] and step.refusal.data["reason"]
            assert step.state.session_json() == before.session_json() and step.state.table_json() == \
                before.table_json()


@pytest.mark.parametrize("name", VARIANTS)
def test_listed_placements_are_accepted_and_the_table_refuses_the_air_and_overlaps(name):
    steps = walk(name, SEEDS[0])
    rng = np.random.default_rng(7)
    tried = 0
    for before, _, _ in steps[:: max(1, len(steps) // 3)]:
        pieces = before.placeable()
        if not pieces:
            continue
        piece = pieces[int(rng.integers(len(pieces)))]
        found = before.legal_placements(piece)
        obstacles, probe = Obstacles(before.scene(), ignore=(piece,)), before.scene().piece(piece)
        for k in rng.permutation(len(found))[:None if FUZZ else 20]:  # the table's rule, asked directly
            assert table_refusal(obstacles, probe, found[int(k)].pose) is None, found[int(k)]
        for k in rng.permutation(len(found))[:4]:
            p = found[int(k)]
            assert p.piece == piece and p.rule and p.on and len(p.pose) == 7
            accepted_or_balance(before.apply(p.action()), p)
            tried += 1
        if found:
            air = list(found[0].pose)
            air[2] += 0.5  # above everything built
            assert before.apply({"action": "place", "piece": piece, "pose": air}).refusal.data["rule"] == "support"
            inside = list(found[0].pose)
            inside[2] -= 0.004
            refused = before.apply({"action": "place", "piece": piece, "pose": inside}).refusal
            assert refused is not None and refused.data["rule"]
    assert tried or name in ("talo:fantasy",)


@pytest.mark.parametrize("name", VARIANTS)
def test_a_state_survives_its_json_mid_game_and_plays_on_the_same(name):
    steps = walk(name, SEEDS[0])
    before, action, step = steps[len(steps) // 2]
    data = json.loads(json.dumps(before.to_json(), allow_nan=False))
    restored = PlayState.from_json(data)
    assert same_state(restored, before)
    assert same_state(restored.apply(action).state, step.state)


@pytest.mark.parametrize("name", VARIANTS)
def test_a_state_never_changes_and_a_clone_is_its_own(name):
    steps = walk(name, SEEDS[0])
    before, action, step = steps[-1]
    frozen = (before.to_json(), before.session_json(), before.table_json(), len(before.journal))
    before.apply(action)
    assert (before.to_json(), before.session_json(), before.table_json(), len(before.journal)) == frozen
    twin = before.clone()
    assert same_state(twin, before)
    assert same_state(twin.apply(action).state, step.state)
    with pytest.raises(AttributeError):
        before.seed = 3


@pytest.mark.parametrize("name", VARIANTS)
def test_the_same_seed_plays_the_same_game(name):
    a = walk.__wrapped__(name, 5, 4)
    b = walk.__wrapped__(name, 5, 4)
    assert [x[1] for x in a] == [x[1] for x in b]
    assert same_state(a[-1][2].state, b[-1][2].state)
    assert [e.to_json() for e in a[-1][2].state.journal] == [e.to_json() for e in b[-1][2].state.journal]


# --- the end, each game's own checks ------------------------------------------------------------------


def _over(state: PlayState):
    assert state.is_terminal and state.current_player is None
    assert state.legal_actions() == [] and state.placeable() == []
    assert state.legal_placements(state.scene().pieces[0].id) == []
    for probe in _probes(state):
        step = state.apply(probe)
        assert step.refusal is not None and step.refusal.data["rule"] == "over", probe


def test_talo_fantasy_ends_when_the_goal_is_reached_and_everyone_wins():
    state = registry.new_state("talo", "fantasy", ["ann", "ben"], seed=4)
    assert {"action": "finish"} in state.legal_actions()
    state = state.apply({"action": "finish"}).state
    _over(state)
    assert state.outcome()["winners"] == ["ann", "ben"] and state.returns() == {"ann": 1.0, "ben": 1.0}


def test_babylons_fast_game_ends_after_three_rounds_in_which_nobody_builds():
    state = registry.new_state("babylon", "fast", seed=2)
    for _ in range(3):
        for p in state.players:
            for action in ({"action": "seat", "player": p}, {"action": "done"}):
                assert action in state.legal_actions()
                state = state.apply(action).state
        if not state.is_terminal:
            assert state.legal_actions()[-1] == {"action": "next-round"}
            state = state.apply({"action": "next-round"}).state
    _over(state)
    assert state.outcome()["scores"] == {p: 3 for p in state.players}  # every round a tie: everyone wins it


def test_talos_grid_placements_are_exactly_those_the_referee_accepts():
    from sim.games.talo.layout import GridBlock, block_piece

    steps = walk("talo:green", SEEDS[0])
    before = next(s for s, _, _ in reversed(steps) if s.placeable() and len(s.scene().pieces) > 0
                  and s.view()["phase"] in ("take", "build"))
    piece = before.placeable()[0]
    listed = {tuple(np.round(p.pose, 6)) for p in before.legal_placements(piece)}
    n = int(before.scene().piece(piece).params["length"])
    board = before.variant.start().session.board
    rng = np.random.default_rng(3)
    poses = []
    for axis in ("x", "y", "z") if n > 1 else ("z",):
        for i in range(-n, 11):
            for j in range(-n, 11):
                for layer in range(0, 4):
                    p = block_piece(GridBlock("probe", n, (i, j), layer, axis), board)
                    poses.append((*p.pos, *p.quat))
    unlisted = [p for p in poses if tuple(np.round(p, 6)) not in listed]
    for k in rng.permutation(len(unlisted))[:40]:
        step = before.apply({"action": "place", "piece": piece, "pose": list(unlisted[int(k)])})
        assert step.refusal is not None and step.refusal.data["rule"] not in BALANCE, unlisted[int(k)]
    assert len(listed) > 20



def test_a_talo_block_sticking_out_over_the_waiting_pawns_is_no_legal_placement():
    from play_table import LoadedDie

    from sim.games.play.judge import statics_judge
    from sim.games.play.still import StillTable
    from sim.games.play.talo import TaloSession
    from sim.games.talo.layout import GridBlock, block_piece

    game = registry.variant("talo", "green").start(("red", "blue", "green"))  # green's pawn waits beside the board
    session = TaloSession(("red", "blue"), LoadedDie([5]), statics_judge)
    table = StillTable(game.scene, game.supply, statics_judge)
    for action, args in (("start", {"cell": [0, 9]}), ("start", {"cell": [9, 9]}), ("throw", {}),
                         ("take", {"blocks": [1, 4]})):
        table.carry_out(session.act(action, args, table))

    def pose(n, cell, layer, axis):
        p = block_piece(GridBlock("probe", n, cell, layer, axis), session.board)
        return (*p.pos, *p.quat)

    def block(pid, *where):
        return game.scene.piece(pid).moved(pose(*where)[:3], pose(*where)[3:])

    assert session.pick("b1-1", table)[0] and session.drop(block("b1-1", 1, (5, 0), 0, "z"), table)[0]
    table.set_pose("b1-1", pose(1, (5, 0), 0, "z"))  # a post on the front row, over the green pawn's place
    assert session.pick("b4-1", table)[0]
    table.hand = ("right", "b4-1")
    listed = {tuple(np.round(p.pose, 6)) for p in session.placements("b4-1", table)}
    assert tuple(np.round(pose(4, (5, -1), 1, "y"), 6)) in listed  # one field out: over the table, clear
    assert tuple(np.round(pose(4, (5, -2), 1, "y"), 6)) not in listed  # two: inside the green pawn waiting there
    assert session.drop_refusal(block("b4-1", 4, (5, -2), 1, "y"), table) is None  # which the grid rules allow

def test_babylons_witness_turns_are_among_the_legal_placements():
    from dataclasses import replace

    from sim.games.babylon.building import read_layout
    from sim.games.babylon.capacity import plan_turn
    from sim.games.babylon.supply import Pieces
    from sim.geometry.transforms import quat_multiply, rotation_angle

    state = registry.new_state("babylon", "tactical", seed=0)
    for turn in range(1, 4):
        view, player, scene = state.view(), state.current_player, state.scene()
        built = replace(scene.with_pieces(p for p in scene.pieces if p.id not in state.supply), players=state.players)
        plan = plan_turn(read_layout(built), player, Pieces(**view["hands"][player]), len(state.players),
                         view["first_round"])
        assert view["turn"] == turn and len(plan) >= 4
        for like in plan:
            piece = next(p.id for p in state.scene().pieces if p.id in state.supply and p.kind == like.kind
                         and dict(p.params) == dict(like.params) and player in (p.owner, p.params.get("color")))
            found = state.legal_placements(piece)
            half = (0.0, 0.0, 1.0, 0.0)  # a bridge turned round is the same bridge; a noble is round
            turns = [like.quat] + ([quat_multiply(half, like.quat)] if like.kind == "babylon.bridge" else [])
            match = [p for p in found if np.allclose(p.pose[:3], like.pos, atol=1e-4) and (
                like.kind == "babylon.noble" or min(rotation_angle(p.pose[3:], q) for q in turns) < 1e-3)]
            assert match, (like.id, like.pos, [p.pose[:3] for p in found][:5])
            step = state.apply(match[0].action())
            assert step.accepted, step.refusal.data
            state = step.state
        assert {"action": "end-turn"} in state.legal_actions()
        step = state.apply({"action": "end-turn"})
        accepted_or_balance(step, "end-turn")
        state = step.state
    assert state.view()["turn"] == 4



def test_a_tohuwabohu_card_built_through_the_interface_is_fulfilled():
    from sim.games.tohuwabohu.illustrate import CARD_SCENES
    from sim.scene import load_scene

    state = registry.new_state("tohuwabohu", "basic", ["ann", "bob"], seed=3)
    ann = state.view()["players"][0]
    card = ann["open"][0]["id"]
    example = sorted(load_scene(CARD_SCENES / f"{card}.json").pieces, key=lambda p: (round(p.pos[2], 4), p.id))
    used: set[str] = set()
    for like in example:
        piece = next(p.id for p in state.scene().pieces if p.id in state.supply and p.id not in used
                     and p.kind == like.kind and dict(p.params) == dict(like.params))
        used.add(piece)
        step = state.apply({"action": "place", "piece": piece, "pose": [*like.pos, *like.quat]})
        assert step.accepted, step.refusal.data
        state = step.state
    fulfilled = [e.data for e in state.journal if e.kind == "card_fulfilled"]
    assert fulfilled == [{"player": "ann", "card": card}]
    assert state.outcome()["scores"] == {"ann": 1, "bob": 0} and state.current_player == "ann"
    assert state.apply(state.legal_actions()[-1]).state.current_player == "bob"  # the wait to the turn's end

# --- a state's JSON form, read as a file from someone else ---------------------------------------------


def _nested(depth: int):
    out: list = []
    for _ in range(depth):
        out = [out]
    return out


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(format="towerlab-play/9"), "format: expected 'towerlab-play/1'"),
    (lambda d: d.update(game="chess"), "game: expected one of"),
    (lambda d: d.update(variant="moon"), "--variant: talo plays"),
    (lambda d: d.update(players=["red", 3]), "players: expected names"),
    (lambda d: d.update(seed=-1), "seed: expected a whole number >= 0"),
    (lambda d: d.update(seed=True), "seed: expected an integer"),
    (lambda d: d.pop("actions"), "actions: required field is missing"),
    (lambda d: d.update(actions={"a": 1}), "actions: expected a list"),
    (lambda d: d["actions"].append({"action": "fly"}), r"actions\[2\]: action: 'fly' is not an action of talo"),
    (lambda d: d["actions"].append({"action": "place", "piece": "b1-1", "pose": [0, 0, "nan", 0, 0, 0, 1]}),
     r"actions\[2\]: place: pose: expected \[x, y, z"),
    (lambda d: d["actions"].append({"action": "wait", "seconds": 1e12}), r"actions\[2\]: wait: seconds"),
    (lambda d: d["actions"].append({"action": "take"}), r"actions\[2\]: take: malformed action"),
    (lambda d: d["actions"].append(["throw"]), r"actions\[2\]: action: expected an object"),
    (lambda d: d["actions"].append({"action": "throw", "x": _nested(5000)}), r"actions\[2\]: throw: expected JSON"),
    (lambda d: d["actions"].append({"action": "place", "piece": "x" * 10_000, "pose": [0] * 7}),
     r"actions\[2\]: piece: no piece 'xxx"),
])
def test_a_damaged_state_file_is_one_error_naming_the_field(change, message):
    state = registry.new_state("talo", seed=0)
    for a in ({"action": "start", "cell": [0, 0]}, {"action": "start", "cell": [0, 9]}):
        state = state.apply(a).state
    data = json.loads(json.dumps(state.to_json()))
    change(data)
    with pytest.raises(PlayError, match=message) as e:
        PlayState.from_json(data)
    assert "\n" not in str(e.value)
    assert PlayState.from_json(state.to_json()) == state


def test_the_documented_example_plays_a_random_legal_game():
    import re

    from tests.helpers import ROOT

    text = (ROOT / "docs" / "contracts.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(# a random legal game.*?)```", text, re.S).group(1)
    space: dict = {}
    exec(compile(code, "docs/contracts.md", "exec"), space)  # noqa: S102 - the project's own documentation
    assert space["state"].history and len(code.strip().splitlines()) <= 12
