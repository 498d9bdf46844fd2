"""What the viewer needs from a live world: the seam between the viewer and the physics.

The viewer's controller and window talk to the physics only through
:class:`ViewerWorld`, a ``typing.Protocol`` named after the live-physics issue's
own words (add a piece, remove one, set a pose, push a piece at a point, carry
one in a hand with a force limit, advance with a frame budget and the
real-time factor, events with the last action, snapshots, a statics verdict
of the current configuration). :class:`sim.viewer.control.adapter.WorldAdapter` keeps
it on the live world of the physics (:class:`sim.physics.live.LiveWorld`) and
the statics' verdict worked out off the frame path
(:class:`sim.viewer.control.stability.StaticsWorker`); it is the only file of the
viewer that imports ``sim.physics``, and the controller imports it only when a
session starts on its default world.

Everything is SI: metres, kilograms, seconds, newtons; poses are (7,) xyz +
quaternion xyzw.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from sim.scene import Piece, Scene

if TYPE_CHECKING:  # the physics' own answer to a ray (piece, point, normal, distance); no engine imported here
    from sim.physics import RayHit

HAND_STRENGTH = 3.0
"""A hand's default force limit, in multiples of the carried piece's weight: enough to lift it
briskly, too little to hold a tower up against a careless sweep."""
PULL_STIFFNESS = 50.0
"""A pull's default spring, in weights of the pulled piece per metre: stretched 20 mm it pulls with the
piece's weight (a piece pulled straight up hangs 20 mm below the cursor)."""
PULL_LIMIT = 5.0
"""A pull's default force limit, in weights of the pulled piece: it lifts a piece, drags one out of a stack
that holds it with a little friction, and knocks a small tower over; it cannot tear a city apart."""


@dataclass(frozen=True)
class LastAction:
    """The action that last changed the world: what events are blamed on.

    Attributes:
        name: the action (``drop``, ``poke``, ``remove``, ...).
        piece: the piece it concerned, or None.
        hand: the hand that did it (``left``/``right``), or None.
        player: who did it, or None.
        time: simulated time (s) it happened at.
    """

    name: str
    piece: str | None = None
    hand: str | None = None
    player: str | None = None
    time: float = 0.0

    def describe(self) -> str:
        """``drop of b12 (right hand, red)``."""
        who = ", ".join(x for x in (f"{self.hand} hand" if self.hand else None, self.player) if x)
        text = self.name + (f" of {self.piece}" if self.piece else "")
        return f"{text} ({who})" if who else text


@dataclass(frozen=True)
class LiveEvent:
    """Something that happened in the live world.

    Attributes:
        time: simulated time (s) it was first seen.
        kind: ``moved`` (started moving), ``left_support``, ``fell`` (reached the board or table),
            ``knocked_down``, ``came_to_rest``, ``settled`` (everything at rest again).
        pieces: the pieces concerned.
        cause: the last action before it, or None.
    """

    time: float
    kind: str
    pieces: tuple[str, ...]
    cause: LastAction | None = None


@dataclass(frozen=True)
class Advance:
    """What one :meth:`ViewerWorld.advance` did.

    Attributes:
        steps: fixed physics steps taken.
        simulated: simulated seconds they cover.
        wall: wall-clock seconds they took.
        real_time_factor: simulated over asked-for seconds (1: real time; below 1 the budget ran out).
        events: what happened meanwhile.
    """

    steps: int
    simulated: float
    wall: float
    real_time_factor: float
    events: tuple[LiveEvent, ...] = ()


@dataclass(frozen=True, eq=False)
class LiveVerdict:
    """The statics' verdict of a configuration of the live world.

    Attributes:
        revision: which configuration it judged (the world's change counter then).
        scene: the configuration judged (carried pieces left out, supply pieces fixed).
        feasible: every piece can be held.
        margin_g: the largest horizontal acceleration it withstands (g); 0 when infeasible.
        weakest_direction_deg: the direction of that load (degrees from +x), None when infeasible.
        unheld: pieces that cannot be held.
        mode: pieces the weakest mode moves (for an infeasible configuration: the unheld ones).
        interfaces: the contact interfaces the statics used (points, normals, areas).
        forces: (k, 3) world points (m) and (k, 3) contact forces (N) of one force distribution that
            holds the configuration (statically indeterminate: one of many), or None.
        elapsed_ms: how long the verdict took.
        error: why no verdict could be reached (then ``feasible`` is False and the rest empty), else None.
        partial: feasibility alone so far (the margin, nan, is being computed).
        margin_error: why the margin is unknown although what stands is known (the margin's program
            failed: ``margin_g`` is nan, the direction None), else None.
    """

    revision: int
    scene: Scene
    feasible: bool
    margin_g: float
    weakest_direction_deg: float | None
    unheld: tuple[str, ...] = ()
    mode: tuple[str, ...] = ()
    interfaces: tuple = ()
    forces: tuple[np.ndarray, np.ndarray] | None = None
    elapsed_ms: float = 0.0
    error: str | None = None
    partial: bool = False
    margin_error: str | None = None

    @property
    def empty(self) -> bool:
        """Nothing to judge: no piece that could move (everything is in the supply, or fixed)."""
        return not any(not p.fixed for p in self.scene.pieces)

    @property
    def stands(self) -> bool:
        """Feasible (a knife edge, margin 0, does not stand; an unknown margin does not say it falls)."""
        return self.feasible and self.error is None and (self.partial or self.margin_error is not None
                                                         or self.margin_g > 0.0)


@dataclass(frozen=True)
class Spring:
    """A pull as the window draws it: a spring from a point of a piece to a point in space.

    Attributes:
        piece: the piece pulled.
        point: (3,) the point pulled, where it is now (m, world).
        target: (3,) the spring's other end (m, world).
        load: the spring's force over its limit (1: pulling as hard as it may).
    """

    piece: str
    point: np.ndarray
    target: np.ndarray
    load: float


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The full state of a live world at one instant (opaque to the viewer; in memory only).

    Attributes:
        time: simulated time (s).
        state: the world's own state (poses, velocities, who rests, hands, ...).
    """

    time: float
    state: object = field(repr=False)


@runtime_checkable
class ViewerWorld(Protocol):
    """A world that runs in real time while the viewer changes it.

    Pieces are addressed by their scene id; hands by name (``left``, ``right``).
    """

    @property
    def time(self) -> float:
        """Simulated time (s)."""

    @property
    def dt(self) -> float:
        """The fixed step (s)."""

    @property
    def ids(self) -> list[str]:
        """Piece ids, the rows of :meth:`poses`."""

    @property
    def revision(self) -> int:
        """A counter that grows with every change from outside (and every settling)."""

    def scene(self) -> Scene:
        """The pieces as they stand now."""

    def piece(self, piece_id: str) -> Piece:
        """The piece ``piece_id`` (KeyError if none)."""

    def poses(self) -> np.ndarray:
        """(n, 7) current poses in :attr:`ids` order."""

    def pose(self, piece_id: str) -> np.ndarray:
        """(7,) the current pose of one piece."""

    def add_piece(self, piece: Piece) -> None:
        """Add a piece at its pose (from the supply); ValueError for a taken id, OverlapError inside another."""

    def remove_piece(self, piece_id: str) -> None:
        """Take a piece away; what it carried falls."""

    def set_pose(self, piece_id: str, pose) -> None:
        """Put a piece at a pose (a teleport, at rest)."""

    def push(self, piece_id: str, point, impulse) -> None:
        """An impulse (3,) N·s at a world point (3,) m of a piece."""

    def grab(self, hand: str, piece_id: str, force_limit: float | None = None) -> None:
        """A hand takes a piece: from now on it pulls it towards the hand's target with at most
        ``force_limit`` newtons (default :data:`HAND_STRENGTH` times its weight)."""

    def move_hand(self, hand: str, target) -> None:
        """Where a hand carries its piece: a pose (7,) of the piece's frame."""

    def release(self, hand: str, pose=None) -> None:
        """The hand lets go, the piece at rest where it is, or set down exactly at ``pose`` (7,)
        (its resting place on its support, within a millimetre of where the hand brought it)."""

    def held(self) -> dict[str, str]:
        """hand -> the piece it holds."""

    def pull(self, piece_id: str, target, point=None, stiffness: float | None = None,
             limit: float | None = None) -> None:
        """Pull a piece with a spring towards ``target`` (3,) (m), as MuJoCo's viewer perturbs a body: from
        ``point`` (3,) (m, world, of the piece now; it moves with the piece from then on), of ``stiffness`` N/m
        and at most ``limit`` N (defaults: :data:`PULL_STIFFNESS` and :data:`PULL_LIMIT` times the piece's
        weight); without ``point``, the piece's pull goes on towards a new target. The piece is simulated
        while it is pulled."""

    def release_pull(self, piece_id: str) -> None:
        """End the pull of a piece (nothing when it is not pulled)."""

    def pulls(self) -> dict[str, Spring]:
        """piece -> its :class:`Spring` now, for every piece pulled."""

    def advance(self, seconds: float, budget: float | None = None) -> Advance:
        """Step as many fixed steps as fit in ``seconds``, spending at most ``budget`` wall seconds."""

    def moving(self) -> list[str]:
        """Pieces that are not at rest (carried ones included)."""

    def snapshot(self) -> Snapshot:
        """The full state now."""

    def restore(self, snapshot: Snapshot) -> None:
        """Go back (or on) to a snapshot of this world: the same actions then give the same timeline.

        A world may also offer ``prepare(snapshot, budget) -> bool``: a later restore of that snapshot made
        ahead, a little within ``budget`` wall seconds a call (the controller's ``prepare_undo``)."""

    def ray_test(self, start, end) -> RayHit | None:
        """The first piece, board or table the segment from ``start`` to ``end`` (m) meets."""

    def ray_tests(self, starts, ends) -> list[RayHit | None]:
        """:meth:`ray_test` of each segment, from ``starts`` (k, 3) to ``ends`` (k, 3), at once."""

    def set_supply(self, ids) -> None:
        """The pieces lying in the supply, beside the board: the verdict counts them as part of the
        table (fixed), so that it judges what is being built, not the loose pieces waiting."""

    def note_action(self, action: LastAction) -> None:
        """Remember the action events that follow are blamed on."""

    def verdict(self, wait: bool = False) -> LiveVerdict | None:
        """The statics' verdict of the latest configuration judged (None before the first);
        with ``wait``, of the configuration now."""

    def close(self) -> None:
        """Free the engine."""
