"""Statics-certified rest: the exact statics say which resting pieces are held; those need no simulating.

After every change, and whenever moving pieces have come to rest, the live
world asks :func:`certify` which pieces the statics hold where they are:
every piece except those carried, moving or parked, at its current pose,
feasibility only (the rigid-block equilibrium of ``sim.statics``, no margin
search). Held pieces become static bodies (see ``World.set_static``): they
cost nothing a step and never creep, however long; the others, and what rests
on them, are simulated and fall. :class:`CertifiedRest` is the part of the live
world that does it, and wakes held pieces that moving or carried ones touch.

Parked pieces (a game's supply, waiting beside the board) are static bodies
too, but the statics never judge them: only those whose bounding boxes meet a
judged piece take part, as fixed pieces that may hold it up (:func:`beside`).
So a supply of a hundred pieces costs the certification, the contact read-out
and the motion tracker nothing until a hand takes one or something touches it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from sim.geometry.transforms import quat_to_matrix
from sim.names import BOARD, GROUND
from sim.physics.bodies import pb
from sim.scene import Scene
from sim.tol import tol

TOUCH_SPEED = 0.02
"""A free piece wakes the held pieces that rest on it (by the last certification) when some point of it moves
faster than this (m/s): ten times ``tol.rest_speed``, so that a woken piece settling into place does not wake
the next, and that the next, through a whole tower. It wakes any other held piece it touches once it moves
faster than this or than the speed gravity gives in :data:`SETTLE_FALL_STEPS` steps (6.1 cm/s at 1/480 s),
whichever is more: a piece let go falls freely for its first step (Bullet has none of its contacts with the
static pieces around it), 2.04 cm/s at 1/480 s and twice that in a crowd's step, and woke every held piece
beside it, which woke theirs: the Babylon bench struck through its upper half woke all 140 within 0.1 s, most
of them never to fall (with outlines, 4.0 s of CPU for its 2 s instead of 4.4 s, 120 knocked down instead of 123,
113 held at the end instead of 82; the Talo stock knocked over takes 1.13 s instead of 0.95 s, its blocks woken
one by one, 31 knocked down instead of 28). A falling or struck piece is far faster. A carried piece wakes what it
touches at any speed (the hand pushes)."""

SETTLE_SPEED = 0.02
"""A free piece is asked about again once no point of it has moved faster than this (m/s) for
``tol.rest_window``: a tall free pile that the solver keeps trembling at a few mm/s is held again where it
stands, if the statics hold it there, instead of costing a whole solver run every step."""

SETTLE_FALL_STEPS = 3
"""... or the speed gravity gives a free body in this many steps, whichever is more: the solver loses the
contacts of a piece at rest on many parts (an arch's curved underside on the table) for a step or two at a
time, so that it falls that fast between two steps and is back where it was, for ever; asked about, the
statics hold it."""

STRICT_PEEL = 6
"""The statics peel the pieces they cannot hold one cone program at a time this many times, then take out
every piece that still needs help at once (``sim.statics.analyze``'s ``strict_peel``). One program a piece
is exact but costs 0.2 s a piece on the Armadillo vault: a hand pushing blocks about left 213 to peel in half
a simulated second. Past the first few, a piece that the statics would hold once those above it are gone may
be let go with them: it is simulated, at rest where it stands, and held again at the next certification.
The live world's choice; the verdict (``check``) always peels exactly."""

LARGE_PEEL = 100
"""A certification of more movable pieces than this peels none of them one program at a time: every piece that
needs help in a program is let go at once (``strict_peel`` 0, the live world's choice, as :data:`STRICT_PEEL`'s
past its first few). The Armadillo vault with a foot taken away took 12 cone programs (6 one piece each) and
60 s of CPU at a load of 11 for its first certification."""

LET_GO_SINGLE = 4
"""Pieces let go (static bodies made movable again) take this many single steps before a crowd's coarse ones
(``sim.physics.live.stepping.CROWD_SPAN``): Bullet had no contacts of theirs with other static bodies, so their
first step falls freely and sinks them a little (32 µm at 1/480 s), and a coarse step out of that started a
Tohuwabohu arch on the table bouncing by ±0.15 mm, losing the table every other step (knocked down, tested),
with 1 and 2 single steps; with 4 it rests (1 µm)."""

RECERTIFY_SECONDS = 0.1
"""While pieces come to rest one after another, the statics are asked at most this often (s)."""


@dataclass(frozen=True)
class Certification:
    """One answer of the statics about a configuration.

    Attributes:
        held: ids the statics hold where they are (every piece judged but the unheld).
        unheld: ids they cannot hold (and what stands on them).
        neighbours: id -> the pieces it touches (board and table excluded), from the contact interfaces.
        below: id -> what holds it up (pieces, ``board``, ``table``): the interfaces whose normal is within
            ``tol.support_angle`` of vertical, under it.
        timings_ms: the statics' ``interfaces``, ``feasibility``, ``total``.
    """

    held: frozenset
    unheld: frozenset
    neighbours: dict
    below: dict
    timings_ms: dict

    def to_json(self) -> dict:
        """The certification as JSON data (:meth:`from_json` reads it back; the timings, wall-clock measures,
        are no part of it)."""
        return {"held": sorted(self.held), "unheld": sorted(self.unheld),
                "neighbours": {i: sorted(v) for i, v in self.neighbours.items()},
                "below": {i: sorted(v) for i, v in self.below.items()}}

    @classmethod
    def from_json(cls, field, known) -> Certification:
        """A certification from :meth:`to_json`'s data (a :class:`sim.fieldcheck.Field`), its pieces among
        ``known``.

        Raises:
            sim.fieldcheck.FieldError: a field is not what :meth:`to_json` writes.
        """
        f = field.object(("held", "unheld", "neighbours", "below"))
        known = set(known)
        ground = known | set(GROUND)

        def per_piece(key, ids) -> dict:
            out = {}
            for i, g in f[key].entries(len(known)):
                if i not in known:
                    raise g.fail("expected an entry of a piece of the world")
                out[i] = frozenset(g.ids(ids))
            return out
        return cls(frozenset(f["held"].ids(known)), frozenset(f["unheld"].ids(known)), per_piece("neighbours", known),
                   per_piece("below", ground), {})


class InterfaceCache:
    """The contact interfaces of the last configuration, so that only those of pieces that moved are found
    again: a change touches a few pieces, and finding the interfaces of a whole Babylon bench is most of
    the statics' time (about 0.1 s of its 0.2)."""

    def __init__(self):
        self._poses: dict[str, tuple] = {}
        self._interfaces: list = []

    def interfaces(self, scene: Scene) -> list:
        """Every contact interface of ``scene`` (the same as ``sim.contact.find_interfaces``, in its order)."""
        from sim.contact import find_interfaces

        poses = {p.id: (p.pos, p.quat) for p in scene.pieces}
        changed = {i for i, pose in poses.items() if self._poses.get(i) != pose}
        if not self._poses or len(changed) * 2 > len(poses):
            found = list(find_interfaces(scene))
        else:
            close = near(scene, changed)
            sub = scene.with_pieces(p for p in scene.pieces if p.id in close)
            kept = [f for f in self._interfaces if f.a not in changed and f.b not in changed
                    and (f.a in poses or f.a == BOARD) and f.b in poses]
            fresh = [f for f in find_interfaces(sub) if f.a in changed or f.b in changed]
            order = {i: k for k, i in enumerate(scene.ids)}
            found = sorted(kept + fresh, key=lambda f: (order.get(f.a, -1), order[f.b], f.part_a, f.part_b))
        self._poses, self._interfaces = poses, found
        return found


def near(scene: Scene, changed: set) -> set:
    """The pieces whose bounding boxes (grown by the contact gap) meet those of the ``changed`` ones, and those."""
    boxes = []
    for p in scene.pieces:
        corners = p.shape.box_corners @ quat_to_matrix(p.quat).T + np.asarray(p.pos)
        boxes.append((corners.min(axis=0) - tol.coplanar, corners.max(axis=0) + tol.coplanar))
    lo, hi = np.array([b[0] for b in boxes]), np.array([b[1] for b in boxes])
    ids = scene.ids
    moved = np.array([i in changed for i in ids])
    meets = np.all((lo[:, None, :] <= hi[None, moved, :]) & (lo[None, moved, :] <= hi[:, None, :]), axis=2).any(axis=1)
    return {i for i, m in zip(ids, meets) if m} | changed


def beside(scene: Scene, aside) -> Scene:
    """``scene`` without the pieces set ``aside``, except those whose bounding boxes (grown by the contact gap)
    meet a piece kept: these stay, fixed, as part of the table that may hold a kept piece up.

    Args:
        scene: the pieces at their poses.
        aside: ids of pieces lying apart (a supply beside the board).
    """
    aside = set(aside) & set(scene.ids)
    if not aside:
        return scene
    kept = {p.id for p in scene.pieces if p.id not in aside}
    touching = near(scene, kept) if kept else set()
    return scene.with_pieces(p if p.id in kept else replace(p, fixed=True) for p in scene.pieces
                             if p.id in kept or p.id in touching)


def certify(scene: Scene, exclude, cache: InterfaceCache | None = None, parked=()) -> Certification:
    """Which of the scene's movable pieces the statics hold at their poses, leaving out ``exclude``.

    Args:
        scene: every piece at its current pose.
        exclude: ids not judged (carried or moving): they hold nothing up, so what rests on them is
            unheld; they are in neither result set.
        cache: the interfaces of the last call, to find again only those of pieces that moved.
        parked: ids not judged either, but fixed where they touch a judged piece (:func:`beside`).

    Returns:
        The certification.
    """
    from sim.analysis import support_graph
    from sim.statics import analyze

    excluded = set(exclude)
    judged = beside(scene.with_pieces(p for p in scene.pieces if p.id not in excluded), parked)
    if not judged.pieces:
        return Certification(frozenset(), frozenset(), {}, {}, {})
    interfaces = None if cache is None else cache.interfaces(judged)
    movable = [p.id for p in judged.pieces if not p.fixed]
    statics = analyze(judged, interfaces, margin=False,
                      strict_peel=STRICT_PEEL if len(movable) <= LARGE_PEEL else 0)
    graph = support_graph(judged, statics.interfaces)
    unheld = frozenset(statics.unheld)
    neighbours = {i: frozenset(j for j in graph.touching(i) if j not in GROUND) for i in judged.ids}
    below = {i: frozenset(graph.rests_on(i)) for i in judged.ids}
    return Certification(frozenset(movable) - unheld, unheld, neighbours, below, dict(statics.timings_ms))


class CertifiedRest:
    """The live world's certified rest (a part of :class:`~sim.physics.live.LiveWorld`): asking the
    statics, holding and letting go, and waking what moving or carried pieces touch."""

    def _rested(self, piece_id: str) -> bool:
        since = self._rest_since.get(piece_id)
        return since is not None and self.time - since >= tol.rest_window - tol.clock

    def _certify(self, force: bool = False) -> None:
        """Ask the statics which pieces are held; hold those, let the rest go (see :mod:`.rest`)."""
        if self._shake is not None or (not force and self.time - self._last_certified < RECERTIFY_SECONDS):
            return
        self._last_certified = self.time
        carried = set(self.carried()) | self.pulls.pieces()  # a pulled piece is simulated, never held
        unsettled = {i for i in self.free() if not self._rested(i)}
        cert = certify(self.scene_now(), carried | unsettled, self._interfaces, self.parked)
        self.certification = cert
        newly = sorted(cert.held - self.held)
        lost = sorted(self.held & cert.unheld)
        self.flights.judged(cert.unheld - carried, unsettled)
        if newly:
            self.flights.land(newly, held=True)  # held pieces are exact (what rests on them touches their exact shape)
            self.world.set_static(newly, True)
            self.held |= set(newly)
            self._static_poses.update(zip(newly, self.world.poses(newly)))
            contacts = None
            fresh = [i for i in newly if i not in self.tracker.ids]
            moved = [i for i in newly if i in self.tracker.began]
            if fresh or moved:
                contacts = self._contacts()
            if fresh:
                self.tracker.add(fresh, self._bounds(fresh), [self.pose(i) for i in fresh], contacts, self.time)
            if moved:
                self.tracker.rebase(moved, [self.pose(i) for i in moved], contacts, self.time)
        if lost:
            self._let_go(lost)
        self.held -= set(lost)
        for i in lost:
            self._static_poses.pop(i, None)

    def park(self, ids) -> None:
        """Set these pieces aside, at rest where they lie (a game's supply): static bodies that the statics
        never judge (only as fixed support of a judged piece they touch) and the motion tracker never
        watches, so that they cost nothing. ``ids`` is the whole parked set: parked pieces not in it are
        judged and watched again (from where they lie, at rest); carried and fixed pieces are not parked.
        A hand, :meth:`set_pose`, :meth:`push`, :meth:`remove`, a shake or a moving piece's touch wakes a
        parked piece as it wakes a held one."""
        carried = set(self.carried())
        bodies = self.world.bodies
        want = {i for i in ids if i in bodies and not bodies[i].fixed and i not in carried}
        self._unpark(self.parked - want, at_rest=True)
        new = sorted(want - self.parked)
        if not new:
            return
        self.flights.land(new, held=True)
        self.world.set_static([i for i in new if i not in self.held], True)
        self.held -= set(new)
        self.parked |= set(new)
        self._static_poses.update(zip(new, self.world.poses(new)))
        self.tracker.remove(new)
        self._dirty = True

    def _unpark(self, ids, at_rest: bool) -> None:
        """Parked pieces judged and watched again: at rest (to be certified at once) or woken (simulated)."""
        ids = sorted(set(ids) & self.parked)
        if not ids:
            return
        self._let_go(ids)
        self.parked -= set(ids)
        for i in ids:
            self._static_poses.pop(i, None)
            self._rest_since[i] = -np.inf if at_rest else self.time
        self.tracker.add(ids, self._bounds(ids), [self.pose(i) for i in ids], self._contacts(), self.time)
        self._dirty = True

    def _wake(self, ids, judged: bool = False) -> None:
        """Let held and parked pieces go (something touches them, or their support changes).

        Args:
            ids: the pieces.
            judged: they are still at rest (what a piece taken away or put elsewhere touched): the
                certification that follows judges them where they are, and holds again those the statics
                hold. Else they count as moving until they have rested ``tol.rest_window``.
        """
        self._unpark(ids, at_rest=judged)
        ids = sorted(set(ids) & self.held)
        if ids:
            self._let_go(ids)
            self.held -= set(ids)
            for i in ids:
                self._static_poses.pop(i, None)
            for i in ids:
                self._rest_since[i] = -np.inf if judged else self.time

    def _let_go(self, ids) -> None:
        """Static pieces made movable again, at rest; the next :data:`LET_GO_SINGLE` steps are single ones."""
        self.world.set_static(ids, False)
        self._stale = True
        self._single_until = self.world.steps + LET_GO_SINGLE

    def _neighbours(self, piece_id: str) -> set[str]:
        """What ``piece_id`` touched at the last certification (and what touches it now)."""
        near = set(self.certification.neighbours.get(piece_id, ())) if self.certification else set()
        near |= {j for j in self.world.contact_state(ids=[piece_id]).get(piece_id, (frozenset(), frozenset()))[0]
                 if j in self.world.bodies}
        return near

    def _mover_contacts(self, movers: set):
        """(mover, the held or parked piece it touches, distance in Bullet units) for each such contact point:
        read a mover at a time, or a static piece at a time when those are fewer (a Babylon bench struck has a
        hundred movers and a few held pieces left, and reading the movers' contacts read those among them)."""
        w = self.world
        still = self.held | self.parked
        if len(movers) <= len(still):
            for i in movers:
                for c in pb.getContactPoints(bodyA=w.bodies[i].uid, physicsClientId=w.client):
                    if w.name_of(c[2]) in still:
                        yield i, w.name_of(c[2]), c[8]
            return
        for j in sorted(still):
            for c in pb.getContactPoints(bodyA=w.bodies[j].uid, physicsClientId=w.client):
                if w.name_of(c[2]) in movers:
                    yield w.name_of(c[2]), j, c[8]

    def _touches(self) -> None:
        """Held and parked pieces touched by a moving or carried piece wake, with their neighbours."""
        if not self.held and not self.parked:
            return
        carried = set(self.carried()) | self.pulls.pieces()
        w = self.world
        awake = w.in_order((w.movable_ids - self.held - self.parked) | set(self.carried()))  # as ``moving``
        speeds = w.speeds(awake)
        movers = carried | {i for i, v in zip(awake, speeds) if v >= TOUCH_SPEED}
        if not movers:
            return
        pushing = carried | {i for i, v in zip(awake, speeds) if v >= self._touch_speed}
        below = self.certification.below if self.certification else {}
        gap = tol.touch_gap * self.world.settings.length_scale
        touched = set()
        for i, other, distance in self._mover_contacts(movers):
            if ((other in self.held or other in self.parked) and distance <= gap
                    and (i in pushing or i in below.get(other, ()))):
                touched.add(other)
        if touched:
            near = set().union(*(self._neighbours(i) for i in touched))
            self._wake(touched | near)

