"""A game between computer players written as a recording (``towerlab-recording/1``) that ``towerlab replay``
opens: the table as it was set up, every move as an action by its player at the time its hand set the piece down,
the poses after it as a frame, the referee's journal as events."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np

_NOT_KIND = re.compile(r"[^a-z0-9_]")


def action_kind(name: str) -> str:
    """A game action's name as a recording's action kind (``end-turn`` -> ``end_turn``)."""
    kind = _NOT_KIND.sub("_", str(name).lower())[:64]
    return kind if kind[:1].isalpha() else f"a_{kind}"[:64]


def write_recording(played: Mapping, path: Path) -> Path:
    """Write the game ``played`` (:meth:`sim.bots.match.Played.to_json`) to ``path``.

    Raises:
        RecorderError: the file cannot be written.
    """
    from sim.bots.match import game_streams
    from sim.games.registry import new_state
    from sim.replay.recorder import Recorder

    players = tuple(played["players"])
    table_seed, _ = game_streams(int(played["seed"]), len(players))
    scene = new_state(played["game"], played["variant"], players, table_seed).scene()
    poses = {p.id: tuple(float(x) for x in (*p.pos, *p.quat)) for p in scene.pieces}
    with Recorder(Path(path)) as rec:
        rec.start(scene, seed=table_seed, game=played["game"], players=list(players), variant=played["variant"],
                  source="session", extra={"levels": dict(played["levels"]), "tournament_seed": played["seed"],
                                           "outcome": dict(played["outcome"]), "ended": played["ended"]})
        rec.frame(0.0, list(poses), np.array(list(poses.values())))
        for move in played["moves"]:
            t = float(move["time"])
            action = dict(move["action"])
            i = rec.action(t, move["player"], {"kind": action_kind(action.get("action", "move")),
                                               "piece": action.get("piece"), "args": action}, world=False)
            for pid in move["gone"]:
                poses.pop(pid, None)
            poses.update({k: tuple(v) for k, v in move["changes"].items()})
            if move["changes"] or move["gone"]:
                rec.frame(t, list(poses), np.array(list(poses.values())))
            for e in move["events"]:
                pieces = tuple(p for p in e.get("data", {}).get("pieces", ()) if isinstance(p, str))
                rec.event(t, action_kind(e["kind"]), pieces, cause=i, data=dict(e.get("data", {})))
    return Path(path)


__all__ = ["action_kind", "write_recording"]
