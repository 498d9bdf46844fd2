"""The controller's groups: several pieces picked up at once (the window's box selection) and carried,
turned, set down and put back as one (:mod:`sim.viewer.control.group` plans where they go).

A group is one hand's: its anchor is the hand's piece, the others ride in the anchor's frame, each pulled by a
live-world hand of its own. It turns with ``rotate`` (in place, about the middle of its pieces); it does not tip
or flip (one piece at a time). Set down, the session's plug-ins judge every piece where it lands (a game's
referee refuses a group before it is picked up: :meth:`~sim.viewer.control.plugins.SessionPlugin.may_group`), the
pieces are let go from the lowest up, exactly on their supports, and the statics judge them together; a
refused drop puts them all back where they were picked up. A pick of a group and everything done with it
until it is set down is one undo step.

A part of the controller (:class:`~sim.viewer.control.state.Part`); it holds no state of its own.
"""

from __future__ import annotations

import numpy as np

from sim.names import listing
from sim.viewer.control.actions import Action
from sim.viewer.control.carry import silhouette
from sim.viewer.control.group import anchor_of, member_hand, members_of
from sim.viewer.control.hands import HandState
from sim.viewer.control.history import Entry
from sim.viewer.control.state import Part


class Grouping(Part):
    """pick-group, and the group's side of set-down and cancel (see the module)."""

    ACTIONS = ("pick-group",)

    def _do_pick_group(self, a: Action) -> None:
        hand = self.ctl.hand_of(a, holding=False)
        if hand in self.state.hands:
            raise a.fail("hand", f"the {hand} hand already holds {self.state.hands[hand].piece!r}; set it down first")
        pieces = list(a["pieces"])
        held = self.ctl.building.held()
        for k, pid in enumerate(pieces):
            if pid not in self.state.world.ids:
                raise a.fail(f"pieces[{k}]", f"no piece {pid!r} in the scene")
            if pid in held:
                raise a.fail(f"pieces[{k}]", f"{pid!r} is in a hand already")
            if self.state.world.piece(pid).fixed:
                raise a.fail(f"pieces[{k}]", f"{pid!r} is fixed to the board")
        for p in self.state.plugins:
            reason = p.may_group(self.ctl, tuple(pieces), hand)
            if reason:
                self.ctl.say(reason, "refused")
                raise a.refuse("pieces", reason)
        for k, pid in enumerate(pieces):
            self.ctl.may_use(a, pid, hand, f"pieces[{k}]")
        at = None if a["at"] is None else np.asarray(a["at"], dtype=float) / 1000.0
        self._take_group(pieces, hand, at)

    def _take_group(self, pieces: list[str], hand: str, at) -> None:
        poses = {pid: self.state.world.pose(pid) for pid in pieces}
        bottoms = {pid: poses[pid][2] + silhouette(self.state.world.piece(pid).shape.vertices, poses[pid][3:])[0]
                   for pid in pieces}
        anchor = anchor_of(poses, bottoms)
        members = members_of(poses[anchor], {pid: poses[pid] for pid in pieces if pid != anchor})
        self.state.carry_ids += 1
        self.state.undo.push(Entry(f"pick of {listing(pieces)}", self.ctl.moment(), hand, self.state.carry_ids))
        self.state.world.grab(hand, anchor)
        for m in members:
            self.state.world.grab(member_hand(hand, m.piece), m.piece)
        pose = poses[anchor]
        grip = None if at is None else pose[:2] - np.asarray(at[:2], dtype=float)
        self.state.hands[hand] = HandState(anchor, pose[:2].copy(), pose[3:].copy(), pose.copy(), self.state.carry_ids,
                                     group=members, grip=np.zeros(2) if grip is None else grip,
                                     player=self.state.seat_hands.get(hand))
        self.state.from_supply[self.state.carry_ids] = frozenset(p for p in pieces if p in self.state.supply)
        self.state.supply -= set(pieces)
        self.state.world.set_supply(self.state.supply)
        self.ctl.note("pick", listing(pieces), hand)
        self.ctl.session_event("picked", tuple(pieces), "pick-group", anchor, hand)
        self.ctl.building.plan_hands()

    @staticmethod
    def _grips(hand: str, s: HandState) -> list[tuple[str, str, np.ndarray]]:
        """(live hand, piece, where it was picked up) of every piece a hand holds, the anchor first."""
        return [(hand, s.piece, s.start)] + [(member_hand(hand, m.piece), m.piece, m.start) for m in s.group]

    def _let_go(self, hand: str, s: HandState, poses: dict | None) -> None:
        """Let go of every piece of a hand, from the lowest up (what lies on another is let go after it): at
        ``poses`` (piece -> (7,)), at None where it is, or (``poses`` None) where it was picked up."""
        grips = self._grips(hand, s)
        where = {pid: (start if poses is None else poses[pid]) for _, pid, start in grips}

        def bottom(pid):
            pose = self.state.world.pose(pid) if where[pid] is None else np.asarray(where[pid])
            return float(pose[2] + silhouette(self.state.world.piece(pid).shape.vertices, pose[3:])[0])
        held = self.state.world.held()
        for name, pid, _ in sorted(grips, key=lambda g: bottom(g[1])):
            if name in held:  # a plug-in may have taken a piece over as it judged the drop
                self.state.world.release(name, where[pid])

    def set_down_group(self, hand: str, s: HandState, carry, there: bool) -> None:
        """A hand sets its group down: exactly on their supports (``there``), else where they are. The plug-ins
        judge every piece first; a drop one of them rejects puts the whole group back where it was picked
        (:meth:`~sim.viewer.control.building.Building.put_back`)."""
        plans = {c.piece: c for c in carry.all} if carry is not None else {}
        landing = {pid: (plans[pid].ghost if there else self.state.world.pose(pid)) for pid in s.pieces}

        def judge(p):
            return next((r for r in (p.judge_drop(self.ctl, hand, pid, landing[pid]) for pid in s.pieces) if r), None)
        if self.ctl.building.rejected(hand, s, s.pieces, judge):
            return
        self.state.drops.pop(s.carry, None)
        self.state.from_supply.pop(s.carry, None)
        self._let_go(hand, s, landing if there else {pid: None for pid in s.pieces})
        self.ctl.session_event("dropped", s.pieces, "drop", s.piece, hand)

    def cancel_group(self, hand: str, s: HandState) -> None:
        """Put every piece of a group back where it was picked up."""
        self._let_go(hand, s, None)
        self.state.supply |= self.state.from_supply.pop(s.carry, frozenset())
        self.state.world.set_supply(self.state.supply)
