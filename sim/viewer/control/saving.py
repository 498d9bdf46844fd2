"""The controller's session as data, to go on from exactly: the world, the hands, the supply, the clock, the view.

A part of the controller (:class:`~sim.viewer.control.state.Part`). :meth:`Saving.session_data` is everything
the session goes on from as JSON data (the live world's exact state through its ``data()``, what each hand holds and how
it is asked to hold it, the supply, the session clock, the player, the speed, the toggles and the camera);
:meth:`Saving.restore_session` takes it back, every field checked as untrusted input. A saved game
(:mod:`sim.viewer.play.save`) restores the data it has just written into the session it came from as well, so
that the session going on and a session resumed from the file are one and the same, bit for bit: the world's
bodies are made afresh in both (Bullet's contact caches are not data), caches dropped in both. The undo stack
and the time history are not kept: a game has neither.
"""

from __future__ import annotations

import numpy as np

from sim.fieldcheck import Field
from sim.viewer.control.actions import TOGGLES
from sim.viewer.control.camera import Orbit
from sim.viewer.control.hands import HandState
from sim.viewer.control.history import TimeHistory, UndoStack
from sim.viewer.control.state import Part

SPEEDS = (1.0, 0.5, 0.25, 0.125)
"""The speeds a session runs at (the window's - and =)."""


class Saving(Part):
    """:meth:`session_data` and :meth:`restore_session` (see the module)."""

    def session_data(self) -> dict:
        """The session as JSON data (see the module docstring)."""
        cam = self.state.camera.goal
        return {"world": self.state.world.data(),
                "hands": {h: _hand_json(s) for h, s in self.state.hands.items()},
                "from_supply": {str(k): sorted(v) for k, v in self.state.from_supply.items()},
                "carry_ids": self.state.carry_ids, "supply": sorted(self.state.supply),
                "session_time": self.state.session_time, "player": self.state.player,
                "active_hand": self.state.active_hand,
                "speed": self.state.speed, "paused": self.state.paused,
                "toggles": {k: bool(getattr(self.state.toggles, k)) for k in TOGGLES},
                "camera": {"target": list(cam.target), "distance": cam.distance, "azimuth": cam.azimuth,
                           "elevation": cam.elevation}}

    def restore_session(self, field: Field, scene) -> None:
        """Go on from :meth:`session_data`'s data (a :class:`~sim.fieldcheck.Field`) on the pieces of ``scene``
        (the game's set-up).

        Raises:
            sim.fieldcheck.FieldError: a field is not what :meth:`session_data` writes.
        """
        f = field.object(("world", "hands", "from_supply", "carry_ids", "supply", "session_time", "player",
                          "active_hand", "speed", "paused", "toggles", "camera"))
        self.state.world.restore_data(f["world"], scene)
        known = set(self.state.world.ids)
        carry_ids = f["carry_ids"].integer(0, 10**9)
        hands = {}
        for h, g in f["hands"].entries(len(self.ctl.hand_names)):
            if h not in self.ctl.hand_names:
                raise g.fail(f"expected a hand of {self.ctl.game} ({', '.join(self.ctl.hand_names)})")
            hands[h] = _hand(g, known, carry_ids)
            if hands[h].player != self.state.seat_hands.get(h):  # a seat's hand is its own; the hot seat's no one's
                raise g.fail(f"expected the player {self.state.seat_hands.get(h)} (whose hand it is), got "
                             f"{hands[h].player}")
        grips = self.state.world.held()  # the live world's own: hand -> piece
        for h, s in hands.items():
            if grips.get(h) != s.piece:
                raise f["hands"][h].fail(f"expected the piece the world's {h} hand holds ({grips.get(h)})")
        from_supply = {}
        for k, g in f["from_supply"].entries(len(self.ctl.hand_names)):
            if not k.isdigit() or int(k) > carry_ids:
                raise g.fail("expected the number of a carry")
            from_supply[int(k)] = frozenset(g.ids(known))
        self.state.hands = hands
        self.state.from_supply = from_supply
        self.state.carry_ids = carry_ids
        self.state.drops = {}
        self.state.supply = set(f["supply"].ids(known))
        self.state.world.set_supply(self.state.supply)
        self.state.session_time = f["session_time"].number(0.0, 1e9)
        self.state.player = None if f["player"].is_null() else f["player"].text()
        self.state.active_hand = f["active_hand"].one_of(self.ctl.hand_names)
        self.state.speed = float(f["speed"].one_of(SPEEDS))
        self.state.paused = f["paused"].flag()
        toggles = f["toggles"].object(TOGGLES)
        for k in TOGGLES:
            setattr(self.state.toggles, k, toggles[k].flag())
        cam = f["camera"].object(("target", "distance", "azimuth", "elevation"))
        orbit = Orbit(tuple(float(x) for x in cam["target"].floats((3,))), cam["distance"].number(1e-3, 1e3),
                      cam["azimuth"].number(-1e4, 1e4), cam["elevation"].number(-90.0, 90.0))
        self.state.camera.send(orbit, at_once=True)
        self.state.undo = UndoStack()
        self.state.history = TimeHistory()
        self.state.hovered = None
        self.state.carries = {}
        self.ctl.building._planning = None  # the hands' scene is read afresh
        self.ctl.building.plan_hands()
        self.state.dirty = True
        self.ctl.update_mode()


def _hand_json(s: HandState) -> dict:
    way = None if s.way is None else {"xy": list(s.way[0][0]), "quat": list(s.way[0][1]), "revision": s.way[0][2],
                                      "height": float(s.way[1])}
    return {"piece": s.piece, "xy": s.xy.tolist(), "quat": s.quat.tolist(), "start": s.start.tolist(),
            "carry": s.carry, "lift": s.lift, "height": s.height, "free": s.free, "lowering": s.lowering,
            "way": way, "travel": s.travel, **({} if s.player is None else {"player": s.player})}


def _hand(f: Field, known, carry_ids: int) -> HandState:
    f.object(("piece", "xy", "quat", "start", "carry", "lift", "height", "free", "lowering", "way", "travel"),
             ("player",))
    piece = f["piece"].text()
    if piece not in known:
        raise f["piece"].fail("expected a piece of the world")
    quat = f["quat"].floats((4,))
    if abs(float(np.linalg.norm(quat)) - 1.0) > 1e-6:
        raise f["quat"].fail("expected a unit quaternion")
    way = None
    if not f["way"].is_null():
        w = f["way"].object(("xy", "quat", "revision", "height"))
        key = (tuple(float(x) for x in w["xy"].floats((2,))), tuple(float(x) for x in w["quat"].floats((4,))),
               w["revision"].integer(0, 10**12))
        way = (key, w["height"].number(-100.0, 100.0))

    def optional(key: str, lo: float, hi: float):
        return None if f[key].is_null() else f[key].number(lo, hi)
    return HandState(piece, f["xy"].floats((2,)), quat, f["start"].floats((7,)), f["carry"].integer(1, carry_ids),
                     f["lift"].number(-1.0, 1.0), optional("height", -100.0, 100.0), f["free"].flag(),
                     optional("lowering", 0.0, 1e9), way, optional("travel", -100.0, 100.0),
                     player=None if f.value.get("player") is None else f["player"].text())


__all__ = ["Saving"]
