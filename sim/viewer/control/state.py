"""A viewer session's state in one place, and the parts of the controller that share it.

The controller (:class:`~sim.viewer.control.controller.Controller`) is composed of parts, one a concern —
building (hands and pieces), grouping, pulling, time, files, viewing, saving, the referee's port — each a
:class:`Part` that is handed the controller and reads and changes the one :class:`SessionState` it holds.
A part declares the actions it does (:attr:`Part.ACTIONS`, each by a ``_do_`` method; the controller's
dispatch table is made from them, checked both ways) and asks the controller's own services (say, may use,
moment, restore, the hand an action names) or another part by name (``self.ctl.building.plan_hands()``).
Nothing of the session lives on a part but caches of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sim.scene import Scene
    from sim.viewer.control.camera import OrbitCamera
    from sim.viewer.control.controller import Controller, Message, Toggles
    from sim.viewer.control.hands import Carry, HandState
    from sim.viewer.control.history import Entry, Moment, TimeHistory, UndoStack
    from sim.viewer.control.inspect import Describer
    from sim.viewer.control.live import LiveEvent, ViewerWorld
    from sim.viewer.control.modes import ModeMachine
    from sim.viewer.control.plugins import SessionPlugin
    from sim.viewer.control.recovery import Recovery
    from sim.viewer.control.viewing import Request


@dataclass(eq=False)
class SessionState:
    """Everything a viewer session holds (the controller reads these through attributes of its own name).

    Attributes:
        plugins: the session's plug-ins, asked in this order.
        recovery: the autosave file, or None.
        clock: wall-clock seconds (autosave).
        camera: the orbit camera.
        toggles: what the window shows besides the pieces.
        modes: building, carrying or browsing the history.
        player: who is building now (events name them).
        world: the live world (replaced when a scene is loaded).
        scene0: the scene the session (or its last load) began with.
        source: the file it came from, or None.
        hands: hand -> what it holds.
        carries: hand -> this frame's plan of its carry (ghost, target).
        supply: ids of the pieces waiting in the supply.
        following: the piece the camera follows, or None.
        hovered: the piece under the cursor, or None.
        active_hand: the hand actions without a ``hand`` use.
        seat_hands: hand -> its player, where everyone builds at once with hands of their own (a served table's
            seats: :meth:`~sim.viewer.control.controller.Controller.hands_for`); empty: the hot seat's hands
            (``right``, ``left``), which are the one :attr:`player`'s.
        undo: the undo and redo stacks.
        history: the time history (stepping back).
        describer: what the hover panel says of a piece (cached).
        initial: the session's first moment (reset goes back to it).
        messages: everything said so far.
        requests: what only a front end can serve (screenshots), waiting.
        events: every event of the session so far.
        speed: the simulation's speed (1 real time).
        paused: whether time stands still.
        real_time_factor: simulated over asked-for seconds over the last second or so.
        rtf: the (asked, simulated) seconds of the last frames that factor is of.
        session_time: the session clock (s): it never goes back.
        applying: the action being done, or None.
        dirty: something changed since the window last drew.
        carry_ids: the last carry's number (each pick-up is one).
        drops: carry -> its folded undo step, while it is set down.
        from_supply: carry -> its pieces taken from the supply.
    """

    plugins: list[SessionPlugin]
    recovery: Recovery | None
    clock: Callable[[], float]
    camera: OrbitCamera
    toggles: Toggles
    modes: ModeMachine
    player: str | None = None
    world: ViewerWorld | None = None
    scene0: Scene | None = None
    source: str | None = None
    hands: dict[str, HandState] = field(default_factory=dict)
    carries: dict[str, Carry] = field(default_factory=dict)
    supply: set[str] = field(default_factory=set)
    following: str | None = None
    hovered: str | None = None
    active_hand: str = "right"
    seat_hands: dict[str, str] = field(default_factory=dict)
    undo: UndoStack | None = None
    history: TimeHistory | None = None
    describer: Describer | None = None
    initial: Moment | None = None
    messages: list[Message] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    events: list[LiveEvent] = field(default_factory=list)
    speed: float = 1.0
    paused: bool = False
    real_time_factor: float = 1.0
    rtf: list[tuple[float, float]] = field(default_factory=list)
    session_time: float = 0.0
    applying: Any = None
    dirty: bool = True
    carry_ids: int = 0
    drops: dict[int, Entry | None] = field(default_factory=dict)
    from_supply: dict[int, frozenset] = field(default_factory=dict)


class Part:
    """One concern of the controller: handed the controller, it works on the session's one state.

    Attributes:
        ACTIONS: the actions it does, each by its ``_do_`` method (``move-to`` -> ``_do_move_to``).
        ctl: the controller it is a part of (its services and its other parts).
    """

    ACTIONS: tuple[str, ...] = ()

    def __init__(self, controller: Controller):
        self.ctl = controller

    @property
    def state(self) -> SessionState:
        """The session's state (the controller's one)."""
        return self.ctl.state


def forwarded(name: str) -> property:
    """A property reading and writing the state's ``name`` (the controller's attributes of the same name)."""

    def get(self):
        return getattr(self.state, name)

    def put(self, value) -> None:
        setattr(self.state, name, value)

    return property(get, put, doc=f"The session's ``{name}`` (:class:`SessionState`).")


def dispatch_table(parts) -> dict[str, tuple[type, Callable]]:
    """Action name -> (the part class that does it, its ``_do_`` function), for every built-in action: each
    part's table checked both ways (:func:`sim.dispatch.handler_table`), every spec done by exactly one part.

    Raises:
        TypeError: a part's action without its method (or a method without its action), an action two parts
            do, an action no part does or a part's action no spec declares.
    """
    from sim.dispatch import handler_table
    from sim.viewer.control.actions import SPECS

    table: dict[str, tuple[type, Callable]] = {}
    for part in parts:
        for name, do in handler_table(part, part.ACTIONS, "_do_").items():
            if name in table:
                raise TypeError(f"{name} is done by both {table[name][0].__name__} and {part.__name__}")
            table[name] = (part, do)
    if set(table) != set(SPECS):
        raise TypeError(f"actions without a part: {sorted(set(SPECS) - set(table))}; "
                        f"parts' actions without a spec: {sorted(set(table) - set(SPECS))}")
    return table
