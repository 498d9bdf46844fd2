"""The viewer's controller: the session's state, the actions that change it, the undo stack and time.

It imports no Panda3D. A front end (the window, or a script runner) calls
:meth:`Controller.apply` with :class:`~sim.viewer.control.actions.Action` values and
:meth:`Controller.tick` (or :meth:`Controller.run`) once per frame, and draws
what it reads back: the live world's poses, the hands' ghosts, the stability
verdict, the messages. Requests only a front end can serve (a screenshot) wait
in :attr:`Controller.requests`.

The session's state is one :class:`~sim.viewer.control.state.SessionState`; the actions are done by
concept in parts composed over it (:class:`~sim.viewer.control.state.Part`, in ``sim.viewer.control``):
``building`` (hands and pieces), ``grouping`` (groups of pieces in one hand), ``pulling`` (a spring pulling a
piece), ``timeline`` (undo, time), ``files`` (save, load, recover), ``viewing`` (camera, toggles, pixels),
``saving`` (the session as data: a saved game) and ``port`` (the named operations a game's referee changes the
table by: ``controller.port``). The controller keeps the services they share (what it says, who may use a
piece, the session's moments) and dispatches each action to the part that declares it.
Plug-ins (:class:`~sim.viewer.control.plugins.SessionPlugin`: a game's referee, the
session's recording) watch, veto and extend them (docs/viewer.md, "Extending the viewer").
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sim.names import listing
from sim.scene import Scene
from sim.viewer.control.actions import HANDS, SPECS, UNDOABLE, Action, RefusalError
from sim.viewer.control.building import Building
from sim.viewer.control.camera import OrbitCamera
from sim.viewer.control.files import Files
from sim.viewer.control.grouping import Grouping
from sim.viewer.control.hands import seat_hands
from sim.viewer.control.history import Entry, Moment, TimeHistory, UndoStack
from sim.viewer.control.inspect import Describer
from sim.viewer.control.live import LastAction, LiveEvent, ViewerWorld
from sim.viewer.control.modes import ModeMachine, mode_of
from sim.viewer.control.plugins import SessionPlugin
from sim.viewer.control.port import Port
from sim.viewer.control.pulling import Pulling
from sim.viewer.control.recovery import Recovery
from sim.viewer.control.saving import Saving
from sim.viewer.control.state import SessionState, dispatch_table, forwarded
from sim.viewer.control.timeline import FRAME, TimeActions
from sim.viewer.control.viewing import Request, Viewing

__all__ = ["FRAME", "Controller", "Message", "Request", "Toggles"]

HANDS_PER_GAME = {"tohuwabohu": 2, "free": 2, "talo": 1, "babylon": 1}
"""How many hands a player builds with: Tohuwabohu's rule is two hands, one piece in each."""
MAX_FRAME = 0.1
"""A frame longer than this (s, a stall) counts as this long: time never jumps."""
QUIET_FRAMES = 15
"""Frames in a row a script waits to see nothing move (a piece let go rests for an instant before it settles)."""
QUIET_LIMIT = 10.0
"""Simulated seconds a script waits at most after an action for the world to come to rest."""


@dataclass(frozen=True)
class Message:
    """Something the window says: a collapse, a verdict, an error.

    Attributes:
        text: one line.
        kind: ``collapse``, ``verdict``, ``error``, ``refused`` (a plug-in said no) or ``info``.
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


class Controller:
    """A viewer session on a live world.

    Args:
        scene: the scene to start with.
        source: the file it came from (saves and autosaves name it), or None.
        world_factory: ``world_factory(scene) -> ViewerWorld`` (default :class:`WorldAdapter`, statics threaded
            unless ``threaded`` is False).
        threaded: judge the statics on a worker thread (the window); scripts and tests judge at once.
        recovery: the autosave file, or None for none.
        size: the window's size (pixels), for the camera.
        supply: ids of the pieces that make up the supply (set beside the board).
        player: who is building (events name them; a hot-seat plug-in changes it turn by turn).
        seats: where everyone builds at once with hands of their own (a served table), the players: each gets
            hands named after them (:meth:`hands_for`) instead of the one player's ``right`` and ``left``.
        clock: wall-clock seconds (autosave; injected in tests).
        plugins: :class:`~sim.viewer.control.plugins.SessionPlugin` s, asked in this order.

    Attributes:
        session_time: the session clock (s): wall seconds of the window's frames, 1/60 s per scripted frame;
            it never goes back (an undo does not turn it back), paused or not.
        events: every event of the session so far (:class:`~sim.viewer.control.live.LiveEvent`).
    """

    def __init__(self, scene: Scene, *, source: str | None = None, world_factory: Callable | None = None,
                 threaded: bool = True, recovery: Recovery | None = None, size=(1280, 800), supply=(),
                 player: str | None = None, seats: tuple[str, ...] = (), clock: Callable[[], float] = time.monotonic,
                 plugins: tuple[SessionPlugin, ...] | list[SessionPlugin] = ()):
        self.state = SessionState(list(plugins), recovery, clock, OrbitCamera(size), Toggles(), ModeMachine(),
                                  player=player, active_hand=HANDS[0])
        if seats:
            self.state.seat_hands = seat_hands(seats, HANDS_PER_GAME.get(scene.game, 1))
            self.state.active_hand = next(iter(self.state.seat_hands))
        self.building, self.grouping, self.pulling = Building(self), Grouping(self), Pulling(self)
        self.timeline, self.files, self.viewing = TimeActions(self), Files(self), Viewing(self)
        self.saving, self.port = Saving(self), Port(self)
        parts = {type(p): p for p in (self.building, self.grouping, self.pulling, self.timeline, self.files,
                                      self.viewing, self.saving, self.port)}
        self._handlers = {name: (parts[cls], do) for name, (cls, do) in ACTION_TABLE.items()}
        self._own_actions: dict[str, SessionPlugin] = {}
        for p in self.plugins:
            for name in p.actions:
                if name in self._own_actions or name in _BUILT_IN:
                    raise ValueError(f"{p.name}: the action {name!r} is taken")
                self._own_actions[name] = p
        self._factory = world_factory or (lambda s: _live_world(s, threaded))
        self.start(scene, source, frozenset(supply))

    # --- the session ---------------------------------------------------------------------------

    def start(self, scene: Scene, source: str | None, supply: frozenset) -> None:
        """Begin the session (again) on ``scene``: a new world, empty hands, a fresh undo stack and history."""
        if self.world is not None:
            self.world.close()
        self.scene0 = scene
        self.source = source
        self.world = self._factory(scene)
        st = self.state
        st.hands, st.carries, st.supply, st.following = {}, {}, set(supply), None
        st.undo, st.history, st.describer = UndoStack(), TimeHistory(), Describer()
        st.carry_ids, st.drops, st.from_supply = 0, {}, {}
        self.world.set_supply(self.supply)
        self.camera.floor = -scene.board_info.thickness
        self.camera.start(scene)
        for p in self.plugins:
            p.attach(self)
        self.initial = self.moment()
        self.history.record(self.initial)
        self.dirty = True
        self.update_mode()

    @property
    def game(self) -> str:
        return self.scene0.game

    @property
    def hand_names(self) -> tuple[str, ...]:
        """The hands actions may name: the player's ``right`` (and ``left`` where the game has two), or, with
        hands per seat, every seat's (:meth:`hands_for`)."""
        if self.state.seat_hands:
            return tuple(self.state.seat_hands)
        return HANDS[:HANDS_PER_GAME.get(self.game, 1)]

    def hands_for(self, player: str) -> tuple[str, ...]:
        """``player``'s own hands where each seat has hands of its own (its name, and ``NAME-left`` where the
        game is built with two), first the one an action without a ``hand`` uses; none at the hot seat."""
        return tuple(h for h, p in self.state.seat_hands.items() if p == player)

    def player_of(self, hand: str | None) -> str | None:
        """Whose ``hand`` it is: the player who picked up what it holds, its seat's where each seat has hands of its
        own, else the session's one player (so too for what no hand does: a poke, a pull)."""
        s = self.hands.get(hand) if hand is not None else None
        if s is not None and s.player is not None:
            return s.player
        return self.state.seat_hands.get(hand, self.player)

    @property
    def mode(self) -> str:
        return self.modes.state

    def scene(self) -> Scene:
        """The pieces as they are now."""
        return self.world.scene()

    def saved_scene(self) -> Scene:
        """What a save writes: the pieces now, each carried piece where it would land."""
        scene = self.world.scene()
        ghosts = {c.piece: c.ghost for c in self.carry_plans()}
        return scene.with_poses(ghosts) if ghosts else scene

    def say(self, text: str, kind: str = "info") -> None:
        self.messages.append(Message(text, kind, self.world.time))

    def report(self, error: Exception) -> None:
        """Say why an action asked for in the window was not done: once (a refusal by the rules was said as it
        was made), its reason without the action's place (a window's action has no file or line)."""
        if isinstance(error, RefusalError):
            return
        self.say(getattr(error, "reason", None) or str(error), "error")

    def close(self) -> None:
        """End the session: a last autosave, marked clean, the plug-ins told, and the world freed."""
        if self.recovery is not None:
            self.recovery.save(self.saved_scene(), self.source, clean=True, supply=self.supply)
        for p in self.plugins:
            p.close(self)
        self.world.close()

    # --- actions -------------------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Do one action.

        Raises:
            ActionError: it cannot be done (no such piece, the hand is full, nothing to drop, ...).
            RefusalError: a plug-in (the game's rules) refused it; the reason is said as a message too.
        """
        for p in self.plugins:
            reason = p.check(self, action)
            if reason:
                self.say(reason, "refused")
                raise action.refuse(None, reason)
        owner = self._own_actions.get(action.name)
        if action.name in UNDOABLE or (owner is not None and action.name in owner.undoable):
            self.history.go_live()
        self.applying = action
        try:
            if owner is not None:
                if action.name in owner.undoable:
                    self.undo.push(Entry(action.name, self.moment()))
                owner.perform(self, action)
            elif action.name in _BUILT_IN:
                part, do = self._handlers[action.name]
                do(part, action)
            else:
                raise action.fail(None, f"no plug-in of this session does {action.name!r}")
        finally:
            self.applying = None
        self.dirty = True
        self.update_mode()
        for p in self.plugins:
            p.applied(self, action)

    def may_use(self, a: Action, piece: str | None, hand: str | None, key: str = "piece") -> None:
        """Refuse (ActionError, and a message) when a plug-in does not let the player use the piece or hand now."""
        for p in self.plugins:
            reason = p.may_use(self, piece, hand)
            if reason:
                self.say(reason, "refused")
                raise a.refuse(key, reason)

    def session_event(self, kind: str, pieces: tuple[str, ...], action: str, piece: str | None,
                       hand: str | None, data: dict | None = None) -> None:
        """An event of the controller's own (picked, dropped, rejected, restored), told like the world's."""
        player = self.player_of(hand)
        e = LiveEvent(self.world.time, kind, pieces, LastAction(action, piece, hand, player, self.world.time))
        self.events.append(e)
        for p in self.plugins:
            p.event(self, e)

    def update_mode(self) -> None:
        self.modes.go(mode_of(bool(self.hands), self.history.browsing))

    def moment(self) -> Moment:
        return Moment(self.world.snapshot(), {h: s.copy() for h, s in self.hands.items()},
                      frozenset(self.supply), tuple(p.state() for p in self.plugins))

    def restore(self, moment: Moment, why: str = "restore") -> None:
        self.world.restore(moment.snapshot)
        self.hands = moment.hands_copy()
        self.carries = {}
        self.supply = set(moment.supply)
        self.world.set_supply(self.supply)
        for p, state in zip(self.plugins, moment.plugins):
            p.restore(state)
        self.building.plan_hands()
        self.session_event("restored", (), why, None, None)

    def note(self, name: str, piece: str | None = None, hand: str | None = None) -> None:
        self.world.note_action(LastAction(name, piece, hand, self.player_of(hand)))

    def hand_of(self, action: Action, holding: bool) -> str:
        hand = action["hand"] or self.active_hand
        if hand not in self.hand_names:
            if self.state.seat_hands:
                raise action.fail("hand", f"expected a seat's hand ({', '.join(self.hand_names)}), got {hand!r}")
            raise action.fail("hand", f"{self.game} is built with one hand at a time (the right)")
        if holding and hand not in self.hands:
            raise action.fail("hand", f"the {hand} hand holds nothing")
        return hand

    def piece_id(self, action: Action, key: str = "piece") -> str:
        pid = action[key]
        if pid not in self.world.ids:
            raise action.fail(key, f"no piece {pid!r} in the scene")
        return pid

    # --- time ------------------------------------------------------------------------------------

    def tick(self, seconds: float, budget: float | None = None):
        """One frame of the window: ``seconds`` of wall time went by; the world advances by that
        times the speed (unless paused), spending at most ``budget`` wall seconds.

        Returns:
            The live world's :class:`~sim.viewer.control.live.Advance`, or None when paused.
        """
        seconds = min(max(seconds, 0.0), MAX_FRAME)
        self.camera.tick(seconds)
        self._autosave()
        self._tick_plugins(seconds)
        if self.paused:
            self.building.plan_hands()
            return None
        return self._advance(seconds * self.speed, budget)

    def _tick_plugins(self, dt: float) -> None:
        self.session_time += dt
        for p in self.plugins:
            p.tick(self, dt)

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
        self._tick_plugins(FRAME)
        return self._advance(FRAME, None)

    def quiet(self) -> bool:
        """Every hand has set down its piece or holds it at its target, and nothing else moves."""
        if any(s.lowering is not None for s in self.hands.values()) or any(p.busy(self) for p in self.plugins):
            return False
        carried = self.building.held()
        for c in self.carry_plans():
            if np.linalg.norm(self.world.pose(c.piece)[:3] - c.target[:3]) > 2e-3:
                return False
        return not [i for i in self.world.moving() if i not in carried]

    def _advance(self, seconds: float, budget: float | None):
        self.building.plan_hands()
        adv = self.world.advance(seconds, budget)
        # the real-time factor over the last second or so: simulated over asked-for seconds
        self.state.rtf = [(a, s) for a, s in self.state.rtf[-59:]] + [(seconds, adv.simulated)]
        asked = sum(a for a, _ in self.state.rtf)
        self.real_time_factor = sum(s for _, s in self.state.rtf) / asked if asked > 0 else 1.0
        for e in adv.events:
            self._event(e)
        self.building.settle_hands()
        if self.history.due(self.world.time) and self._may_step_back():
            self.history.record(self.moment())
        for p in self.plugins:
            p.advanced(self, adv)
        self.viewing.follow_camera()
        return adv

    def _may_step_back(self) -> bool:
        """Whether the plug-ins let the time go back now (a game's referee never does): the time history is
        kept only while it may be used."""
        return not any(p.check(self, _STEP_BACK) for p in self.plugins)

    def _event(self, e: LiveEvent) -> None:
        self.events.append(e)
        for p in self.plugins:
            p.event(self, e)
        if e.kind == "knocked_down":
            cause = f" after the {e.cause.describe()}" if e.cause is not None else ""
            self.say(f"collapse: {listing(e.pieces)} knocked down{cause}", "collapse")

    def _autosave(self) -> None:
        due = self.recovery is not None and self.recovery.due()
        if due and not self.recovery.save(self.saved_scene(), self.source, supply=self.supply) and self.recovery.error:
            self.say(self.recovery.error, "error")

    # --- reading ---------------------------------------------------------------------------------

    def verdict(self, wait: bool = False):
        """The statics' latest verdict (see :meth:`ViewerWorld.verdict`)."""
        return self.world.verdict(wait)

    def describe(self, piece_id: str) -> dict:
        """What the hover panel says of a piece: kind, mass, owner, what it rests on and what it carries."""
        return self.describer.describe(self.world, self.verdict(), piece_id)

    # --- what the parts answer (the window and the plug-ins ask the controller) ------------------------

    def carry_plans(self) -> list:
        """Every carried piece's plan this frame (:meth:`Building.carry_plans`)."""
        return self.building.carry_plans()

    def ghost_refusals(self) -> dict[str, str]:
        """Carried piece -> why a plug-in would reject it where its ghost is (:meth:`Building.ghost_refusals`)."""
        return self.building.ghost_refusals()

    def in_hand(self) -> set[str]:
        """Every piece a hand holds (a group's too)."""
        return self.building.held()

    def put_back(self, hand: str) -> str:
        """What ``hand`` holds goes back where it was picked up (:meth:`Building.put_back`): the piece."""
        return self.building.put_back(hand)

    def point_at(self, px: float, py: float) -> np.ndarray:
        """The point under pixel (px, py) (:meth:`Viewing.point_at`)."""
        return self.viewing.point_at(px, py)

    def surface_at(self, px: float, py: float, skip=None) -> np.ndarray | None:
        """The first surface under pixel (px, py) (:meth:`Viewing.surface_at`)."""
        return self.viewing.surface_at(px, py, skip)

    def piece_at(self, px: float, py: float) -> str | None:
        """The piece under pixel (px, py), or None (:meth:`Viewing.piece_at`)."""
        return self.viewing.piece_at(px, py)

    def pieces_in_box(self, corner, other) -> list[str]:
        """The pieces within a box on the screen (:meth:`Viewing.pieces_in_box`)."""
        return self.viewing.pieces_in_box(corner, other)

    def piece_rect(self, piece_id: str) -> tuple[float, float, float, float] | None:
        """Where a piece is on the screen (:meth:`Viewing.piece_rect`)."""
        return self.viewing.piece_rect(piece_id)

    def table_point(self, px: float, py: float, height: float) -> np.ndarray | None:
        """The point at ``height`` under pixel (px, py) (:meth:`Viewing.table_point`)."""
        return self.viewing.table_point(px, py, height)

    def prepare_undo(self, budget: float | None = None) -> bool:
        """Make the next undo and redo cheap ahead of time (:meth:`TimeActions.prepare_undo`)."""
        return self.timeline.prepare_undo(budget)

    def session_data(self) -> dict:
        """The session as JSON data (:meth:`Saving.session_data`)."""
        return self.saving.session_data()

    def restore_session(self, field, scene) -> None:
        """Go on from :meth:`session_data`'s data (:meth:`Saving.restore_session`)."""
        self.saving.restore_session(field, scene)


for _name in (f.name for f in dataclasses.fields(SessionState)):
    setattr(Controller, _name, forwarded(_name))


PARTS = (Building, Grouping, Pulling, TimeActions, Files, Viewing, Saving, Port)
"""The controller's parts (each kept in an attribute of its own: ``controller.building`` ... ``controller.port``)."""
ACTION_TABLE = dispatch_table(PARTS)
"""The built-in actions' table, made (and checked) once, when the controller is imported."""


def _live_world(scene: Scene, threaded: bool) -> ViewerWorld:
    """The default world: the live physics (:class:`~sim.viewer.control.adapter.WorldAdapter`), imported when the first
    session starts, so that importing the controller loads no physics engine."""
    from sim.viewer.control.adapter import WorldAdapter

    return WorldAdapter(scene, threaded_statics=threaded)


_STEP_BACK = Action("step-back", {"seconds": 0.1})
"""What a plug-in is asked whether it would refuse, before a moment of the time history is kept."""
_BUILT_IN = frozenset(SPECS)
"""The built-in actions' names (a plug-in cannot take them)."""
