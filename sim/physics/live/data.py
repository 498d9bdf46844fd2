"""The live world's snapshot as data: JSON and back, bit for bit, checked as a file's content.

A :class:`~sim.physics.live.history.LiveSnapshot` holds everything a live world needs to go on from a moment
(the world's poses, velocities and time, the pieces the statics hold and those parked, the hands' grips, the
motion tracker, the last certification). :func:`snapshot_json` writes it as plain JSON data: every float as
Python writes it, which reads back to the same bits, the infinities as ``"inf"``. :func:`snapshot_from_json`
reads it back, every field checked as untrusted input, onto the pieces of a scene the caller trusts (a game's
set-up): the data holds where the pieces are and how they move, never what they are. A new live world of that
scene restored from it (:meth:`LiveWorld.restore`) goes on exactly as the world it was taken from goes on
after :meth:`LiveWorld.snapshot` with ``exact`` (every body made afresh in both): the same actions give the
same poses, bit for bit. What the data leaves out is what nothing the world does next depends on: the
actions and events before (but the last action, the cause the next events name), the history frames, the
tracker's list of reported events.
"""

from __future__ import annotations

import numpy as np

from sim.fieldcheck import Field, FieldError, number_json
from sim.physics.live.history import LiveSnapshot
from sim.physics.live.records import Grip, WorldAction
from sim.physics.live.rest import Certification
from sim.physics.tracker import MotionTracker
from sim.physics.world import WorldState
from sim.scene import Scene

FORMAT = "towerlab-live-snapshot/1"
"""The data's format (its ``format`` field)."""
MAX_COUNT = 10**9
"""The most actions or events a snapshot may count."""


def snapshot_json(snap: LiveSnapshot, last_action: WorldAction | None = None) -> dict:
    """A live snapshot as JSON data (see the module docstring).

    Args:
        snap: the snapshot (of :meth:`LiveWorld.snapshot`).
        last_action: the live world's last action before it (the cause its next events name), or None.
    """
    st = snap.state
    cert = snap.certification
    return {
        "format": FORMAT,
        "state": {"ids": list(st.scene.ids), "poses": st.scene.poses().tolist(),
                  "velocities": np.asarray(st.velocities, dtype=float).reshape(-1, 6).tolist(),
                  "asleep": sorted(st.asleep), "time": st.time, "steps": int(st.steps),
                  "probe": [float(st.probe[0]), None if st.probe[1] is None else float(st.probe[1])],
                  "precision": None if st.precision is None else [float(st.precision[0]), int(st.precision[1])]},
        "held": sorted(snap.held), "parked": sorted(snap.parked),
        "hands": [{"name": h.name, "piece": h.piece, "target": np.asarray(h.target, dtype=float).tolist(),
                   "strength": float(h.strength), "player": h.player} for h in snap.hands],
        "actions": int(snap.actions), "events": int(snap.events),
        "last_action": None if last_action is None else {
            "time": last_action.time, "kind": last_action.kind, "piece": last_action.piece,
            "hand": last_action.hand, "player": last_action.player},
        "tracker": snap.tracker.to_json(),
        "certification": None if cert is None else cert.to_json(),
        "rest_since": {i: number_json(t) for i, t in snap.rest_since.items()},
        "shake": None if snap.shake is None else [float(x) for x in snap.shake],
        "last_certified": number_json(snap.last_certified),
    }


def snapshot_from_json(field: Field, scene: Scene, thresholds, *, piece_rest: bool = True
                       ) -> tuple[LiveSnapshot, WorldAction | None]:
    """A live snapshot from :func:`snapshot_json`'s data, on the pieces of ``scene``.

    Args:
        field: the data (:class:`~sim.fieldcheck.Field`, its path naming it in errors).
        scene: the pieces the world may hold (their kinds and parameters; the data gives which of them are on
            the table, in the world's order, and where).
        thresholds: the live world's motion thresholds (its own, never the data's).
        piece_rest: as the live world's tracker.

    Returns:
        The snapshot, and the last action before it (or None).

    Raises:
        FieldError: a field is not what :func:`snapshot_json` writes (the path names it).
    """
    f = field.object(("format", "state", "held", "parked", "hands", "actions", "events", "last_action", "tracker",
                      "certification", "rest_since", "shake", "last_certified"))
    f["format"].one_of((FORMAT,))
    state = _state(f["state"], scene)
    ids = list(state.scene.ids)
    known = set(ids)
    hands = tuple(_hand(h, known) for h in f["hands"].items(8))
    if len({h.name for h in hands}) != len(hands) or len({h.piece for h in hands}) != len(hands):
        raise f["hands"].fail("expected each hand and each piece once")
    held, parked = set(f["held"].ids(known)), set(f["parked"].ids(known))
    if held & parked or (held | parked) & {h.piece for h in hands}:
        raise f["parked"].fail("expected a piece held, parked or in a hand, one of them")
    rest = {}
    for i, g in f["rest_since"].entries(len(ids)):
        if i not in known:
            raise g.fail("expected an entry of a piece of the world")
        rest[i] = g.number(infinite=True)
    shake = None if f["shake"].is_null() else tuple(float(x) for x in f["shake"].floats((5,)))
    cert = None if f["certification"].is_null() else Certification.from_json(f["certification"], ids)
    tracker = MotionTracker.from_json(f["tracker"], thresholds, piece_rest=piece_rest, known=ids)
    snap = LiveSnapshot(state, frozenset(held), frozenset(parked), hands, f["actions"].integer(0, MAX_COUNT),
                        f["events"].integer(0, MAX_COUNT), tracker, cert, rest, shake,
                        f["last_certified"].number(infinite=True))
    return snap, None if f["last_action"].is_null() else _action(f["last_action"], set(scene.ids))  # maybe gone


def _state(f: Field, scene: Scene) -> WorldState:
    f.object(("ids", "poses", "velocities", "asleep", "time", "steps", "probe", "precision"))
    order = {i: k for k, i in enumerate(scene.ids)}
    ids = f["ids"].ids(order)
    if [order[i] for i in ids] != sorted(order[i] for i in ids):
        raise f["ids"].fail("expected the pieces in the set-up's order")
    n = len(ids)
    poses = f["poses"].floats((n, 7))
    quat = np.linalg.norm(poses[:, 3:], axis=1) if n else np.ones(0)
    if n and (np.abs(poses[:, :3]).max() > 100.0 or np.abs(quat - 1.0).max() > 1e-6):
        raise f["poses"].fail("expected positions within 100 m and unit quaternions")
    velocities = f["velocities"].floats((n, 6))
    if n and np.abs(velocities).max() > 1e3:
        raise f["velocities"].fail("expected velocities under 1000 m/s (rad/s)")
    asleep = tuple(f["asleep"].ids(ids))
    probe = f["probe"].items(2, 2)
    precision = None if f["precision"].is_null() else f["precision"].items(2, 2)
    pieces = scene.pieces
    by_id = {p.id: p for p in pieces}
    placed = scene.with_pieces(by_id[i].moved(pose[:3], pose[3:]) for i, pose in zip(ids, poses))
    return WorldState(placed, velocities, asleep, f["time"].number(0.0, 1e9), f["steps"].integer(0, 10**12),
                      (probe[0].number(0.0, 100.0), None if probe[1].is_null() else probe[1].number(-360.0, 360.0)),
                      None if precision is None else (precision[0].number(0.0, 1.0), precision[1].integer(1, 10**6)))


def _hand(f: Field, known) -> Grip:
    f.object(("name", "piece", "target", "strength", "player"))
    piece = f["piece"].text()
    if piece not in known:
        raise f["piece"].fail("expected a piece of the world")
    target = f["target"].floats((7,))
    return Grip(f["name"].text(40), piece, target, f["strength"].number(1e-6, 1e6),
                     None if f["player"].is_null() else f["player"].text())


def _action(f: Field, known) -> WorldAction:
    f.object(("time", "kind", "piece", "hand", "player"))
    piece = None if f["piece"].is_null() else f["piece"].text()
    if piece is not None and piece not in known:
        raise f["piece"].fail("expected a piece of the world")
    return WorldAction(f["time"].number(0.0, 1e9), f["kind"].text(40), piece,
                  None if f["hand"].is_null() else f["hand"].text(40),
                  None if f["player"].is_null() else f["player"].text())


__all__ = ["FORMAT", "FieldError", "snapshot_from_json", "snapshot_json"]
