"""A world's full state, taken and given back bit for bit, and a restore made ahead of time.

:meth:`State.set_state` resets the engine and makes every body afresh, the
pieces at the state's poses, in the order a new world makes them: Bullet keeps
contact caches, the order it solves contacts in, its broadphase tree and a
world-frame inertia that a pose reset does not refresh, so only a fresh engine
makes what follows depend on the state alone. Making 140 bodies of a Babylon
city costs about 0.4 s of CPU, most of it inside pybullet (each convex part's
hull and separating-axis features), and none of it can be kept across an engine
reset. So a world can also **prepare** a restore (:meth:`State.prepare`): the
same steps, run a little at a time on a second pybullet client while the world
goes on; a ``set_state`` of that very state then takes the prepared engine
whole (the clients are swapped), and costs nothing; a world keeps up to
:data:`PREPARED` of them. Both ways run the same steps from an empty engine, so
they give the same world, bit for bit.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from sim.physics.bodies import pb
from sim.physics.seating import prime_contacts
from sim.scene import Scene


@dataclass(frozen=True, eq=False)
class WorldState:
    """Everything a world needs to go on exactly from here (dm_control's ``get_state``).

    Attributes:
        scene: the pieces as they stand now (their poses the current ones), in the world's order.
        velocities: (n, 6) linear (m/s) and angular (rad/s) velocity per piece, scene order.
        asleep: ids of the sleeping pieces.
        time: simulated time (s); ``steps``: steps taken.
        probe: (acceleration in g, direction in degrees or None when it turns).
        precision: the solver's (residual velocity m/s, iterations) or None for the settings' own.
    """

    scene: Scene
    velocities: np.ndarray
    asleep: tuple[str, ...]
    time: float
    steps: int
    probe: tuple[float, float | None]
    precision: tuple[float, int] | None = None


@dataclass(eq=False)
class _Prepared:
    """A restore under way, or done, on a world of its own (its own pybullet client).

    Attributes:
        world: the world it is made on.
        state: the state it restores (None: an idle client, kept for the next one).
        steps: what is left to do.
        ready: all of it is done.
    """

    world: object
    state: WorldState | None = None
    steps: Iterator[None] | None = None
    ready: bool = False


PREPARED = 2
"""Restores a world keeps made ahead at most, each on a pybullet client of its own (a viewer's next undo and
next redo)."""


class State:
    """The state part of :class:`~sim.physics.world.World` (a mixin): get, set, and prepare a set ahead."""

    def get_state(self) -> WorldState:
        """The full state: pieces and poses, velocities, who sleeps, time, probe and solver precision."""
        now = self.poses()
        pieces = self.scene.pieces
        same = (np.all(now == self.scene.poses(), axis=1) if len(pieces) else np.zeros(0, dtype=bool)).tolist()
        scene = self.scene.with_pieces(p if still else p.moved(row[:3], row[3:])  # a piece that stayed: itself
                                       for p, row, still in zip(pieces, now, same))
        return WorldState(scene, self.velocities(), tuple(self.asleep()), self.time, self.steps, self._probe,
                          self._precision)

    def set_state(self, state: WorldState) -> None:
        """Go back (or on) to a state from :meth:`get_state`, of this world or another built alike.

        The engine is reset and every body made afresh (see the module docstring): the same state and the
        same steps give the same poses, bit for bit. A restore of ``state`` made ready by :meth:`prepare`
        is taken as it is.
        """
        for ahead in self._ahead():
            if ahead.state is state and ahead.ready:
                self._swap(ahead)
                return
        for _ in self._restoring(state):
            pass

    def prepare(self, state: WorldState, budget: float | None = None) -> bool:
        """Make a coming ``set_state(state)`` free: its work, done now, within ``budget`` wall seconds a call.

        The restore is made on a pybullet client of its own while this world goes on unchanged; call again
        (with the same state object) until it returns True. At most :data:`PREPARED` are kept: preparing
        another state takes the place of the one asked for longest ago. A world that puts its pieces to
        sleep itself (``settings.sleeping``) prepares nothing.

        Args:
            state: a state from :meth:`get_state` (the very object a later ``set_state`` is given).
            budget: wall seconds to spend in this call (None: as long as it takes).

        Returns:
            Whether the restore is ready.
        """
        if self._sleep is not None:
            return False  # its sleep bookkeeping belongs to this world
        deadline = None if budget is None else time.perf_counter() + budget
        slots = self._ahead()
        ahead = next((a for a in slots if a.state is state), None)
        if ahead is None:
            ahead = next((a for a in slots if a.state is None), None)
            if ahead is None:
                ahead = _Prepared(self._bare()) if len(slots) < PREPARED else slots[0]
            else:
                slots.remove(ahead)
            if ahead in slots:
                slots.remove(ahead)
            ahead.state, ahead.steps, ahead.ready = state, ahead.world._restoring(state), False
            slots.append(ahead)
        else:  # the one asked for last is kept longest
            slots.remove(ahead)
            slots.append(ahead)
        if ahead.ready:
            return True
        for _ in ahead.steps:
            if deadline is not None and time.perf_counter() >= deadline:
                return False
        ahead.ready = True
        return True

    @property
    def prepared(self) -> tuple[WorldState, ...]:
        """The states whose restore is ready (:meth:`prepare`)."""
        return tuple(a.state for a in self._ahead() if a.ready)

    def _ahead(self) -> list[_Prepared]:
        """The restores made ahead (or under way), the one asked for longest ago first."""
        return self.__dict__.setdefault("_prepared", [])

    def _bare(self):
        """A world of the same settings on a new client, with no bodies yet (for :meth:`prepare`)."""
        spare = object.__new__(type(self))
        spare.__dict__.update(settings=self.settings, _scale=self._scale, _sleep=None, source=self.source,
                              sleep_window=self.sleep_window, _cid=pb.connect(pb.DIRECT))
        return spare

    def _swap(self, ahead: _Prepared) -> None:
        """Become the prepared world (its client and bodies); this world's old client waits for the next."""
        spare = ahead.world
        mine = {k: v for k, v in self.__dict__.items() if k != "_prepared"}
        self.__dict__.update({k: v for k, v in spare.__dict__.items() if k != "_prepared"})
        spare.__dict__.clear()
        spare.__dict__.update(mine)
        ahead.state, ahead.steps, ahead.ready = None, None, False

    def _restoring(self, state: WorldState) -> Iterator[None]:
        """The steps of a restore of ``state`` on this world's client, a body or so at a time."""
        pb.resetSimulation(physicsClientId=self._cid)  # the broadphase too: nothing of the past survives
        self._names = {}
        self._static = set()
        self._outlined = {}  # every body made afresh, exactly (``World.reshape``)
        self.time, self.steps = state.time, state.steps
        self._probe = state.probe
        self.scene = state.scene  # its board: the world's own (a state of this world or of one built alike)
        self._configure()
        self._add_ground()
        yield
        yield from self._building(state.scene.pieces)
        from sim.contact import find_interfaces

        interfaces = find_interfaces(state.scene) if self.settings.prime_depth and state.scene.pieces else None
        yield
        prime_contacts(self, state.scene, interfaces)
        for i, v in zip(self.ids, state.velocities):
            self._set_velocity(self.bodies[i], v)
        self.time, self.steps = state.time, state.steps
        self._probe = state.probe
        self.set_precision(*(state.precision or (self.settings.residual_velocity, self.settings.solver_iterations)))
        self._precision = state.precision
        self.refresh_gravity()
        if self._sleep is not None:
            self._sleep.follow()
            self._sleep.put_to_sleep(state.asleep)
        self.rebase_energy()

    def close_prepared(self) -> None:
        """Drop the restores made ahead and their clients."""
        slots = self.__dict__.pop("_prepared", [])
        for ahead in slots:
            ahead.world.close()
