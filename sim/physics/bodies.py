"""Pieces as pybullet bodies: the engine import, the inertial frame, loading a piece's compound and its material.

Each piece becomes one rigid body whose collision shape is a compound of
exactly its catalogue's convex parts, with the catalogue's mass, centre of
mass and inertia (principal axes as the inertial frame). Bullet counts
lengths in units of ``1 / settings.length_scale`` metres; this module takes
SI and converts.
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation

from sim.geometry.solids import box
from sim.physics.children import Child, file_of, plan, scale_of, swollen
from sim.physics.hulls import body_file, face_corners, hull_file, remember
from sim.physics.settings import PhysicsSettings
from sim.pieces import PieceShape


def _quiet_import():
    """Import pybullet without the build-time line it prints on stderr (the CLI's stderr is for errors)."""
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        import pybullet
        return pybullet
    sys.stderr.flush()
    saved = os.dup(fd)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
        import pybullet
    finally:
        os.dup2(saved, fd)
        os.close(saved)
        os.close(devnull)
    return pybullet


pb = _quiet_import()

GRAVITY = 9.81
"""Standard gravity (m/s²)."""

HULL_MARGIN = 0.001
"""pybullet's collision margin on every convex hull (Bullet units; 1 µm in a millimetre world, 1 mm in metres):
contact distances count it twice, so the overlap check adds it back."""

GOLDEN = 0.6180339887498949
"""Fractional part of the golden ratio: spreads the bodies' narrowing so that no two get the same."""


@dataclass(frozen=True)
class BodyInfo:
    """What the world knows about one piece's body.

    Attributes:
        id: the piece id.
        uid: pybullet body id.
        mass: kg (0 for fixed pieces).
        com: (3,) centre of mass in the piece frame (m).
        principal: (4,) xyzw rotation from the principal axes to the piece frame.
        inertia: (3,) principal moments (kg m²).
        fixed: a static piece.
        start_quat: (4,) its orientation when the body was made; poses keep the quaternion's sign near it.
        corners: (8, 3) corners of its bounding box in Bullet's frame of the body (centre of mass,
            principal axes), metres.
        reach: the farthest corner of its bounding box from its centre of mass (m).
        shrink: the narrowing its body was made with (``PhysicsSettings.shrink``; a body made again keeps it).
    """

    id: str
    uid: int
    mass: float
    com: np.ndarray
    principal: np.ndarray
    inertia: np.ndarray
    fixed: bool
    start_quat: np.ndarray
    corners: np.ndarray
    reach: float
    shrink: float = 0.0


def principal_frame(inertia: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments and the rotation from the principal axes to the body axes.

    Args:
        inertia: (3, 3) symmetric inertia tensor (kg m²).

    Returns:
        moments (3,) and quaternion (4,) xyzw whose rotation matrix has the
        principal axes as columns (a proper rotation).
    """
    moments, axes = np.linalg.eigh(0.5 * (inertia + inertia.T))
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]
    return moments, Rotation.from_matrix(axes).as_quat()


_FRAMES: dict = {}
"""(id of a catalogue shape, mass) -> (shape, moments, principal quaternion): a scene of 5000 cubes needs
the eigen-decomposition of one tensor, not of 10 000 (the shape is kept, so its id stays its own)."""


def principal_frame_of(shape: PieceShape, mass: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`principal_frame` of ``shape``'s inertia scaled to ``mass`` kg, computed once per shape and mass."""
    key = (id(shape), float(mass))
    hit = _FRAMES.get(key)
    if hit is None or hit[0] is not shape:
        hit = _FRAMES[key] = (shape, *principal_frame(shape.inertia * (mass / shape.mass)))
    return hit[1], hit[2]


def shrink_of(settings: PhysicsSettings, k: int) -> float:
    """The k-th body's narrowing: between 1 and 2 times ``settings.shrink``, spread by the
    golden ratio so that no two bodies get the same (``PhysicsSettings.shrink``)."""
    return settings.shrink * (1.0 + (k * GOLDEN) % 1.0)


_OUTLINES: dict = {}
"""(id of a catalogue shape, settings that cut it) -> (shape, its outline child): :func:`outline_child`, once."""


def outline_child(shape: PieceShape, settings: PhysicsSettings) -> Child:
    """One child holding the convex hull of all of ``shape``'s parts (its outline: a compound's concavities
    filled), for a body that stands for the piece while it flies (``sim.physics.live.flight``)."""
    import trimesh

    key = (id(shape), settings.length_scale, settings.sat, settings.sat_corners)
    hit = _OUTLINES.get(key)
    if hit is None or hit[0] is not shape:
        points = np.vstack([p.vertices for p in shape.parts])
        centre = (points.min(axis=0) + points.max(axis=0)) / 2
        hull = trimesh.convex.convex_hull(points)
        child = Child((hull.vertices - centre) * settings.length_scale, hull.faces, centre * settings.length_scale,
                      np.array([0.0, 0.0, 0.0, 1.0]), settings.sat and face_corners(hull) <= settings.sat_corners,
                      False)
        hit = remember(_OUTLINES, key, (shape, child))
    return hit[1]


def load_shape(client: int, settings: PhysicsSettings, shape: PieceShape, pos, quat, mass: float,
               shrink: float, outline: bool = False) -> int:
    """Load one body: its compound of children (:mod:`sim.physics.children`: whole parts narrowed by
    ``shrink`` across the world's vertical, face pyramids narrowed within their faces), and the inertia of
    ``mass`` kg (0: static) in principal axes. With ``outline``, its collision shape is one child, the hull of
    all its parts (:func:`outline_child`), narrowed alike; its mass and inertia are the piece's.

    Args:
        client: the pybullet client.
        settings: the world's settings.
        shape: the catalogue piece (or board slab).
        pos: (3,) position of the piece frame (m).
        quat: (4,) its orientation, xyzw.
        mass: kg; 0 for a static body.
        shrink: relative narrowing (``PhysicsSettings.shrink``).

    Returns:
        The pybullet body id.
    """
    s = settings.length_scale
    up = Rotation.from_quat(quat).inv().apply([0.0, 0.0, 1.0])
    squeeze = np.where(np.abs(up) < np.sqrt(0.5), 1.0 - shrink, 1.0)  # axes near the vertical keep their length
    children = [outline_child(shape, settings)] if outline else plan(shape, settings, shrink)
    arrayed = len(children) <= settings.array_parts
    if not arrayed:  # loaded from a URDF file: see ``swell``
        children = [swollen(c, settings.swell * s * up**2) for c in children]
    files = [file_of(c) for c in children]
    passes = 1 if arrayed else 2  # a URDF body's hulls are computed twice (sim.physics.exact)
    scales = [scale_of(c, f, squeeze, passes) for c, f in zip(children, files)]
    moments, principal = principal_frame_of(shape, mass)
    base = list(np.asarray(pos, dtype=float) * s)
    if arrayed:
        shape_id = pb.createCollisionShapeArray(
            [pb.GEOM_MESH] * len(children), fileNames=files,
            collisionFramePositions=[list(c.position) for c in children],
            collisionFrameOrientations=[list(c.quat) for c in children], meshScales=[list(x) for x in scales],
            flags=[pb.URDF_INITIALIZE_SAT_FEATURES if c.sat else 0 for c in children], physicsClientId=client)
        uid = pb.createMultiBody(
            mass, shape_id, basePosition=base, baseOrientation=list(quat),
            baseInertialFramePosition=list(shape.com * s), baseInertialFrameOrientation=list(principal),
            useMaximalCoordinates=True, physicsClientId=client)
        if mass > 0:
            pb.changeDynamics(uid, -1, mass=mass, localInertiaDiagonal=list(moments * s * s), physicsClientId=client)
        return uid
    with warnings.catch_warnings():  # a gimbal-locked principal frame still converts exactly
        warnings.simplefilter("ignore", UserWarning)
        rpy = Rotation.from_quat(principal).as_euler("xyz")
        turns = [Rotation.from_quat(c.quat).as_euler("xyz") for c in children]
    flags = pb.URDF_USE_INERTIA_FROM_FILE | (pb.URDF_INITIALIZE_SAT_FEATURES if all(c.sat for c in children) else 0)
    parts = [(f, c.position, t, x) for f, c, t, x in zip(files, children, turns, scales)]
    return pb.loadURDF(body_file(parts, mass, shape.com * s, rpy, moments * s * s),
                       basePosition=base, baseOrientation=list(quat), useMaximalCoordinates=True,
                       useFixedBase=mass == 0.0, flags=flags, physicsClientId=client)


def load_table(client: int, settings: PhysicsSettings, top: float) -> int:
    """The table: a static slab of ``settings.table_size`` with its top at height ``top`` (m).

    A convex hull, not Bullet's plane: against a plane a box gets one new contact point a step
    (its deepest corner), so a piece set down exactly on it rocks on one corner for its first
    steps; against a hull it gets its whole face at once, as on a board or a fixed piece.
    """
    s = settings.length_scale
    half, depth = settings.table_size / 2, settings.table_size / 20
    corners = box([-half, -half, -depth], [half, half, 0.0])
    shape_id = pb.createCollisionShapeArray([pb.GEOM_MESH], fileNames=[hull_file(corners * s)],
                                            collisionFramePositions=[[0.0, 0.0, 0.0]], meshScales=[[1.0, 1.0, 1.0]],
                                            flags=[pb.URDF_INITIALIZE_SAT_FEATURES if settings.sat else 0],
                                            physicsClientId=client)
    return pb.createMultiBody(0.0, shape_id, basePosition=[0.0, 0.0, top * s], useMaximalCoordinates=True,
                              physicsClientId=client)


def body_info(piece, uid: int, shrink: float = 0.0) -> BodyInfo:
    """The world's record of ``piece`` loaded as body ``uid`` (narrowed by ``shrink``)."""
    shape = piece.shape
    moments, principal = principal_frame_of(shape, piece.mass)
    if piece.fixed:  # Bullet keeps a static body's centre of mass but not its principal axes' turn
        principal = np.array([0.0, 0.0, 0.0, 1.0])
    corners = (shape.box_corners - shape.com) @ Rotation.from_quat(principal).as_matrix()
    return BodyInfo(piece.id, uid, 0.0 if piece.fixed else piece.mass, shape.com.copy(), principal, moments,
                    piece.fixed, np.asarray(piece.quat, dtype=float), corners,
                    float(np.linalg.norm(np.abs(shape.bounds - shape.com).max(axis=0))), shrink)


def place_body(client: int, scale: float, info: BodyInfo, pose) -> None:
    """Put a piece's body at a piece-frame pose (7,): position (m) and quaternion xyzw (Bullet holds the
    body by its centre of mass, turned to its principal axes)."""
    pose = np.asarray(pose, dtype=float)
    rot = Rotation.from_quat(pose[3:])
    centre = pose[:3] + rot.apply(info.com)
    quat = (rot * Rotation.from_quat(info.principal)).as_quat()
    pb.resetBasePositionAndOrientation(info.uid, list(centre * scale), list(quat), physicsClientId=client)


def set_material(client: int, settings: PhysicsSettings, uid: int, friction: float, restitution: float,
                 movable: bool) -> None:
    """Give a body its friction and restitution, and the engine's damping, anchors and sleeping state.

    Bullet multiplies the two bodies' coefficients: each gets the square root of its own,
    so that a contact's coefficient is the geometric mean (``sim.contact.contact_friction``).
    Static bodies are inactive, as Bullet means static bodies to be: nothing is computed
    between them and a sleeping piece resting on them (see :mod:`sim.physics.sleep`).
    """
    kwargs = {}
    if settings.configure_engine:
        kwargs = dict(linearDamping=settings.damping, angularDamping=settings.damping,
                      frictionAnchor=int(settings.friction_anchors), rollingFriction=0.0, spinningFriction=0.0)
        if movable and not settings.sleeping:
            kwargs["activationState"] = pb.ACTIVATION_STATE_DISABLE_SLEEPING
        elif not movable:
            kwargs["activationState"] = pb.ACTIVATION_STATE_SLEEP
    pb.changeDynamics(uid, -1, lateralFriction=float(np.sqrt(friction)), restitution=float(np.sqrt(restitution)),
                      physicsClientId=client, **kwargs)
