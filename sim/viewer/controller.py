"""The viewer's controller: the session's state, the actions that change it, the undo stack and time.

It imports no Panda3D. A front end (the window, or a script runner) calls
:meth:`Controller.apply` with :class:`~sim.viewer.actions.Action` values and
:meth:`Controller.tick` (or :meth:`Controller.run`) once per frame, and draws
what it reads back: the live world's poses, the hands' ghosts, the stability
verdict, the messages. Requests only a front end can serve (a screenshot) wait
in :attr:`Controller.requests`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from sim.errors import TowerlabError
from sim.scene import Piece, Scene, load_scene, save_scene
from sim.viewer.actions import HANDS, UNDOABLE, Action
from sim.viewer.adapter import WorldAdapter
from sim.viewer.camera import OrbitCamera
from sim.viewer.carry import CLEARANCE, footprint, support_height, tip_over, turn_about_vertical
from sim.viewer.hands import SET_DOWN_TIME, Carry, HandState, arrived, plan
from sim.viewer.history import Entry, Moment, TimeHistory, UndoStack
from sim.viewer.inspect import Describer
from sim.viewer.live import LastAction, LiveEvent, LiveWorld
from sim.viewer.modes import ModeMachine, mode_of
from sim.viewer.recovery import Recovery

FRAME = 1.0 / 60.0
"""Simulated seconds per frame of a scripted run (and of a single step)."""
HANDS_PER_GAME = {"tohuwabohu": 2, "free": 2, "talo": 1, "babylon": 1}
"""How many hands a player builds with: Tohuwabohu's rule is two hands, one piece in each."""
MAX_FRAME = 0.1
"""A frame longer than this (s, a stall) counts as this long: time never jumps."""
PICK_LIFT = 0.004
"""How far (m) a picked-up piece is first taken straight up, clear of its contacts."""
QUIET_FRAMES = 15
"""Frames in a row a script waits to see nothing move (a piece let go rests for an instant before it settles)."""
QUIET_LIMIT = 10.0
"""Simulated seconds a script waits at most after an action for the world to come to rest."""


@dataclass(frozen=True)
class Message:
    """Something the window says: a collapse, a verdict, an error.

    Attributes:
        text: one line.
        kind: ``collapse``, ``verdict``, ``error`` or ``info``.
        time: simulated time (s).
    """

    text: str
    kind: str = "info"
    time: float = 0.0


@dataclass
class Toggles:
    """What the window shows besides the pieces."""

    contacts: bool = False
    forces: bool = False
    centres: bool = False
    help: bool = False
    stability: bool = True


@dataclass
class Request:
    """Work only the front end can do (a screenshot): ``kind`` and its arguments."""

    kind: str
    args: dict = field(default_factory=dict)


class Controller:
    """A viewer session on a live world.

    Args:
        scene: the scene to start with.
        source: the file it came from (saves and autosaves name it), or None.
        world_factory: ``world_factory(scene) -> LiveWorld`` (default :class:`WorldAdapter`, statics threaded
            unless ``threaded`` is False).
        threaded: judge the statics on a worker thread (the window); scripts and tests judge at once.
        recovery: the autosave file, or None for none.
        size: the window's size (pixels), for the camera.
        supply: ids of the pieces that make up the supply (set beside the board).
        player: who is building (events name them).
        clock: wall-clock seconds (autosave; injected in tests).
    """

    def __init__(self, scene: Scene, *, source: str | None = None, world_factory: Callable | None = None,
                 threaded: bool = True, recovery: Recovery | None = None, size=(1280, 800), supply=(),
                 player: str | None = None, clock: Callable[[], float] = time.monotonic):
        self._factory = world_factory or (lambda s: WorldAdapter(s, threaded_statics=threaded))
        self.recovery = recovery
        self.clock = clock
        self.player = player
        self.camera = OrbitCamera(size)
        self.toggles = Toggles()
        self.modes = ModeMachine()
        self.messages: list[Message] = []
        self.requests: list[Request] = []
        self.events: list[LiveEvent] = []
        self.speed = 1.0
        self.paused = False
        self.real_time_factor = 1.0
        self._rtf: list[tuple[float, float]] = []
        self.hovered: str | None = None
        self.active_hand = HANDS[0]
        self.world: LiveWorld | None = None
        self._start(scene, source, frozenset(supply))

    # --- the session ---------------------------------------------------------------------------

    def _start(self, scene: Scene, source: str | None, supply: frozenset) -> None:
        if self.world is not None:
            self.world.close()
        self.scene0 = scene
        self.source = source
        self.world = self._factory(scene)
        self.hands: dict[str, HandState] = {}
        self.carries: dict[str, Carry] = {}
        self.supply = set(supply)
        self.undo = UndoStack()
        self.history = TimeHistory()
        self.describer = Describer()
        self._carry_ids = 0
        self.world.set_supply(self.supply)
        self.camera.floor = -scene.board_info.thickness
        self.camera.start(scene)
        self.initial = self._moment()
        self.history.record(self.initial)
        self.dirty = True
        self._update_mode()

    @property
    def game(self) -> str:
        return self.scene0.game

    @property
    def hand_names(self) -> tuple[str, ...]:
        return HANDS[:HANDS_PER_GAME.get(self.game, 1)]

    @property
    def mode(self) -> str:
        return self.modes.state

    def scene(self) -> Scene:
        """The pieces as they are now."""
        return self.world.scene()

    def saved_scene(self) -> Scene:
        """What a save writes: the pieces now, each carried piece where it would land."""
        scene = self.world.scene()
        ghosts = {c.piece: c.ghost for c in self.carries.values()}
        return scene.with_poses(ghosts) if ghosts else scene

    def say(self, text: str, kind: str = "info") -> None:
        self.messages.append(Message(text, kind, self.world.time))

    def close(self) -> None:
        """End the session: a last autosave, marked clean, and the world freed."""
        if self.recovery is not None:
            self.recovery.save(self.saved_scene(), self.source, clean=True)
        self.world.close()

    # --- actions -------------------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Do one action.

        Raises:
            ActionError: it cannot be done (no such piece, the hand is full, nothing to drop, ...).
        """
        handler = getattr(self, "_do_" + action.name.replace("-", "_"))
        if action.name in UNDOABLE or action.name in ("add", "remove"):
            self.history.go_live()
        handler(action)
        self.dirty = True
        self._update_mode()

    def _update_mode(self) -> None:
        self.modes.go(mode_of(bool(self.hands), self.history.browsing))

    def _moment(self) -> Moment:
        return Moment(self.world.snapshot(), {h: _copy_hand(s) for h, s in self.hands.items()},
                      frozenset(self.supply))

    def _restore(self, moment: Moment) -> None:
        self.world.restore(moment.snapshot)
        self.hands = moment.hands_copy()
        self.carries = {}
        self.supply = set(moment.supply)
        self.world.set_supply(self.supply)
        self._plan_hands()

    def _note(self, name: str, piece: str | None = None, hand: str | None = None) -> None:
        self.world.note_action(LastAction(name, piece, hand, self.player))

    def _hand(self, action: Action, holding: bool) -> str:
        hand = action["hand"] or self.active_hand
        if hand not in self.hand_names:
            raise action.fail("hand", f"{self.game} is built with one hand at a time (the right)")
        if holding and hand not in self.hands:
            raise action.fail("hand", f"the {hand} hand holds nothing")
        return hand

    def _piece_id(self, action: Action, key: str = "piece") -> str:
        pid = action[key]
        if pid not in self.world.ids:
            raise action.fail(key, f"no piece {pid!r} in the scene")
        return pid

    def _do_pick(self, a: Action) -> None:
        pid = self._piece_id(a)
        hand = self._hand(a, holding=False)
        if hand in self.hands:
            raise a.fail("hand", f"the {hand} hand already holds {self.hands[hand].piece!r}; set it down first")
        for h, s in self.hands.items():
            if s.piece == pid:
                raise a.fail("piece", f"{pid!r} is already in the {h} hand")
        if self.world.piece(pid).fixed:
            raise a.fail("piece", f"{pid!r} is fixed to the board")
        self._take(pid, hand, "pick")

    def _take(self, pid: str, hand: str, name: str) -> None:
        self._carry_ids += 1
        self.undo.push(Entry(f"{name} of {pid}", self._moment(), hand, self._carry_ids))
        pose = self.world.pose(pid)
        self._lift_clear(pid, pose)
        self.world.grab(hand, pid)
        self.hands[hand] = HandState(pid, pose[:2].copy(), pose[3:].copy(), pose.copy(), self._carry_ids)
        self.supply.discard(pid)
        self.world.set_supply(self.supply)
        self._note(name, pid, hand)
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
        s.xy = at[:2].copy()
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
        s.quat = turn_about_vertical(s.quat, a["degrees"])
        self._plan_hands()

    def _do_tip(self, a: Action) -> None:
        _, s = self._step_entry(a, "tip over")
        s.quat = tip_over(s.quat, a["axis"])
        self._plan_hands()

    def _do_drop(self, a: Action) -> None:
        hand, s = self._carrying(a)
        if s.lowering is not None:
            return
        s.free = s.free or a["free"]
        s.lowering = self.world.time
        self.undo.fold(s.carry, f"pick-and-drop of {s.piece}")
        self._note("drop", s.piece, hand)
        self._plan_hands()

    def _do_cancel(self, a: Action) -> None:
        hand, s = self._carrying(a)
        self.world.release(hand)
        self.world.set_pose(s.piece, s.start)
        del self.hands[hand]
        self.carries.pop(hand, None)
        self.undo.drop_carry(s.carry)

    def _do_poke(self, a: Action) -> None:
        pid = self._piece_id(a)
        piece = self.world.piece(pid)
        if piece.fixed:
            raise a.fail("piece", f"{pid!r} is fixed to the board")
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
                self._take(pid, hand, "add")
                return
        self._carry_ids += 1
        self.undo.push(Entry(f"add {probe.kind}", self._moment(), hand, self._carry_ids))
        pid = self._new_id(probe.kind)
        xy = self._beside() if a["at"] is None else np.asarray(a["at"][:2], dtype=float) / 1000.0
        fp = footprint(probe.shape.vertices, (0.0, 0.0, 0.0, 1.0))
        surface, _ = support_height(self.world.ray_test, xy, fp.samples, floor=self.camera.floor)
        pos = (float(xy[0]), float(xy[1]), surface - fp.bottom + CLEARANCE)
        piece = Piece(pid, probe.kind, params, pos, (0.0, 0.0, 0.0, 1.0), owner=self.player)
        self.world.add_piece(piece)
        pose = self.world.pose(pid)
        self.world.grab(hand, pid)
        self.hands[hand] = HandState(pid, pose[:2].copy(), pose[3:].copy(), pose.copy(), self._carry_ids)
        self._note("add", pid, hand)
        self._plan_hands()

    def _held(self) -> set[str]:
        return {s.piece for s in self.hands.values()}

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

    def _do_undo(self, a: Action) -> None:
        entry = self.undo.take_undo(self._moment())
        if entry is None:
            self.say("nothing to undo")
            return
        self._restore(entry.moment)
        self.history.forget_after(entry.moment.time)
        self.say(f"undone: {entry.label}")

    def _do_redo(self, a: Action) -> None:
        entry = self.undo.take_redo(self._moment())
        if entry is None:
            self.say("nothing to redo")
            return
        self._restore(entry.moment)
        self.history.forget_after(entry.moment.time)
        self.say(f"redone: {entry.label}")

    def _do_reset(self, a: Action) -> None:
        self.undo.push(Entry("reset", self._moment()))
        self._restore(self.initial)
        self.history.clear()
        self.history.record(self.initial)
        self.say("back at the start")

    def _do_pause(self, a: Action) -> None:
        self.paused = True

    def _do_resume(self, a: Action) -> None:
        self.paused = False
        self.history.go_live()

    def _do_step(self, a: Action) -> None:
        self.paused = True
        self.history.go_live()
        self.run(a["frames"] * FRAME)

    def _do_speed(self, a: Action) -> None:
        self.speed = a["factor"]

    def _do_step_back(self, a: Action) -> None:
        moment = self.history.back(self.world.time, a["seconds"])
        if moment is None:
            self.say("no history to step back through yet")
            return
        self.paused = True
        self._restore(moment)

    def _do_save(self, a: Action) -> None:
        path = Path(a["path"])
        try:
            save_scene(self.saved_scene(), path)
        except OSError as e:
            reason = e.strerror or str(e)
            self.say(f"could not save {path}: {reason}; nothing was lost", "error")
            raise a.fail("path", f"{path}: cannot be written ({reason})") from None
        self.source = str(path)
        self.say(f"saved {path}")

    def _do_load(self, a: Action) -> None:
        try:
            scene = load_scene(a["path"])
        except TowerlabError as e:
            self.say(str(e), "error")
            raise a.fail("path", str(e)) from None
        self._start(scene, str(a["path"]), frozenset())
        self.say(f"loaded {a['path']}")

    def _do_recover(self, a: Action) -> None:
        found = None if self.recovery is None else self.recovery.pending()
        if found is None:
            raise a.fail(None, "there is no unfinished session to recover")
        self._start(found.scene, found.source, frozenset())
        self.say("recovered the last session" + (f" ({found.source})" if found.source else ""))

    def _do_camera(self, a: Action) -> None:
        name = a["preset"]
        if name == "reset":
            self.camera.reset()
        elif name == "frame":
            self.camera.frame(self.scene())
        else:
            self.camera.preset(name, self.scene())

    def _do_orbit(self, a: Action) -> None:
        self.camera.orbit(*a["degrees"])

    def _do_pan(self, a: Action) -> None:
        self.camera.pan(*a["fraction"])

    def _do_zoom(self, a: Action) -> None:
        about = None if a["at"] is None else self.point_at(*a["at"])
        self.camera.zoom(a["factor"], about)

    def _do_toggle(self, a: Action) -> None:
        what = a["what"]
        setattr(self.toggles, what, not getattr(self.toggles, what))

    def _do_hover(self, a: Action) -> None:
        pid = a["piece"]
        if pid is not None and pid not in self.world.ids:
            raise a.fail("piece", f"no piece {pid!r} in the scene")
        self.hovered = pid

    def _do_hand(self, a: Action) -> None:
        if a["name"] not in self.hand_names:
            raise a.fail("name", f"{self.game} is built with one hand at a time (the right)")
        self.active_hand = a["name"]

    def _do_wait(self, a: Action) -> None:
        self.run(a["seconds"])

    def _do_screenshot(self, a: Action) -> None:
        size = None if a["size"] is None else tuple(int(x) for x in a["size"])
        self.requests.append(Request("screenshot", {"path": a["path"], "size": size}))

    # --- time ------------------------------------------------------------------------------------

    def tick(self, seconds: float, budget: float | None = None):
        """One frame of the window: ``seconds`` of wall time went by; the world advances by that
        times the speed (unless paused), spending at most ``budget`` wall seconds.

        Returns:
            The live world's :class:`~sim.viewer.live.Advance`, or None when paused.
        """
        seconds = min(max(seconds, 0.0), MAX_FRAME)
        self.camera.tick(seconds)
        self._autosave()
        if self.paused:
            self._plan_hands()
            return None
        return self._advance(seconds * self.speed, budget)

    def run(self, seconds: float) -> None:
        """Advance exactly ``seconds`` of simulated time in frames of :data:`FRAME` (scripts: no budget,
        the same every time)."""
        for _ in range(int(round(seconds / FRAME))):
            self.frame()

    def run_until_quiet(self, limit: float = QUIET_LIMIT) -> float:
        """Advance frame by frame until every hand has set down or reached its target and nothing
        moves (at most ``limit`` simulated seconds); the seconds it took."""
        start = self.world.time
        calm = 0
        while self.world.time - start < limit - 1e-9 and calm < QUIET_FRAMES:
            calm = calm + 1 if self.quiet() else 0
            if calm < QUIET_FRAMES:
                self.frame()
        return self.world.time - start

    def frame(self):
        """One frame of :data:`FRAME` simulated seconds (scripts: no budget, the same every time)."""
        return self._advance(FRAME, None)

    def quiet(self) -> bool:
        """Every hand has set down its piece or holds it at its target, and nothing else moves."""
        if any(s.lowering is not None for s in self.hands.values()):
            return False
        carried = self._held()
        for c in self.carries.values():
            if np.linalg.norm(self.world.pose(c.piece)[:3] - c.target[:3]) > 2e-3:
                return False
        return not [i for i in self.world.moving() if i not in carried]

    def _advance(self, seconds: float, budget: float | None):
        self._plan_hands()
        adv = self.world.advance(seconds, budget)
        # the real-time factor over the last second or so: simulated over asked-for seconds
        self._rtf = [(a, s) for a, s in self._rtf[-59:]] + [(seconds, adv.simulated)]
        asked = sum(a for a, _ in self._rtf)
        self.real_time_factor = sum(s for _, s in self._rtf) / asked if asked > 0 else 1.0
        for e in adv.events:
            self._event(e)
        self._settle_hands()
        if self.history.due(self.world.time):
            self.history.record(self._moment())
        return adv

    def _plan_hands(self) -> None:
        """Where each hand takes its piece this frame (and the ghost of where it would land)."""
        if not self.hands:
            self.carries = {}
            return
        scene = _LiveScene(self.world, self.scene0)
        skip = self._held()
        self.carries = {}
        for hand, s in self.hands.items():
            c = plan(scene, hand, s, self.world.pose(s.piece), self.world.ray_test, skip, self.camera.floor,
                     self.world.revision)
            self.carries[hand] = c
            self.world.move_hand(hand, c.target)

    def _settle_hands(self) -> None:
        """Let go of pieces that reached their landing place (or were blocked long enough)."""
        for hand, s in list(self.hands.items()):
            if s.lowering is None:
                continue
            c = self.carries.get(hand)
            pose = self.world.pose(s.piece)
            there = c is not None and arrived(c, pose)
            if there or self.world.time - s.lowering >= SET_DOWN_TIME:
                self.world.release(hand, c.ghost if there else None)  # set down exactly on its support
                del self.hands[hand]
                self.carries.pop(hand, None)
                self._update_mode()

    def _event(self, e: LiveEvent) -> None:
        self.events.append(e)
        if e.kind == "knocked_down":
            cause = f" after the {e.cause.describe()}" if e.cause is not None else ""
            names = ", ".join(e.pieces[:6]) + (f" and {len(e.pieces) - 6} more" if len(e.pieces) > 6 else "")
            self.say(f"collapse: {names} knocked down{cause}", "collapse")

    def _autosave(self) -> None:
        due = self.recovery is not None and self.recovery.due()
        if due and not self.recovery.save(self.saved_scene(), self.source) and self.recovery.error:
            self.say(self.recovery.error, "error")

    # --- reading ---------------------------------------------------------------------------------

    def verdict(self, wait: bool = False):
        """The statics' latest verdict (see :meth:`LiveWorld.verdict`)."""
        return self.world.verdict(wait)

    def describe(self, piece_id: str) -> dict:
        """What the hover panel says of a piece: kind, mass, owner, what it rests on and what it carries."""
        return self.describer.describe(self.world, self.verdict(), piece_id)

    def point_at(self, px: float, py: float) -> np.ndarray:
        """The world point (m) under a pixel: the first surface, else the table's plane, else the camera's target."""
        origin, d = self.camera.ray(px, py)
        hit = self.world.ray_test(origin, origin + d * 50.0)
        if hit is not None:
            return np.asarray(hit.point, dtype=float)
        if d[2] < -1e-6:
            return origin + d * ((self.camera.floor - origin[2]) / d[2])
        return np.asarray(self.camera.goal.target, dtype=float)

    def surface_at(self, px: float, py: float) -> np.ndarray | None:
        """Where the ray through a pixel meets a piece, the board or the table, passing through the
        carried pieces (the point a carried piece is taken to), or None."""
        origin, d = self.camera.ray(px, py)
        carried = self._held()
        start = origin
        for _ in range(4):
            hit = self.world.ray_test(start, origin + d * 50.0)
            if hit is None:
                return self.table_point(px, py, self.camera.floor)
            if hit.piece not in carried:
                return np.asarray(hit.point, dtype=float)
            start = np.asarray(hit.point, dtype=float) + d * 1e-4
        return None

    def piece_at(self, px: float, py: float) -> str | None:
        """The piece under a pixel (picking with the physics world's ray test), or None."""
        origin, d = self.camera.ray(px, py)
        hit = self.world.ray_test(origin, origin + d * 50.0)
        return hit.piece if hit is not None and hit.piece in self.world.ids else None

    def table_point(self, px: float, py: float, height: float) -> np.ndarray | None:
        """Where the ray through a pixel meets the horizontal plane at ``height`` (m), or None."""
        origin, d = self.camera.ray(px, py)
        if abs(d[2]) < 1e-6:
            return None
        t = (height - origin[2]) / d[2]
        return origin + d * t if t > 0 else None


class _Placed(NamedTuple):
    id: str
    kind: str
    pos: tuple
    quat: tuple
    shape: object


class _LiveScene:
    """The scene now for the hands' planning: its pieces are read from the live world only when asked
    (Talo's grid needs none of them; Babylon's spots and Tohuwabohu's points do)."""

    def __init__(self, world, scene0: Scene):
        self._world = world
        self.game = scene0.game
        self.board_info = scene0.board_info
        self._pieces = None

    def piece(self, piece_id: str):
        return self._world.piece(piece_id)

    @property
    def pieces(self):
        """The pieces as (id, kind, pos, quat, shape) records at their poses now (no scene is built)."""
        if self._pieces is None:
            w = self._world
            self._pieces = [_Placed(i, w.piece(i).kind, tuple(p[:3]), tuple(p[3:]), w.piece(i).shape)
                            for i, p in zip(w.ids, w.poses())]
        return self._pieces


def _copy_hand(s: HandState) -> HandState:
    return HandState(s.piece, s.xy.copy(), s.quat.copy(), s.start.copy(), s.carry, s.lift, s.height, s.free,
                     s.lowering, s.way, s.travel)
