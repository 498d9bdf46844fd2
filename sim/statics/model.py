"""The rigid-block equilibrium system of a scene: bodies, contact points, loads, force columns.

Every non-fixed piece is a rigid body with six equations (force and moment
about its centre of mass). Contact forces act at the vertices of the
interface polygons (both ends of a segment contact, the point of a point
contact): compression along the interface normal, friction in its plane.
A force is a non-negative combination of *generators* ``n + μ e`` for unit
tangents ``e``: any finite set of them spans a pyramid inscribed in the
Coulomb cone, and the solver adds generators until the pyramid is as good as
the cone (column generation, :mod:`sim.statics.solve`).

Units are scaled for the LP: forces by the mean piece weight, moments by that
weight times a length scale (the median piece size), so that every number
the solver sees is of order one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from statistics import median

import numpy as np

from sim.contact import Interface, board_friction, contact_friction, plane_basis
from sim.geometry.hull2d import hull_indices
from sim.geometry.transforms import rotation_matrices
from sim.graphs import component_labels
from sim.names import BOARD
from sim.tol import tol

G = 9.80665  # standard gravity (m/s²)


@dataclass(frozen=True, eq=False)
class Equilibrium:
    """The equilibrium equations of a scene's movable pieces.

    Attributes:
        bodies: ids of the non-fixed pieces, in scene order; body i owns rows 6i..6i+5.
        mass: (b,) kg.
        com: (b, 3) world centres of mass (m).
        points: (p, 3) contact points (m).
        normals: (p, 3) unit normals at the points, from the lower body ``below`` into ``above``.
        tangents: (p, 2, 3) an orthonormal basis of each point's contact plane,
            taken from the upper piece's own axes so that it turns with the scene.
        mu: (p,) Coulomb coefficient at each point.
        below, above: (p,) body index of the two sides, -1 for the board or a fixed piece.
        interface: (p,) index of the interface each point belongs to.
        length: length scale (m) of the moment rows.
        weight: force scale (N).
    """

    bodies: tuple[str, ...]
    mass: np.ndarray
    com: np.ndarray
    points: np.ndarray
    normals: np.ndarray
    tangents: np.ndarray
    mu: np.ndarray
    below: np.ndarray
    above: np.ndarray
    interface: np.ndarray
    length: float
    weight: float

    @cached_property
    def supports(self) -> np.ndarray:
        """(p,) whether each contact point is a support: its normal within ``tol.support_angle`` of vertical."""
        return self.normals[:, 2] >= math.cos(tol.support_angle)

    def sides(self, bodies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Whether each contact point's upper and its lower body is among ``bodies``.

        Args:
            bodies: (b,) or (c, b) body masks (a support, the board or a fixed piece, is never among them).

        Returns:
            (..., p) for the upper sides, and for the lower.
        """
        return ((self.above >= 0) & bodies[..., np.maximum(self.above, 0)],
                (self.below >= 0) & bodies[..., np.maximum(self.below, 0)])

    @property
    def num_rows(self) -> int:
        """Equations: six per body."""
        return 6 * len(self.bodies)

    def gravity_load(self) -> np.ndarray:
        """(6b,) right-hand side: contact forces must carry each body's weight (scaled)."""
        rhs = np.zeros(self.num_rows)
        rhs[2::6] = self.mass * G / self.weight
        return rhs

    def horizontal_load(self, axis: int) -> np.ndarray:
        """(6b,) column of a uniform horizontal acceleration of 1 g along x (0) or y (1).

        With this column times α added to the contact forces, the equations
        read: contact forces + weight + α · (weight, horizontally) = 0, i.e.
        each body is pushed along the axis by α times its own weight.
        """
        col = np.zeros(self.num_rows)
        col[axis::6] = self.mass * G / self.weight
        return col

    def force_rows(self, point: np.ndarray, direction: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unit forces (scaled) along ``direction`` at contact points, one row each: the transposed columns.

        Args:
            point: (k,) contact point indices.
            direction: (k, 3) force on the upper body (the lower body gets its opposite).

        Returns:
            The (k, ≥ ``num_rows``) rows as CSR arrays ``(data, indices, indptr)``, each row's
            indices ascending: row j holds generator j's force and moment in its bodies' six columns.
        """
        k = len(point)
        index = np.zeros((k, 2, 6), dtype=np.int64)
        value = np.zeros((k, 2, 6))
        live = np.zeros((k, 2, 6), dtype=bool)
        for s, (side, sign) in enumerate(((self.above, 1.0), (self.below, -1.0))):
            body = side[point]
            force = sign * direction
            index[:, s] = 6 * body[:, None] + np.arange(6)
            value[:, s, :3] = force
            value[:, s, 3:] = cross((self.points[point] - self.com[np.maximum(body, 0)]) / self.length, force)
            live[:, s] = (body >= 0)[:, None]
        swap = self.above[point] > self.below[point]  # the lower-numbered body's columns first
        index[swap], value[swap], live[swap] = index[swap, ::-1], value[swap, ::-1], live[swap, ::-1]
        indptr = np.zeros(k + 1, dtype=np.int64)
        np.cumsum(live.reshape(k, -1).sum(axis=1), out=indptr[1:])
        return value[live], index[live], indptr

    def point_duals(self, duals: np.ndarray) -> np.ndarray:
        """(p, 3) for row duals y: the vector w with ``force_rows([i], [f]) · y = w_i · f``."""
        y = duals.reshape(-1, 6)
        w = np.zeros((len(self.points), 3))
        for side, sign in ((self.above, 1.0), (self.below, -1.0)):
            live = np.flatnonzero(side >= 0)
            b = side[live]
            r = (self.points[live] - self.com[b]) / self.length
            # (r × f) · m = f · (m × r)
            w[live] += sign * (y[b, :3] + cross(y[b, 3:], r))
        return w

    def generators(self, point: np.ndarray, tangent: np.ndarray) -> np.ndarray:
        """(k, 3) friction-cone generators ``n + μ e`` at points for unit tangents ``e`` (k, 3)."""
        return self.normals[point] + self.mu[point, None] * tangent

    def structures(self) -> list[np.ndarray]:
        """The independent structures: groups of bodies joined by contacts between movable bodies.

        Bodies touch each other only through their group, so each group's
        equilibrium is a problem of its own. Returns sorted body index arrays,
        ordered by their first body.
        """
        n = len(self.bodies)
        if n == 0:
            return []
        both = (self.below >= 0) & (self.above >= 0)
        label = component_labels(n, self.below[both], self.above[both])  # numbered by each group's first body
        order = np.argsort(label, kind="stable")  # bodies grouped, each group in body order
        return np.split(order, np.flatnonzero(np.diff(label[order])) + 1)

    def ungrounded(self, removed: np.ndarray | None = None) -> np.ndarray:
        """Bodies that no chain of contacts joins to the board or a fixed piece, those ``removed`` left out.

        Such a group cannot be held by any forces (contacts among its own bodies sum to nothing, and gravity
        pulls it down), so every body of it needs help whatever the rest does: the peel takes them out at
        once, and nothing they touch is held or let go by it (they touch nothing grounded).

        Args:
            removed: (b,) bool, bodies taken out (their contacts carry nothing); None for none.

        Returns:
            Sorted body indices (not removed) of every group without a grounded contact.
        """
        n = len(self.bodies)
        gone = np.zeros(n, dtype=bool) if removed is None else removed
        lower, upper = self.below >= 0, self.above >= 0
        live = ~(lower & gone[np.maximum(self.below, 0)]) & ~(upper & gone[np.maximum(self.above, 0)])
        both = live & lower & upper
        label = component_labels(n, self.below[both], self.above[both])
        touch = live & (lower ^ upper)  # a body against the board or a fixed piece
        grounded = np.zeros(label.max() + 1 if n else 0, dtype=bool)
        grounded[label[np.where(lower, self.below, self.above)[touch]]] = True
        return np.flatnonzero(~grounded[label] & ~gone)

    def subset(self, bodies: np.ndarray) -> Equilibrium:
        """The equilibrium of a structure (body indices closed under contact): its bodies and contact points.

        Scales (``length``, ``weight``) stay those of the whole scene, so that
        tolerances mean the same in every structure.
        """
        whole = len(bodies) == len(self.bodies) and np.array_equal(bodies, np.arange(len(self.bodies)))
        if whole and np.all((self.below >= 0) | (self.above >= 0)):
            return self  # one structure of every body: itself (it is frozen)
        index = np.full(len(self.bodies), -1)
        index[bodies] = np.arange(len(bodies))
        lower = np.where(self.below >= 0, index[np.maximum(self.below, 0)], -1)
        upper = np.where(self.above >= 0, index[np.maximum(self.above, 0)], -1)
        keep = (lower >= 0) | (upper >= 0)
        return Equilibrium(tuple(self.bodies[i] for i in bodies), self.mass[bodies], self.com[bodies],
                           self.points[keep], self.normals[keep], self.tangents[keep], self.mu[keep], lower[keep],
                           upper[keep], self.interface[keep], self.length, self.weight)


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cross products of two (k, 3) arrays (``np.cross`` without its overhead)."""
    return np.column_stack([a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1], a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
                            a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]])


def equilibrium(scene, interfaces: list[Interface]) -> Equilibrium:
    """Compile the equilibrium system of a scene's non-fixed pieces from its interfaces.

    Interfaces between two supports (the board, fixed pieces) carry nothing and are left out.
    """
    pieces = {p.id: p for p in scene.pieces}
    bodies = tuple(p.id for p in scene.pieces if not p.fixed)
    index = {b: i for i, b in enumerate(bodies)}
    rank = {p.id: i for i, p in enumerate(scene.pieces)}
    poses = scene.poses()
    rots = rotation_matrices(poses[:, 3:7]) if len(poses) else np.zeros((0, 3, 3))
    moving = [rank[b] for b in bodies]
    shapes = {p.id: p.shape for p in scene.pieces}  # each looked up once (the catalogue freezes the params per call)
    mass = np.array([pieces[b].mass for b in bodies])
    local_com = np.array([shapes[b].com for b in bodies]).reshape(-1, 3)
    com = np.einsum("bij,bj->bi", rots[moving], local_com) + poses[moving, :3] if bodies else np.zeros((0, 3))
    mu_board = board_friction(scene)
    kept, used = _merged([(k, f) for k, f in enumerate(interfaces) if f.a in index or f.b in index])
    counts = np.array([len(f.polygon) for f in used], dtype=int)
    if not used:
        empty = np.zeros((0, 3))
        return Equilibrium(bodies, mass, com, empty, empty, np.zeros((0, 2, 3)), np.zeros(0), np.zeros(0, int),
                           np.zeros(0, int), np.zeros(0, int), _length(list(shapes.values())), _weight(mass))
    normals = np.array([f.normal for f in used])
    own = {b: p.friction_coefficient for b, p in pieces.items()}  # one shape look-up per piece, not per contact
    own[BOARD] = mu_board
    mu = np.array([contact_friction(own[f.a], own[f.b]) for f in used])
    tangents = _tangents(normals, rots[[rank[f.b] for f in used]])
    owner = np.repeat(np.arange(len(used)), counts)
    return Equilibrium(
        bodies, mass, com, np.vstack([f.polygon for f in used]), normals[owner], tangents[owner], mu[owner],
        np.repeat([index.get(f.a, -1) for f in used], counts), np.repeat([index.get(f.b, -1) for f in used], counts),
        kept[owner], _length(list(shapes.values())), _weight(mass))


def _merged(indexed: list) -> tuple[np.ndarray, list[Interface]]:
    """Coplanar interfaces between the same two pieces as one: the convex hull of their union.

    Compression spread over any contact set can put its resultant anywhere in
    the set's convex hull, and nowhere else: the hull's vertices carry exactly
    the same forces and moments as all the pieces of the set (a tower's wall
    ring on another tower acts like the full square). Thin-walled pieces touch
    over many small polygons; merged, their LP is a fraction of the size.

    Args:
        indexed: (index in the scene's interface list, interface) pairs.

    Returns:
        (g,) the first index of each group, and the groups' interfaces.
    """
    groups: dict[tuple, list] = {}
    if indexed:
        normals = np.array([f.normal for _, f in indexed], dtype=float).reshape(-1, 3)
        offsets = np.einsum("ij,ij->i", normals, np.array([f.polygon[0] for _, f in indexed], dtype=float))
        planes = np.column_stack([np.round(normals, 6), np.round(offsets / tol.coplanar)]).tolist()
        for (k, f), plane in zip(indexed, planes):
            groups.setdefault((f.a, f.b, *plane), []).append((k, f))
    first, out = [], []
    for members in groups.values():
        first.append(members[0][0])
        if len(members) == 1:
            out.append(members[0][1])
            continue
        f = members[0][1]
        pts = np.vstack([m.polygon for _, m in members])
        out.append(Interface(f.a, f.b, -1, -1, f.normal, _hull_in_plane(pts, f.normal),
                             float(sum(m.area for _, m in members))))
    return np.array(first, dtype=int), out


_HULLS: dict[bytes, np.ndarray] = {}
HULLS_KEPT = 8192
"""Merged contact hulls kept from one equilibrium to the next: a live world's verdicts (and a pick's two
certifications) meet the same resting contacts again and again."""


def _hull_in_plane(points: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """The convex hull's vertices of points lying in a plane (counter-clockwise about ``normal``); (k, 3),
    read-only. The same points and normal give the same hull: it is kept (:data:`HULLS_KEPT`)."""
    points = np.ascontiguousarray(points, dtype=float)
    normal = np.ascontiguousarray(normal, dtype=float)
    key = points.tobytes() + normal.tobytes()
    hull = _HULLS.get(key)
    if hull is None:
        hull = points[hull_indices(points @ plane_basis(normal).T)]  # all on a line: its two ends
        hull.setflags(write=False)
        if len(_HULLS) >= HULLS_KEPT:
            _HULLS.clear()
        _HULLS[key] = hull
    return hull


def _length(shapes: list) -> float:
    """The length scale of the moment rows: the median size (m) of the pieces' shapes (one per piece)."""
    size: dict[int, float] = {}  # per distinct shape object: most scenes repeat a few kinds
    for s in shapes:
        if id(s) not in size:
            size[id(s)] = float(np.max(s.extent))
    return float(median(size[id(s)] for s in shapes)) if shapes else 1.0


def _weight(mass: np.ndarray) -> float:
    """The force scale: the mean weight of the movable pieces (N)."""
    return float(mass.mean() * G) if len(mass) else 1.0


def _tangents(normals: np.ndarray, rots: np.ndarray) -> np.ndarray:
    """(k, 2, 3) orthonormal tangents of contact planes: the upper piece's x (else y) axis projected in.

    Args:
        normals: (k, 3) unit normals.
        rots: (k, 3, 3) rotation matrices of the upper pieces.
    """
    out = []
    for axis in (0, 1):
        t = rots[:, :, axis] - np.einsum("ij,ij->i", rots[:, :, axis], normals)[:, None] * normals
        out.append(t)
    x, y = out
    size = np.linalg.norm(x, axis=1)
    t1 = np.where((size > 0.5)[:, None], x, y)
    t1 /= np.linalg.norm(t1, axis=1)[:, None]
    return np.stack([t1, cross(normals, t1)], axis=1)
