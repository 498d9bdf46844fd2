"""The legal moves in a client's window: the server's answer, drawn as the play window draws its own.

A served table's state says, for every carried piece, where it may be set down now and whether the referee would
accept it where its ghost is (``legal``, :meth:`sim.net.table.ServedTable.legal`: the referee's own
:class:`~sim.viewer.play.legal.LegalMoves`, worked out on a thread of the server's). The window carries its own
piece at once (local hand prediction), so :class:`NetLegal` pairs the server's answer with the window's carry:
the rings of the window's own hands (a spectator carries nothing and sees none), and the refusal only while the
server judged a ghost where the window's is (a ghost the server has not reached yet is not judged). It answers
as the play mode's referee does (:meth:`legal_now`, ``table.setup_piece``), so the play window's drawing
(:class:`~sim.viewer.window.play.draw_legal.LegalDrawing`) draws it unchanged; as a session plug-in it turns a
refused ghost red (:meth:`judge_ghost`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.net.table import own_hand
from sim.viewer.control.plugins import SessionPlugin, WindowPlugin

NEAR = 5e-4
"""Two ghosts (m, quaternion components) closer than this are one: the window's rays meet the pieces within some
tens of microns of the server's (docs/network.md), and a snapped ghost is the same grid spot on both."""


class Rule(NamedTuple):
    rule: str
    reason: str


class ServedLegal(NamedTuple):
    """What the server says is legal for one of the window's carried pieces (as :class:`~sim.viewer.play.legal.Legal`
    reads to the drawing)."""

    hand: str
    piece: str
    places: tuple[tuple[float, float, float], ...]
    ghost: tuple[float, ...] | None
    refusal: Rule | None

    def points(self, piece=None) -> np.ndarray:
        """(k, 3) m: where each place shows on the table (the server worked them out)."""
        return np.asarray(self.places, dtype=float).reshape(-1, 3)


class _SetUp:
    def __init__(self, scene):
        self.scene = scene

    def setup_piece(self, piece_id: str):
        return self.scene.piece(piece_id)


def near(a, b, tol: float = NEAR) -> bool:
    return len(a) == len(b) and all(abs(float(x) - float(y)) <= tol for x, y in zip(a, b))


class NetLegal(SessionPlugin):
    """The server's legal moves for the window's carries (see the module docstring).

    Args:
        client: the window's :class:`~sim.net.client.Client` (its ``state``).
        scene: the table's set-up (the pieces' shapes).
        seat: the window's seat (None: a spectator).
        own_hands: the seat's hands are named for it at the table (``SEAT-left``), as in Babylon's fast game.
    """

    name = "network-legal"

    def __init__(self, client, scene, seat: str | None, own_hands: bool):
        self.client = client
        self.table = _SetUp(scene)
        self.seat = seat
        self.own_hands = own_hands and seat is not None
        self.controller = None
        self._places: dict[str, tuple[list, tuple]] = {}  # server hand -> (its places as sent, as a tuple)

    def attach(self, controller) -> None:
        self.controller = controller

    def _server_hand(self, hand: str) -> str:
        return own_hand(self.seat, hand) if self.own_hands else hand

    def legal_now(self) -> dict[str, ServedLegal]:
        """The window's hand -> what the server says is legal for the piece it carries (hands the server has not
        answered for are not in it)."""
        c = self.controller
        if c is None or self.seat is None:
            return {}
        legal = (self.client.state or {}).get("legal") or {}
        out = {}
        for hand, s in c.hands.items():
            server = self._server_hand(hand)
            k = legal.get(server)
            if not isinstance(k, dict) or k.get("piece") != s.piece or s.group:
                continue
            sent = k.get("places") or []
            kept = self._places.get(server)
            if kept is None or kept[0] != sent:  # a new answer: a new tuple (the drawing redraws on identity)
                kept = self._places[server] = (sent, tuple(tuple(float(v) for v in p) for p in sent))
            ghost, refusal = None, None
            judged = k.get("ghost")
            carry = c.carries.get(hand)
            if isinstance(judged, dict) and carry is not None and near(judged.get("pose") or (), carry.ghost):
                ghost = tuple(float(x) for x in carry.ghost)
                if not judged.get("legal"):
                    refusal = Rule(str(judged.get("rule")), str(judged.get("reason")))
            out[hand] = ServedLegal(hand, s.piece, kept[1], ghost, refusal)
        for server in set(self._places) - {self._server_hand(h) for h in out}:
            del self._places[server]
        return out

    def judge_ghost(self, controller, hand: str, piece: str, pose) -> str | None:
        k = self.legal_now().get(hand)
        if k is None or k.piece != piece or k.refusal is None or not near(k.ghost, pose):
            return None
        return f"{k.refusal.rule}: {k.refusal.reason}"

    def probe(self) -> dict:
        """What a window test reads: ``legal`` (hand -> the piece, the places ringed, the refusal's rule) and
        ``busy`` (a carried piece of the window's own the server has not answered for yet)."""
        legal = self.legal_now()
        c = self.controller
        waiting = self.seat is not None and c is not None and any(
            not s.group and h not in legal for h, s in c.hands.items())
        return {"legal": {h: {"piece": k.piece, "places": [list(p) for p in k.places],
                              "refused": None if k.refusal is None else k.refusal.rule}
                          for h, k in sorted(legal.items())}, "busy": waiting}


class NetLegalDrawing(WindowPlugin):
    """The rings and the refusal's label of :class:`NetLegal`, drawn by the play window's own drawing."""

    def __init__(self, legal: NetLegal):
        self.legal = legal
        self.drawing = None

    def attach(self, window) -> None:
        from sim.viewer.window.play.draw_legal import LegalDrawing

        self.drawing = LegalDrawing(window, self.legal)

    def frame(self, window, dt: float) -> None:
        if self.drawing is not None:
            self.drawing.update()


__all__ = ["NEAR", "NetLegal", "NetLegalDrawing", "ServedLegal"]
