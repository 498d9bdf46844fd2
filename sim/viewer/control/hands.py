"""What each hand does with its piece, frame by frame: carried above what lies under it, snapped,
turned, set down gently; and the ghost showing where it would land.

Pure apart from the ray function it is given (the live world's ray test of many segments at once).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from sim.viewer.control.carry import (
    CLEARANCE,
    RAY_TOP,
    SET_DOWN_GAP,
    extent,
    footprint,
    inside,
    silhouette,
    support_height,
)
from sim.viewer.control.snapping import snap

PATH_STEP = 0.008
"""Along the way to its target a carried piece looks every this far (m) for what it must clear: less
than the smallest piece (a 12 mm figure)."""
MAX_PATH_POINTS = 48
PATH_MARGIN = 0.006
"""On its way a carried piece also clears what lies this close (m) beside its outline: a hand that pulls
it along does not keep it on the line to the millimetre, and a brick passing 5 mm beside a taller one
would strike it."""
TRAVEL = 3e-3
"""A piece farther than this (m) from where it goes travels at its carrying height before it comes down."""
PRESS = 1e-3
"""A piece being set down is pressed this far (m) below its resting place, so that it lands on its
support rather than being let go above it."""
TOUCHING = 6e-4
"""A piece being set down within this (m) above its resting place touches its support."""
SET_DOWN_TIME = 1.5
"""Simulated seconds a hand keeps lowering a piece that cannot reach its place (blocked) before it lets go."""
ARRIVED = 1.5e-3
"""A piece within this (m) of its place is there."""
MAX_LIFT = 0.5


@dataclass
class HandState:
    """What a hand holds and how it is asked to hold it.

    Attributes:
        piece: the piece it holds.
        xy: (2,) where it is carried (before snapping), m.
        quat: (4,) the orientation wanted.
        lift: extra height (m) over the automatic one (negative brings it down to its landing).
        height: an explicit height (m) of the piece's bottom, or None for the automatic one.
        free: placed freely (no snapping).
        lowering: simulated time the set-down began, or None while carrying.
        start: (7,) where it was picked up (cancel puts it back).
        carry: which carry it is (for the undo stack).
        way: (destination, height) of the highest surface on the way there, looked up once.
        travel: the height (m) of its bottom while it travels (never lowered on the way), or None.
        group: the other pieces it carries with ``piece`` as one group (:class:`sim.viewer.control.group.Member`:
            ``piece`` is their anchor), or none.
        grip: (2,) for a group, from the point the hand holds it by to the anchor's origin (m, world xy;
            ``move-to`` takes that point where it is sent; the group turns in place about its middle, the
            hand holding it where it did), else None.
        player: whose hand it is where each seat has hands of its own, set at the pick (its events name them and
            the referee judges its pick and drop for them); None at the hot seat (the session's one player's).
    """

    piece: str
    xy: np.ndarray
    quat: np.ndarray
    start: np.ndarray
    carry: int
    lift: float = 0.0
    height: float | None = None
    free: bool = False
    lowering: float | None = None
    way: tuple | None = None
    travel: float | None = None
    group: tuple = ()
    grip: np.ndarray | None = None
    player: str | None = None

    @property
    def pieces(self) -> tuple[str, ...]:
        """Every piece the hand holds: ``piece``, then its group's."""
        return (self.piece, *(m.piece for m in self.group))

    def copy(self) -> HandState:
        """A copy whose arrays are its own (kept in a moment of the undo stack)."""
        return HandState(self.piece, self.xy.copy(), self.quat.copy(), self.start.copy(), self.carry, self.lift,
                         self.height, self.free, self.lowering, self.way, self.travel, self.group,
                         None if self.grip is None else self.grip.copy(), self.player)


@dataclass(frozen=True)
class Carry:
    """A hand's plan for this frame.

    Attributes:
        hand, piece: who carries what.
        target: (7,) the pose the hand pulls the piece to.
        ghost: (7,) where it would land if set down now: resting exactly on its support.
        outline: (4, 3) its footprint on the surface under it (m, world).
        under: what it would land on (piece ids, ``board``, ``table``).
        snapped: what it snapped to, or None.
        pose: (7,) where the piece is now.
        members: a group's other pieces' own plans (the same fields), or none.
        blocked: other hands' pieces riding under its landing place now (it waits above them to be set down).
    """

    hand: str
    piece: str
    target: np.ndarray
    ghost: np.ndarray
    outline: np.ndarray
    under: tuple[str, ...] = ()
    snapped: str | None = None
    pose: np.ndarray = field(default_factory=lambda: np.zeros(7))
    members: tuple = ()
    blocked: tuple[str, ...] = ()

    @property
    def all(self) -> tuple[Carry, ...]:
        """This plan and its members': one a piece."""
        return (self, *self.members)


def snapped(scene, piece, state: HandState, skip) -> tuple[np.ndarray, np.ndarray, str | None]:
    """Where a hand's piece goes, snapped to the game's places unless it is placed freely: its origin's (2,)
    and orientation (4,), and what it snapped to (None: placed freely)."""
    if state.free:
        return np.asarray(state.xy, dtype=float), np.asarray(state.quat, dtype=float), None
    placed = snap(scene, piece, state.xy, state.quat, skip)
    return placed.xy, placed.quat, placed.label


def plan(scene, hand: str, state: HandState, pose, rays: Callable, skip, floor: float, revision: int = 0,
         riders: tuple[Ride, ...] = ()) -> Carry:
    """Where a hand takes its piece this frame.

    Args:
        scene: the scene now (pieces at their poses; its game says where to snap).
        hand: the hand's name.
        state: what it is asked to do.
        pose: (7,) the piece's pose now.
        rays: the live world's ray test of many segments at once.
        skip: the carried pieces (no support for anything).
        floor: the height (m) of the table when a ray meets nothing.
        revision: the live world's change counter: what lies on the way is looked up again after a change.
        riders: other hands' pieces riding below this one (:func:`riding_below`): no support (its ghost lands on
            what is built), but in its way: it travels over them, and waits above one that rides under its
            landing place before it is set down there.
    """
    piece = scene.piece(state.piece)
    xy, quat, label = snapped(scene, piece, state, skip)
    fp = footprint(piece.shape.vertices, quat)
    now_bottom, now_outline = silhouette(piece.shape.vertices, pose[3:])  # as it is now (not kept: it moves)
    # rays under the piece start inside it, at its centre's height: what it carries lies above that,
    # what carries it below; rays elsewhere start high up
    below = inside(fp.samples + xy, now_outline + np.asarray(pose[:2]))
    tops = np.where(below, float(pose[2]), RAY_TOP)
    surface, under = support_height(rays, xy, fp.samples, skip, floor, tops)
    over, blocked = surface, ()
    if riders:  # the same rays, the other hands' pieces under it met (one ray batch more, only then)
        riding = {r.piece for r in riders}
        height, met = support_height(rays, xy, fp.samples, set(skip) - riding, floor, tops)
        if height > surface + TOUCHING:
            over, blocked = height, tuple(m for m in met if m in riding)
    rest_z = surface - fp.bottom
    ghost = np.concatenate([xy, [rest_z], quat])
    # on the way it clears whatever lies between here and there: a hand lifts, travels, then comes down
    here = np.asarray(pose[:2], dtype=float)
    low = float(pose[2] + now_bottom)
    # what lies on the way, looked up once per destination (the piece comes nearer along the same way)
    key = (tuple(np.round(xy, 5)), tuple(np.round(quat, 4)), revision)
    if state.way is None or state.way[0] != key:
        state.way = (key, path_height(rays, here, xy, fp, now_outline + here, float(pose[2]), skip, floor))
    way = max(state.way[1], over, passing_over(riders, here, xy, fp))
    travel = way + CLEARANCE + float(np.clip(state.lift, -CLEARANCE + SET_DOWN_GAP, MAX_LIFT))
    if state.lowering is not None and blocked:
        arrive = over + CLEARANCE  # another hand's piece rides under its place: it waits above it
    elif state.lowering is not None:
        arrive = surface - PRESS  # pressed onto its support, so that it lands rather than drops
    elif state.height is not None:
        arrive = max(state.height, surface)
    else:
        arrive = travel
    at, bottom = xy, arrive
    if np.linalg.norm(xy - here) > TRAVEL:
        # travelling: never lower (over a gap in a city it keeps its height), up first when too low
        bottom = max(travel, arrive, state.travel if state.travel is not None else -np.inf)
        state.travel = bottom
        if low < way + CLEARANCE / 2:
            at = here
    else:
        state.travel = None
    target = np.concatenate([at, [bottom - fp.bottom], quat])
    outline = np.column_stack([fp.outline + xy, np.full(4, surface)])
    return Carry(hand, state.piece, target, ghost, outline, tuple(under), label, np.asarray(pose, dtype=float),
                 blocked=blocked)


class Ride(NamedTuple):
    """A carried piece as another hand's planning sees it: where it rides now.

    Attributes:
        piece: its id.
        xy: (2,) its origin (m).
        radius: the circle (m) about ``xy`` its footprint lies in.
        bottom, top: its lowest and highest points (m).
        carry: its carry's number (carries at one height: the later one goes over the earlier).
    """

    piece: str
    xy: np.ndarray
    radius: float
    bottom: float
    top: float
    carry: int


def ride(piece: str, vertices: np.ndarray, pose, carry: int) -> Ride:
    """Where a carried piece (its shape's ``vertices`` (k, 3)) at ``pose`` (7,) rides."""
    bottom, top, outline = extent(vertices, pose[3:])  # its pose moves: nothing worth keeping
    return Ride(piece, np.asarray(pose[:2], dtype=float), float(np.linalg.norm(outline, axis=1).max()),
                float(pose[2] + bottom), float(pose[2] + top), carry)


def riding_below(me: Ride, others) -> tuple[Ride, ...]:
    """The carried pieces of ``others`` that ride below ``me``: lower (by their bottoms; at one height, the earlier
    carry). The order is one for every hand, so of two carries exactly one goes over the other: two carried pieces
    never climb each other, nor rest on each other."""
    return tuple(o for o in others if o.piece != me.piece and (o.bottom, o.carry) < (me.bottom, me.carry))


def passing_over(below: tuple[Ride, ...], here: np.ndarray, there: np.ndarray, fp) -> float:
    """The highest top (m) of the pieces ``below`` near the way from ``here`` to ``there`` (2,) of a footprint
    ``fp``: their circles and its own, :data:`PATH_MARGIN` apart; -inf when none is near."""
    best = -np.inf
    if not below:
        return best
    reach = float(np.linalg.norm(fp.outline, axis=1).max()) + PATH_MARGIN
    d = there - here
    length2 = float(d @ d)
    for r in below:
        t = 0.0 if length2 < 1e-12 else float(np.clip((r.xy - here) @ d / length2, 0.0, 1.0))
        if float(np.linalg.norm(here + t * d - r.xy)) < reach + r.radius:
            best = max(best, r.top)
    return best


def path_height(rays, here: np.ndarray, there: np.ndarray, fp, outline: np.ndarray, middle: float, skip,
                 floor: float) -> float:
    """The highest surface under a footprint, and a ring :data:`PATH_MARGIN` around it, moved from ``here`` to
    ``there`` (the far end's own footprint the caller looks at fully). Rays under the piece's own ``outline``
    (4, 2) now start inside it, at ``middle`` height: what rides on it is not in its way."""
    length = float(np.linalg.norm(there - here))
    if length < 3e-3:
        return floor
    n = int(min(MAX_PATH_POINTS, np.ceil(length / PATH_STEP)))
    # the whole footprint (a 20 mm cube beside the line of a 60 mm block's centre is in its way) and a ring
    # PATH_MARGIN outside it
    ring = np.vstack([fp.outline, (fp.outline + np.roll(fp.outline, -1, axis=0)) / 2])
    reach = np.linalg.norm(ring, axis=1, keepdims=True)
    pts = np.vstack([fp.samples, ring * (reach + PATH_MARGIN) / np.maximum(reach, 1e-9)])
    best = floor
    # a batch of rays a point of the way: Bullet's hits differ in the last bits with the batch they are cast in
    # (up to 0.04 um), and a scripted game's set-downs are not all that far from a knife edge
    for t in np.linspace(0.0, 1.0, n + 1)[1:-1] if n > 1 else [0.5]:
        xy = here + (there - here) * t
        tops = np.where(inside(pts + xy, outline), middle, RAY_TOP)
        h, _ = support_height(rays, xy, pts, skip, floor, tops)
        best = max(best, h)
    return best


def arrived(carry: Carry, pose) -> bool:
    """Whether a piece being set down sits on its support at its landing place."""
    p = np.asarray(pose[:3], dtype=float)
    return bool(np.linalg.norm(p[:2] - carry.ghost[:2]) < ARRIVED and p[2] - carry.ghost[2] < TOUCHING)


def seat_hands(seats, per_player: int) -> dict[str, str]:
    """Hand -> player for hands per seat: each seat's first hand is named after it, its second (a game built with
    two hands) ``NAME-left``.

    Raises:
        ValueError: two seats' hands would have one name (a seat named ``red-left`` beside ``red``), or a seat twice.
    """
    out: dict[str, str] = {}
    for seat in seats:
        for name in (seat, f"{seat}-left")[:per_player]:
            if name in out:
                raise ValueError(f"seats: the hand {name!r} would be both {out[name]}'s and {seat}'s")
            out[name] = seat
    return out
