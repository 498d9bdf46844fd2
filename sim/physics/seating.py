"""Seating: how far to press each piece into what holds it so that Bullet makes every resting contact.

Scene files put pieces exactly on one another. Bullet's separating-axis test
makes a new contact only between hulls that overlap, and for some pairs only
beyond a few micrometres (an edge lying on a face about 1 µm; some box pairs
4 µm; exactly touching faces by the rounding of their coordinates, a coin
toss). A contact missing at the first step lets what it should hold fall
freely for a step (43 µm at 1/480 s) and land with an impact, which topples
a structure a few thousandths of a g from its edge. Once made, Bullet keeps a
contact while the surfaces stay within its breaking threshold (``PhysicsSettings.contact_breaking_threshold``:
some 0.4 mm between 100 mm blocks). So the
world primes its contacts (``World``, ``PhysicsSettings.prime_depth``): every
piece is pressed, by the least translation here, ``depth`` into each of its
supports and into the board or any fixed piece it touches, lower pieces
first; Bullet finds the contacts; the pieces go back to their exact poses. The interfaces still without a
contact (an arch's leaning joints) are then pressed a pair at a time.
"""

from __future__ import annotations

import numpy as np

from sim.names import BOARD, GROUND
from sim.tol import tol

SWEEPS = 4
"""Passes over the interfaces: one settles a stack whose supports run bottom-up, a few settle the rest."""

ROUNDS = 8
"""Rounds of pressing the pairs still without a contact, one pair per piece a round (see ``_prime_the_rest``)."""


def seating_offsets(scene, interfaces, depth: float) -> np.ndarray:
    """(n, 3) translations (m), scene order, that press every support ``depth`` deep.

    Args:
        scene: the scene (fixed pieces are never moved).
        interfaces: its contact interfaces (``sim.contact.find_interfaces``): ``b`` rests on ``a``
            along ``normal`` (from a into b).
        depth: the overlap (m) each pressed contact gets.

    Returns:
        Per piece the translation to apply to its pose; zeros for fixed pieces and pieces that touch nothing.
    """
    index = {p.id: k for k, p in enumerate(scene.pieces)}
    movable = np.array([not p.fixed for p in scene.pieces], dtype=bool)
    upright = np.cos(tol.support_angle)
    pressed = []
    for f in interfaces:
        a, b = f.a, f.b
        ia, ib = index.get(a), index.get(b)
        a_still = a in GROUND or (ia is not None and not movable[ia])
        b_still = ib is None or not movable[ib]
        if b_still and a_still:
            continue
        if a_still or b_still or abs(f.normal[2]) >= upright:  # a support, or a contact with what never moves
            height = float(np.min(f.polygon[:, 2])) if len(f.polygon) else 0.0
            pressed.append((height, ia, ib, np.asarray(f.normal, dtype=float)))
    pressed.sort(key=lambda item: item[0])
    offsets = np.zeros((len(scene.pieces), 3))
    for _ in range(SWEEPS):
        for _, ia, ib, n in pressed:
            ta = offsets[ia] if ia is not None else np.zeros(3)
            tb = offsets[ib] if ib is not None else np.zeros(3)
            deficit = depth + float((tb - ta) @ n)  # b must sit at least ``depth`` into a along n
            if deficit <= 0:
                continue
            if ib is not None and movable[ib]:
                offsets[ib] -= deficit * n
            elif ia is not None and movable[ia]:
                offsets[ia] += deficit * n
    return offsets


def prime_contacts(world, scene, interfaces=None) -> None:
    """Make every resting contact of ``scene``'s pieces in ``world`` before its first step: press them
    ``world.settings.prime_depth`` into what holds them, let Bullet find the contacts, and put them
    back at their exact poses (Bullet keeps a contact it has made within its breaking threshold).

    Args:
        world: a :class:`~sim.physics.world.World` whose bodies stand at the scene's poses.
        scene: those pieces.
        interfaces: their contact interfaces (found here when None).
    """
    from sim.physics.bodies import pb, place_body

    depth = world.settings.prime_depth
    if not depth or not scene.pieces:
        return
    if interfaces is None:
        from sim.contact import find_interfaces

        interfaces = find_interfaces(scene)
    offsets = seating_offsets(scene, interfaces, depth)
    moved = [(world.bodies[p.id], np.array([*p.pos, *p.quat]), offsets[k]) for k, p in enumerate(scene.pieces)
             if offsets[k].any()]
    scale = world.settings.length_scale
    for info, pose, offset in moved:
        place_body(world.client, scale, info, pose + np.r_[offset, 0.0, 0.0, 0.0, 0.0])
    pb.performCollisionDetection(physicsClientId=world.client)
    for info, pose, _ in moved:
        place_body(world.client, scale, info, pose)
    pb.performCollisionDetection(physicsClientId=world.client)
    _prime_the_rest(world, scene, interfaces, depth)


def _prime_the_rest(world, scene, interfaces, depth: float) -> None:
    """Make the contacts the supports' press left unmade, a pair at a time: the joints of an arch lean, and a
    piece pressed down into what holds it may not press into a neighbour beside it at all (a segmental arch's
    crown fell two steps, 48 µm, onto a joint Bullet had not made, and broke). Each round presses one piece of
    every unmade pair into the other along its normal (no piece in two pairs a round), lets Bullet find the
    contacts and puts the pieces back; a pair pressed without a contact is a gap, not a touch, and is not pressed
again (at most ``ROUNDS`` rounds)."""
    from sim.physics.bodies import pb, place_body

    scale = world.settings.length_scale
    poses = {p.id: np.array([*p.pos, *p.quat]) for p in scene.pieces}
    movable = {p.id for p in scene.pieces if not p.fixed}
    todo = [f for f in interfaces if (f.a in movable or f.b in movable) and f.b in world.bodies
            and (f.a in world.bodies or f.a in GROUND)]
    todo = _unmade(world, todo)
    for _ in range(ROUNDS):
        if not todo:
            return
        used: set[str] = set()
        pressed, tried = [], set()
        for f in todo:
            if f.a in used or f.b in used:
                continue
            piece, sign = (f.b, -1.0) if f.b in movable else (f.a, 1.0)
            used |= {f.a, f.b}
            pressed.append(piece)
            tried.add(id(f))
            shift = np.r_[sign * depth * np.asarray(f.normal, dtype=float), 0.0, 0.0, 0.0, 0.0]
            place_body(world.client, scale, world.bodies[piece], poses[piece] + shift)
        pb.performCollisionDetection(physicsClientId=world.client)
        for piece in pressed:
            place_body(world.client, scale, world.bodies[piece], poses[piece])
        pb.performCollisionDetection(physicsClientId=world.client)
        todo = [f for f in _unmade(world, todo) if id(f) not in tried]  # pressed and still apart: a gap


def _unmade(world, interfaces) -> list:
    """The interfaces between whose bodies Bullet holds no contact point."""
    from sim.physics.bodies import pb

    made = {frozenset((c[1], c[2])) for c in pb.getContactPoints(physicsClientId=world.client)}
    return [f for f in interfaces if frozenset((_uid(world, f.a), world.bodies[f.b].uid)) not in made]


def _uid(world, name: str) -> int:
    """The body id of a piece, the board or the table."""
    if name in world.bodies:
        return world.bodies[name].uid
    return world.board_uid if name == BOARD else world.table_uid
