"""The Panda3D scene graph of a scene: one node per piece, addressed by id, and the board.

Geometry is uploaded once per piece kind (:class:`GeomLibrary`) and instanced
under every piece of that kind. Poses come in as the project's (n, 7) arrays,
xyz metres + quaternion xyzw; this is the one place they become Panda3D's
(w, x, y, z) quaternions.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from panda3d.core import (
    BitMask32,
    Geom,
    GeomNode,
    GeomTriangles,
    GeomVertexArrayFormat,
    GeomVertexData,
    GeomVertexFormat,
    InternalName,
    LQuaternionf,
    LVecBase3f,
    LVecBase4f,
    NodePath,
)

from sim.names import BOARD
from sim.pieces.model import PieceShape
from sim.render.looks import DECAL_FINISH, finish, grain_seed
from sim.render.surfaces import Surface, piece_surfaces
from sim.tol import tol

MAIN_MASK = BitMask32.bit(0)  # seen by the picture's camera
SHADOW_MASK = BitMask32.bit(1)  # seen by the light's camera: what casts shadows
ID_MASK = BitMask32.bit(2)  # seen by the camera of the id pass: pieces and the board


def _vertex_format() -> GeomVertexFormat:
    array = GeomVertexArrayFormat()
    array.add_column(InternalName.get_vertex(), 3, Geom.NT_float32, Geom.C_point)
    array.add_column(InternalName.get_normal(), 3, Geom.NT_float32, Geom.C_normal)
    array.add_column(InternalName.get_color(), 4, Geom.NT_float32, Geom.C_color)
    return GeomVertexFormat.register_format(GeomVertexFormat(array))


def geom_node(name: str, positions, normals, colors) -> GeomNode:
    """A node drawing unindexed triangles.

    Args:
        name: the node's name.
        positions: (3t, 3) float, metres.
        normals: (3t, 3) float unit normals.
        colors: (3t, 4) float RGBA 0..1.
    """
    rows = np.hstack([positions, normals, colors]).astype(np.float32)
    data = GeomVertexData(name, _vertex_format(), Geom.UH_static)
    data.unclean_set_num_rows(len(rows))
    data.modify_array_handle(0).copy_data_from(np.ascontiguousarray(rows))
    triangles = GeomTriangles(Geom.UH_static)
    triangles.add_next_vertices(len(rows))
    geom = Geom(data)
    geom.add_primitive(triangles)
    node = GeomNode(name)
    node.add_geom(geom)
    return node


class GeomLibrary:
    """Uploaded geometry per piece kind: each shape's surfaces become GeomNodes once."""

    def __init__(self):
        self._nodes: dict[PieceShape, tuple[tuple[Surface, NodePath], ...]] = {}  # shapes hash by identity

    def surfaces(self, shape: PieceShape) -> tuple[tuple[Surface, NodePath], ...]:
        """(surface, unparented node) pairs of a shape: the body, then the decals in print order."""
        if shape not in self._nodes:
            self._nodes[shape] = tuple(
                (s, NodePath(geom_node(f"{shape.name}:{s.name}", s.positions, s.normals, s.colors)))
                for s in piece_surfaces(shape))
        return self._nodes[shape]


def is_box(shape: PieceShape) -> bool:
    """Whether a piece is a plain box (one part: the eight corners of its bounding box)."""
    if len(shape.parts) != 1 or len(shape.parts[0].vertices) != 8:
        return False
    v = shape.parts[0].vertices
    lo, hi = shape.bounds
    return bool(np.all(np.isclose(v, lo, atol=tol.merge) | np.isclose(v, hi, atol=tol.merge)))


def _dress(node: NodePath, surface: Surface, shape: PieceShape, seed, decal_lift: float) -> str:
    """Give a surface node its material's shader inputs; decals print on top and cast no shadow.

    Returns:
        The surface's pattern (``grain``, ``mottle`` or ``plain``).
    """
    look = DECAL_FINISH if surface.layer else finish(shape.material.name)
    node.set_shader_input("u_finish", LVecBase4f(*look.as_vec4()))
    node.set_shader_input("u_grain", LVecBase4f(seed[0], seed[1], seed[2], look.sheen))
    half = shape.extent / 2.0
    node.set_shader_input("u_bevel", LVecBase4f(*half, 1.0) if is_box(shape) else LVecBase4f(0, 0, 0, 0))
    if surface.layer:
        node.set_depth_offset(surface.layer)
        node.set_z(surface.layer * decal_lift)
        node.hide(SHADOW_MASK)
    return look.pattern


class SceneGraph:
    """A scene as Panda3D nodes under :attr:`root`, with poses that can change and pieces that come and go.

    Attributes:
        scene: the scene it was built from (its pieces and poses are the initial ones).
        root: the node to attach under a renderer's root.
        nodes: piece id -> the piece's node, in the order of the pose rows.
        board: the board's node, or None for the endless table.

    Args:
        scene: the scene.
        library: the geometry cache of the renderer.
        decal_lift: height (m) by which each decal layer is raised above the
            face it is printed on, for renderers that ignore depth offsets.
        shade: called as ``shade(node, pattern, support)`` for every surface node made (now and
            when a piece is added): the renderer gives it its shader. ``pattern`` is ``grain``,
            ``mottle`` or ``plain``; ``support`` says whether things stand on it (the board).
    """

    def __init__(self, scene, library: GeomLibrary, decal_lift: float = 0.0,
                 shade: Callable[[NodePath, str, bool], None] | None = None):
        self.scene = scene
        self._library = library
        self._decal_lift = decal_lift
        self._shade = shade
        self.root = NodePath("scene")
        self.nodes: dict[str, NodePath] = {}
        self._pieces: dict[str, object] = {}
        self._row: dict[str, int] = {}  # piece id -> its row of the pose array
        self._edited = False  # pieces were added or removed since the scene
        b = scene.board_info
        self.board = None
        if b.shape is not None:
            self.board = self._build(BOARD, b.shape, support=True)
            self.board.set_pos(*b.pos)
        for piece in scene.pieces:
            self._attach(piece)
        self._poses = scene.poses().copy()
        self.set_poses(self._poses)

    def _build(self, name: str, shape: PieceShape, support: bool) -> NodePath:
        node = self.root.attach_new_node(name)
        seed = grain_seed(name)
        for surface, proto in self._library.surfaces(shape):
            child = node.attach_new_node(f"{name}:{surface.name}")
            proto.instance_to(child)
            pattern = _dress(child, surface, shape, seed, self._decal_lift)
            if self._shade is not None:
                self._shade(child, pattern, support)
        return node

    def _attach(self, piece) -> NodePath:
        node = self._build(piece.id, piece.shape, support=False)
        self._row[piece.id] = len(self.nodes)
        self.nodes[piece.id] = node
        self._pieces[piece.id] = piece
        return node

    @property
    def ids(self) -> list[str]:
        """Piece ids in the order of the pose rows."""
        return list(self.nodes)

    def poses(self) -> np.ndarray:
        """(n, 7) float: the current poses, xyz (m) + quaternion xyzw, in :attr:`ids` order."""
        return self._poses.copy()

    def set_poses(self, poses) -> None:
        """Move every piece.

        Args:
            poses: (n, 7) float, xyz (m) + quaternion xyzw, rows in :attr:`ids` order.

        Raises:
            ValueError: wrong shape.
        """
        arr = np.asarray(poses, dtype=float)
        if arr.shape != (len(self.nodes), 7):
            raise ValueError(f"expected poses of shape ({len(self.nodes)}, 7), got {arr.shape}")
        for node, row in zip(self.nodes.values(), arr):
            _place(node, row)
        self._poses = arr.copy()

    def set_pose(self, piece_id: str, pose) -> None:
        """Move one piece to ``pose`` (7,): xyz (m) + quaternion xyzw.

        Raises:
            KeyError: no such piece.
            ValueError: not 7 numbers.
        """
        row = np.asarray(pose, dtype=float)
        if row.shape != (7,):
            raise ValueError(f"expected a pose of 7 numbers, got shape {row.shape}")
        _place(self.nodes[piece_id], row)
        self._poses[self._row[piece_id]] = row

    def add_piece(self, piece) -> None:
        """Add a piece (a :class:`~sim.scene.Piece`) at its own pose; its row goes last.

        Raises:
            ValueError: a piece of that id is already there.
        """
        if piece.id in self.nodes:
            raise ValueError(f"piece {piece.id!r} is already in the scene graph")
        node = self._attach(piece)
        row = np.array([*piece.pos, *piece.quat], dtype=float)
        _place(node, row)
        self._poses = np.vstack([self._poses.reshape(-1, 7), row])
        self._edited = True

    def remove_piece(self, piece_id: str) -> None:
        """Remove a piece; the rows after it move up by one.

        Raises:
            KeyError: no such piece.
        """
        row = self._row.pop(piece_id)
        self.nodes.pop(piece_id).remove_node()
        del self._pieces[piece_id]
        self._poses = np.delete(self._poses, row, axis=0)
        for pid, r in self._row.items():
            if r > row:
                self._row[pid] = r - 1
        self._edited = True

    def current_scene(self):
        """The scene with the current pieces and poses."""
        scene = self.scene.with_pieces(self._pieces.values()) if self._edited else self.scene
        return scene.with_poses(self._poses) if len(self._poses) else scene


def _place(node: NodePath, row: np.ndarray) -> None:
    x, y, z, qx, qy, qz, qw = (float(v) for v in row)
    node.set_pos_quat(LVecBase3f(x, y, z), LQuaternionf(qw, qx, qy, qz))
