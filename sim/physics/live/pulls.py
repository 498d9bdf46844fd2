"""Pulls: a spring from a point of a piece to a point in space, as MuJoCo's viewer perturbs a body.

A pull is a linear spring with a damper between a point fixed to a piece (in the piece's own frame) and a
target point in the world, applied at that point every step: the force ``k (target - p) - c v_p`` (``p`` the
point now, ``v_p`` its velocity), the damper critically damped for the piece's mass (``c = 2 sqrt(k m)``),
the whole force at most ``limit`` newtons. A force at a point off the centre of mass turns the piece as well:
pulled by a corner, a block swings round to hang below it. Unlike a hand (:mod:`.hands`), a pull holds
neither the orientation nor the weight: it is a disturbance, and what it moves moves under the simulation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.geometry.transforms import rotate
from sim.physics.bodies import pb


@dataclass(frozen=True)
class Pull:
    """One pull, as data.

    Attributes:
        piece: the piece pulled.
        point: (3,) the point pulled, in the piece's frame (m).
        target: (3,) where the spring's other end is, in the world (m).
        stiffness: the spring's stiffness (N/m).
        limit: the largest force it applies (N).
        player: who pulls, if known.
    """

    piece: str
    point: tuple[float, float, float]
    target: tuple[float, float, float]
    stiffness: float
    limit: float
    player: str | None = None


def check_pull(point, target, stiffness: float, limit: float) -> tuple[tuple, tuple, float, float]:
    """The pull's numbers, checked: two points (3,) and a positive stiffness and limit.

    Raises:
        ValueError: a point is not three finite numbers, or the stiffness or the limit not positive and finite.
    """
    out = []
    for name, v in (("point", point), ("target", target)):
        a = np.asarray(v, dtype=float)
        if a.shape != (3,) or not np.all(np.isfinite(a)):
            raise ValueError(f"pull {name}: expected 3 finite numbers (m), got {v!r}")
        out.append(tuple(float(x) for x in a))
    for name, v in (("stiffness", stiffness), ("limit", limit)):
        if not (np.isfinite(v) and v > 0):
            raise ValueError(f"pull {name}: expected a positive number, got {v!r}")
    return out[0], out[1], float(stiffness), float(limit)


def pull_force(pull: Pull, pose, velocity, com, mass: float) -> tuple[np.ndarray, np.ndarray]:
    """The force (3,) (N) a pull applies and where (3,) (m, world), for a piece at ``pose`` (7,) moving with
    ``velocity`` (6,): its centre of mass's linear velocity and its angular velocity (m/s, rad/s), its centre of
    mass ``com`` (3,) in its own frame (m), its ``mass`` (kg)."""
    pose = np.asarray(pose, dtype=float)
    q = pose[3:]
    at = pose[:3] + rotate(q, np.asarray(pull.point))
    centre = pose[:3] + rotate(q, np.asarray(com, dtype=float))
    v = np.asarray(velocity[:3], dtype=float) + np.cross(np.asarray(velocity[3:], dtype=float), at - centre)
    damping = 2.0 * np.sqrt(pull.stiffness * mass)
    force = pull.stiffness * (np.asarray(pull.target) - at) - damping * v
    n = float(np.linalg.norm(force))
    if n > pull.limit:
        force = force * (pull.limit / n)
    return force, at


class Pulls:
    """The pulls of a world: at most one a piece.

    Args:
        world: the :class:`~sim.physics.world.World`.
    """

    def __init__(self, world):
        self.world = world
        self._pulls: dict[str, Pull] = {}

    def __bool__(self) -> bool:
        return bool(self._pulls)

    def pieces(self) -> set[str]:
        """The pieces pulled now."""
        return set(self._pulls)

    def states(self) -> tuple[Pull, ...]:
        """Every pull as data, by piece."""
        return tuple(p for _, p in sorted(self._pulls.items()))

    def set(self, pull: Pull) -> None:
        """Start a pull, or move the one of its piece (another point, target, stiffness or limit)."""
        self._pulls[pull.piece] = pull

    def release(self, piece_id: str) -> Pull | None:
        """Stop the pull of ``piece_id``; the pull that was, or None."""
        return self._pulls.pop(piece_id, None)

    def restore(self, states) -> None:
        """Take up pulls from data (a snapshot)."""
        self._pulls = {p.piece: p for p in states}

    def apply(self) -> None:
        """Push every pulled piece for the coming step (forces last one step)."""
        w = self.world
        scale, client = w.settings.length_scale, w.client
        for pull in self._pulls.values():
            info = w.bodies[pull.piece]
            v, omega = pb.getBaseVelocity(info.uid, physicsClientId=client)
            velocity = np.concatenate([np.asarray(v) / scale, np.asarray(omega)])
            force, at = pull_force(pull, w.pose(pull.piece), velocity, info.com, info.mass)
            pb.applyExternalForce(info.uid, -1, list(force * scale), list(at * scale), pb.WORLD_FRAME,
                                  physicsClientId=client)
