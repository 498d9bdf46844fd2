"""The controller's building actions: hands pick, carry, turn, tip and set down pieces; pieces are added,
removed and poked.

A part of the controller (:class:`~sim.viewer.control.state.Part`): it works on the session's world, hands,
supply and undo stack; its own is only last frame's planning scene.
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
from sim.viewer.control.hands import SET_DOWN_TIME, HandState, arrived, plan, ride, riding_below
from sim.viewer.control.history import Entry
from sim.viewer.control.state import Part

PICK_LIFT = 0.004
"""How far (m) a picked-up piece is first taken straight up, clear of its contacts."""


class Building(Part):
    """Pick, carry, drop, cancel, poke, add and remove (see the module)."""

    ACTIONS = ("pick", "move-to", "lift", "lower", "rotate", "tip", "flip", "orient", "drop", "cancel", "poke", "add",
               "remove")

    _planning: _LiveScene | None = None
    """The scene the hands were planned over last frame (kept: its records are reused)."""

    def _do_pick(self, a: Action) -> None:
        pid = self.ctl.piece_id(a)
        hand = self.ctl.hand_of(a, holding=False)
        if hand in self.state.hands:
            raise a.fail("hand", f"the {hand} hand already holds {self.state.hands[hand].piece!r}; set it down first")
        for h, s in self.state.hands.items():
            if pid in s.pieces:
                raise a.fail("piece", f"{pid!r} is already in the {h} hand")
        if self.state.world.piece(pid).fixed:
            raise a.fail("piece", f"{pid!r} is fixed to the board")
        self.ctl.may_use(a, pid, hand)
        self._take(pid, hand, "pick")

    def _take(self, pid: str, hand: str, name: str) -> None:
        self.state.carry_ids += 1
        self.state.undo.push(Entry(f"{name} of {pid}", self.ctl.moment(), hand, self.state.carry_ids))
        pose = self.state.world.pose(pid)
        self.ctl.note(name, pid, hand)  # first: the live world's records of the lift and the grab name its player
        self._lift_clear(pid, pose)
        self.state.world.grab(hand, pid)
        self.state.hands[hand] = HandState(pid, pose[:2].copy(), pose[3:].copy(), pose.copy(), self.state.carry_ids,
                                           player=self.state.seat_hands.get(hand))
        self.state.from_supply[self.state.carry_ids] = frozenset({pid} & self.state.supply)
        self.state.supply.discard(pid)
        self.state.world.set_supply(self.state.supply)
        self.ctl.session_event("picked", (pid,), name, pid, hand)
        self.plan_hands()

    def _lift_clear(self, pid: str, pose: np.ndarray) -> None:
        """Take a piece straight up off what it stands on, as a hand does first (up to ``PICK_LIFT``, less
        when something lies above it): it leaves its contacts at once, so that a city it stood in rests
        (asleep) while it is carried, instead of being simulated, touch by touch, as the hand works it free."""
        shape = self.state.world.piece(pid).shape
        fp = footprint(shape.vertices, pose[3:])
        room = PICK_LIFT
        top = float(pose[2] + fp.top)
        for dx, dy in fp.samples:
            start = (pose[0] + dx, pose[1] + dy, top - 1e-4)
            hit = self.state.world.ray_test(start, (start[0], start[1], top + PICK_LIFT + 2e-3))
            if hit is not None and hit.piece != pid:
                room = min(room, float(hit.point[2]) - top - 1e-3)
        if room > 1e-3:
            lifted = pose.copy()
            lifted[2] += room
            self.state.world.set_pose(pid, lifted)

    def _carrying(self, a: Action) -> tuple[str, HandState]:
        hand = self.ctl.hand_of(a, holding=True)
        return hand, self.state.hands[hand]

    def _step_entry(self, a: Action, label: str) -> tuple[str, HandState]:
        hand, s = self._carrying(a)
        self.state.undo.push(Entry(f"{label} {s.piece}", self.ctl.moment(), hand, s.carry))
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
        self.plan_hands()

    def _do_lower(self, a: Action) -> None:
        _, s = self._step_entry(a, "lower")
        s.height = None
        s.lift = max(s.lift - a["mm"] / 1000.0, -CLEARANCE)
        self.plan_hands()

    def _do_rotate(self, a: Action) -> None:
        _, s = self._step_entry(a, f"rotate {a['degrees']:g}°")
        turned = turn_about_vertical(s.quat, a["degrees"])
        if s.group:  # a group turns in place, about its middle; the hand holds it where it did
            middle = s.xy + group_middle(s.quat, s.group)
            xy = middle - group_middle(turned, s.group)
            s.grip = s.grip + (xy - s.xy)
            s.xy = xy
        s.quat = turned
        self.plan_hands()

    def _do_tip(self, a: Action) -> None:
        self._one_piece(a, "tipped over")
        _, s = self._step_entry(a, "tip over")
        s.quat = tip_over(s.quat, a["axis"])
        self.plan_hands()

    def _do_flip(self, a: Action) -> None:
        self._one_piece(a, "flipped")
        _, s = self._step_entry(a, "flip over")
        s.quat = flip_over(s.quat)
        self.plan_hands()

    def _do_orient(self, a: Action) -> None:
        self._one_piece(a, "turned to an orientation")
        q = np.asarray(a["quat"], dtype=float)
        n = float(np.linalg.norm(q))
        if n < 1e-6:
            raise a.fail("quat", "must not be all zero (a quaternion of length 1 is an orientation)")
        _, s = self._step_entry(a, "orient")
        s.quat = q / n
        self.plan_hands()

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
        s.lowering = self.state.world.time
        what = listing(s.pieces) if s.group else s.piece
        self.state.drops[s.carry] = self.state.undo.fold(s.carry, f"pick-and-drop of {what}")
        self.ctl.note("drop", what, hand)
        self.plan_hands()

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
        s = self.state.hands[hand]
        if s.group:
            self.ctl.grouping.cancel_group(hand, s)
        else:
            self.state.world.release(hand, s.start)  # let go exactly where it was picked
            self.state.supply |= self.state.from_supply.pop(s.carry, frozenset())
            self.state.world.set_supply(self.state.supply)
        del self.state.hands[hand]
        self.state.carries.pop(hand, None)
        entry = self.state.drops.pop(s.carry, None)
        if entry is not None:
            self.state.undo.forget(entry)  # it was being set down: that drop did not happen
        self.state.undo.drop_carry(s.carry)
        self.ctl.update_mode()
        return s.piece

    def _do_poke(self, a: Action) -> None:
        pid = self.ctl.piece_id(a)
        piece = self.state.world.piece(pid)
        if piece.fixed:
            raise a.fail("piece", f"{pid!r} is fixed to the board")
        self.ctl.may_use(a, pid, None)
        d = np.asarray(a["direction"], dtype=float)
        if np.linalg.norm(d) == 0.0:
            raise a.fail("direction", "must not be zero")
        pose = self.state.world.pose(pid)
        at = pose[:3] if a["at"] is None else np.asarray(a["at"], dtype=float) / 1000.0
        self.state.undo.push(Entry(f"poke {pid}", self.ctl.moment()))
        self.ctl.note("poke", pid)
        self.state.world.push(pid, at, piece.mass * a["speed"] * d / np.linalg.norm(d))

    def _do_add(self, a: Action) -> None:
        hand = self.ctl.hand_of(a, holding=False)
        if hand in self.state.hands:
            raise a.fail("hand", f"the {hand} hand already holds {self.state.hands[hand].piece!r}; set it down first")
        params = dict(a["params"])
        try:
            probe = Piece("new", a["kind"], params)
            probe.shape  # noqa: B018 - builds it: an unknown kind or parameter fails here
        except (TowerlabError, TypeError, KeyError, ValueError) as e:
            raise a.fail("kind", f"not a piece of the catalogue: {e}") from None
        for pid in sorted(self.state.supply, key=self.state.world.ids.index):
            p = self.state.world.piece(pid)
            if p.kind == probe.kind and dict(p.params) == dict(probe.params) and pid not in self.held():
                self.ctl.may_use(a, pid, hand)
                self._take(pid, hand, "add")
                return
        self.ctl.may_use(a, None, hand, "kind")
        self.state.carry_ids += 1
        self.state.undo.push(Entry(f"add {probe.kind}", self.ctl.moment(), hand, self.state.carry_ids))
        pid = self._new_id(probe.kind)
        xy = self._beside() if a["at"] is None else np.asarray(a["at"][:2], dtype=float) / 1000.0
        fp = footprint(probe.shape.vertices, (0.0, 0.0, 0.0, 1.0))
        surface, _ = support_height(self.state.world.ray_tests, xy, fp.samples, floor=self.state.camera.floor)
        pos = (float(xy[0]), float(xy[1]), surface - fp.bottom + CLEARANCE)
        piece = Piece(pid, probe.kind, params, pos, (0.0, 0.0, 0.0, 1.0), owner=self.state.player)
        self.state.world.add_piece(piece)
        pose = self.state.world.pose(pid)
        self.state.world.grab(hand, pid)
        self.state.hands[hand] = HandState(pid, pose[:2].copy(), pose[3:].copy(), pose.copy(), self.state.carry_ids,
                                           player=self.state.seat_hands.get(hand))
        self.state.from_supply[self.state.carry_ids] = frozenset()
        self.ctl.note("add", pid, hand)
        self.ctl.session_event("picked", (pid,), "add", pid, hand)
        self.plan_hands()

    def held(self) -> set[str]:
        return {pid for s in self.state.hands.values() for pid in s.pieces}

    def in_hand(self) -> set[str]:
        """Every piece a hand holds (a group's too)."""
        return self.held()

    def carry_plans(self) -> list:
        """Every carried piece's plan this frame (:class:`~sim.viewer.control.hands.Carry`, a group's one a piece):
        its ghost, its footprint."""
        return [c for k in self.state.carries.values() for c in k.all]

    def ghost_refusals(self) -> dict[str, str]:
        """Carried piece -> why a plug-in would reject it set down where its ghost is now (asked of
        :meth:`~sim.viewer.control.plugins.SessionPlugin.judge_ghost`: the window draws those ghosts red); the pieces it
        would accept, and those not yet judged, are not in it."""
        out = {}
        for c in self.carry_plans():
            for p in self.state.plugins:
                reason = p.judge_ghost(self.ctl, c.hand, c.piece, c.ghost)
                if reason:
                    out[c.piece] = reason
                    break
        return out

    def _new_id(self, kind: str) -> str:
        stem = kind.split(".")[-1]
        taken = set(self.state.world.ids)
        k = 1
        while f"{stem}-{k}" in taken:
            k += 1
        return f"{stem}-{k}"

    def _beside(self) -> np.ndarray:
        """A free place on the table beside the board (to the front right)."""
        b = self.state.scene0.board_info
        half = 0.0 if b.shape is None else float(b.shape.extent[0]) / 2
        return np.array([half + 0.06, -half - 0.02 if half else 0.0])

    def _do_remove(self, a: Action) -> None:
        pid = self.ctl.piece_id(a)
        for hand, s in self.state.hands.items():
            if s.group and pid in s.pieces:
                raise a.fail("piece", f"{pid!r} is in the {hand} hand's group: set the group down first")
        self.ctl.may_use(a, pid, None)
        self.state.undo.push(Entry(f"remove {pid}", self.ctl.moment()))
        for hand, s in list(self.state.hands.items()):
            if s.piece == pid:
                del self.state.hands[hand]
                self.state.carries.pop(hand, None)
                self.state.undo.fold(s.carry, f"remove {pid}")
        self.ctl.note("remove", pid)
        self.state.world.remove_piece(pid)
        self.state.supply.discard(pid)
        self.state.world.set_supply(self.state.supply)
        if self.state.hovered == pid:
            self.state.hovered = None

    def plan_hands(self) -> None:
        """Where each hand takes its piece this frame (and the ghost of where it would land)."""
        if not self.state.hands:
            self.state.carries = {}
            return
        world, floor = self.state.world, self.state.camera.floor
        scene = self._planning = _LiveScene.over(self._planning, world, self.state.scene0, self.state.supply)
        skip = self.held()
        self.state.carries = {}
        rides = self._rides() if len(self.state.hands) > 1 else {}
        for hand, s in self.state.hands.items():
            if s.group:
                c = plan_group(scene, hand, s, {pid: world.pose(pid) for pid in s.pieces}, world.ray_tests, skip,
                               floor, world.revision)
                for m in c.members:
                    world.move_hand(member_hand(hand, m.piece), m.target)
            else:
                below = riding_below(rides[s.piece], rides.values()) if rides else ()
                c = plan(scene, hand, s, world.pose(s.piece), world.ray_tests, skip, floor, world.revision, below)
                if c.blocked and s.lowering is not None:
                    s.lowering = world.time  # its set-down waits until the other hand's piece has left its place
            self.state.carries[hand] = c
            self.state.world.move_hand(hand, c.target)

    def _rides(self) -> dict:
        """Piece -> where each hand's piece rides now (:class:`~sim.viewer.control.hands.Ride`; the hands are
        planned together: of two carries, one goes over the other). A group's pieces are not among them."""
        world = self.state.world
        return {s.piece: ride(s.piece, world.piece(s.piece).shape.vertices, world.pose(s.piece), s.carry)
                for s in self.state.hands.values() if not s.group}

    def settle_hands(self) -> None:
        """Let go of pieces that reached their landing place (or were blocked long enough)."""
        for hand, s in list(self.state.hands.items()):
            if s.lowering is None or self.state.hands.get(hand) is not s:  # (a plug-in may have emptied it meanwhile)
                continue
            c = self.state.carries.get(hand)
            there = c is not None and all(arrived(k, self.state.world.pose(k.piece)) for k in c.all)
            if there or self.state.world.time - s.lowering >= SET_DOWN_TIME:
                if s.group:
                    self.ctl.grouping.set_down_group(hand, s, c, there)
                else:
                    self._set_down(hand, s, c.ghost if there else None)  # set down exactly on its support
                self.state.hands.pop(hand, None)
                self.state.carries.pop(hand, None)
                self.ctl.update_mode()

    def _set_down(self, hand: str, s: HandState, landing) -> None:
        """A hand lets its piece go at ``landing`` (7,) (None: where it is). The plug-ins judge the drop
        first, at the pose it lands at: a rejected one goes back where it was picked instead (:meth:`put_back`:
        the plug-in's own put-back, or the controller's), and the drop leaves no undo step."""
        pose = self.state.world.pose(s.piece) if landing is None else np.asarray(landing, dtype=float)
        if self.rejected(hand, s, (s.piece,), lambda p: p.judge_drop(self.ctl, hand, s.piece, pose)):
            return
        self.state.drops.pop(s.carry, None)
        self.state.from_supply.pop(s.carry, None)
        if hand in self.state.world.held():  # a plug-in may have taken the piece over as it judged the drop
            self.state.world.release(hand, landing)
        self.ctl.session_event("dropped", (s.piece,), "drop", s.piece, hand)

    def rejected(self, hand: str, s: HandState, pieces, judge) -> bool:
        """Whether a plug-in rejects the drop of ``hand``'s ``pieces`` (``judge(plugin)``: its reason or None); a
        rejected drop is put back (unless the plug-in did that itself), said and told."""
        for p in self.state.plugins:
            reason = judge(p)
            if reason:
                if self.state.hands.get(hand) is s:  # no plug-in put it back as it judged
                    self.put_back(hand)
                self.ctl.note("rejected drop", s.piece, hand)
                self.ctl.say(reason, "refused")
                self.ctl.session_event("rejected", tuple(pieces), "drop", s.piece, hand, {"reason": reason})
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
