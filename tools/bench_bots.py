"""How strong and how fast the computer players are: win rates between levels, level 3's decision time at
Babylon's scale, and how often level 3's own placements collapse under the hand noise it assumed, in the live
physics.

    .venv/bin/python tools/bench_bots.py [--games 200] [--game talo] [--variant green] [--seed 1] [-j 2]
        [--max-actions 4000] [--babylon-turns 28] [--decisions 5] [--physics 60] [--only wins,cpu,physics]
        [--levels 1,2,3] [--babylon-fill 140] [--keep bench-bots]

- **wins**: ``--games`` games of level 2 against level 1, and as many of 3 against 2 (two seats, each level
  from each seat, :mod:`sim.bots.tournament`'s schedule), on ``-j`` processes: the stronger level's share of
  the games with its 95% Wilson interval (a draw counts half to each, shown apart).
- **cpu**: Babylon's tactical game of ``--babylon-players`` built by the rule of four's witness turns for
  ``--babylon-turns`` turns (or until the turn before the last; three players' game ends at 95 pieces), then
  ``--decisions`` decisions of a level-3 player there, with the shortcuts and without: CPU seconds of each
  (``time.thread_time``: this process's work, whatever else the machine runs).
- **speed**: for each ``--game``, a game of ``--speed-actions`` actions between levels 3, 2 and 1 (as many seats
  as the game needs, level 3 first) played twice from ``--seed``: with the players' shortcuts (the planning
  player's risk measured only for the moves that can still be chosen, Talo's model reading again only what a
  block changed) and without them (the reference); CPU seconds per decision, median and largest, per level, and
  whether both played the same moves (they must).
- **physics**: the level-3 placements of the win games (up to ``--physics``), each set down once more with
  the hand's noise drawn afresh in the live physics (``sim.physics.live``, the viewer's world: the building,
  the piece added where the noisy hand sets it, two seconds stepped): the share of placements after which
  something fell, with its interval, beside what the player's own model (the exact statics over its samples)
  said of the same placements.

- **together**: ``--games`` games of a table whose every seat is a player of each of ``--levels`` (Talo-Fantasy is
  cooperative: the rulebook scores no one and ends the game "until the blocks last without the construction
  collapsing"): the share of games whose blocks were used up with the construction standing, with its interval.
- **kept**: what ``--keep`` holds now (a run may still be adding to it): every file's share, and every computer
  player's move in them counted with those the referee refused.

``--babylon-fill N`` plays the cpu figure's game on with level-1 turns after the witness's, to a building of ``N``
pieces or the last turn before the game ends. The wins and together runs keep each finished game a line in
``--keep`` (one file a pairing or level): a run stopped and started again plays only the games missing.

Prints a Markdown summary; each figure is from this one run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def partial_file(folder: Path, game: str, variant: str, strong: int, weak: int, seed: int) -> Path:
    """The file that keeps the finished games of one pairing (a run that stops resumes from it)."""
    return folder / f"{game}-{variant}-{strong}v{weak}-seed{seed}.jsonl"


def finished(path: Path, entries) -> dict[int, dict]:
    """The games of ``entries`` already in ``path`` (one JSON a line; a game of another schedule, or a line cut
    short by a stopped run, is left out)."""
    wanted = {e.index: e for e in entries}
    out: dict[int, dict] = {}
    if not path.is_file():
        return out
    for line in path.read_text().splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        e = wanted.get(r.get("index")) if isinstance(r, dict) else None
        if e is not None and r.get("seed") == e.seed and r.get("levels") == dict(e.levels):
            out[e.index] = r
    return out


def keeper(path: Path | None, have: dict[int, dict]):
    """What a run calls with each finished game: kept in ``have`` and appended to ``path`` as it finishes."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)

    def done(r: dict) -> None:
        have[r["index"]] = r
        if path is not None:
            with path.open("a") as f:
                f.write(json.dumps(r) + "\n")

    return done


def wins(game: str, variant: str | None, strong: int, weak: int, games: int, seed: int, workers: int,
         max_actions: int, keep: Path | None = None) -> tuple[list[dict], dict]:
    """``games`` games between levels ``strong`` and ``weak``, those of ``keep``'s file played already kept."""
    from sim.bots.tournament import run, schedule, standings

    entries = schedule(game, variant, [weak, strong], games, seed, max_actions)
    path = None if keep is None else partial_file(keep, game, entries[0].variant, strong, weak, seed)
    have = {} if path is None else finished(path, entries)
    t = time.perf_counter()
    run([e for e in entries if e.index not in have], workers=workers, done=keeper(path, have))
    results = [have[k] for k in sorted(have)]
    table = standings(results, [weak, strong], seed)
    table["wall_s"] = time.perf_counter() - t
    return results, table


def together(game: str, variant: str | None, level: int, games: int, seed: int, workers: int, max_actions: int,
             keep: Path | None = None) -> list[dict]:
    """``games`` games of a table whose every seat is a player of ``level`` (game ``k``'s seed from
    ``SeedSequence([seed, level, k])``), those of ``keep``'s file played already kept: a cooperative game's
    measure (Talo-Fantasy: the rulebook has everyone build one construction "until the blocks last without the
    construction collapsing" and scores no player)."""
    from sim.bots.tournament import Entry, run
    from sim.games.registry import variant as lookup

    v = lookup(game, variant)
    seats = list(v.default_players)[: max(2, v.players[0])]
    entries = [Entry(k, game, v.name, {p: level for p in seats},
                     int(np.random.SeedSequence([seed, level, k]).generate_state(1)[0] % 2 ** 31), max_actions)
               for k in range(games)]
    path = None if keep is None else keep / f"{game}-{v.name}-{level}x{len(seats)}-seed{seed}.jsonl"
    have = {} if path is None else finished(path, entries)
    run([e for e in entries if e.index not in have], workers=workers, done=keeper(path, have))
    return [have[k] for k in sorted(have)]


def built_together(results: list[dict]) -> dict:
    """A cooperative table's games read by the rulebook's end: ``built`` (the blocks used up, the construction
    standing: the game over with every player a winner), ``collapsed`` (a block brought it down), ``limit`` (the
    game stopped at the action limit first), and the blocks placed in each game."""
    built = sum(r["ended"] == "over" and len(r["outcome"]["winners"]) == len(r["players"]) for r in results)
    collapsed = sum(r["ended"] == "over" and r["outcome"].get("loser") is not None for r in results)
    return {"games": len(results), "built": built, "collapsed": collapsed,
            "limit": sum(r["ended"] == "limit" for r in results),
            "blocks": [sum(r["outcome"]["scores"].values()) for r in results]}


def kept(folder: Path, seed: int) -> None:
    """Print what ``folder`` keeps now (a run may still be adding games): each pairing's win share (over the pairs
    of a stronger and a weaker seat: a three-seat game holds two) and each
    one-level table's rulebook ends, and every computer player's move in them counted with those the referee
    refused (there must be none)."""
    from sim.bots.risk import wilson
    from sim.bots.tournament import standings

    moves = refused = 0
    print(f"## What {folder} keeps\n")
    print("| file | games | pairs of seats | stronger won (or blocks used up) | drawn | 95% interval | at the limit |")
    print("|---|---|---|---|---|---|---|")
    for path in sorted(folder.glob(f"*-seed{seed}.jsonl")):
        results = []
        for line in path.read_text().splitlines():
            try:
                results.append(json.loads(line))
            except ValueError:
                continue  # a line a stopped run cut short
        if not results:
            continue
        for r in results:
            mine = [m for m in r["moves"] if m["player"] is not None and m["decision"] is not None]
            moves += len(mine)
            refused += sum(m["refused"] is not None for m in mine)
        limit = sum(r["ended"] == "limit" for r in results)
        pairing = path.stem.split("-")[-2]
        if "v" in pairing:
            strong, weak = (int(x) for x in pairing.split("v"))
            h = next(h for h in standings(results, [weak, strong], seed)["head_to_head"] if h["level"] == strong)
            lo, hi = wilson(h["won"], h["pairs"])
            print(f"| {path.name} | {len(results)} | {h['pairs']} | {h['won']} | {h['drawn']} | {lo:.2f}-{hi:.2f} | "
                  f"{limit} |")
        else:
            t = built_together(results)
            lo, hi = wilson(t["built"], t["games"])
            print(f"| {path.name} | {t['games']} | - | {t['built']} (collapsed {t['collapsed']}) | - | "
                  f"{lo:.2f}-{hi:.2f} | {limit} |")
    print(f"\n{moves} computer players' moves, {refused} refused by the referee")


def babylon_cpu(turns: int, decisions: int, seed: int, players: int = 5, fill: int = 0
                ) -> tuple[int, list[float], list[float]]:
    from sim.bots import make_bot
    from sim.bots.babylon import witness_turn
    from sim.bots.position import Position
    from sim.games import registry

    state = registry.new_state("babylon", "tactical", ["red", "blue", "green", "yellow", "white"][:players], seed)
    for _ in range(turns):
        opt = None if state.is_terminal else witness_turn(Position(state))
        if opt is None:
            break
        after = state
        for action in (opt.action, *opt.then):
            step = after.apply(action)
            if not step.accepted:
                break
            after = step.state
        if after.is_terminal:  # the last turn: the building as it stands before it
            break
        state = after
    state = fill_building(state, fill, seed) if fill else state
    built = len(state.scene().pieces) - len(state.supply)
    cpu = {}
    for on in (True, False):
        shortcuts(on)
        s, bot, cpu[on] = state, make_bot(3, "babylon", "tactical", np.random.default_rng(seed)), []
        for _ in range(decisions):
            if s.is_terminal:
                break
            start = time.thread_time()
            decision = bot.decide(s)
            cpu[on].append(time.thread_time() - start)
            step = s.apply(decision.action)
            s = step.state if step.accepted else s
    shortcuts(True)
    return built, cpu[True], cpu[False]


def fill_building(state, pieces: int, seed: int):
    """``state`` (Babylon's tactical game) played on by level-1 players, each move the referee's, until its
    building holds ``pieces`` pieces, the game would end, or a move is refused: the last state of a turn's start
    before that (where the witness turns stop, a random legal turn still finds room)."""
    from sim.bots import make_bot

    filler = make_bot(1, "babylon", "tactical", np.random.default_rng([seed, 140]))
    kept, s = state, state
    while len(s.scene().pieces) - len(s.supply) < pieces:
        player = s.current_player
        step = s.apply(filler.decide(s).action)
        if not step.accepted or step.state.is_terminal:
            break
        s = step.state
        if s.current_player != player:
            kept = s  # a turn ended: the building as the next player finds it
    return kept


def shortcuts(on: bool) -> None:
    """Turn the players' shortcuts on or off (off: the reference they are measured against)."""
    import sim.bots.players as players
    import sim.bots.talo as talo
    import sim.bots.tohuwabohu_plan as tohuwabohu_plan

    players.PlanningBot.bound = on
    talo.SHORTCUTS = on
    tohuwabohu_plan.SHORTCUTS = on
    tohuwabohu_plan._REMEMBERED.clear()


def speed(game: str, variant: str | None, actions: int, seed: int) -> dict:
    """CPU seconds per decision by level, with the shortcuts and without, on the same game (see the module
    docstring)."""
    from sim.bots.match import play_game
    from sim.games import registry

    v = registry.variant(game, variant)
    seats = list(v.default_players)[: max(2, v.players[0])]
    levels = {p: max(1, 3 - k) for k, p in enumerate(seats)}
    out = {}
    for on in (True, False):
        shortcuts(on)
        played = play_game(game, v.name, levels, seed, max_actions=actions)
        by_level: dict[int, list[float]] = {}
        for p in seats:
            by_level.setdefault(levels[p], []).extend(played.cpu(p))
        out[on] = ([(m.player, m.action) for m in played.moves], by_level)
    shortcuts(True)
    return {"same": out[True][0] == out[False][0], "fast": out[True][1], "reference": out[False][1],
            "variant": v.name}


LET_GO_M = 0.0005
"""How far (m) above where the noise model sets it down the hand lets the piece go."""
LIFTS = 4
"""Tries at letting the piece go, each a touch higher than the live world's overlap with what it lands on."""
LIVE_SECONDS = 2.0
"""Simulated seconds the live world runs after a placement before it is asked whether anything fell."""


def live_falls(before, action: dict, noise, seed: int, trial: int) -> bool | None:
    """Whether ``action`` (a placement made on ``before``, a game's state) brings anything down in the live
    physics (:class:`sim.physics.live.LiveWorld`, the viewer's world) when a hand sets the piece down with
    ``noise``: the noisy pose drawn and set down against what is there by the experiments' model
    (:func:`sim.experiments.perturb.start_trial`, trial ``trial`` of ``seed``: what it pushes aside moved as the
    model moves it), the piece let go
    :data:`LET_GO_M` above it (and above any overlap the model left), the world
    stepped :data:`LIVE_SECONDS`, and its events read (``knocked_down`` or ``fell``). None: the placement is not
    one the game's physics scene holds."""
    from sim.experiments.perturb import start_trial
    from sim.physics.errors import OverlapError
    from sim.physics.live import LiveWorld

    piece = action["piece"]
    scene = before.scene()
    built = scene.with_pieces(p for p in scene.pieces if p.id not in before.supply and p.id != piece)
    pose = action["pose"]
    aimed = scene.piece(piece).moved(tuple(pose[:3]), tuple(pose[3:]))
    physical = before.variant.rules.physics_scene(built.with_pieces([*built.pieces, aimed]))
    if piece not in physical.ids:
        return None
    start = start_trial(physical, [noise.perturbation(piece)], seed, trial)
    landed = start.resting.piece(piece)  # let go just above where it lands (the model may leave it a touch deep)
    landed = landed.moved((*landed.pos[:2], float(landed.pos[2]) + start.overlap_m + LET_GO_M), landed.quat)
    rest = start.resting  # the pieces the noisy piece pushed aside where the model leaves them
    for _ in range(LIFTS):
        world = LiveWorld(rest.with_pieces(p for p in rest.pieces if p.id != piece))
        try:
            try:
                world.add(landed)
            except OverlapError as e:  # the live world's hulls touch where the model's did not: a hair higher
                deepest = max(d for a, b, d in e.pairs if piece in (a, b))
                landed = landed.moved((*landed.pos[:2], float(landed.pos[2]) + deepest + LET_GO_M), landed.quat)
                continue
            world.step(int(round(LIVE_SECONDS / world.world.settings.dt)))
            return any(e.kind in ("knocked_down", "fell") for e in world.drain_events())
        finally:
            world.close()
    return None


def physics(results: list[dict], level: int, most: int, seed: int) -> tuple[int, int, list[float]]:
    """(placements set down in the live physics, those after which something fell, the model's P of each)."""
    from sim.bots.match import Played, game_streams
    from sim.bots.risk import HAND
    from sim.games.registry import new_state

    done = collapsed = 0
    model = []
    for r in results:
        played = Played.from_json(r)
        mine = {p for p, lv in played.levels.items() if lv == level}
        table_seed, _ = game_streams(played.seed, len(played.players))
        state = new_state(played.game, played.variant, played.players, table_seed)
        for move in played.moves:
            if done >= most:
                return done, collapsed, model
            before = state
            step = state.apply(move.action)
            state = step.state if step.accepted else state
            if move.player not in mine or move.action.get("action") != "place" or not step.accepted:
                continue
            fell = live_falls(before, move.action, HAND, seed, done)
            if fell is None:
                continue
            done += 1
            collapsed += fell
            cands = (move.decision or {}).get("candidates") or []
            if cands and cands[0].get("risk") is not None:
                model.append(float(cands[0]["risk"]))
    return done, collapsed, model


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--game", default="talo:green",
                    help="GAME[:VARIANT] pairs, comma-separated (talo:green,tohuwabohu:basic)")
    ap.add_argument("--pairings", default="2v1,3v2", help="STRONGvWEAK pairs, comma-separated")
    ap.add_argument("--keep", type=Path, default=ROOT / "bench-bots",
                    help="folder of the finished games, one file a pairing (a run resumes from it)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", "--workers", type=int, default=2)
    ap.add_argument("--max-actions", type=int, default=4000)
    ap.add_argument("--babylon-turns", type=int, default=40)
    ap.add_argument("--babylon-players", type=int, default=5, help="players at the table of the cpu figure")
    ap.add_argument("--decisions", type=int, default=5)
    ap.add_argument("--babylon-fill", type=int, default=0,
                    help="after the witness turns, level-1 turns until the building holds this many pieces")
    ap.add_argument("--physics", type=int, default=60)
    ap.add_argument("--speed-actions", type=int, default=60)
    ap.add_argument("--levels", default="1,2,3", help="the levels of --only together's tables")
    ap.add_argument("--only", default="wins,cpu,physics", help="of wins, cpu, physics, speed, together, kept")
    a = ap.parse_args()
    only = set(a.only.split(","))
    from sim.bots.risk import wilson

    three: dict[str, list[dict]] = {}
    if "speed" in only:
        print(f"## CPU s per decision, {a.speed_actions} actions of levels 3, 2, 1 (seed {a.seed}): with the "
              "shortcuts / without\n")
        print("| game | level | decisions | median | largest | median without | largest without | ratio of sums "
              "| same moves |")
        print("|---|---|---|---|---|---|---|---|---|")
        for spec in a.game.split(","):
            game, _, variant = spec.partition(":")
            r = speed(game, variant or None, a.speed_actions, a.seed)
            for level in sorted(r["fast"], reverse=True):
                f, ref = r["fast"][level], r["reference"][level]
                if not f:
                    continue
                print(f"| {game}:{r['variant']} | {level} | {len(f)} | {statistics.median(f):.3f} | {max(f):.3f} | "
                      f"{statistics.median(ref):.3f} | {max(ref):.3f} | {sum(ref) / max(sum(f), 1e-9):.2f} | "
                      f"{r['same']} |", flush=True)
    if "wins" in only or "physics" in only:
        print(f"## Win rates ({a.games} games a pairing, seed {a.seed}, -j {a.workers})\n")
        print("| game | pairing | games | stronger won | drawn | share | 95% interval | limit | wall s |")
        print("|---|---|---|---|---|---|---|---|---|")
        for spec in a.game.split(","):
            game, _, variant = spec.partition(":")
            for pairing in a.pairings.split(","):
                strong, weak = (int(x) for x in pairing.split("v"))
                results, table = wins(game, variant or None, strong, weak, a.games, a.seed, a.workers,
                                      a.max_actions, a.keep)
                if strong == 3:
                    three[spec] = results
                h = next(h for h in table["head_to_head"] if h["level"] == strong)
                lo, hi = wilson(h["won"], h["pairs"])
                limit = sum(r["ended"] == "limit" for r in results)
                print(f"| {spec} | {strong} vs {weak} | {len(results)} | {h['won']} | {h['drawn']} | "
                      f"{h['share']:.2f} | {lo:.2f}-{hi:.2f} | {limit} | {table['wall_s']:.0f} |", flush=True)
    if "kept" in only:
        kept(a.keep, a.seed)
    if "together" in only:
        print(f"## Tables of one level ({a.games} games a level, seed {a.seed}): the rulebook's end\n")
        print("| game | level | games | blocks used up | 95% interval | collapsed | at the limit | blocks placed "
              "(median) |")
        print("|---|---|---|---|---|---|---|---|")
        for spec in a.game.split(","):
            game, _, variant = spec.partition(":")
            for level in (int(x) for x in a.levels.split(",")):
                r = built_together(together(game, variant or None, level, a.games, a.seed, a.workers,
                                            a.max_actions, a.keep))
                lo, hi = wilson(r["built"], r["games"])
                print(f"| {spec} | {level} | {r['games']} | {r['built']} | {lo:.2f}-{hi:.2f} | {r['collapsed']} | "
                      f"{r['limit']} | {statistics.median(r['blocks']):.0f} |", flush=True)
    if "cpu" in only:
        built, cpu, ref = babylon_cpu(a.babylon_turns, a.decisions, a.seed, a.babylon_players,
                                      a.babylon_fill)
        print(f"\n## Babylon tactical, level 3 on a building of {built} pieces: CPU s per decision\n")
        for name, c in (("with the shortcuts", cpu), ("without (the reference)", ref)):
            print(f"{name}: median {statistics.median(c):.2f}, largest {max(c):.2f} over {len(c)} decisions"
                  if c else f"{name}: no decision")
    for spec, results in three.items() if "physics" in only else ():
        n, k, model = physics(results, 3, a.physics, a.seed)
        lo, hi = wilson(k, n) if n else (0.0, 0.0)
        print(f"\n## Level 3's placements in the live physics ({spec})\n")
        print(f"{k} of {n} placements brought something down ({k / max(n, 1):.3f}, 95% {lo:.3f}-{hi:.3f}); "
              f"the player's model said {statistics.mean(model) if model else float('nan'):.3f} on average "
              f"({len(model)} weighed)")


if __name__ == "__main__":
    main()
