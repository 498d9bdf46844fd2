"""Carrying several pieces as one group: their poses relative to one of them kept, lifted over what lies
below all of them, snapped as a whole, set down together.

A group is held by its **anchor**, the lowest of its pieces (the one that stands on what it is set down on;
of pieces as low, the first given): the anchor is carried as a single piece is (:func:`sim.viewer.control.hands.plan`:
its place and orientation snap to the game's places unless placed freely), and every other piece, a
:class:`Member`, keeps its pose in the anchor's frame. The group is lowered as one rigid body: it lands where
the first of its pieces meets what lies under it, the others at their places from there; on the way it
travels high enough for every piece to clear what lies under its own footprint. Each piece is pulled by a
hand of its own in the live world (:func:`member_hand`), so a group swept into a tower knocks it over as
its pieces would.

Pure geometry apart from the ray function (the live world's ray test of many segments at once).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.geometry.transforms import compose, rotate
from sim.viewer.control.carry import CLEARANCE, RAY_TOP, SET_DOWN_GAP, footprint, inside, silhouette, support_height
from sim.viewer.control.hands import MAX_LIFT, PRESS, TRAVEL, Carry, path_height, snapped


@dataclass(frozen=True)
class Member:
    """A piece of a group other than its anchor.

    Attributes:
        piece: the piece.
        offset: (7,) its pose in the anchor's frame (position m, quaternion xyzw).
        start: (7,) where it was picked up (a cancel puts it back there).
    """

    piece: str
    offset: np.ndarray
    start: np.ndarray


def member_hand(hand: str, piece: str) -> str:
    """The live world's name of the hand that pulls a member of ``hand``'s group (``right:b3``)."""
    return f"{hand}:{piece}"


def anchor_of(poses: dict[str, np.ndarray], bottoms: dict[str, float]) -> str:
    """The anchor of a group: the piece whose lowest point is lowest (the first of those within 0.1 mm of it),
    of pieces ``poses`` (id -> (7,), in the order given) with their lowest points ``bottoms`` (m)."""
    low = min(bottoms.values())
    return next(pid for pid in poses if bottoms[pid] <= low + 1e-4)


def members_of(anchor_pose, poses: dict[str, np.ndarray]) -> tuple[Member, ...]:
    """The members of a group held by an anchor at ``anchor_pose`` (7,): the other pieces at ``poses``
    (id -> (7,)) with their poses in the anchor's frame."""
    a = np.asarray(anchor_pose, dtype=float)
    out = []
    for pid, pose in poses.items():
        pose = np.asarray(pose, dtype=float)
        offset = np.concatenate([rotate(a[3:], pose[:3] - a[:3], inverse=True), _relative(a[3:], pose[3:])])
        out.append(Member(pid, offset, pose.copy()))
    return tuple(out)


def _relative(a, b) -> np.ndarray:
    """The quaternion r with a r = b (b in a's frame)."""
    return compose(np.array([-a[0], -a[1], -a[2], a[3]]), b)


def group_middle(quat, members) -> np.ndarray:
    """(2,) from the anchor's origin to the middle of a group's pieces' origins (m, world xy), the anchor turned
    by ``quat`` (4,) and its ``members`` riding in its frame: what the group turns about."""
    offsets = np.array([np.zeros(3)] + [np.asarray(m.offset[:3], dtype=float) for m in members])
    return rotate(np.asarray(quat, dtype=float), offsets)[:, :2].mean(axis=0)


def placed(anchor_pose, offset) -> np.ndarray:
    """(7,) the world pose of a member at ``offset`` (7,) of an anchor at ``anchor_pose`` (7,)."""
    a, o = np.asarray(anchor_pose, dtype=float), np.asarray(offset, dtype=float)
    return np.concatenate([a[:3] + rotate(a[3:], o[:3]), compose(a[3:], o[3:])])


def plan_group(scene, hand: str, state, poses: dict[str, np.ndarray], rays, skip, floor: float,
               revision: int = 0) -> Carry:
    """Where a hand takes its group this frame: the anchor's :class:`~sim.viewer.control.hands.Carry`, the members'
    in its ``members`` (anchor first, then the members in their order).

    Args:
        scene: the scene now (pieces at their poses; its game says where to snap).
        hand: the hand's name.
        state: the hand's :class:`~sim.viewer.control.hands.HandState` (its ``group`` the members).
        poses: id -> (7,) every piece of the group's pose now.
        rays: the live world's ray test of many segments at once.
        skip: the carried pieces (no support for anything).
        floor: the height (m) of the table when a ray meets nothing.
        revision: the live world's change counter: what lies on the way is looked up again after a change.
    """
    xy, quat, label = snapped(scene, scene.piece(state.piece), state, skip)
    frame = np.concatenate([xy, [0.0], quat])  # the anchor's pose at height 0: the members' heights from it
    pieces = [(state.piece, np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]))] + [(m.piece, m.offset)
                                                                                 for m in state.group]
    surfaces, ways, lows = [], [], []
    parts = []
    key = (tuple(np.round(xy, 5)), tuple(np.round(quat, 4)), revision)
    find_way = state.way is None or state.way[0] != key
    for pid, offset in pieces:
        there = placed(frame, offset)
        shape = scene.piece(pid).shape
        fp = footprint(shape.vertices, there[3:])
        now = poses[pid]
        now_bottom, now_outline = silhouette(shape.vertices, now[3:])
        below = inside(fp.samples + there[:2], now_outline + now[:2])
        tops = np.where(below, float(now[2]), RAY_TOP)
        surface, under = support_height(rays, there[:2], fp.samples, skip, floor, tops)
        dz = float(there[2]) + fp.bottom  # the piece's lowest point above the anchor's origin
        surfaces.append(surface - dz)  # the anchor's height at which this piece touches what is under it
        lows.append((float(now[2] + now_bottom), dz))
        if find_way:
            ways.append(path_height(rays, now[:2], there[:2], fp, now_outline + now[:2], float(now[2]), skip,
                                    floor) - dz)
        parts.append((pid, offset, there, fp, surface, tuple(under)))
    if find_way:
        state.way = (key, max(ways))
    rest_z = max(surfaces)  # lowered as one: the first piece to touch stops it
    way = max(state.way[1], rest_z)
    travel = way + CLEARANCE + float(np.clip(state.lift, -CLEARANCE + SET_DOWN_GAP, MAX_LIFT))
    if state.lowering is not None:
        arrive = rest_z - PRESS
    elif state.height is not None:
        arrive = max(state.height - min(dz for _, dz in lows), rest_z)
    else:
        arrive = travel
    here = np.asarray(poses[state.piece][:2], dtype=float)
    at, z = xy, arrive
    if np.linalg.norm(xy - here) > TRAVEL:
        # travelling: never lower; up first while a piece is lower than it must be to clear the way
        z = max(travel, arrive, state.travel if state.travel is not None else -np.inf)
        state.travel = z
        if any(low < way + dz + CLEARANCE / 2 for low, dz in lows):
            at = here
    else:
        state.travel = None
    target = np.concatenate([at, [z], quat])
    ghost = np.concatenate([xy, [rest_z], quat])
    carries = []
    for pid, offset, there, fp, surface, under in parts:
        outline = np.column_stack([fp.outline + there[:2], np.full(4, surface)])
        carries.append(Carry(hand, pid, placed(target, offset), placed(ghost, offset), outline, under,
                             label if pid == state.piece else None, np.asarray(poses[pid], dtype=float)))
    lead = carries[0]
    return Carry(lead.hand, lead.piece, lead.target, lead.ghost, lead.outline, lead.under, lead.snapped, lead.pose,
                 tuple(carries[1:]))
