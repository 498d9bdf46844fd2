"""The controller's one port for a referee: the named operations by which a game's referee changes the table.

A referee (:class:`sim.viewer.play.mode.Referee`) never writes the controller's fields (its hands, carries,
supply, world or player): it asks for what a session's effects say (:mod:`sim.games.play.session`), each an
operation here — put a piece in a hand back where it was picked up, place one at a pose, send pieces home to
the supply, set them aside, hold one where it is with the referee's own hand and let it go, seat the player
whose hands are at work, empty every hand, clear the table for a new round. The controller keeps its fields
consistent (the supply parked in the world, a hand's carry and undo bookkeeping) whoever asks.

A part of the controller, ``controller.port`` (:class:`~sim.viewer.control.state.Part`): it works on the
session's world, hands and supply; it holds no state of its own.
"""

from __future__ import annotations

import numpy as np

from sim.viewer.control.state import Part

PIN_HAND = "referee"
"""The live world's hand with which a referee holds a piece where it was set down (Talo's first block of two
placed together), apart from the players' hands."""
PIN_FORCE = 1e3
"""The force (N) at most with which the referee's hand holds its piece: more than any player's push."""



class Port(Part):
    """The named operations of a referee (see the module)."""

    # --- reading ---

    def holding(self, piece: str) -> str | None:
        """The player's hand that holds ``piece`` (alone or as a group's anchor), or None."""
        return next((h for h, s in self.state.hands.items() if s.piece == piece), None)

    @property
    def pinned(self) -> str | None:
        """The piece the referee's hand holds (:meth:`pin`), or None."""
        return self.state.world.held().get(PIN_HAND)

    @property
    def taken_from_supply(self) -> frozenset[str]:
        """The pieces the hands carry that they took from the supply."""
        return frozenset().union(*self.state.from_supply.values())

    def in_play(self, piece: str) -> bool:
        """Whether ``piece`` has been put into play: neither waiting in the supply nor carried from it."""
        return piece not in self.state.supply and piece not in self.taken_from_supply

    def home(self, piece: str) -> tuple[float, ...]:
        """(7,) where the set-up put ``piece`` (its pose in the scene the session began with)."""
        p = self.state.scene0.piece(piece)
        return tuple(float(x) for x in (*p.pos, *p.quat))

    # --- the operations ---

    def put_back_piece(self, piece: str) -> bool:
        """The hand holding ``piece`` puts it back where it was picked up (:meth:`put_back`): whether one held it."""
        hand = self.holding(piece)
        if hand is None:
            return False
        self.ctl.building.put_back(hand)
        return True

    def empty_hands(self, player: str | None = None) -> None:
        """Every hand puts back what it holds (a turn passed, "Stop!" called); with ``player``, only that player's
        hands (:meth:`~sim.viewer.control.controller.Controller.player_of`: a player out of the round)."""
        for hand in list(self.state.hands):
            if player is None or self.ctl.player_of(hand) == player:
                self.ctl.building.put_back(hand)

    def place(self, piece: str, pose) -> None:
        """Put ``piece`` at ``pose`` (7,), at rest, out of the supply (a pawn's step, a swap, a fallen piece put
        back)."""
        self.state.world.set_pose(piece, np.asarray(pose, dtype=float))
        if piece in self.state.supply:
            self.state.supply.discard(piece)
            self.state.world.set_supply(self.state.supply)

    def to_supply(self, pieces) -> None:
        """``pieces`` back where the set-up put them, in the supply."""
        pieces = list(pieces)
        for pid in pieces:
            self.state.world.set_pose(pid, np.asarray(self.home(pid), dtype=float))
        self.state.supply.update(pieces)
        self.state.world.set_supply(self.state.supply)

    def set_aside(self, pieces) -> None:
        """``pieces`` leave the table (knocked-down parts for the round, nobles won)."""
        for pid in pieces:
            if pid in self.state.world.ids:
                self.state.world.remove_piece(pid)
            self.state.supply.discard(pid)
        self.state.world.set_supply(self.state.supply)

    def pin(self, piece: str, pose) -> None:
        """The referee's hand holds ``piece`` fixed at ``pose`` (7,), where it was set down, until :meth:`unpin`:
        a player's hand that holds it lets it go there (its carry done), and it is no longer in the supply."""
        pose = np.asarray(pose, dtype=float)
        hand = self.holding(piece)
        if hand is not None:
            s = self.state.hands.pop(hand)
            self.state.carries.pop(hand, None)
            self.state.drops.pop(s.carry, None)
            self.state.from_supply.pop(s.carry, None)
            self.state.world.release(hand, pose)
            self.ctl.update_mode()
        self.state.world.set_pose(piece, pose)
        self.state.world.grab(PIN_HAND, piece, force_limit=PIN_FORCE)
        self.state.world.move_hand(PIN_HAND, pose)
        self.state.supply.discard(piece)
        self.state.world.set_supply(self.state.supply)

    def unpin(self, piece: str, home: bool = False) -> None:
        """The referee's hand lets ``piece`` go where it is (or, with ``home``, puts it back in the supply)."""
        if self.pinned == piece:
            self.state.world.release(PIN_HAND)
        if home:
            self.to_supply([piece])

    def seat(self, player: str | None) -> None:
        """Whose hands are at work from now: the actions that follow are theirs (events and collapses name
        them)."""
        self.state.player = player

    def clear(self) -> None:
        """The table as the set-up left it: every hand emptied, the referee's too, every piece home in the
        supply (a new round)."""
        self.empty_hands()
        if self.pinned is not None:
            self.state.world.release(PIN_HAND)
        self.to_supply([pid for pid in self.state.world.ids if pid not in self.state.supply])


__all__ = ["PIN_FORCE", "PIN_HAND", "Port"]
