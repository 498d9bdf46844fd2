"""Pieces in flight: a compound of many parts collides as its outline while it moves, exactly again once held.

Bullet's collision detection between two compounds tests every pair of their children whose boxes meet: a
Babylon tower (22 parts) against a bridge (33) costs hundreds of convex tests a step, and a bench of 140 such
pieces struck and settling spends most of its steps there, whether they tumble or barely move. A free piece of
more than :data:`FLIGHT_PARTS` children that has not come to rest (the live world's rest window) is one hull of
all its parts (``World.reshape``): the same mass and inertia, its outside the same, its hollows filled. The
statics never see the outline: they judge the piece's exact shape where it lies, and a piece they hold is made
exact again before it becomes a static body (what rests on it touches its exact shape). A piece at rest that the
statics cannot hold, though everything it touches was judged with it, is made exact too and goes on from there
(an outline may rest on its filled hollows, where the exact piece finds nothing). A piece is never made an
outline where the outline would reach into another body (a piece lying in its hollows), nor while it is
carried, pulled or shaken. A piece whose faces are face pyramids (vault blocks, voussoirs: there for exact
contacts, a joint's load carried over its whole face) takes its outline only while it falls fast
(:data:`FALL_SPEED`), and is exact again once it slows down to settle.

Measured in CPU seconds for the 2 s of ``tools/live_motion.py``'s ``babylon-struck`` (load 6-9, one run each):
5.5 s with exact compounds, 4.3-4.6 s with outlines (with ``rest.TOUCH_SPEED``'s rule); every piece a hull for
the whole run (the statics aside) took 2.7 s, which is as fast as outlines can make it.
"""

from __future__ import annotations

from sim.physics.live.rest import LET_GO_SINGLE

FLIGHT_PARTS = 4
"""A piece of more convex parts than this flies as its outline (a Babylon noble of 3 keeps its parts)."""

FALL_SPEED = 0.1
"""A piece whose faces are face pyramids (a vault block, a voussoir) takes its outline, its one hull, only while
some point of it moves faster than this (m/s): falling, not settling (the pyramids are there so that Bullet
carries a joint's load over its whole face: a woken vault held up on whole hulls sags)."""

MANY, PYRAMIDS = "many", "pyramids"
"""The two kinds of pieces that fly as their outlines (``Flights._kind``)."""

RETRY_FRAMES = 6
"""A piece whose outline would reach into another body is asked again after this many frames."""


class Flights:
    """Which pieces fly as their outlines (a part of :class:`~sim.physics.live.LiveWorld`)."""

    def __init__(self, live):
        self.live = live
        self.flying: set[str] = set()
        self._refused: dict[str, int] = {}  # piece -> the frame before which it is not asked again
        self._frames = 0
        self._kinds: dict[str, str | None] = {}  # piece id -> how it flies (``_kind``)

    def clear(self) -> None:
        """Every body was made afresh, exactly (a restore): nothing flies."""
        self.flying.clear()
        self._refused.clear()

    def discard(self, piece_id: str) -> None:
        """A piece gone from the world."""
        self.flying.discard(piece_id)
        self._refused.pop(piece_id, None)

    def land(self, ids, held: bool = False) -> list[str]:
        """Make these pieces exact again (those that fly); returns those made exact. ``held``: they are made
        static bodies at once (no single steps for them)."""
        lw = self.live
        landed = sorted(set(ids) & self.flying)
        for i in landed:
            lw.world.reshape(i, outline=False)
            self.flying.discard(i)
        if landed and not held:  # Bullet has none of their contacts yet (as for pieces let go: ``rest._let_go``)
            lw._stale = True
            lw._single_until = lw.world.steps + LET_GO_SINGLE
        return landed

    def update(self, ids: list[str]) -> None:
        """Once a frame, for the free pieces ``ids`` (not carried, pulled, held or parked): those of many parts
        that have not come to rest take their outlines; those whose faces are face pyramids take theirs while
        they fall (faster than :data:`FALL_SPEED`) and are exact again once slower than the settle speed."""
        lw = self.live
        self._frames += 1
        kinds = [self._kind(i) for i in ids]
        pyramids = [i for i, k in zip(ids, kinds) if k == PYRAMIDS]
        speeds = dict(zip(pyramids, lw.world.speeds(pyramids))) if pyramids else {}
        self.land([i for i in pyramids if i in self.flying and speeds[i] < lw._settle_speed])
        if lw._shake is not None:
            return
        rising = [i for i, k in zip(ids, kinds) if k and i not in self.flying
                  and self._refused.get(i, 0) <= self._frames
                  and (speeds[i] > FALL_SPEED if k == PYRAMIDS else not lw._rested(i))]
        for i in rising:
            if lw.world.reshape(i, outline=True):
                self.flying.add(i)
                self._refused.pop(i, None)
            else:
                self._refused[i] = self._frames + RETRY_FRAMES

    def judged(self, unheld, unsettled) -> None:
        """After a certification: the pieces flying that rest where the statics cannot hold them, though all
        they touch was judged too (none of it still settling), land, so that their exact shapes take it from
        there (an outline may rest on its filled hollows, where the exact piece finds nothing)."""
        lw = self.live
        for i in sorted(self.flying & set(unheld)):
            touching = lw.world.contact_state(ids=[i]).get(i, (frozenset(), frozenset()))[0]
            if not touching & unsettled:
                self.land([i])

    def _kind(self, piece_id: str) -> str | None:
        """:data:`MANY` (more than :data:`FLIGHT_PARTS` whole parts), :data:`PYRAMIDS` (faces held as face
        pyramids) or None (flies as it is)."""
        known = self._kinds.get(piece_id, False)
        if known is False:
            from sim.physics.children import plan

            children = plan(self.live.world.piece(piece_id).shape, self.live.world.settings)
            known = self._kinds[piece_id] = (PYRAMIDS if any(c.pyramid for c in children)
                                             else MANY if len(children) > FLIGHT_PARTS else None)
        return known
