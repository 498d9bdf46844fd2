"""Hands: a piece carried by a force that pulls it towards a target pose, with a force limit.

A hand is a critically damped spring on the piece's centre of mass and
orientation towards the target pose (natural frequency ``HAND_RATE``), which
also carries the piece's weight, limited to ``strength`` times that weight
(and the torque to that force at the piece's reach): the piece follows the
target as long as nothing resists it harder than that, so a careless hand
pushes what it runs into, knocks a tower over, or stalls against a wall;
what rests on the carried piece is simulated like anything else, and comes
along or slides off. (pybullet's constraints between a rigid body and the
world take no force limit, so the hand applies its force itself, every step.)
"""

from __future__ import annotations

import numpy as np

from sim.physics.bodies import GRAVITY, pb
from sim.physics.live.records import Grip

DEFAULT_STRENGTH = 10.0
"""A hand's force limit in weights of the piece it carries: it lifts and swings it briskly (10 g), and
pushes a tower of ten such pieces over."""

HAND_RATE = 30.0
"""The hand's natural frequency (rad/s): it closes on its target within about 0.15 s, without overshoot;
30 × 1/480 s keeps the explicit spring well inside its stable range."""


class Hands:
    """The hands of a world: who carries what, and the constraints that do it.

    Args:
        world: the :class:`~sim.physics.world.World`.
    """

    def __init__(self, world):
        self.world = world
        self._grips: dict[str, Grip] = {}
        self._aims: dict[str, tuple] = {}  # hand -> its grip, the piece's body and what they aim at (_aim)

    @property
    def busy(self) -> bool:
        """Some hand carries a piece."""
        return bool(self._grips)

    def carried(self) -> dict[str, str]:
        """piece id -> the hand carrying it."""
        return {state.piece: name for name, state in self._grips.items()}

    def states(self) -> tuple[Grip, ...]:
        """Every grip as data, by hand name."""
        return tuple(state for _, state in sorted(self._grips.items()))

    def state(self, name: str) -> Grip | None:
        """The grip of hand ``name``, or None when it is empty."""
        return self._grips.get(name)

    def grab(self, name: str, piece_id: str, target=None, strength: float = DEFAULT_STRENGTH,
             player: str | None = None) -> Grip:
        """Hand ``name`` takes ``piece_id``, pulling it towards ``target`` (7,) (default: where it is).

        Raises:
            ValueError: the hand is full, the piece is carried already, fixed, or the strength not positive.
        """
        if name in self._grips:
            raise ValueError(f"hand {name!r} already carries {self._grips[name].piece!r}")
        if piece_id in self.carried():
            raise ValueError(f"piece {piece_id!r} is carried by hand {self.carried()[piece_id]!r} already")
        info = self.world.bodies[piece_id]
        if info.fixed:
            raise ValueError(f"piece {piece_id!r} is fixed")
        if not (np.isfinite(strength) and strength > 0):
            raise ValueError(f"hand strength: expected a positive number of weights, got {strength!r}")
        target = self.world.pose(piece_id) if target is None else np.asarray(target, dtype=float)
        state = Grip(name, piece_id, target.copy(), float(strength), player)
        self._grips[name] = state
        return state

    def move(self, name: str, target) -> Grip:
        """Pull hand ``name``'s piece towards a new target pose (7,).

        Raises:
            KeyError: the hand is empty.
        """
        state = self._grips[name]
        state = Grip(name, state.piece, np.asarray(target, dtype=float).copy(), state.strength, state.player)
        self._grips[name] = state
        return state

    def release(self, name: str) -> Grip:
        """Hand ``name`` lets go: the piece goes on with the velocity it has.

        Raises:
            KeyError: the hand is empty.
        """
        return self._grips.pop(name)

    def drop_piece(self, piece_id: str) -> Grip | None:
        """Let go of ``piece_id`` if a hand carries it (it is being removed)."""
        name = self.carried().get(piece_id)
        return None if name is None else self.release(name)

    def restore(self, states) -> None:
        """Take up grips from data (a snapshot), the bodies having been made afresh."""
        self._grips.clear()
        for s in states:
            self.grab(s.name, s.piece, s.target, s.strength, s.player)

    def _aim(self, state: Grip, info) -> tuple[np.ndarray, tuple, float]:
        """What a grip pulls its piece to, kept while the grip and the piece's body are the same: the goal of
        its centre of mass (3,), the principal axes' goal orientation (x, y, z, w) and the force limit (N)."""
        kept = self._aims.get(state.name)
        if kept is None or kept[0] is not state or kept[1] is not info:
            target_q = state.target[3:]
            goal = state.target[:3] + _rotate(target_q, info.com)
            aim = tuple(_multiply(target_q, info.principal).tolist())
            kept = self._aims[state.name] = (state, info, goal, aim, state.strength * info.mass * GRAVITY)
        return kept[2:]

    def apply(self) -> None:
        """Push every carried piece towards its target for the coming step (forces last one step)."""
        w = self.world
        scale, client = w.settings.length_scale, w.client
        gravity = w.gravity
        for state in self._grips.values():
            info = w.bodies[state.piece]
            (p, q), (v, omega) = (pb.getBasePositionAndOrientation(info.uid, physicsClientId=client),
                                  pb.getBaseVelocity(info.uid, physicsClientId=client))
            centre, vel = np.asarray(p) / scale, np.asarray(v) / scale
            goal, aim, limit = self._aim(state, info)
            accel = HAND_RATE**2 * (goal - centre) - 2.0 * HAND_RATE * vel - gravity
            force = _clamped(info.mass * accel, limit)
            turn = _rotvec(_multiply(aim, _conjugate(q)))
            spin = HAND_RATE**2 * turn - 2.0 * HAND_RATE * np.asarray(omega)
            axes = _matrix(q)
            torque = _clamped(axes @ (info.inertia * (axes.T @ spin)), limit * info.reach)
            pb.applyExternalForce(info.uid, -1, list(force * scale), list(centre * scale), pb.WORLD_FRAME,
                                  physicsClientId=client)
            pb.applyExternalTorque(info.uid, -1, list(torque * scale * scale), pb.WORLD_FRAME,
                                   physicsClientId=client)


def _multiply(a, b) -> np.ndarray:
    """Quaternion product a b (xyzw; b applied first)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def _conjugate(q: np.ndarray) -> np.ndarray:
    return np.array([-q[0], -q[1], -q[2], q[3]])


def _rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """v turned by the unit quaternion q."""
    return _multiply(_multiply(q, np.array([*v, 0.0])), _conjugate(q))[:3]


def _rotvec(q: np.ndarray) -> np.ndarray:
    """The rotation vector (axis times angle, rad, the short way round) of a unit quaternion."""
    q = q if q[3] >= 0 else -q
    s = float(np.linalg.norm(q[:3]))
    if s < 1e-12:  # below double precision's reach of arctan: the small-angle form is exact there
        return 2.0 * q[:3]
    return q[:3] * (2.0 * np.arctan2(s, q[3]) / s)


def _matrix(q: np.ndarray) -> np.ndarray:
    """(3, 3) rotation matrix of a unit quaternion xyzw."""
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def _clamped(v: np.ndarray, limit: float) -> np.ndarray:
    """``v`` shortened to at most ``limit`` long."""
    n = float(np.linalg.norm(v))
    return v if n <= limit or n == 0.0 else v * (limit / n)
