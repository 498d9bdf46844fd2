"""The support graph of a scene: what rests on what, side contacts, structures and heights."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from sim.contact import Interface, find_interfaces, is_table_contact
from sim.geometry.transforms import transform_points
from sim.graphs import components
from sim.names import BOARD, TABLE
from sim.tol import tol


@dataclass(frozen=True, eq=False)
class SupportGraph:
    """Who rests on whom in a (settled) scene, built from its contact interfaces.

    An interface is a *support* when its normal (from the lower piece up into
    the upper one) is within ``tol.support_angle`` of vertical: the upper
    piece rests on the lower. Every other interface is a *side contact*. The
    board's top is ``"board"``; the table around a board's slab is
    ``"table"`` (on the endless ``table`` board, the table top is the board).
    Fixed pieces support like the board and belong to no structure.

    Build it with :func:`support_graph`.

    Attributes:
        scene: the scene it describes.
        interfaces: every contact interface it was built from.
    """

    scene: object
    interfaces: tuple[Interface, ...]
    _below: dict = field(default_factory=dict, repr=False)
    _above: dict = field(default_factory=dict, repr=False)
    _touch: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        up = np.cos(tol.support_angle)
        ids = [p.id for p in self.scene.pieces]
        for store in (self._below, self._above, self._touch):
            store.update({i: [] for i in ids})
        for iface in self.interfaces:
            a = TABLE if iface.a == BOARD and is_table_contact(self.scene, iface) else iface.a
            b = iface.b
            _add(self._touch, b, a)
            _add(self._touch, a, b)
            if iface.normal[2] >= up:
                _add(self._below, b, a)
                _add(self._above, a, b)

    @property
    def ids(self) -> list[str]:
        """Piece ids in scene order."""
        return [p.id for p in self.scene.pieces]

    def rests_on(self, piece_id: str) -> list[str]:
        """What a piece rests on: piece ids, ``"board"`` or ``"table"``, in scene order, board first."""
        return list(self._below[self._check(piece_id)])

    def carries(self, piece_id: str) -> list[str]:
        """The pieces resting on a piece (or on ``"board"``/``"table"``), in scene order."""
        if piece_id in (BOARD, TABLE):
            return [i for i in self.ids if piece_id in self._below[i]]
        return list(self._above[self._check(piece_id)])

    def touching(self, piece_id: str) -> list[str]:
        """Everything a piece is in contact with (supports and side contacts), ``"board"``/``"table"`` included."""
        return list(self._touch[self._check(piece_id)])

    def side_contacts(self, piece_id: str) -> list[str]:
        """What a piece touches other than what it rests on or carries (leaning, side by side)."""
        vertical = set(self._below[self._check(piece_id)]) | set(self._above[piece_id])
        return [i for i in self._touch[piece_id] if i not in vertical]

    @cached_property
    def _structures(self) -> tuple[frozenset, ...]:
        movable = [p.id for p in self.scene.pieces if not p.fixed]
        return tuple(components(movable, ((f.a, f.b) for f in self.interfaces)))

    def structures(self) -> list[frozenset]:
        """Connected groups of (non-fixed) pieces, by any contact; the board and fixed pieces excluded.

        Ordered by the scene order of each group's first piece.
        """
        return list(self._structures)

    def structure_of(self, piece_id: str) -> frozenset:
        """The structure a non-fixed piece belongs to."""
        self._check(piece_id)
        for s in self._structures:
            if piece_id in s:
                return s
        raise KeyError(f"{piece_id} is fixed: it belongs to no structure")

    def foundation(self, structure: Iterable[str]) -> frozenset:
        """What a structure stands on: ``"board"``, ``"table"`` and ids of fixed pieces.

        Empty for a structure that rests on nothing outside itself (it floats, or only leans).
        """
        members = set(structure)
        below = set()
        for i in members:
            below.update(j for j in self.rests_on(i) if j not in members)
        return frozenset(below)

    def bottom(self, piece_id: str) -> float:
        """Height (m) of a piece's lowest point above the board top (negative on the table beside it)."""
        return float(self._extent[self._check(piece_id)][0])

    def top(self, piece_id: str) -> float:
        """Height (m) of a piece's highest point above the board top."""
        return float(self._extent[self._check(piece_id)][1])

    def on_board(self, piece_id: str) -> bool:
        """Whether a piece rests directly on the board top (not the table beside it, not another piece)."""
        return BOARD in self._below[self._check(piece_id)]

    @cached_property
    def _extent(self) -> dict[str, tuple[float, float]]:
        out = {}
        for p in self.scene.pieces:
            z = transform_points(p.shape.vertices, p.pos, p.quat)[:, 2]
            out[p.id] = (float(z.min()), float(z.max()))
        return out

    def _check(self, piece_id: str) -> str:
        if piece_id not in self._touch:
            raise KeyError(f"no piece {piece_id!r} in the scene")
        return piece_id


def _add(store: dict, key: str, value: str) -> None:
    if key in store and value not in store[key]:
        store[key].append(value)


def support_graph(scene, interfaces=None) -> SupportGraph:
    """The support graph of a scene.

    Args:
        scene: a (settled) scene.
        interfaces: its contact interfaces; found with :func:`sim.contact.find_interfaces` if None.

    Returns:
        The graph.
    """
    if interfaces is None:
        interfaces = find_interfaces(scene)
    return SupportGraph(scene, tuple(interfaces))
