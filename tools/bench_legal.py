"""What asking the one game interface costs: legal actions, placeable pieces, legal placements and a move, per
variant, as a game grows.

    .venv/bin/python tools/bench_legal.py [--moves 30] [--seed 1] [--babylon-turns 8]

Each variant is played by the random legal player of ``tests/test_games_interface.py`` for ``--moves`` moves;
Babylon's tactical game also by its witness turns (the rule of four's, ``capacity.plan_turn``) for
``--babylon-turns`` turns, to measure a building of some size. Prints a Markdown table: median and largest
seconds per call, the placements listed per call, and the pieces on the table's buildings at the end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


class Tally:
    """Seconds per call of each kind, and the placements listed."""

    def __init__(self):
        self.seconds: dict[str, list[float]] = {"legal_actions": [], "placeable": [], "legal_placements": [],
                                                "apply": []}
        self.listed: list[int] = []

    def row(self, name: str, built: int) -> str:
        cells = []
        for k in ("legal_actions", "placeable", "legal_placements", "apply"):
            s = self.seconds[k]
            cells.append(f"{statistics.median(s):.3f} / {max(s):.3f}" if s else "-")
        listed = f"{statistics.median(self.listed):.0f} / {max(self.listed)}" if self.listed else "-"
        return f"| {name} | " + " | ".join(cells) + f" | {listed} | {built} |"


def random_game(variant, moves: int, seed: int) -> tuple[Tally, object]:
    state = variant_state(variant, seed)
    rng = np.random.default_rng(seed)
    tally = Tally()
    for _ in range(moves):
        if state.is_terminal:
            break
        actions, t = timed(state.legal_actions)
        tally.seconds["legal_actions"].append(t)
        pieces, t = timed(state.placeable)
        tally.seconds["placeable"].append(t)
        action = None
        if pieces and (rng.random() < 0.6 or not actions):
            found, t = timed(state.legal_placements, pieces[int(rng.integers(len(pieces)))])
            tally.seconds["legal_placements"].append(t)
            tally.listed.append(len(found))
            if found:
                action = found[int(rng.integers(len(found)))].action()
        action = action or actions[int(rng.integers(len(actions)))]
        step, t = timed(state.apply, action)
        tally.seconds["apply"].append(t)
        state = step.state
    return tally, state


def variant_state(variant, seed: int):
    from sim.games.play.state import PlayState

    return PlayState.new(variant, None, seed)


def witness_game(turns: int, seed: int) -> tuple[Tally, object]:
    from sim.games import registry
    from sim.games.babylon.building import read_layout
    from sim.games.babylon.capacity import plan_turn
    from sim.games.babylon.supply import Pieces

    state = variant_state(registry.variant("babylon", "tactical"), seed)
    tally = Tally()
    for _ in range(turns):
        view, player, scene = state.view(), state.current_player, state.scene()
        built = replace(scene.with_pieces(p for p in scene.pieces if p.id not in state.supply), players=state.players)
        plan = plan_turn(read_layout(built), player, Pieces(**view["hands"][player]), len(state.players),
                         view["first_round"])
        if len(plan) < 4:
            break
        for like in plan:
            piece = next(p.id for p in state.scene().pieces if p.id in state.supply and p.kind == like.kind
                         and dict(p.params) == dict(like.params) and player in (p.owner, p.params.get("color")))
            found, t = timed(state.legal_placements, piece)
            tally.seconds["legal_placements"].append(t)
            tally.listed.append(len(found))
            step, t = timed(state.apply, {"action": "place", "piece": piece, "pose": [*like.pos, *like.quat]})
            tally.seconds["apply"].append(t)
            state = step.state
        _, t = timed(state.legal_actions)
        tally.seconds["legal_actions"].append(t)
        step, t = timed(state.apply, {"action": "end-turn"})
        tally.seconds["apply"].append(t)
        state = step.state
    return tally, state


def built_count(state) -> int:
    return sum(1 for p in state.scene().pieces if p.id not in state.supply)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--babylon-turns", type=int, default=8)
    args = parser.parse_args(argv)

    from sim.games import registry

    print("| variant | legal_actions (s, median / max) | placeable | legal_placements | apply | placements listed "
          "| pieces built |")
    print("|---|---|---|---|---|---|---|")
    for v in registry.variants():
        tally, state = random_game(v, args.moves, args.seed)
        print(tally.row(f"{v.game} {v.name}, {args.moves} random moves", built_count(state)), flush=True)
    if args.babylon_turns:
        tally, state = witness_game(args.babylon_turns, args.seed)
        print(tally.row(f"babylon tactical, {args.babylon_turns} witness turns", built_count(state)), flush=True)


if __name__ == "__main__":
    main()
