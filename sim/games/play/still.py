"""The table of the one game interface: the set-up's pieces where the game put them, still, without physics.

:class:`StillTable` is :class:`sim.games.play.session.Table` on plain data: the
pieces' poses, the supply, what the referee holds (Talo's first block of two
placed together) and what has left the table. A session's effects are carried
out on it as the viewer's play mode carries them out on the live table, with
one difference: nothing moves by itself. A piece stays where it is set down,
and whether a building stands is the statics' verdict, asked where the rules
ask for it (:meth:`StillTable.verdict`); what the live physics would knock down
is the viewer's business (the interface has no ``knocked`` of its own).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sim.games.play import session as play
from sim.scene import Scene
from sim.verdict import Verdict

PIN_HAND = "referee"
"""The hand that holds a block set down to be placed together with the next (as the viewer names it)."""

Pose = tuple[float, ...]
HOME_M = 1e-6
"""How close (m) to where the set-up put it a piece set down is back in the supply."""
HOME_Q = 1e-9
"""How close to 1 the quaternions' dot product is for a piece set down turned as the set-up put it."""


class StillTable:
    """The pieces of a set-up, where the game has put them (see the module docstring).

    Args:
        scene: the set-up.
        supply: ids of the pieces waiting in the supply.
        judge: the verdict on the pieces built, given the scene ``prepare`` makes of them.
        prepare: the scene the judge is asked about (a game's ``physics_scene``; default: as built).

    Attributes:
        poses: id -> (7,) pose of every piece still on the table.
        hand: (hand, piece) while a piece is being placed, else None.
        pinned: the piece the referee holds where it was set down, if any.
        set_aside: pieces that have left the table.
        seat: whose hands are at work, as the referee last said (:class:`~sim.games.play.session.Seat`).
        revision: counts the changes made to the table (a new configuration is a new revision).
    """

    def __init__(self, scene: Scene, supply, judge: Callable[[Scene], Verdict] | None = None,
                 prepare: Callable[[Scene], Scene] | None = None):
        self.scene0 = scene
        self.homes: Mapping[str, Pose] = {p.id: (*p.pos, *p.quat) for p in scene.pieces}
        self.poses: dict[str, Pose] = dict(self.homes)
        self._supply: set[str] = set(supply)
        self.judge = judge
        self.prepare = prepare or (lambda s: s)
        self.hand: tuple[str, str] | None = None
        self.pinned: str | None = None
        self.set_aside: frozenset[str] = frozenset()
        self.seat: str | None = None
        self.revision = 0
        self._scene: Scene | None = None

    @classmethod
    def of(cls, scene0: Scene, now: Scene, supply, judge: Callable[[Scene], Verdict] | None = None,
           prepare: Callable[[Scene], Scene] | None = None, pinned: str | None = None,
           seat: str | None = None) -> StillTable:
        """The table a live one is now, as plain data: the set-up ``scene0``'s pieces where ``now`` has them
        (those ``now`` lacks set aside), ``supply`` waiting, ``pinned`` held by the referee, ``seat`` at work
        (what a computer player at the viewer's table decides on)."""
        table = cls(scene0, supply, judge, prepare)
        present = {p.id: p for p in now.pieces}
        for pid in table.poses:
            if pid in present:
                table.poses[pid] = (*(float(x) for x in present[pid].pos), *(float(x) for x in present[pid].quat))
        table.set_aside = frozenset(pid for pid in table.homes if pid not in present)
        table.pinned, table.seat = pinned, seat
        return table

    def copy(self) -> StillTable:
        """A table of its own in the same state (the set-up and the judge shared: they are never changed)."""
        out = object.__new__(StillTable)
        out.__dict__.update(self.__dict__)
        out.poses = dict(self.poses)
        out._supply = set(self._supply)
        return out

    def snapshot(self) -> dict:
        """The table as JSON data: ``{poses: {id: [7]}, supply, set_aside, pinned, seat}`` (equal tables, equal
        snapshots)."""
        return {"poses": {k: list(v) for k, v in self.poses.items() if k not in self.set_aside},
                "supply": sorted(self._supply), "set_aside": sorted(self.set_aside), "pinned": self.pinned,
                "seat": self.seat}

    # --- the Table protocol ---

    def scene(self) -> Scene:
        """Every piece on the table, where it is."""
        if self._scene is None:
            pieces = [p.moved(self.poses[p.id][:3], self.poses[p.id][3:]) if self.poses[p.id] != self.homes[p.id]
                      else p for p in self.scene0.pieces if p.id not in self.set_aside]
            self._scene = self.scene0.with_pieces(pieces)
        return self._scene

    @property
    def supply(self) -> frozenset[str]:
        """Ids of the pieces waiting in the supply."""
        return frozenset(self._supply)

    @property
    def carried(self) -> Mapping[str, str]:
        """Hand -> the piece it holds: the piece being placed, the block the referee holds."""
        out = {} if self.hand is None else {self.hand[0]: self.hand[1]}
        if self.pinned is not None:
            out[PIN_HAND] = self.pinned
        return out

    def home(self, piece_id: str) -> Pose:
        """(7,) where the set-up put a piece."""
        return self.homes[piece_id]

    def in_play(self, piece_id: str) -> bool:
        """Whether the piece has been put into play (a piece being placed from the supply is still in it)."""
        return piece_id not in self._supply

    def built(self) -> Scene:
        """The pieces built: the table without the supply and without what a hand holds."""
        scene = self.scene()
        out = self._supply | set(self.carried.values())
        return scene.with_pieces(p for p in scene.pieces if p.id not in out)

    def verdict(self) -> Verdict | None:
        """The judge's verdict on what is built (None without a judge)."""
        return None if self.judge is None else self.judge(self.prepare(self.built()))

    # --- changes ---

    def set_pose(self, piece: str, pose) -> None:
        """Put ``piece`` at ``pose`` (7,): out of the supply, or back in it when that is where the set-up put it
        (within :data:`HOME_M` and :data:`HOME_Q`)."""
        self.poses[piece] = tuple(float(x) for x in pose)
        home = self.homes[piece]
        if max(abs(a - b) for a, b in zip(pose[:3], home[:3])) <= HOME_M and \
                abs(abs(sum(a * b for a, b in zip(pose[3:], home[3:]))) - 1.0) <= HOME_Q:
            self._supply.add(piece)
        else:
            self._supply.discard(piece)
        self._changed()

    def to_supply(self, pieces) -> None:
        """``pieces`` back where the set-up put them, in the supply."""
        for pid in pieces:
            self.poses[pid] = self.homes[pid]
            self._supply.add(pid)
        self._changed()

    def carry_out(self, effects) -> list[tuple[str, str]]:
        """Carry out a session's effects in order (see the module docstring).

        Returns:
            What the referee said: (kind, text) per :class:`~sim.games.play.session.Say`.
        """
        said = []
        for e in effects:
            if isinstance(e, play.Say):
                said.append((e.kind, e.text))
            elif isinstance(e, (play.Place, play.Pin)):
                self.set_pose(e.piece, e.pose)
                if isinstance(e, play.Pin):
                    self.pinned = e.piece
            elif isinstance(e, play.Walk):
                if e.poses:
                    self.set_pose(e.piece, e.poses[-1])
            elif isinstance(e, play.Unpin):
                if self.pinned == e.piece:
                    self.pinned = None
                if e.home:
                    self.to_supply([e.piece])
            elif isinstance(e, play.ToSupply):
                self.to_supply(e.pieces)
            elif isinstance(e, play.SetAside):
                self.set_aside = self.set_aside | set(e.pieces)
                self._supply.difference_update(e.pieces)
                self._changed()
            elif isinstance(e, play.Clear):
                self.pinned = None
                self.to_supply([pid for pid in self.poses if pid not in self._supply and pid not in self.set_aside])
            elif isinstance(e, play.Seat):
                self.seat = e.player
            elif not isinstance(e, (play.PutBack, play.EmptyHands)):  # no hand holds a piece between actions
                raise TypeError(f"an effect the still table does not know: {e!r}")
        return said

    def _changed(self) -> None:
        self._scene = None
        self.revision += 1


__all__ = ["PIN_HAND", "StillTable"]
