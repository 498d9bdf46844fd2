"""Tohuwabohu's plans (pure): an order card's example construction as slots, set on the area at an anchor, and
what filling it costs on the table as it is (:class:`Table`, :class:`Plan`); the computer players
(:mod:`sim.bots.tohuwabohu`) weigh them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import numpy as np

from sim.bots.position import Position
from sim.graphs import reached
from sim.scene import Piece, Scene

MATCH_M = 0.004
"""How close (m) a piece's box corners come to a slot's for it to fill the slot."""
AREA_HALF = 0.14
"""Half the side of the playing area (m): an anchored example stays inside it."""
UNREACHABLE = 1e6
"""The cost of a plan that cannot be carried out (pieces of a kind missing)."""
CONTEST = 3.0
"""What taking away a piece of a rival's construction costs, in moves, besides the move itself: the rival sets it
back on its turn, and the piece must be taken again (two players building over each other's pieces fulfil
nothing)."""
SHORTCUTS = True
"""A piece's way back beside the area is worked out alone (the one placement of the listing's that the player
asks for: where the set-up laid it, free on the table), an area's support graph and the statics' verdict on it
are remembered (:data:`MEMO` areas), and a plan's search for the pieces in its way reads the table's solids once:
the same answers for less. False: the whole listing asked and everything worked out again, the reference the
bench and the tests compare against."""
MEMO = 256
"""Areas whose support graph and statics a player remembers (the same area comes back: the position a move
leaves is weighed again by the next move, and the area without a piece by each move that takes it away)."""


@dataclass(frozen=True)
class Slot:
    """One piece of an example construction.

    Attributes:
        key: what a piece must be to fill it (kind and parameters).
        piece: the example's piece where the example has it (the anchor's frame).
        below: the slots it rests on (indices).
    """

    key: tuple
    piece: Piece
    below: tuple[int, ...]


_REMEMBERED: dict[tuple, object] = {}
"""(what, the pieces in play as (id, position, quaternion) each) -> the support graph or the pieces the statics
could not hold, the oldest first (:data:`MEMO` of each)."""


def _remembered(what: str, play: list[Piece], make):
    """``make()``, remembered for the same pieces in play at the same poses (:data:`SHORTCUTS`)."""
    if not SHORTCUTS:
        return make()
    key = (what, tuple((p.id, tuple(p.pos), tuple(p.quat)) for p in play))
    if key not in _REMEMBERED:
        _REMEMBERED[key] = make()
        if len(_REMEMBERED) > 2 * MEMO:
            del _REMEMBERED[next(iter(_REMEMBERED))]
    return _REMEMBERED[key]


def _unheld(play: Scene) -> frozenset[str]:
    """The pieces of ``play`` (the pieces in play) the statics cannot hold."""
    from sim.games.tohuwabohu.referee import physics_scene
    from sim.statics import analyze

    built = physics_scene(play) if play.pieces else None
    return frozenset(analyze(built, margin=False).unheld) if built and built.pieces else frozenset()


def key_of(piece: Piece) -> tuple:
    """What makes two pieces interchangeable: kind and parameters."""
    return piece.kind, tuple(sorted((k, str(v)) for k, v in piece.params.items()))


@cache
def blueprint(card: str) -> tuple[Slot, ...]:
    """The slots of ``card``'s example construction, lowest first (each after those it rests on)."""
    from sim.analysis import support_graph
    from sim.games.tohuwabohu.examples import EXAMPLES

    scene = EXAMPLES[card]().scene()
    graph = support_graph(scene)
    bottom = {p.id: float(_corners(p)[:, 2].min()) for p in scene.pieces}
    order = sorted(scene.pieces, key=lambda p: (bottom[p.id], p.id))
    index = {p.id: k for k, p in enumerate(order)}
    return tuple(Slot(key_of(p), p, tuple(sorted(index[i] for i in graph.rests_on(p.id) if i in index)))
                 for p in order)


def _corners(piece: Piece) -> np.ndarray:
    from sim.geometry.transforms import transform_points

    return transform_points(np.asarray(piece.shape.box_corners), piece.pos, piece.quat)


def anchored(piece: Piece, anchor) -> Piece:
    """An example's piece moved by ``anchor`` (dx, dy m, quarter turns about the vertical through the middle)."""
    from scipy.spatial.transform import Rotation

    dx, dy, quarters = anchor
    turn = Rotation.from_euler("z", 90.0 * quarters, degrees=True)
    pos = turn.apply(piece.pos) + (dx, dy, 0.0)
    quat = (turn * Rotation.from_quat(piece.quat)).as_quat()
    return piece.moved(tuple(float(x) for x in pos), tuple(float(q) for q in quat))


def same_place(a: Piece, b: Piece) -> bool:
    """Whether two pieces of one kind fill the same space (their box corners within :data:`MATCH_M`)."""
    ca, cb = _corners(a), _corners(b)
    d = np.linalg.norm(ca[:, None, :] - cb[None, :, :], axis=2)
    return float(d.min(axis=1).max()) <= MATCH_M


@dataclass(frozen=True)
class Plan:
    """A card's example construction at an anchor, read against the table.

    Attributes:
        card: the card.
        anchor: (dx, dy, quarter turns).
        targets: the slots' pieces where the plan sets them (slot order).
        filled: slot index -> the table piece that fills it.
        obstacles: pieces of the area in the way of a slot still to fill, the highest first.
        cost: moves to the card (slots to fill and pieces to take away); :data:`UNREACHABLE` when pieces are
            missing.
    """

    card: str
    anchor: tuple
    targets: tuple[Piece, ...]
    filled: Mapping[int, str]
    obstacles: tuple[str, ...]
    cost: float


class Table:
    """What a Tohuwabohu plan reads of the table, read once per position.

    Args:
        pos: the position.
    """

    def __init__(self, pos: Position):
        from sim.analysis import support_graph

        self.scene: Scene = pos.scene
        self.free = set(pos.supply)
        self.movable = set(pos.pieces)  # the pieces a hand may take now (the pro variant's highest level)
        self.play = [p for p in self.scene.pieces if p.id not in self.free]
        built = self.scene.with_pieces(self.play)
        self.graph = _remembered("graph", self.play, lambda: support_graph(built)) if self.play else None
        self.on_area = {p.id for p in self.play}
        self._obstacles: dict[tuple, object] = {}

    def unheld(self) -> frozenset[str]:
        """The pieces in play the statics cannot hold (while any cannot, the area fulfils no card)."""
        if not hasattr(self, "_unheld"):
            self._unheld = _remembered("unheld", self.play, lambda: _unheld(self.scene.with_pieces(self.play)))
        return self._unheld

    def _solids(self, scene: Scene, ignore: set[str]):
        """The solids of ``scene`` (pieces of the area) but ``ignore`` (:class:`~sim.scene.overlap.Obstacles`), read
        once per table (:data:`SHORTCUTS`)."""
        from sim.scene.overlap import Obstacles

        if not SHORTCUTS:
            return Obstacles(scene, ignore=ignore)
        key = (tuple(scene.ids), frozenset(ignore))
        if key not in self._obstacles:
            self._obstacles[key] = Obstacles(scene, ignore=ignore)
        return self._obstacles[key]

    def joined(self, pieces) -> set[str]:
        """The pieces in play joined to ``pieces`` by contacts (their structure, as the support graph sees it)."""
        return reached((p for p in pieces if p in self.on_area),
                       lambda p: (i for i in self.graph.touching(p) if i in self.on_area))

    def carries(self, piece: str) -> list[str]:
        """The pieces standing on ``piece`` (in play)."""
        return [] if self.graph is None else [i for i in self.graph.carries(piece) if i in self.on_area]

    def above(self, pieces) -> list[str]:
        """``pieces`` and everything standing on them, the highest first."""
        return sorted(reached(pieces, self.carries),
                      key=lambda i: (-float(_corners(self.scene.piece(i))[:, 2].max()), i))

    def plan(self, card: str, anchor, theirs: frozenset[str] = frozenset()) -> Plan:
        """``card``'s example at ``anchor`` against this table (``theirs``: the pieces of the rivals' constructions,
        each in the way costing :data:`CONTEST` moves more)."""
        slots = blueprint(card)
        targets = tuple(anchored(s.piece, anchor) for s in slots)
        filled: dict[int, str] = {}
        used: set[str] = set()
        for k, (slot, target) in enumerate(zip(slots, targets)):
            for p in self.play:
                if p.id not in used and key_of(p) == slot.key and same_place(p, target):
                    filled[k] = p.id
                    used.add(p.id)
                    break
        stray = [p for p in self.play if p.id not in used]
        blocking: set[str] = set()
        if stray:
            scene = self.scene.with_pieces(stray)
            for k, target in enumerate(targets):
                if k in filled:
                    continue
                ignore: set[str] = set()
                while (clash := self._solids(scene, ignore).overlap(target, (*target.pos, *target.quat))) \
                        is not None and clash.a in scene.ids:
                    blocking.add(clash.a)
                    ignore.add(clash.a)
        need: dict[tuple, int] = {}
        for k, slot in enumerate(slots):
            if k not in filled:
                need[slot.key] = need.get(slot.key, 0) + 1
        dig, taken = self._dig(need, used, set(self.above(blocking)))
        obstacles = tuple(self.above(blocking | dig)) if taken is not None else ()
        contested = sum(1 for p in obstacles if p in theirs) + sum(1 for p in taken or () if p in theirs)
        cost = UNREACHABLE if taken is None else \
            float(len(slots) - len(filled) + len(obstacles) + CONTEST * contested)
        return Plan(card, tuple(anchor), targets, filled, obstacles, cost)

    def _dig(self, need: Mapping[tuple, int], used: set[str], away: set[str]):
        """The pieces to take away so that every slot to fill has a piece of its kind a hand may take, and the
        pieces taken from under others for it: ``(pieces to take away, the buried pieces used)``, ``(set(),
        None)`` when the table has too few. A piece in the supply, or in play with nothing on it once ``away``
        is taken away, is free; a piece under others is dug out (what stands on it taken away), the least to
        take away first, never from under the plan's own ``used`` pieces."""
        free: dict[tuple, int] = {}
        buried: dict[tuple, list[str]] = {}
        for p in self.scene.pieces:
            if p.id in used:
                continue
            key = key_of(p)
            if p.id in self.free or p.id in away or not set(self.carries(p.id)) - away:
                free[key] = free.get(key, 0) + 1
            else:
                buried.setdefault(key, []).append(p.id)
        dig: set[str] = set()
        taken: list[str] = []
        for key, n in need.items():
            short = n - free.get(key, 0)
            if short <= 0:
                continue
            picks = []
            for pid in buried.get(key, ()):
                up = set(self.above(self.carries(pid))) - away
                if not up & used:
                    picks.append((len(up - dig), pid, up))
            if len(picks) < short:
                return set(), None
            for _, pid, up in sorted(picks)[:short]:
                dig |= up
                taken.append(pid)
        return dig, taken

    def fits(self, card: str, anchor) -> bool:
        """Whether the example at ``anchor`` lies inside the area."""
        for s in blueprint(card):
            c = _corners(anchored(s.piece, anchor))
            if np.abs(c[:, :2]).max() > AREA_HALF:
                return False
        return True


__all__ = ["Plan", "Slot", "Table", "anchored", "blueprint", "key_of", "same_place"]
