"""Round-robin tournaments between computer players' levels: the schedule, the games on all cores or a Dask
cluster, the standings and Elo ratings with 95% intervals.

The schedule is a function of the game, the levels, the number of games and
the seed alone (:func:`schedule`): game ``k`` seats the levels of pairing
``k mod P`` (every pair of levels in a two-seat game; in a game of more seats,
every set of that many levels, a level more than once when there are fewer
levels than seats), its seats turned by ``k div P`` so that every level plays
from every seat, and its own seed from ``SeedSequence([seed, k])``. A game's
result depends on its own entry alone, so the same seed gives the same games
in one process, on any number of cores, or on a cluster, whatever order they
finish in.

Ratings: every game is read as the pairs of its players (a winner beats each
non-winner, two winners or two non-winners draw), the Bradley-Terry model is
fitted to them by maximum likelihood (a small ridge keeps a level that won
every game finite), on the Elo scale (400 points: 10 to 1 odds) with the first
level listed at :data:`ANCHOR`; the 95% interval is the 2.5-97.5 percentiles of
the fit over :data:`BOOTSTRAP` resamples of the games (seeded from the
tournament's seed).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from sim.bots.match import MAX_ACTIONS
from sim.games.play.session import PlayError

ANCHOR = 1000.0
"""The Elo of the first level listed."""
BOOTSTRAP = 200
"""Resamples of the games for the ratings' intervals."""
RIDGE = 0.01
"""The ridge on the ratings (per level, in natural-log odds squared): a level that won every game stays finite."""


@dataclass(frozen=True)
class Entry:
    """One game of a tournament.

    Attributes:
        index: its place in the schedule, from 0.
        game, variant: what is played.
        levels: player -> level, in seat order.
        seed: the game's own seed.
        max_actions: the game ends there, scored as it stands (:func:`sim.bots.match.play_game`).
    """

    index: int
    game: str
    variant: str
    levels: Mapping[str, int]
    seed: int
    max_actions: int = MAX_ACTIONS

    def to_json(self) -> dict:
        """JSON data (what a worker is sent)."""
        return {"index": self.index, "game": self.game, "variant": self.variant, "levels": dict(self.levels),
                "seed": self.seed, "max_actions": self.max_actions}


def schedule(game: str, variant: str | None, levels: Sequence[int], games: int, seed: int,
             max_actions: int = MAX_ACTIONS) -> list[Entry]:
    """The tournament's games (see the module docstring).

    Raises:
        PlayError: an unknown game, variant or level, fewer than two levels, a level given twice, or no games.
    """
    from sim.bots.players import make_bot
    from sim.games.registry import variant as lookup

    v = lookup(game, variant)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise PlayError(f"-n: expected at least 1 game, got {games!r}")
    levels = list(levels)
    if isinstance(max_actions, bool) or not isinstance(max_actions, int) or max_actions < 1:
        raise PlayError(f"--max-actions: expected at least 1, got {max_actions!r}")
    if len(levels) < 2:
        raise PlayError(f"--bots: expected at least two levels, e.g. 1,2, got {','.join(map(str, levels))}")
    if len(set(levels)) != len(levels):
        raise PlayError(f"--bots: a level given twice in {','.join(map(str, levels))}")
    for level in levels:
        make_bot(level, game, v.name, np.random.default_rng(0))  # an unknown or untaught level is named here
    seats = max(2, v.players[0])
    players = _players(v, seats)
    if len(levels) >= seats:
        pairings = list(itertools.combinations(levels, seats))
    else:
        pairings = [tuple(levels[k % len(levels)] for k in range(j, j + seats)) for j in range(len(levels))]
    out = []
    for k in range(games):
        pairing = pairings[k % len(pairings)]
        turn = (k // len(pairings)) % seats
        seated = pairing[turn:] + pairing[:turn]
        game_seed = int(np.random.SeedSequence([int(seed), k]).generate_state(1)[0] % (2 ** 31))
        out.append(Entry(k, game, v.name, dict(zip(players, seated)), game_seed, int(max_actions)))
    return out


def _players(v, seats: int) -> list[str]:
    names = list(v.default_players) if v.names is None else list(v.names())
    return (names + [f"player-{k + 1}" for k in range(seats)])[:seats]


def play_entry(entry: Mapping) -> dict:
    """Play one scheduled game (``Entry.to_json()``); its :class:`~sim.bots.match.Played` as JSON data (what a
    worker sends back)."""
    from sim.bots.match import play_game

    played = play_game(entry["game"], entry["variant"], entry["levels"], int(entry["seed"]),
                       max_actions=int(entry.get("max_actions", MAX_ACTIONS)))
    out = played.to_json()
    out["index"] = int(entry["index"])
    return out


def run(entries: Sequence[Entry], *, workers: int = 1, scheduler=None,
        done: Callable[[dict], None] | None = None) -> list[dict]:
    """Play ``entries`` in this process, on ``workers`` local processes or on a Dask cluster.

    Args:
        entries: the schedule.
        workers: local processes (1: this one).
        scheduler: a Dask scheduler's address or client (overrides ``workers``).
        done: called with each game's JSON as it finishes (a Ctrl-C keeps those already called).

    Returns:
        Every game's JSON, in schedule order.
    """
    results: dict[int, dict] = {}

    def finish(r: dict) -> None:
        results[r["index"]] = r
        if done is not None:
            done(r)

    jobs = [e.to_json() for e in entries]
    if scheduler is not None:
        _on_dask(jobs, scheduler, finish)
    elif workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            finish(play_entry(job))
    else:
        _on_pool(jobs, workers, finish)
    return [results[k] for k in sorted(results)]


def _on_pool(jobs: list[dict], workers: int, finish) -> None:
    import os
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    from sim.experiments.execute import end_with, worker_context

    pool = ProcessPoolExecutor(max_workers=workers, mp_context=worker_context(), initializer=end_with,
                               initargs=(os.getpid(),))
    finished_all = False
    try:
        flying = {pool.submit(play_entry, job): job for job in jobs}
        while flying:
            finished, _ = wait(flying, return_when=FIRST_COMPLETED)
            for future in sorted(finished, key=lambda f: flying[f]["index"]):
                del flying[future]
                finish(future.result())
        finished_all = True
    finally:  # after Ctrl-C nobody waits for the games still being played
        pool.shutdown(wait=finished_all, cancel_futures=True)


def _on_dask(jobs: list[dict], scheduler, finish) -> None:
    from distributed import as_completed

    from sim.experiments.cluster import connect

    client, owned = connect(scheduler)
    try:
        futures = [client.submit(play_entry, job, pure=False, key=f"towerlab-game-{job['index']}-{job['seed']}")
                   for job in jobs]
        for future in as_completed(futures):
            finish(future.result())
    finally:
        if owned:
            client.close()


# --- standings -------------------------------------------------------------------------------------------


def winners_of(result: Mapping) -> tuple[str, ...]:
    """A game's winners (at a limit: the best score, unless everyone tied): :attr:`Played.winners`."""
    from sim.bots.match import Played

    return Played(result["game"], result["variant"], tuple(result["players"]), result["levels"], result["seed"],
                  (), result["outcome"], result["ended"], {}).winners


def pairs(result: Mapping) -> list[tuple[int, int, float]]:
    """(level a, level b, a's points: 1 win, 0.5 draw, 0 loss) for every pair of seats of a game."""
    won = set(winners_of(result))
    levels = result["levels"]
    out = []
    for a, b in itertools.combinations(result["players"], 2):
        if levels[a] == levels[b]:
            continue
        points = 0.5 if (a in won) == (b in won) else float(a in won)
        out.append((int(levels[a]), int(levels[b]), points))
    return out


def standings(results: Iterable[Mapping], levels: Sequence[int], seed: int = 0) -> dict:
    """Each level's games, wins, draws, losses, mean score, and Elo with its 95% interval.

    A level wins a game when it is among the game's winners and some other level is not, loses when another
    level wins and it does not, and draws otherwise.
    """
    results = list(results)
    rows = {lv: {"level": lv, "games": 0, "wins": 0, "draws": 0, "losses": 0, "score": 0.0} for lv in levels}
    for r in results:
        won = set(winners_of(r))
        for lv in set(r["levels"].values()):
            seats = [p for p, v in r["levels"].items() if v == lv]
            mine = any(p in won for p in seats)
            others = any(p in won for p, v in r["levels"].items() if v != lv)
            row = rows[int(lv)]
            row["games"] += 1
            row["wins" if mine and not others else "losses" if others and not mine else "draws"] += 1
            row["score"] += float(np.mean([r["outcome"]["scores"].get(p, 0) for p in seats]))
    for row in rows.values():
        row["score"] = row["score"] / row["games"] if row["games"] else 0.0
    elo = ratings([pairs(r) for r in results], levels, seed)
    for lv, (value, lo, hi) in elo.items():
        rows[lv].update(elo=value, elo_low=lo, elo_high=hi)
    return {"games": len(results), "levels": [rows[lv] for lv in levels], "head_to_head": head_to_head(results)}


def head_to_head(results: Iterable[Mapping]) -> list[dict]:
    """Per pair of levels: games, the first's points, its share with a 95% (Wilson) interval."""
    from sim.bots.risk import wilson

    table: dict[tuple[int, int], list[float]] = {}
    for r in results:
        for a, b, p in pairs(r):
            key, p = ((a, b), p) if a < b else ((b, a), 1.0 - p)
            table.setdefault(key, []).append(p)
    out = []
    for (a, b), points in sorted(table.items()):
        wins = sum(1 for p in points if p == 0.0)  # b's wins over a
        lo, hi = wilson(wins, len(points))
        out.append({"level": b, "against": a, "pairs": len(points), "won": wins,
                    "drawn": sum(1 for p in points if p == 0.5), "share": wins / len(points), "low": lo,
                    "high": hi})
    return out


def ratings(games: Sequence[list[tuple[int, int, float]]], levels: Sequence[int], seed: int = 0,
            resamples: int = BOOTSTRAP) -> dict[int, tuple[float, float, float]]:
    """Level -> (Elo, 2.5th, 97.5th percentile) (see the module docstring); ``games``: each game's pairs."""
    value = _fit([p for g in games for p in g], levels)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0x5E1]))
    boot = []
    for _ in range(resamples if games else 0):
        pick = rng.integers(len(games), size=len(games))
        boot.append(_fit([p for k in pick for p in games[k]], levels))
    out = {}
    for k, lv in enumerate(levels):
        col = [b[k] for b in boot] or [value[k]]
        out[lv] = (float(value[k]), float(np.percentile(col, 2.5)), float(np.percentile(col, 97.5)))
    return out


def _fit(pairs_: list[tuple[int, int, float]], levels: Sequence[int]) -> list[float]:
    """Bradley-Terry strengths (Elo scale, the first level at :data:`ANCHOR`) by Newton's method."""
    index = {lv: k for k, lv in enumerate(levels)}
    n = len(levels)
    theta = np.zeros(n)
    for _ in range(50):
        grad = -RIDGE * theta
        hess = -RIDGE * np.eye(n)
        for a, b, s in pairs_:
            i, j = index[a], index[b]
            p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
            grad[i] += s - p
            grad[j] -= s - p
            w = p * (1.0 - p)
            hess[i, i] -= w
            hess[j, j] -= w
            hess[i, j] += w
            hess[j, i] += w
        step = np.linalg.solve(hess, grad)
        theta -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return [ANCHOR + 400.0 / math.log(10.0) * (t - theta[0]) for t in theta]


__all__ = ["ANCHOR", "BOOTSTRAP", "Entry", "head_to_head", "pairs", "play_entry", "ratings", "run", "schedule",
           "standings", "winners_of"]
