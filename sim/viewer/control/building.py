"""The controller's building actions: hands pick, carry, turn, tip and set down pieces; pieces are added,
removed and poked.

A mixin of :class:`sim.viewer.control.controller.Controller` (it uses the session's world, hands, supply and undo
stack); it holds no state of its own.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.errors import TowerlabError
from sim.names import listing
from sim.scene import Piece, Scene
from sim.viewer.control.actions import Action
from sim.viewer.control.carry import CLEARANCE, flip_over, footprint, support_height, tip_over, turn_about_vertical
from sim.viewer.control.group import group_middle, member_hand, plan_group
from sim.viewer.control.hands import SET_DOWN_TIME, HandState, arrived, plan
from sim.viewer.control.history import Entry

PICK_LIFT = 0.004
"""How far (m) a picked-up piece is first taken straight up, clear of its contacts."""


class Building:
    """Pick, carry, drop, cancel, poke, add and remove (see the module)."""

    def _do_pick(self, a: Action) -> None:
        pid = self._piece_id(a)
        hand = self._hand(a, holding=False)
        if hand in self.hands:
            raise a.fail("hand", f"the {hand} hand already holds {self.hands[hand].piece!r}; set it down first")
        for h, s in self.hands.items():
            if pid in s.pieces:
                raise a.fail("piece", f"{pid!r} is already in the {h} hand")
        if self.world.piece(pid).fixed:
            raise a.fail("piece", f"{pid!r} is fixed to the board")
        self._may_use(a, pid, hand)
        self._take(pid, hand, "pick")

    def _take(self, pid: str, hand: str, name: str) -> None:
        self._carry_ids += 1
        self.undo.push(Entry(f"{name} of {pid}", self._moment(), hand, self._carry_ids))
        pose = self.world.pose(pid)
        self._lift_clear(pid, pose)
        self.world.grab(hand, pid)
        self.hands[hand] = HandState(pid, pose[:2].copy(), pose[3:].copy(), pose.copy(), self._carry_ids)
        self._from_supply[self._carry_ids] = frozenset({pid} & self.supply)
        self.supply.discard(pid)
        self.world.set_supply(self.supply)
        self._note(name, pid, hand)
        self._session_event("picked", (pid,), name, pid, hand)
        self._plan_hands()

    def _lift_clear(self, pid: str, pose: np.ndarray) -> None:
        """Take a piece straight up off what it stands on, as a hand does first (up to ``PICK_LIFT``, less
        when something lies above it): it leaves its contacts at once, so that a city it stood in rests
        (asleep) while it is carried, instead of being simulated, touch by touch, as the hand works it free."""
        shape = self.world.piece(pid).shape
        fp = footprint(shape.vertices, pose[3:])
        room = PICK_LIFT
        top = float(pose[2] + fp.top)
        for dx, dy in fp.samples:
            start = (pose[0] + dx, pose[1] + dy, top - 1e-4)
            hit = self.world.ray_test(start, (start[0], start[1], top + PICK_LIFT + 2e-3))
            if hit is not None and hit.piece != pid:
                room = min(room, float(hit.point[2]) - top - 1e-3)
        if room > 1e-3:
            lifted = pose.copy()
            lifted[2] += room
            self.world.set_pose(pid, lifted)

    def _carrying(self, a: Action) -> tuple[str, HandState]:
        hand = self._hand(a, holding=True)
        return hand, self.hands[hand]

    def _step_entry(self, a: Action, label: str) -> tuple[str, HandState]:
        hand, s = self._carrying(a)
        self.undo.push(Entry(f"{label} {s.piece}", self._moment(), hand, s.carry))
        return hand, s

    def _do_move_to(self, a: Action) -> None:
        _, s = self._carrying(a)
        at = np.asarray(a["at"], dtype=float) / 1000.0
        s.xy = at[:2] + (0.0 if s.grip is None else s.grip)  # a group: the point it is held by goes there
        s.height = float(at[2]) if len(at) == 3 else None
        s.free = a["free"]

    def _do_lift(self, a: Action) -> None:
        _, s = self._step_entry(a, "lift")
        s.height = None
        s.lift += a["mm"] / 1000.0
        self._plan_hands()

    def _do_lower(self, a: Action) -> None:
        _, s = self._step_entry(a, "lower")
        s.height = None
        s.lift = max(s.lift - a["mm"] / 1000.0, -CLEARANCE)
        self._plan_hands()

    def _do_rotate(self, a: Action) -> None:
        _, s = self._step_entry(a, f"rotate {a['degrees']:g}°")
        turned = turn_about_vertical(s.quat, a["degrees"])
        if s.group:  # a group turns in place, about its middle; the hand holds it where it did
            middle = s.xy + group_middle(s.quat, s.group)
            xy = middle - group_middle(turned, s.group)
            s.grip = s.grip + (xy - s.xy)
            s.xy = xy
        s.quat = turned
        self._plan_hands()

    def _do_tip(self, a: Action) -> None:
        self._one_piece(a, "tipped over")
        _, s = self._step_entry(a, "tip over")
        s.quat = tip_over(s.quat, a["axis"])
        self._plan_hands()

    def _do_flip(self, a: Action) -> None:
        self._one_piece(a, "flipped")
        _, s = self._step_entry(a, "flip over")
        s.quat = flip_over(s.quat)
        self._plan_hands()

    def _one_piece(self, a: Action, what: str) -> None:
        """Refuse a turn a group does not take (it turns about the vertical only)."""
        hand, s = self._carrying(a)
        if s.group:
            raise a.fail("hand", f"the {hand} hand holds a group of {len(s.pieces)}: it turns with R only "
                                 f"(one piece at a time is {what})")

    def _do_drop(self, a: Action) -> None:
        hand, s = self._carrying(a)
        if s.lowering is not None:
            return
        s.free = s.free or a["free"]
        s.lowering = self.world.time
        what = listing(s.pieces) if s.group else s.piece
        self._drops[s.carry] = self.undo.fold(s.carry, f"pick-and-drop of {what}")
        self._note("drop", what, hand)
        self._plan_hands()

    def _do_cancel(self, a: Action) -> None:
        hand, _ = self._carrying(a)
        self.put_back(hand)

    def put_back(self, hand: str) -> str:
        """The piece (or group) in ``hand`` goes back exactly where it was picked up (into the supply if it came
        from there), held until it is there: it never falls, so nothing is knocked down and no event is told (a
        cancel; a referee's put-back when a turn's time runs out). Its carry leaves no undo step.

        Returns:
            The piece (a group's anchor).
        """
        s = self.hands[hand]
        if s.group:
            self._cancel_group(hand, s)
        else:
            self.world.release(hand, s.start)  # let go exactly where it was picked
            self.supply |= self._from_supply.pop(s.carry, frozenset())
            self.world.set_supply(self.supply)
        del self.hands[hand]
        self.carries.pop(hand, None)
        entry = self._drops.pop(s.carry, None)
        if entry is not None:
            self.undo.forget(entry)  # it was being set down: that drop did not happen
        self.undo.drop_carry(s.carry)
        self._update_mode()
        return s.piece

    def _do_poke(self, a: Action) -> None:
        pid = self._piece_id(a)
        piece = self.world.piece(pid)
        if piece.fixed:
            raise a.fail("piece", f"{pid!r} is fixed to the board")
        self._may_use(a, pid, None)
        d = np.asarray(a["direction"], dtype=float)
        if np.linalg.norm(d) == 0.0:
            raise a.fail("direction", "must not be zero")
        pose = self.world.pose(pid)
        at = pose[:3] if a["at"] is None else np.asarray(a["at"], dtype=float) / 1000.0
        self.undo.push(Entry(f"poke {pid}", self._moment()))
        self._note("poke", pid)
        self.world.push(pid, at, piece.mass * a["speed"] * d / np.linalg.norm(d))

    def _do_add(self, a: Action) -> None:
        hand = self._hand(a, holding=False)
        if hand in self.hands:
            raise a.fail("hand", f"the {hand} hand already holds {self.hands[hand].piece!r}; set it down first")
        params = dict(a["params"])
        try:
            probe = Piece("new", a["kind"], params)
            probe.shape  # noqa: B018 - builds it: an unknown kind or parameter fails here
        except (TowerlabError, TypeError, KeyError, ValueError) as e:
            raise a.fail("kind", f"not a piece of the catalogue: {e}") from None
        for pid in sorted(self.supply, key=self.world.ids.index):
            p = self.world.piece(pid)
            if p.kind == probe.kind and dict(p.params) == dict(probe.params) and pid not in self._held():
                self._may_use(a, pid, hand)
                self._take(pid, hand, "add")
                return
        self._may_use(a, None, hand, "kind")
        self._carry_ids += 1
        self.undo.push(Entry(f"add {probe.kind}", self._moment(), hand, self._carry_ids))
        pid = self._new_id(probe.kind)
        xy = self._beside() if a["at"] is None else np.asarray(a["at"][:2], dtype=float) / 1000.0
        fp = footprint(probe.shape.vertices, (0.0, 0.0, 0.0, 1.0))
        surface, _ = support_height(self.world.ray_tests, xy, fp.samples, floor=self.camera.floor)
        pos = (float(xy[0]), float(xy[1]), surface - fp.bottom + CLEARANCE)
        piece = Piece(pid, probe.kind, params, pos, (0.0, 0.0, 0.0, 1.0), owner=self.player)
        self.world.add_piece(piece)
        pose = self.world.pose(pid)
        self.world.grab(hand, pid)
        self.hands[hand] = HandState(pid, pose[:2].copy(), pose[3:].copy(), pose.copy(), self._carry_ids)
        self._from_supply[self._carry_ids] = frozenset()
        self._note("add", pid, hand)
        self._session_event("picked", (pid,), "add", pid, hand)
        self._plan_hands()

    def _held(self) -> set[str]:
        return {pid for s in self.hands.values() for pid in s.pieces}

    def in_hand(self) -> set[str]:
        """Every piece a hand holds (a group's too)."""
        return self._held()

    def carry_plans(self) -> list:
        """Every carried piece's plan this frame (:class:`~sim.viewer.control.hands.Carry`, a group's one a piece):
        its ghost, its footprint."""
        return [c for k in self.carries.values() for c in k.all]

    def ghost_refusals(self) -> dict[str, str]:
        """Carried piece -> why a plug-in would reject it set down where its ghost is now (asked of
        :meth:`~sim.viewer.control.plugins.SessionPlugin.judge_ghost`: the window draws those ghosts red); the pieces it
        would accept, and those not yet judged, are not in it."""
        out = {}
        for c in self.carry_plans():
            for p in self.plugins:
                reason = p.judge_ghost(self, c.hand, c.piece, c.ghost)
                if reason:
                    out[c.piece] = reason
                    break
        return out

    def _new_id(self, kind: str) -> str:
        stem = kind.split(".")[-1]
        taken = set(self.world.ids)
        k = 1
        while f"{stem}-{k}" in taken:
            k += 1
        return f"{stem}-{k}"

    def _beside(self) -> np.ndarray:
        """A free place on the table beside the board (to the front right)."""
        b = self.scene0.board_info
        half = 0.0 if b.shape is None else float(b.shape.extent[0]) / 2
        return np.array([half + 0.06, -half - 0.02 if half else 0.0])

    def _do_remove(self, a: Action) -> None:
        pid = self._piece_id(a)
        for hand, s in self.hands.items():
            if s.group and pid in s.pieces:
                raise a.fail("piece", f"{pid!r} is in the {hand} hand's group: set the group down first")
        self._may_use(a, pid, None)
        self.undo.push(Entry(f"remove {pid}", self._moment()))
        for hand, s in list(self.hands.items()):
            if s.piece == pid:
                del self.hands[hand]
                self.carries.pop(hand, None)
                self.undo.fold(s.carry, f"remove {pid}")
        self._note("remove", pid)
        self.world.remove_piece(pid)
        self.supply.discard(pid)
        self.world.set_supply(self.supply)
        if self.hovered == pid:
            self.hovered = None

    def _plan_hands(self) -> None:
        """Where each hand takes its piece this frame (and the ghost of where it would land)."""
        if not self.hands:
            self.carries = {}
            return
        scene = self._planning = _LiveScene.over(getattr(self, "_planning", None), self.world, self.scene0,
                                                 self.supply)
        skip = self._held()
        self.carries = {}
        for hand, s in self.hands.items():
            if s.group:
                c = plan_group(scene, hand, s, {pid: self.world.pose(pid) for pid in s.pieces},
                               self.world.ray_tests, skip, self.camera.floor, self.world.revision)
                for m in c.members:
                    self.world.move_hand(member_hand(hand, m.piece), m.target)
            else:
                c = plan(scene, hand, s, self.world.pose(s.piece), self.world.ray_tests, skip, self.camera.floor,
                         self.world.revision)
            self.carries[hand] = c
            self.world.move_hand(hand, c.target)

    def _settle_hands(self) -> None:
        """Let go of pieces that reached their landing place (or were blocked long enough)."""
        for hand, s in list(self.hands.items()):
            if s.lowering is None or self.hands.get(hand) is not s:  # (a plug-in may have emptied it meanwhile)
                continue
            c = self.carries.get(hand)
            there = c is not None and all(arrived(k, self.world.pose(k.piece)) for k in c.all)
            if there or self.world.time - s.lowering >= SET_DOWN_TIME:
                if s.group:
                    self._set_down_group(hand, s, c, there)
                else:
                    self._set_down(hand, s, c.ghost if there else None)  # set down exactly on its support
                self.hands.pop(hand, None)
                self.carries.pop(hand, None)
                self._update_mode()

    def _set_down(self, hand: str, s: HandState, landing) -> None:
        """A hand lets its piece go at ``landing`` (7,) (None: where it is). The plug-ins judge the drop
        first, at the pose it lands at: a rejected one goes back where it was picked instead (:meth:`put_back`:
        the plug-in's own put-back, or the controller's), and the drop leaves no undo step."""
        pose = self.world.pose(s.piece) if landing is None else np.asarray(landing, dtype=float)
        if self._rejected(hand, s, (s.piece,), lambda p: p.judge_drop(self, hand, s.piece, pose)):
            return
        self._drops.pop(s.carry, None)
        self._from_supply.pop(s.carry, None)
        if hand in self.world.held():  # a plug-in may have taken the piece over as it judged the drop
            self.world.release(hand, landing)
        self._session_event("dropped", (s.piece,), "drop", s.piece, hand)

    def _rejected(self, hand: str, s: HandState, pieces, judge) -> bool:
        """Whether a plug-in rejects the drop of ``hand``'s ``pieces`` (``judge(plugin)``: its reason or None); a
        rejected drop is put back (unless the plug-in did that itself), said and told."""
        for p in self.plugins:
            reason = judge(p)
            if reason:
                if self.hands.get(hand) is s:  # no plug-in put it back as it judged
                    self.put_back(hand)
                self._note("rejected drop", s.piece, hand)
                self.say(reason, "refused")
                self._session_event("rejected", tuple(pieces), "drop", s.piece, hand, {"reason": reason})
                return True
        return False


class _Placed(NamedTuple):
    id: str
    kind: str
    pos: tuple
    quat: tuple
    shape: object


class _LiveScene:
    """The scene now for the hands' planning: its pieces are read from the live world only when asked
    (Talo's grid needs none of them; Babylon's spots and Tohuwabohu's points do), the supply's left out (a
    tower waiting in the supply is no place to build on). Kept from frame to frame (:meth:`over`): a piece's
    record stays the same object while its pose does, so that what is looked up from the records (Babylon's
    places) is kept too."""

    def __init__(self, world, scene0: Scene, supply=()):
        self._world = world
        self._scene0 = scene0
        self.game = scene0.game
        self.board_info = scene0.board_info
        self._supply = frozenset(supply)
        self._pieces = None
        self._records: dict[str, _Placed] = {}
        self._seen = None  # (revision, ids, poses) the records are of

    @classmethod
    def over(cls, last: _LiveScene | None, world, scene0: Scene, supply) -> _LiveScene:
        """The scene of this frame: ``last`` brought up to date, or a new one (another world or board)."""
        if last is None or last._world is not world or last._scene0 is not scene0:
            return cls(world, scene0, supply)
        last._supply = frozenset(supply)
        last._pieces = None
        return last

    def piece(self, piece_id: str):
        return self._world.piece(piece_id)

    @property
    def pieces(self):
        """The pieces as (id, kind, pos, quat, shape) records at their poses now (no scene is built)."""
        if self._pieces is None:
            w = self._world
            ids, poses, revision = list(w.ids), w.poses(), w.revision
            seen = self._seen
            if seen is not None and seen[0] == revision and seen[1] == ids and seen[2].shape == poses.shape:
                # the pieces that moved (to the bit: -0.0 is not 0.0 to what is worked out from a record)
                rows = np.flatnonzero((poses.view(np.int64) != seen[2].view(np.int64)).any(axis=1)).tolist()
            else:  # another configuration: pieces may have come or gone
                rows, self._records = range(len(ids)), {}
            for k in rows:
                i, piece, p = ids[k], w.piece(ids[k]), poses[k].tolist()
                self._records[i] = _Placed(i, piece.kind, tuple(p[:3]), tuple(p[3:]), piece.shape)
            self._seen = (revision, ids, poses)
            self._pieces = [self._records[i] for i in ids if i not in self._supply]
        return self._pieces
